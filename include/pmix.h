/*
 * pmix.h - the PMIx client API (everything a process started by a PMIx
 * host, or a tool, may call).
 *
 * Part of pmix_cpp, a from-scratch PMIx implementation that is ABI
 * compatible with OpenPMIx 4.2.2 (libpmix.so.2). Every prototype below has
 * the same name, return type and parameter types as in OpenPMIx 4.2.2, so a
 * program compiled against either header runs against either library.
 * Types, constants, attribute keys and callback types shared by all roles
 * come from pmix_common.h; server-only calls are in pmix_server.h and
 * tool-only calls in pmix_tool.h.
 *
 * Functions are grouped by the chapter of the PMIx Standard (v4.2) that
 * defines them; "Std 5.3" means section 5.3 of that document. Calls that
 * the Standard does not (yet) define are marked "OpenPMIx extension".
 *
 * General conventions (Std 3): arrays are passed as (pointer, count);
 * anything returned through an out-parameter is heap memory the caller
 * releases with free() or the matching *_destruct / *_FREE helper. A
 * non-blocking "_nb" call that returns PMIX_SUCCESS will invoke its
 * callback exactly once; any other return means the callback never runs.
 * PMIX_OPERATION_SUCCEEDED from an "_nb" call means the work was done at
 * once and the callback will not be invoked.
 */

#ifndef PMIx_H
#define PMIx_H

#include <pmix_common.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif


/* ==========================================================================
 * Client initialization and finalization (Std 4)
 * ========================================================================== */

/* Std 4.3: connect to the local server and fill in our own identity.
 * Reference counted: every successful call needs a matching PMIx_Finalize. */
PMIX_EXPORT pmix_status_t PMIx_Init(pmix_proc_t *proc,
                                    pmix_info_t info[], size_t ninfo);

/* Std 4.4: drop one reference taken by PMIx_Init; the last one disconnects. */
PMIX_EXPORT pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo);

/* Std 4.1: non-zero if PMIx_Init (or the tool/server init) has succeeded
 * and has not yet been fully finalized. */
PMIX_EXPORT int PMIx_Initialized(void);

/* Std 4.2: library version as a printable string; never NULL. */
PMIX_EXPORT const char* PMIx_Get_version(void);

/* Std 4.5: give the library a chance to make progress when the caller
 * runs it without a progress thread. */
PMIX_EXPORT void PMIx_Progress(void);


/* ==========================================================================
 * Posting key/value pairs (Std 7.1)
 * ========================================================================== */

/* Std 7.1.1: stage a key/value for the given scope; it becomes visible to
 * others only after PMIx_Commit (and, for remote peers, a fence). */
PMIX_EXPORT pmix_status_t PMIx_Put(pmix_scope_t scope,
                                   const char key[],
                                   pmix_value_t *val);

/* Std 7.1.2: store a value in the local data store under another process's
 * identity; it is never sent to the server. */
PMIX_EXPORT pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc,
                                              const char key[], pmix_value_t *val);

/* Std 7.1.3: push everything staged by PMIx_Put to the local server. */
PMIX_EXPORT pmix_status_t PMIx_Commit(void);


/* ==========================================================================
 * Synchronization and data access (Std 5)
 * ========================================================================== */

/* Std 5.1: barrier across procs (NULL = our whole namespace); with
 * PMIX_COLLECT_DATA it also exchanges committed data. */
PMIX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo);

/* Std 5.2: non-blocking PMIx_Fence; cbfunc reports completion. */
PMIX_EXPORT pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t info[], size_t ninfo,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 5.3: fetch the value of key for proc; *val is allocated for the
 * caller (release with PMIX_VALUE_RELEASE). */
PMIX_EXPORT pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
                                   const pmix_info_t info[], size_t ninfo,
                                   pmix_value_t **val);

/* Std 5.3.1: non-blocking PMIx_Get; the value handed to cbfunc is only
 * valid during the callback. */
PMIX_EXPORT pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[],
                                      const pmix_info_t info[], size_t ninfo,
                                      pmix_value_cbfunc_t cbfunc, void *cbdata);

