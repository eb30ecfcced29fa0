/*
 * pmix_server.h - the PMIx server API: calls a host environment (resource
 * manager daemon, launcher) makes into the PMIx library, and the upcall
 * table (pmix_server_module_t) through which the library calls the host.
 *
 * Part of pmix_cpp, a from-scratch PMIx implementation that is ABI
 * compatible with OpenPMIx 4.2.2 (libpmix.so.2). Prototypes, callback
 * types and the layout of pmix_server_module_t are exactly those of
 * OpenPMIx 4.2.2; sections cited as "Std x.y" refer to the PMIx Standard
 * v4.2, chapter 16 (Server-Specific Interfaces) unless noted.
 *
 * Upcall conventions (Std 16.3): every slot of pmix_server_module_t may be
 * NULL, meaning the host does not support that operation. An upcall that
 * returns PMIX_SUCCESS promises to call its cbfunc exactly once (possibly
 * before the upcall returns, from any thread); PMIX_OPERATION_SUCCEEDED
 * means the work is done and cbfunc will not be called; any error means
 * cbfunc will not be called. Data handed to an upcall is owned by the
 * library and stays valid until cbfunc is called.
 */

#ifndef PMIx_SERVER_API_H
#define PMIx_SERVER_API_H

#include <pmix_common.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif


/* ==========================================================================
 * Host upcalls (Std 16.3), in the order they occupy pmix_server_module_t
 * ========================================================================== */

/* Std 16.3.2: a local client finished connecting (called from its
 * PMIx_Init); server_object is the pointer given at register_client. */
