// client/client.h - the client library behind pmix.h's PMIx_* client calls (namespace
// pmix::client). capi/client*.cpp checks nothing but calls these; every argument check happens
// here so the rules live in one place.
//
// Threading: every non-blocking call returns at once; its callback runs later on the client's
// progress thread (never inside the call). A blocking call is its non-blocking twin plus a
// bounded wait, and returns PMIX_ERR_WOULD_BLOCK when made from the progress thread (that is,
// from inside a callback), where waiting would deadlock.
#pragma once

#include <pmix.h>
#include <pmix_tool.h>

#include <cstddef>

namespace pmix::client {

// ---- lifecycle (lifecycle.cpp) -----------------------------------------------------------------
pmix_status_t init(pmix_proc_t* proc, const pmix_info_t* info, std::size_t ninfo);
bool initialized() noexcept;
pmix_status_t finalize(const pmix_info_t* info, std::size_t ninfo);
pmix_status_t abort(int status, const char* msg, const pmix_proc_t* procs, std::size_t nprocs);

// ---- tools (tool.cpp) ---------------------------------------------------------------------------
pmix_status_t tool_init(pmix_proc_t* proc, const pmix_info_t* info, std::size_t ninfo);
pmix_status_t tool_finalize();
// A tool attached to no server (PMIX_TOOL_DO_NOT_CONNECT, or it disconnected from every one; a
// server that was lost still counts): its event handlers are kept locally, and its PMIx_Spawn
// starts the program itself (capi/self_spawn.h).
bool unattached_tool();
pmix_status_t tool_attach_to_server(pmix_proc_t* myproc, pmix_proc_t* server,
                                    const pmix_info_t* info, std::size_t ninfo);
pmix_status_t tool_get_servers(pmix_proc_t** servers, std::size_t* nservers);
pmix_status_t tool_set_server(const pmix_proc_t* server, const pmix_info_t* info,
                              std::size_t ninfo);
pmix_status_t tool_disconnect(const pmix_proc_t* server);

// ---- key/value exchange (kvs.cpp) --------------------------------------------------------------
pmix_status_t put(pmix_scope_t scope, const char* key, const pmix_value_t* value);
pmix_status_t commit();
pmix_status_t store_internal(const pmix_proc_t* proc, const char* key, const pmix_value_t* value);
pmix_status_t get(const pmix_proc_t* proc, const char* key, const pmix_info_t* info,
                  std::size_t ninfo, pmix_value_t** value);
pmix_status_t get_nb(const pmix_proc_t* proc, const char* key, const pmix_info_t* info,
                     std::size_t ninfo, pmix_value_cbfunc_t cbfunc, void* cbdata);
pmix_status_t fence(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                    std::size_t ninfo);
pmix_status_t fence_nb(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                       std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);

// ---- operations forwarded to the server's host (ops.cpp) ---------------------------------------
pmix_status_t publish(const pmix_info_t* info, std::size_t ninfo);
pmix_status_t publish_nb(const pmix_info_t* info, std::size_t ninfo, pmix_op_cbfunc_t cbfunc,
                         void* cbdata);
pmix_status_t lookup(pmix_pdata_t* data, std::size_t ndata, const pmix_info_t* info,
                     std::size_t ninfo);
pmix_status_t lookup_nb(char** keys, const pmix_info_t* info, std::size_t ninfo,
                        pmix_lookup_cbfunc_t cbfunc, void* cbdata);
pmix_status_t unpublish(char** keys, const pmix_info_t* info, std::size_t ninfo);
pmix_status_t unpublish_nb(char** keys, const pmix_info_t* info, std::size_t ninfo,
                           pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t connect(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                      std::size_t ninfo);
pmix_status_t connect_nb(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                         std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t disconnect(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                         std::size_t ninfo);
pmix_status_t disconnect_nb(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                            std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t log(const pmix_info_t* data, std::size_t ndata, const pmix_info_t* directives,
                  std::size_t ndirs);
pmix_status_t log_nb(const pmix_info_t* data, std::size_t ndata, const pmix_info_t* directives,
                     std::size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata);

// ---- spawn, query, job control, resolve (ops_info.cpp) -----------------------------------------
pmix_status_t spawn(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                    std::size_t napps, char* nspace);
pmix_status_t spawn_nb(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                       std::size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata);
pmix_status_t query_info(pmix_query_t* queries, std::size_t n, pmix_info_t** results,
                         std::size_t* nresults);
pmix_status_t query_info_nb(pmix_query_t* queries, std::size_t n, pmix_info_cbfunc_t cbfunc,
                            void* cbdata);
pmix_status_t job_control(const pmix_proc_t* targets, std::size_t ntargets, const pmix_info_t* dirs,
                          std::size_t ndirs, pmix_info_t** results, std::size_t* nresults);
pmix_status_t job_control_nb(const pmix_proc_t* targets, std::size_t ntargets,
                             const pmix_info_t* dirs, std::size_t ndirs, pmix_info_cbfunc_t cbfunc,
                             void* cbdata);
pmix_status_t resolve_peers(const char* nodename, const char* nspace, pmix_proc_t** procs,
                            std::size_t* nprocs);
pmix_status_t resolve_nodes(const char* nspace, char** nodelist);

// ---- allocation and fabric, forwarded to the server's host (ops_info.cpp) ---------------------
// A directive outside the Standard's (PMIX_ALLOC_NEW..REAQUIRE, or PMIX_ALLOC_EXTERNAL and above)
// is PMIX_ERR_BAD_PARAM.
pmix_status_t allocation_request(pmix_alloc_directive_t directive, const pmix_info_t* info,
                                 std::size_t ninfo, pmix_info_t** results, std::size_t* nresults);
pmix_status_t allocation_request_nb(pmix_alloc_directive_t directive, const pmix_info_t* info,
                                    std::size_t ninfo, pmix_info_cbfunc_t cbfunc, void* cbdata);
// Register/update fill fabric->info (its former content freed first) from the host's answer;
// `fabric` must stay valid until the callback. Deregister only frees what register stored (as
// OpenPMIx does outside a scheduler): PMIX_OPERATION_SUCCEEDED from the _nb form.
pmix_status_t fabric_register(pmix_fabric_t* fabric, const pmix_info_t* dirs, std::size_t ndirs);
pmix_status_t fabric_register_nb(pmix_fabric_t* fabric, const pmix_info_t* dirs, std::size_t ndirs,
                                 pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t fabric_update(pmix_fabric_t* fabric);
pmix_status_t fabric_update_nb(pmix_fabric_t* fabric, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t fabric_deregister_nb(pmix_fabric_t* fabric);
// ---- credentials and process monitors (security.cpp) --------------------------------------------
pmix_status_t get_credential(const pmix_info_t* info, std::size_t ninfo, pmix_byte_object_t* cred);
pmix_status_t get_credential_nb(const pmix_info_t* info, std::size_t ninfo,
                                pmix_credential_cbfunc_t cbfunc, void* cbdata);
pmix_status_t validate_credential(const pmix_byte_object_t* cred, const pmix_info_t* dirs,
                                  std::size_t ndirs, pmix_info_t** results, std::size_t* nresults);
pmix_status_t validate_credential_nb(const pmix_byte_object_t* cred, const pmix_info_t* dirs,
                                     std::size_t ndirs, pmix_validation_cbfunc_t cbfunc,
                                     void* cbdata);
pmix_status_t process_monitor(const pmix_info_t* monitor, pmix_status_t error,
                              const pmix_info_t* dirs, std::size_t ndirs, pmix_info_t** results,
                              std::size_t* nresults);
pmix_status_t process_monitor_nb(const pmix_info_t* monitor, pmix_status_t error,
                                 const pmix_info_t* dirs, std::size_t ndirs,
                                 pmix_info_cbfunc_t cbfunc, void* cbdata);
// ---- groups (groups.cpp) -----------------------------------------------------------------------
pmix_status_t group_construct(const char* grp, const pmix_proc_t* procs, std::size_t nprocs,
                              const pmix_info_t* info, std::size_t ninfo, pmix_info_t** results,
                              std::size_t* nresults);
pmix_status_t group_construct_nb(const char* grp, const pmix_proc_t* procs, std::size_t nprocs,
                                 const pmix_info_t* info, std::size_t ninfo,
                                 pmix_info_cbfunc_t cbfunc, void* cbdata);
pmix_status_t group_invite(const char* grp, const pmix_proc_t* procs, std::size_t nprocs,
                           const pmix_info_t* info, std::size_t ninfo, pmix_info_t** results,
                           std::size_t* nresults);
pmix_status_t group_invite_nb(const char* grp, const pmix_proc_t* procs, std::size_t nprocs,
                              const pmix_info_t* info, std::size_t ninfo, pmix_info_cbfunc_t cbfunc,
                              void* cbdata);
pmix_status_t group_join(const char* grp, const pmix_proc_t* leader, pmix_group_opt_t opt,
                         const pmix_info_t* info, std::size_t ninfo, pmix_info_t** results,
                         std::size_t* nresults);
pmix_status_t group_join_nb(const char* grp, const pmix_proc_t* leader, pmix_group_opt_t opt,
                            const pmix_info_t* info, std::size_t ninfo, pmix_info_cbfunc_t cbfunc,
                            void* cbdata);
pmix_status_t group_destruct(const char* grp, const pmix_info_t* info, std::size_t ninfo);
pmix_status_t group_destruct_nb(const char* grp, const pmix_info_t* info, std::size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t group_leave(const char* grp, const pmix_info_t* info, std::size_t ninfo);
pmix_status_t group_leave_nb(const char* grp, const pmix_info_t* info, std::size_t ninfo,
                             pmix_op_cbfunc_t cbfunc, void* cbdata);

// ---- events (events.cpp) -----------------------------------------------------------------------
// With cbfunc NULL, register blocks and returns the handler's reference (>= 1) as its status.
pmix_status_t register_event_handler(const pmix_status_t* codes, std::size_t ncodes,
                                     const pmix_info_t* info, std::size_t ninfo,
                                     pmix_notification_fn_t evhdlr, pmix_hdlr_reg_cbfunc_t cbfunc,
                                     void* cbdata);
pmix_status_t deregister_event_handler(std::size_t ref, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t notify_event(pmix_status_t status, const pmix_proc_t* source, pmix_data_range_t range,
                           const pmix_info_t* info, std::size_t ninfo, pmix_op_cbfunc_t cbfunc,
                           void* cbdata);
// A host's own handlers: PMIx_Register_event_handler in a process where only the server library
// runs (mpirun, orted, pmixrun). Same registration rules and chain, no server to tell; the server
// hands such handlers the events meant for the host (capi/ wires deliver_local_event to it).
pmix_status_t register_local_handler(const pmix_status_t* codes, std::size_t ncodes,
                                     const pmix_info_t* info, std::size_t ninfo,
                                     pmix_notification_fn_t evhdlr, std::size_t* ref);
pmix_status_t deregister_local_handler(std::size_t ref);
void deliver_local_event(pmix_status_t status, const pmix_proc_t& source, const pmix_info_t* info,
                         std::size_t ninfo);

// ---- IO forwarding (iof.cpp) -------------------------------------------------------------------
// With regcbfunc NULL, pull blocks and returns the handler's id (>= 1) as its status.
pmix_status_t iof_pull(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* dirs,
                       std::size_t ndirs, pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                       pmix_hdlr_reg_cbfunc_t regcbfunc, void* regcbdata);
pmix_status_t iof_deregister(std::size_t id, const pmix_info_t* dirs, std::size_t ndirs,
                             pmix_op_cbfunc_t cbfunc, void* cbdata);
// iof_push.cpp.
pmix_status_t iof_push(const pmix_proc_t* targets, std::size_t ntargets,
                       const pmix_byte_object_t* bo, const pmix_info_t* dirs, std::size_t ndirs,
                       pmix_op_cbfunc_t cbfunc, void* cbdata);

}  // namespace pmix::client