/* Std 5.4.1: list the procs of nspace (NULL = every namespace) that run
 * on nodename (NULL = this node); *procs is a malloc'd array. */
PMIX_EXPORT pmix_status_t PMIx_Resolve_peers(const char *nodename,
                                             const pmix_nspace_t nspace,
                                             pmix_proc_t **procs, size_t *nprocs);

/* Std 5.4.2: comma-separated list of the nodes hosting nspace. */
PMIX_EXPORT pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char **nodelist);

/* Std 5.4.3: answer a batch of queries; *results is allocated for the
 * caller (release with PMIX_INFO_FREE). */
PMIX_EXPORT pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries,
                                          pmix_info_t **results, size_t *nresults);

/* Std 5.4.4: non-blocking PMIx_Query_info. */
PMIX_EXPORT pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
                                             pmix_info_cbfunc_t cbfunc, void *cbdata);


/* ==========================================================================
 * Publish / lookup (Std 8)
 * ========================================================================== */

/* Std 8.1: publish key/value pairs for others to look up. */
PMIX_EXPORT pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo);

/* Std 8.2: non-blocking PMIx_Publish. */
PMIX_EXPORT pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 8.6: look up published keys; the caller names them in data[].key and
 * gets value and publisher filled in. */
PMIX_EXPORT pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata,
                                      const pmix_info_t info[], size_t ninfo);

/* Std 8.7: non-blocking PMIx_Lookup over a NULL-terminated key list. */
PMIX_EXPORT pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                         pmix_lookup_cbfunc_t cbfunc, void *cbdata);

/* Std 8.9: withdraw published keys (NULL = everything we published). */
PMIX_EXPORT pmix_status_t PMIx_Unpublish(char **keys,
                                         const pmix_info_t info[], size_t ninfo);

/* Std 8.10: non-blocking PMIx_Unpublish. */
PMIX_EXPORT pmix_status_t PMIx_Unpublish_nb(char **keys,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata);


/* ==========================================================================
 * Event notification (Std 9)
 * ========================================================================== */

/* Std 9.1.2: register evhdlr for the listed status codes (none = default
 * handler); cbfunc receives the handler's reference id. */
PMIX_EXPORT pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_notification_fn_t evhdlr,
                                                      pmix_hdlr_reg_cbfunc_t cbfunc,
                                                      void *cbdata);

/* Std 9.1.7: remove a handler by the id it was registered under. */
PMIX_EXPORT pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref,
                                                        pmix_op_cbfunc_t cbfunc,
                                                        void *cbdata);

/* Std 9.1.8: raise an event to the processes within range. */
PMIX_EXPORT pmix_status_t PMIx_Notify_event(pmix_status_t status,
                                            const pmix_proc_t *source,
                                            pmix_data_range_t range,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata);


/* ==========================================================================
 * Data packing and unpacking (Std 10.3)
 * ========================================================================== */

/* Std 10.3.1: append num_vals values of type from src to buffer, encoded
 * for the target process (NULL = our own peers). */
PMIX_EXPORT pmix_status_t PMIx_Data_pack(const pmix_proc_t *target,
                                         pmix_data_buffer_t *buffer,
                                         void *src, int32_t num_vals,
                                         pmix_data_type_t type);

/* Std 10.3.2: read up to *max_num_values values of type into dest;
 * *max_num_values is updated to the number actually read. */
PMIX_EXPORT pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source,
                                           pmix_data_buffer_t *buffer, void *dest,
                                           int32_t *max_num_values,
                                           pmix_data_type_t type);

/* Std 10.3.3: deep-copy one value of type into a newly allocated *dest. */
PMIX_EXPORT pmix_status_t PMIx_Data_copy(void **dest, void *src,
                                         pmix_data_type_t type);

/* Std 10.3.4: printable form of one value, prefixed by prefix (may be NULL). */
PMIX_EXPORT pmix_status_t PMIx_Data_print(char **output, char *prefix,
                                          void *src, pmix_data_type_t type);

/* Std 10.3.5: append the unread part of src to dest. */
PMIX_EXPORT pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest,
                                                 pmix_data_buffer_t *src);