typedef pmix_status_t (*pmix_server_client_connected_fn_t)(const pmix_proc_t *proc, void* server_object,
                                                           pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.3: same as client_connected, with extra information about the
 * client. Preferred over client_connected when both are set. */
typedef pmix_status_t (*pmix_server_client_connected2_fn_t)(const pmix_proc_t *proc, void* server_object,
                                                            pmix_info_t info[], size_t ninfo,
                                                            pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.4: a local client called PMIx_Finalize (or disconnected). */
typedef pmix_status_t (*pmix_server_client_finalized_fn_t)(const pmix_proc_t *proc, void* server_object,
                                                           pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.5: a local client asked to abort procs (NULL = its namespace). */
typedef pmix_status_t (*pmix_server_abort_fn_t)(const pmix_proc_t *proc, void *server_object,
                                                int status, const char msg[],
                                                pmix_proc_t procs[], size_t nprocs,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.6: all local participants of a fence have arrived; data holds
 * this node's contribution. The host completes the fence across nodes and
 * returns everyone's data through the modex callback. */
typedef pmix_status_t (*pmix_server_fencenb_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  char *data, size_t ndata,
                                                  pmix_modex_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.7: a local client wants the data of a remote proc; the host
 * fetches it from that proc's server (direct modex). */
typedef pmix_status_t (*pmix_server_dmodex_req_fn_t)(const pmix_proc_t *proc,
                                                     const pmix_info_t info[], size_t ninfo,
                                                     pmix_modex_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.8: store data a client published. */
typedef pmix_status_t (*pmix_server_publish_fn_t)(const pmix_proc_t *proc,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.9: look up published keys (NULL-terminated list). */
typedef pmix_status_t (*pmix_server_lookup_fn_t)(const pmix_proc_t *proc, char **keys,
                                                 const pmix_info_t info[], size_t ninfo,
                                                 pmix_lookup_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.10: delete published keys. */
typedef pmix_status_t (*pmix_server_unpublish_fn_t)(const pmix_proc_t *proc, char **keys,
                                                    const pmix_info_t info[], size_t ninfo,
                                                    pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.11: launch a new job on behalf of proc. */
typedef pmix_status_t (*pmix_server_spawn_fn_t)(const pmix_proc_t *proc,
                                                const pmix_info_t job_info[], size_t ninfo,
                                                const pmix_app_t apps[], size_t napps,
                                                pmix_spawn_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.12: all local participants called PMIx_Connect; the host
 * completes it across nodes. */
typedef pmix_status_t (*pmix_server_connect_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.13: all local participants called PMIx_Disconnect. */
typedef pmix_status_t (*pmix_server_disconnect_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                     const pmix_info_t info[], size_t ninfo,
                                                     pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.14: clients want to hear about these event codes from the host. */
typedef pmix_status_t (*pmix_server_register_events_fn_t)(pmix_status_t *codes, size_t ncodes,
                                                          const pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.15: clients no longer need these event codes. */
typedef pmix_status_t (*pmix_server_deregister_events_fn_t)(pmix_status_t *codes, size_t ncodes,
                                                            pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.16: a client raised an event whose range reaches beyond this
 * node; the host delivers it. */
typedef pmix_status_t (*pmix_server_notify_event_fn_t)(pmix_status_t code,
                                                       const pmix_proc_t *source,
                                                       pmix_data_range_t range,
                                                       pmix_info_t info[], size_t ninfo,
                                                       pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.17: the host calls this for every connection it accepts on a
 * listening socket it took over from the library. */
typedef void (*pmix_connection_cbfunc_t)(int incoming_sd, void *cbdata);

/* Std 16.3.17: offer the host the library's listening socket; returning
 * PMIX_SUCCESS means the host will accept() on it and hand each new
 * socket to cbfunc. */
typedef pmix_status_t (*pmix_server_listener_fn_t)(int listening_sd,
                                                   pmix_connection_cbfunc_t cbfunc,
                                                   void *cbdata);

/* Std 16.3.18: answer queries the library could not answer itself. */
typedef pmix_status_t (*pmix_server_query_fn_t)(pmix_proc_t *proct,
                                                pmix_query_t *queries, size_t nqueries,
                                                pmix_info_cbfunc_t cbfunc,
                                                void *cbdata);

/* Std 16.3.19: the host reports the identity it assigned to a tool (or an
 * error refusing it). */
typedef void (*pmix_tool_connection_cbfunc_t)(pmix_status_t status,
                                              pmix_proc_t *proc, void *cbdata);

/* Std 16.3.19: a tool asked to connect; the host assigns its identity via
 * cbfunc. Returns void as in OpenPMIx 4.2.2 (the Standard says
 * pmix_status_t since 2.0; 6.0 adds tool_connection2). */
typedef void (*pmix_server_tool_connection_fn_t)(pmix_info_t *info, size_t ninfo,
                                                 pmix_tool_connection_cbfunc_t cbfunc,
                                                 void *cbdata);

/* Std 16.3.20: a client asked the host to log data. Returns void as in
 * OpenPMIx 4.2.2; completion is always reported through cbfunc. */
typedef void (*pmix_server_log_fn_t)(const pmix_proc_t *client,
                                     const pmix_info_t data[], size_t ndata,
                                     const pmix_info_t directives[], size_t ndirs,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.21: a client made an allocation request. */
typedef pmix_status_t (*pmix_server_alloc_fn_t)(const pmix_proc_t *client,
                                                pmix_alloc_directive_t directive,
                                                const pmix_info_t data[], size_t ndata,
                                                pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.22: a client made a job-control request. */
typedef pmix_status_t (*pmix_server_job_control_fn_t)(const pmix_proc_t *requestor,
                                                      const pmix_proc_t targets[], size_t ntargets,
                                                      const pmix_info_t directives[], size_t ndirs,
                                                      pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.23: a client asked for monitoring (or sent a heartbeat). */
typedef pmix_status_t (*pmix_server_monitor_fn_t)(const pmix_proc_t *requestor,
                                                  const pmix_info_t *monitor, pmix_status_t error,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.24: a client wants a credential. */
typedef pmix_status_t (*pmix_server_get_cred_fn_t)(const pmix_proc_t *proc,
                                                   const pmix_info_t directives[], size_t ndirs,
                                                   pmix_credential_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.25: a client wants a credential checked. */
typedef pmix_status_t (*pmix_server_validate_cred_fn_t)(const pmix_proc_t *proc,
                                                        const pmix_byte_object_t *cred,
                                                        const pmix_info_t directives[], size_t ndirs,
                                                        pmix_validation_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.27: a tool wants the given output channels of procs forwarded
 * to this server (delivered back with PMIx_server_IOF_deliver). */
typedef pmix_status_t (*pmix_server_iof_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_iof_channel_t channels,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.28: forward stdin data from source to the targets' stdin. */
typedef pmix_status_t (*pmix_server_stdin_fn_t)(const pmix_proc_t *source,
                                                const pmix_proc_t targets[], size_t ntargets,
                                                const pmix_info_t directives[], size_t ndirs,
                                                const pmix_byte_object_t *bo,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.29: the local participants of a group operation (construct or
 * destruct) have all arrived; the host completes it across nodes. */
typedef pmix_status_t (*pmix_server_grp_fn_t)(pmix_group_operation_t op, char grp[],
                                              const pmix_proc_t procs[], size_t nprocs,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.30: a fabric request (register/update) the library forwards. */
typedef pmix_status_t (*pmix_server_fabric_fn_t)(const pmix_proc_t *requestor,
                                                 pmix_fabric_operation_t op,
                                                 const pmix_info_t directives[], size_t ndirs,
                                                 pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 16.3.1: the host's upcall table, passed to PMIx_server_init. The
 * order and the struct tag are ABI: new slots are only ever appended
 * (28 pointers, 224 bytes on LP64). */
typedef struct pmix_server_module_4_0_0_t {
    /* slots since PMIx v1 */
    pmix_server_client_connected_fn_t   client_connected;
    pmix_server_client_finalized_fn_t   client_finalized;
    pmix_server_abort_fn_t              abort;
    pmix_server_fencenb_fn_t            fence_nb;
    pmix_server_dmodex_req_fn_t         direct_modex;
    pmix_server_publish_fn_t            publish;
    pmix_server_lookup_fn_t             lookup;
    pmix_server_unpublish_fn_t          unpublish;
    pmix_server_spawn_fn_t              spawn;
    pmix_server_connect_fn_t            connect;
    pmix_server_disconnect_fn_t         disconnect;
    pmix_server_register_events_fn_t    register_events;
    pmix_server_deregister_events_fn_t  deregister_events;
    pmix_server_listener_fn_t           listener;
    /* slots since PMIx v2 */
    pmix_server_notify_event_fn_t       notify_event;
    pmix_server_query_fn_t              query;
    pmix_server_tool_connection_fn_t    tool_connected;
    pmix_server_log_fn_t                log;
    pmix_server_alloc_fn_t              allocate;
    pmix_server_job_control_fn_t        job_control;
    pmix_server_monitor_fn_t            monitor;
    /* slots since PMIx v3 */
    pmix_server_get_cred_fn_t           get_credential;
    pmix_server_validate_cred_fn_t      validate_credential;
    pmix_server_iof_fn_t                iof_pull;
    pmix_server_stdin_fn_t              push_stdin;
    /* slots since PMIx v4 */
    pmix_server_grp_fn_t                group;
    pmix_server_fabric_fn_t             fabric;
    pmix_server_client_connected2_fn_t  client_connected2;
} pmix_server_module_t;


/* ==========================================================================
 * Server initialization and finalization (Std 16.1)
 * ========================================================================== */

/* Std 16.1.1: start the server side of the library with the host's upcall
 * table (may be NULL); the table is copied. */
PMIX_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module,
                                           pmix_info_t info[], size_t ninfo);

/* Std 16.1.2: shut the server down and drop all clients. */
PMIX_EXPORT pmix_status_t PMIx_server_finalize(void);


/* ==========================================================================
 * Server support functions (Std 16.2)
 * ========================================================================== */

/* Std 16.2.1: compress a comma-separated node list into a regex string
 * (pass the result as PMIX_NODE_MAP). */
PMIX_EXPORT pmix_status_t PMIx_generate_regex(const char *input, char **regex);

/* Std 16.2.2: compress a per-node rank list (nodes separated by ';',
 * ranks by ',') into a string for PMIX_PROC_MAP. */
PMIX_EXPORT pmix_status_t PMIx_generate_ppn(const char *input, char **ppn);

/* Std 16.2.3: describe a job (nlocalprocs of its procs run here) to the
 * library so its clients can be served. */
PMIX_EXPORT pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace, int nlocalprocs,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.4: forget a job and everything stored for it. */
PMIX_EXPORT void PMIx_server_deregister_nspace(const pmix_nspace_t nspace,
                                               pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.7: authorize a local client; server_object is handed back in
 * upcalls concerning it. */
PMIX_EXPORT pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc,
                                                      uid_t uid, gid_t gid,
                                                      void *server_object,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.8: forget a local client. */
PMIX_EXPORT void PMIx_server_deregister_client(const pmix_proc_t *proc,
                                               pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.9: add to the NULL-terminated *env the variables a client
 * needs to find this server; call before fork/exec of the client. */
PMIX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env);

/* Std 16.2.10: delivers the data requested by PMIx_server_dmodex_request;
 * data is owned by the library. */
typedef void (*pmix_dmodex_response_fn_t)(pmix_status_t status,
                                          char *data, size_t sz,
                                          void *cbdata);

/* Std 16.2.10: the host asks for the data this server holds for a local
 * proc (to answer another node's direct modex). */
PMIX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                     pmix_dmodex_response_fn_t cbfunc,
                                                     void *cbdata);

/* Std 16.2.11: delivers the launch-time data setup_application gathered;
 * the host calls cbfunc(cbdata) once it is done with info. */
typedef void (*pmix_setup_application_cbfunc_t)(pmix_status_t status,
                                                pmix_info_t info[], size_t ninfo,
                                                void *provided_cbdata,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.11: on the launching node, collect what every node will need
 * to support a new job (fabric endpoints, environment, ...). */
PMIX_EXPORT pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace,
                                                        pmix_info_t info[], size_t ninfo,
                                                        pmix_setup_application_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.13: on each node, consume what setup_application produced,
 * before the job's local procs start. */
PMIX_EXPORT pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace,
                                                          pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.14: hand forwarded output from source to the tools that asked
 * for it. */
PMIX_EXPORT pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
                                                  pmix_iof_channel_t channel,
                                                  const pmix_byte_object_t *bo,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.15: gather this node's resource inventory. */
PMIX_EXPORT pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
                                                        pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.16: give the library inventory gathered elsewhere. */
PMIX_EXPORT pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
                                                        pmix_info_t directives[], size_t ndirs,
                                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 16.2.12: declare which attributes the host supports for function
 * (attrs is a NULL-terminated list), for attribute queries. */
PMIX_EXPORT pmix_status_t PMIx_Register_attributes(char *function, char *attrs[]);

/* Std 16.2.17: locality string for a cpuset (pass as PMIX_LOCALITY_STRING). */
PMIX_EXPORT pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
                                                               char **locality);

/* Std 16.2.18: cpuset string for a cpuset (pass as PMIX_CPUSET). */
PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
                                                             char **cpuset_string);

/* Std 16.2.19: create a named process set. */
PMIX_EXPORT pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members,
                                                         size_t nmembers, const char *pset_name);

/* Std 16.2.20: remove a named process set. */
PMIX_EXPORT pmix_status_t PMIx_server_delete_process_set(char *pset_name);

/* Std 16.2.5: describe resources not tied to one job (node or fabric
 * information, ...). */
PMIX_EXPORT pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
                                                         pmix_op_cbfunc_t cbfunc,
                                                         void *cbdata);

/* Std 16.2.6: withdraw resources registered with register_resources. */
PMIX_EXPORT pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
                                                           pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_SERVER_API_H */
