/*
 * pmix_tool.h - the PMIx tool API: calls for programs that are not
 * started by a PMIx host (debuggers, launchers, monitoring commands) and
 * find a server on their own, plus the IO forwarding calls.
 *
 * Part of pmix_cpp, a from-scratch PMIx implementation that is ABI
 * compatible with OpenPMIx 4.2.2 (libpmix.so.2). Prototypes and callback
 * types are exactly those of OpenPMIx 4.2.2; "Std x.y" refers to the PMIx
 * Standard v4.2, chapter 17 (Tools and Debuggers). A tool may also use
 * every client call in pmix.h once PMIx_tool_init has succeeded.
 */

#ifndef PMIx_TOOL_API_H
#define PMIx_TOOL_API_H

#include <pmix.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif


/* ==========================================================================
 * Tool-specific APIs (Std 17.5)
 * ========================================================================== */

/* Std 17.5.1: initialize as a tool and (unless told not to) connect to a
 * server found through the attributes in info (Std 17.1). proc receives
 * the tool's identity. */
PMIX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc,
                                         pmix_info_t info[], size_t ninfo);

/* Std 17.5.2: close every server connection and shut the tool side down. */
PMIX_EXPORT pmix_status_t PMIx_tool_finalize(void);

/* Std 17.5.4: connect to one more server (chosen as in PMIx_tool_init);
 * server receives its identity. */
PMIX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
                                                     pmix_info_t info[], size_t ninfo);

/* Std 17.5.3: close the connection to one server. */
PMIX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server);

/* Std 17.5.5: the servers we are connected to, primary first; *servers is
 * a malloc'd array. */
PMIX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers);

/* Std 17.5.6: make an already attached server the primary one (the target
 * of all later requests). */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server,
                                               pmix_info_t info[], size_t ninfo);


/* ==========================================================================
 * IO forwarding (Std 17.3, 17.5.7 - 17.5.9)
 * ========================================================================== */

/* Std 17.5.7: receives forwarded output: which registration (iofhdlr)
 * it belongs to, the channel, the producing proc and the bytes. All
 * arguments are owned by the library and valid only during the call. */
typedef void (*pmix_iof_cbfunc_t)(size_t iofhdlr, pmix_iof_channel_t channel,
                                  pmix_proc_t *source, pmix_byte_object_t *payload,
                                  pmix_info_t info[], size_t ninfo);

/* Std 17.5.7: ask for the given output channel(s) of procs to be
 * forwarded to cbfunc; regcbfunc reports the registration id. */
PMIX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                                        pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata);

/* Std 17.5.8: stop a forwarding registration made by PMIx_IOF_pull. */
PMIX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 17.5.9: send bo's bytes to the stdin of targets (or, with
 * PMIX_IOF_PUSH_STDIN, keep forwarding our own stdin); cbfunc only means
 * bo may be released, not that the data arrived. */
PMIX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                        pmix_byte_object_t *bo,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_TOOL_API_H */