/* Std 10.3.7: move the not-yet-unpacked bytes of buffer into payload;
 * the buffer is left empty. */
PMIX_EXPORT pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer,
                                           pmix_byte_object_t *payload);

/* Std 10.3.6: replace buffer's contents with payload's bytes; the buffer
 * takes ownership of them. */
PMIX_EXPORT pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer,
                                         pmix_byte_object_t *payload);

/* Std 10.3.10: copy payload's bytes into buffer; payload is left untouched. */
PMIX_EXPORT pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer,
                                          const pmix_byte_object_t *payload);

/* Std 10.3.8: compress size bytes into a new *outbytes; false if the data
 * was not worth compressing or compression is unavailable. */
PMIX_EXPORT bool PMIx_Data_compress(const uint8_t *inbytes,
                                    size_t size,
                                    uint8_t **outbytes,
                                    size_t *nbytes);

/* Std 10.3.9: inverse of PMIx_Data_compress. */
PMIX_EXPORT bool PMIx_Data_decompress(const uint8_t *inbytes,
                                      size_t size,
                                      uint8_t **outbytes,
                                      size_t *nbytes);


/* ==========================================================================
 * Process management (Std 11)
 * ========================================================================== */

/* Std 11.1.1: ask the host to abort procs (NULL = whole namespace) with
 * status and msg. */
PMIX_EXPORT pmix_status_t PMIx_Abort(int status, const char msg[],
                                     pmix_proc_t procs[], size_t nprocs);

/* Std 11.2.1: launch apps as a new job; its namespace is written to nspace
 * (which may be NULL). */
PMIX_EXPORT pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
                                     const pmix_app_t apps[], size_t napps,
                                     pmix_nspace_t nspace);

/* Std 11.2.2: non-blocking PMIx_Spawn. */
PMIX_EXPORT pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo,
                                        const pmix_app_t apps[], size_t napps,
                                        pmix_spawn_cbfunc_t cbfunc, void *cbdata);

/* Std 11.3.1: collectively connect procs so they may exchange data. */
PMIX_EXPORT pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo);

/* Std 11.3.2: non-blocking PMIx_Connect. */
PMIX_EXPORT pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 11.3.3: collectively undo a PMIx_Connect. */
PMIX_EXPORT pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo);

/* Std 11.3.4: non-blocking PMIx_Disconnect. */
PMIX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t ranges[], size_t nprocs,
                                             const pmix_info_t info[], size_t ninfo,
                                             pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 11.4.1: make the node topology available in topo (shared with the
 * server when possible). */
PMIX_EXPORT pmix_status_t PMIx_Load_topology(pmix_topology_t *topo);

/* Release what PMIx_Load_topology put into topo (Std 11.4 support call). */
PMIX_EXPORT void PMIx_Topology_destruct(pmix_topology_t *topo);

/* Std 11.4.2: how close two processes are, from their locality strings. */
PMIX_EXPORT pmix_status_t PMIx_Get_relative_locality(const char *locality1,
                                                     const char *locality2,
                                                     pmix_locality_t *locality);

/* Std 11.4.3: turn a cpuset string (as registered by the host) into a
 * cpuset. */
PMIX_EXPORT pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string,
                                                   pmix_cpuset_t *cpuset);

/* Std 11.4.4: the caller's current binding, per the given envelope. */
PMIX_EXPORT pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset, pmix_bind_envelope_t ref);

/* Release the contents of a cpuset (OpenPMIx extension; provisional in
 * Std 6.0). */
PMIX_EXPORT void PMIx_Cpuset_destruct(pmix_cpuset_t *cpuset);

/* Std 11.4.5: distances from cpuset to the devices of topo; *distances is
 * allocated for the caller. */
PMIX_EXPORT pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo,
                                                 pmix_cpuset_t *cpuset,
                                                 pmix_info_t info[], size_t ninfo,
                                                 pmix_device_distance_t *distances[],
                                                 size_t *ndist);

