// server/api.h - what capi/server.cpp calls: one function per PMIx_server_* entry point.
// Arguments are already checked for NULL by the shims; statuses are returned as the C API's.
#pragma once

#include "exec/unique_function.h"

#include <pmix_server.h>

namespace pmix::server {

pmix_status_t init(const pmix_server_module_t* module, const pmix_info_t* info, size_t ninfo);
pmix_status_t finalize();
bool initialized();
pmix_status_t register_nspace(const char* nspace, int nlocalprocs, const pmix_info_t* info,
                              size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t deregister_nspace(const char* nspace, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t register_client(const pmix_proc_t& proc, uid_t uid, gid_t gid, void* server_object,
                              pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t deregister_client(const pmix_proc_t& proc, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t setup_fork(const pmix_proc_t& proc, char*** env);
pmix_status_t dmodex_request(const pmix_proc_t& proc, pmix_dmodex_response_fn_t cbfunc,
                             void* cbdata);
pmix_status_t setup_application(const char* nspace, const pmix_info_t* info, size_t ninfo,
                                pmix_setup_application_cbfunc_t cbfunc, void* cbdata);
pmix_status_t setup_local_support(const char* nspace, const pmix_info_t* info, size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void* cbdata);
// resources.cpp: inventory and resources (rules in resources.h and resources.cpp).
pmix_status_t collect_inventory(const pmix_info_t* dirs, size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                void* cbdata);
pmix_status_t deliver_inventory(const pmix_info_t* info, size_t ninfo, const pmix_info_t* dirs,
                                size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t register_resources(const pmix_info_t* info, size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                 void* cbdata);
pmix_status_t deregister_resources(const pmix_info_t* info, size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                   void* cbdata);
// own_upcalls.cpp: the host's own PMIx_Allocation_request / PMIx_Fabric_register|update, passed
// to its allocate / fabric upcall from a loop task; cbfunc (required) from another task.
// PMIX_ERR_NOT_SUPPORTED when the host has no such upcall.
pmix_status_t own_allocate(pmix_alloc_directive_t directive, const pmix_info_t* info, size_t ninfo,
                           pmix_info_cbfunc_t cbfunc, void* cbdata);
pmix_status_t own_fabric(pmix_fabric_operation_t op, const pmix_info_t* info, size_t ninfo,
                         pmix_info_cbfunc_t cbfunc, void* cbdata);
// iof.cpp: PMIx_server_IOF_deliver (rules in iof.h). The data and info are copied before it
// returns; without cbfunc PMIX_OPERATION_SUCCEEDED, else cbfunc from a loop task.
pmix_status_t iof_deliver(const pmix_proc_t& source, pmix_iof_channel_t channel,
                          const pmix_byte_object_t& bo, const pmix_info_t* info, size_t ninfo,
                          pmix_op_cbfunc_t cbfunc, void* cbdata);
// True on the server's progress thread (inside an upcall), where a blocking call would deadlock.
bool on_server_thread();

// In-process access for the client API when it runs inside the server process (a host such as
// mpirun calls PMIx_Get / PMIx_Store_internal after PMIx_server_init). Safe from any thread,
// including inside a host upcall.
// This server's own identity (PMIX_ERR_INIT before init).
pmix_status_t identity(pmix_proc_t* me);
// PMIx_Notify_event called in the server process (a host notifying its local clients): delivered
// by the same rules as a client's notification (events.cpp); source NULL = the server itself.
pmix_status_t notify_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t range,
                           const pmix_info_t* info, size_t ninfo, pmix_op_cbfunc_t cbfunc,
                           void* cbdata);
// The host process's own event handlers (PMIx_Register_event_handler in a server-only process):
// capi installs the client library's local delivery here. The server hands it the events meant
// for the host: PMIX_ERR_LOST_CONNECTION when a client dies without finalizing (source = that
// client, as OpenPMIx does; Open MPI's mpirun/orted register a default handler for it) and the
// host's own PMIx_Notify_event with PMIX_RANGE_PROC_LOCAL. Called on the server's thread.
using HostEventSink = void (*)(pmix_status_t code, const pmix_proc_t& source,
                               const pmix_info_t* info, size_t ninfo);
void set_host_event_sink(HostEventSink sink) noexcept;
// Runs `task` on the server's progress thread; it owns what it captures. PMIX_ERR_INIT (and
// `task` destroyed unrun) when the server is not running.
pmix_status_t post(exec::UniqueFunction<void()> task);
// Runs `task`, which calls back into the host (a callback the host gave us, a release function,
// an upcall), as a task of its own: on the server's progress thread, or, when the server is not
// running, on a short-lived thread of its own. Never on the caller's stack: a host may hold one
// lock across its calls into the library and inside its upcalls, and call our callbacks from
// inside those upcalls (Slurm's plugin does), so running `task` here would take that lock again.
void call_host_later(exec::UniqueFunction<void()> task);
// PMIx_Get_credential / PMIx_Validate_credential called in the server process (a host's own): as
// OpenPMIx, the host's get_credential / validate_credential upcall when it has one, else the
// library's credentials (credential.h) with the server's identity (euid, egid, pid, its
// namespace and rank). The upcall is made from a task of the server's loop and `cbfunc` is
// called from another, never inside the host's call nor inside its upcall.
pmix_status_t get_own_credential(const pmix_info_t* info, size_t ninfo,
                                 pmix_credential_cbfunc_t cbfunc, void* cbdata);
pmix_status_t validate_own_credential(const pmix_byte_object_t* cred, const pmix_info_t* info,
                                      size_t ninfo, pmix_validation_cbfunc_t cbfunc, void* cbdata);

// PMIx_server_define_process_set / delete_process_set (psets.h): PMIX_OPERATION_SUCCEEDED when
// done, as OpenPMIx returns; PMIX_ERR_BAD_PARAM for no name or a name longer than
// PMIX_MAX_NSLEN, PMIX_ERR_EXISTS for a name defined already, PMIX_ERR_NOT_FOUND to delete an
// unknown one.
pmix_status_t define_process_set(const pmix_proc_t* members, size_t nmembers, const char* name);
pmix_status_t delete_process_set(const char* name);
// Stores `value` as a per-proc key of `proc` (PMIx_Store_internal).
pmix_status_t store_internal(const pmix_proc_t& proc, const char* key, const pmix_value_t& value);
// Looks `key` up like a client's Get (without direct modex); key NULL: every key of the proc as
// a PMIX_DATA_ARRAY of PMIX_INFO. *out is malloc'd (PMIX_VALUE_RELEASE-able).
pmix_status_t get_local(const pmix_proc_t& proc, const char* key, pmix_value_t** out);

}  // namespace pmix::server