/* Std 11.4.6: non-blocking PMIx_Compute_distances. */
PMIX_EXPORT pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo,
                                                    pmix_cpuset_t *cpuset,
                                                    pmix_info_t info[], size_t ninfo,
                                                    pmix_device_dist_cbfunc_t cbfunc,
                                                    void *cbdata);


/* ==========================================================================
 * Job management and reporting (Std 12)
 * ========================================================================== */

/* Std 12.1.1: ask the scheduler for (or to change) an allocation. */
PMIX_EXPORT pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t directive,
                                                  pmix_info_t *info, size_t ninfo,
                                                  pmix_info_t **results, size_t *nresults);

/* Std 12.1.2: non-blocking PMIx_Allocation_request. */
PMIX_EXPORT pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t directive,
                                                     pmix_info_t *info, size_t ninfo,
                                                     pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 12.2.1: ask the host to act on targets (kill, signal, checkpoint,
 * register cleanup, ...). */
PMIX_EXPORT pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
                                           const pmix_info_t directives[], size_t ndirs,
                                           pmix_info_t **results, size_t *nresults);

/* Std 12.2.2: non-blocking PMIx_Job_control. */
PMIX_EXPORT pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 12.3.1: ask for a monitor to be set up; error is the status to
 * raise when it trips. */
PMIX_EXPORT pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor, pmix_status_t error,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_t **results, size_t *nresults);

/* Std 12.3.2: non-blocking PMIx_Process_monitor. */
PMIX_EXPORT pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor, pmix_status_t error,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 12.3.3: send one heartbeat to the local server (a statement-like
 * macro; fire and forget through PMIx_Process_monitor_nb). */
#define PMIx_Heartbeat()                                                    \
    do {                                                                    \
        pmix_info_t _in;                                                    \
        PMIX_INFO_CONSTRUCT(&_in);                                          \
        PMIX_INFO_LOAD(&_in, PMIX_SEND_HEARTBEAT, NULL, PMIX_POINTER);      \
        PMIx_Process_monitor_nb(&_in, PMIX_SUCCESS, NULL, 0, NULL, NULL);   \
        PMIX_INFO_DESTRUCT(&_in);                                           \
    } while(0)

/* Std 12.4.1: hand data to the host's logging channels. */
PMIX_EXPORT pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata,
                                   const pmix_info_t directives[], size_t ndirs);

/* Std 12.4.2: non-blocking PMIx_Log. */
PMIX_EXPORT pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
                                      const pmix_info_t directives[], size_t ndirs,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata);


/* ==========================================================================
 * Process groups (Std 13.2)
 * ========================================================================== */

/* Std 13.2.6: collectively build group grp from procs. */
PMIX_EXPORT pmix_status_t PMIx_Group_construct(const char grp[],
                                               const pmix_proc_t procs[], size_t nprocs,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_t **results, size_t *nresults);

/* Std 13.2.7: non-blocking PMIx_Group_construct. */
PMIX_EXPORT pmix_status_t PMIx_Group_construct_nb(const char grp[],
                                                  const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 13.2.8: collectively dissolve group grp. */
PMIX_EXPORT pmix_status_t PMIx_Group_destruct(const char grp[],
                                              const pmix_info_t info[], size_t ninfo);

/* Std 13.2.9: non-blocking PMIx_Group_destruct. */
PMIX_EXPORT pmix_status_t PMIx_Group_destruct_nb(const char grp[],
                                                 const pmix_info_t info[], size_t ninfo,
                                                 pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 13.2.10: leader invites procs into grp and waits for their answers. */
PMIX_EXPORT pmix_status_t PMIx_Group_invite(const char grp[],
                                            const pmix_proc_t procs[], size_t nprocs,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_info_t **results, size_t *nresult);

/* Std 13.2.11: non-blocking PMIx_Group_invite. */
PMIX_EXPORT pmix_status_t PMIx_Group_invite_nb(const char grp[],
                                               const pmix_proc_t procs[], size_t nprocs,
                                               const pmix_info_t info[], size_t ninfo,
                                               pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 13.2.12: accept or decline (opt) an invitation from leader. */
PMIX_EXPORT pmix_status_t PMIx_Group_join(const char grp[],
                                          const pmix_proc_t *leader,
                                          pmix_group_opt_t opt,
                                          const pmix_info_t info[], size_t ninfo,
                                          pmix_info_t **results, size_t *nresult);

/* Std 13.2.13: non-blocking PMIx_Group_join. */
PMIX_EXPORT pmix_status_t PMIx_Group_join_nb(const char grp[],
                                             const pmix_proc_t *leader,
                                             pmix_group_opt_t opt,
                                             const pmix_info_t info[], size_t ninfo,
                                             pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Std 13.2.14: leave grp on our own (not collective). */
PMIX_EXPORT pmix_status_t PMIx_Group_leave(const char grp[],
                                           const pmix_info_t info[], size_t ninfo);

/* Std 13.2.15: non-blocking PMIx_Group_leave. */
PMIX_EXPORT pmix_status_t PMIx_Group_leave_nb(const char grp[],
                                              const pmix_info_t info[], size_t ninfo,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);


/* ==========================================================================
 * Fabric support (Std 14.4)
 * ========================================================================== */

/* Std 14.4.1: attach fabric to a fabric description the host provides. */
PMIX_EXPORT pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric,
                                               const pmix_info_t directives[],
                                               size_t ndirs);

/* Std 14.4.2: non-blocking PMIx_Fabric_register. */
PMIX_EXPORT pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric,
                                                  const pmix_info_t directives[],
                                                  size_t ndirs,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 14.4.3: refresh the information held in fabric. */
PMIX_EXPORT pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric);

/* Std 14.4.4: non-blocking PMIx_Fabric_update. */
PMIX_EXPORT pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Std 14.4.5: release fabric. */
PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric);

/* Std 14.4.6: non-blocking PMIx_Fabric_deregister. */
PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric,
                                                    pmix_op_cbfunc_t cbfunc, void *cbdata);


/* ==========================================================================
 * Security (Std 15)
 * ========================================================================== */

/* Std 15.1.1: obtain a credential from the host's security system. */
PMIX_EXPORT pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t ninfo,
                                              pmix_byte_object_t *credential);

/* Std 15.1.2: non-blocking PMIx_Get_credential. */
PMIX_EXPORT pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[], size_t ninfo,
                                                 pmix_credential_cbfunc_t cbfunc, void *cbdata);

/* Std 15.2.1: have the host check a credential. */
PMIX_EXPORT pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t *cred,
                                                   const pmix_info_t info[], size_t ninfo,
                                                   pmix_info_t **results, size_t *nresults);

/* Std 15.2.2: non-blocking PMIx_Validate_credential. */
PMIX_EXPORT pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t *cred,
                                                      const pmix_info_t info[], size_t ninfo,
                                                      pmix_validation_cbfunc_t cbfunc, void *cbdata);


/* ==========================================================================
 * Printable forms of values (Std 3.5)
 * The const char* results are static strings the caller must not free;
 * the char* results are malloc'd and belong to the caller.
 * ========================================================================== */

/* Std 3.5: name of a status code, e.g. "SUCCESS". */
PMIX_EXPORT const char* PMIx_Error_string(pmix_status_t status);

/* Std 3.5: name of a process state. */
PMIX_EXPORT const char* PMIx_Proc_state_string(pmix_proc_state_t state);

/* Std 3.5: name of a data scope. */
PMIX_EXPORT const char* PMIx_Scope_string(pmix_scope_t scope);

/* Std 3.5: name of a persistence setting. */
PMIX_EXPORT const char* PMIx_Persistence_string(pmix_persistence_t persist);

/* Std 3.5: name of a data range. */
PMIX_EXPORT const char* PMIx_Data_range_string(pmix_data_range_t range);

/* Std 3.5: name of a data type. */
PMIX_EXPORT const char* PMIx_Data_type_string(pmix_data_type_t type);

/* Std 3.5: name of an allocation directive. */
PMIX_EXPORT const char* PMIx_Alloc_directive_string(pmix_alloc_directive_t directive);

/* Std 3.5: names of the IO forwarding channels set in channel. */
PMIX_EXPORT const char* PMIx_IOF_channel_string(pmix_iof_channel_t channel);

/* Std 3.5: name of a job state. */
PMIX_EXPORT const char* PMIx_Job_state_string(pmix_job_state_t state);

/* Std 3.5: key string for an attribute macro name ("PMIX_..." -> "pmix..."). */
PMIX_EXPORT const char* PMIx_Get_attribute_string(const char *attribute);

/* Std 3.5: attribute macro name for a key string (inverse of the above). */
PMIX_EXPORT const char* PMIx_Get_attribute_name(const char *attrstring);

/* Std 3.5: name of a fabric link state. */
PMIX_EXPORT const char* PMIx_Link_state_string(pmix_link_state_t state);

/* Std 3.5: names of the device types set in type. */
PMIX_EXPORT const char* PMIx_Device_type_string(pmix_device_type_t type);

/* Name of a PMIx_Value_compare result (OpenPMIx extension). */
PMIX_EXPORT const char* PMIx_Value_comparison_string(pmix_value_cmp_t cmp);

/* Printable form of an info struct (OpenPMIx extension; caller frees). */
PMIX_EXPORT char* PMIx_Info_string(const pmix_info_t *info);

/* Printable form of a value (OpenPMIx extension; caller frees). */
PMIX_EXPORT char* PMIx_Value_string(const pmix_value_t *value);

/* Std 3.5: names of the directive flags set in directives (caller frees). */
PMIX_EXPORT char* PMIx_Info_directives_string(pmix_info_directives_t directives);


/* ==========================================================================
 * Value, info and info-list support functions (Std 3.2.8, 3.2.9, 3.2.13)
 * pmix_deprecated.h declares these same functions as well (it is pulled in
 * by pmix_common.h); when it has been seen, the identical declarations
 * are not repeated here.
 * ========================================================================== */
#ifndef PMIx_DEPRECATED_H

/* Std 3.2.8: store a copy of data, of the given type, into val. */
PMIX_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *val,
                                          const void *data,
                                          pmix_data_type_t type);

/* Std 3.2.8: copy val's payload out into newly allocated *data of *sz bytes. */
PMIX_EXPORT pmix_status_t PMIx_Value_unload(pmix_value_t *val,
                                            void **data,
                                            size_t *sz);

/* Free whatever val owns, leaving val itself in place (OpenPMIx
 * extension). */
PMIX_EXPORT void PMIx_Value_destruct(pmix_value_t *val);

/* Std 3.2.8: deep-copy src into dest. */
PMIX_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dest,
                                          const pmix_value_t *src);

/* Compare two values (OpenPMIx extension). */
PMIX_EXPORT pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1,
                                                pmix_value_t *v2);

/* Free the elements and storage of a data array, not the array struct
 * itself (OpenPMIx extension; provisional in Std 6.0). */
PMIX_EXPORT void PMIx_Data_array_destruct(pmix_data_array_t *d);

/* Std 3.2.9: set info's key and store a copy of data into its value. */
PMIX_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info,
                                         const char *key,
                                         const void *data,
                                         pmix_data_type_t type);

/* Std 3.2.9: deep-copy src (key, flags and value) into dest. */
PMIX_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dest,
                                         const pmix_info_t *src);

/* Std 3.2.9: begin an opaque list used to build an info array. */
PMIX_EXPORT void* PMIx_Info_list_start(void);

/* Std 3.2.9: append a copy of key/value to the list. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_add(void *ptr,
                                             const char *key,
                                             const void *value,
                                             pmix_data_type_t type);

/* Append info itself, without copying (OpenPMIx extension). */
PMIX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info);

/* Std 3.2.9: append a copy of info to the list. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer(void *ptr,
                                              const pmix_info_t *info);

/* Std 3.2.9: turn the list into a PMIX_INFO data array in par. */
PMIX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par);

/* Std 3.2.9: free the list and everything in it. */
PMIX_EXPORT void PMIx_Info_list_release(void *ptr);

#endif /* PMIx_DEPRECATED_H */

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_H */
