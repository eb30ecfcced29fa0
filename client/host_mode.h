// client/host_mode.h - the client API in a host: a process that runs the server library
// (PMIx_server_init) and never PMIx_Init, such as mpirun, orted or pmixrun.
//
// Such a process still calls PMIx_Get, PMIx_Store_internal, PMIx_Notify_event, the event
// handler calls and the credential calls (security.cpp); its own server answers them, as OpenPMIx
// does for mpirun and orted (they store their URIs and read their own keys back, key NULL included,
// and register a default handler for PMIX_ERR_LOST_CONNECTION). Callbacks run on the server's
// thread, never inside the call.
//
// client/ does not know server/ (the layering): capi/ hands the server's entry points in at
// PMIx_server_init. kvs.cpp and events.cpp ask serving_host() before acting as a client.
#pragma once

#include "exec/unique_function.h"

#include <pmix.h>

#include <cstddef>

namespace pmix::client {

// The server library of this process, as the client API needs it (server/api.h).
struct HostServer {
    bool (*running)();
    pmix_status_t (*identity)(pmix_proc_t* me);
    pmix_status_t (*get_local)(const pmix_proc_t& proc, const char* key, pmix_value_t** out);
    pmix_status_t (*store_internal)(const pmix_proc_t& proc, const char* key,
                                    const pmix_value_t& value);
    pmix_status_t (*notify_event)(pmix_status_t code, const pmix_proc_t* source,
                                  pmix_data_range_t range, const pmix_info_t* info,
                                  std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
    pmix_status_t (*post)(exec::UniqueFunction<void()> task);
    // The host's own allocate / fabric upcalls (PMIx_Allocation_request, PMIx_Fabric_register /
    // update called by the host itself); cbfunc later, from a task of its own.
    pmix_status_t (*allocate)(pmix_alloc_directive_t directive, const pmix_info_t* info,
                              std::size_t ninfo, pmix_info_cbfunc_t cbfunc, void* cbdata);
    pmix_status_t (*fabric)(pmix_fabric_operation_t op, const pmix_info_t* info, std::size_t ninfo,
                            pmix_info_cbfunc_t cbfunc, void* cbdata);
    bool (*on_server_thread)();  // inside an upcall: a blocking call answers PMIX_ERR_WOULD_BLOCK
    pmix_status_t (*get_credential)(const pmix_info_t* info, std::size_t ninfo,
                                    pmix_credential_cbfunc_t cbfunc, void* cbdata);
    pmix_status_t (*validate_credential)(const pmix_byte_object_t* cred, const pmix_info_t* info,
                                         std::size_t ninfo, pmix_validation_cbfunc_t cbfunc,
                                         void* cbdata);
};

// `server` must outlive the process (a static table); nullptr forgets it.
void set_host_server(const HostServer* server) noexcept;

// The host's server when the calls below are a host's: no client or tool is initialized in
// this process and the server runs. nullptr otherwise (the calls are a client's).
const HostServer* serving_host() noexcept;

namespace host {

// proc NULL: the server itself; an empty nspace: the server's namespace.
pmix_status_t get(const HostServer& server, const pmix_proc_t* proc, const char* key,
                  pmix_value_t** value);
pmix_status_t get_nb(const HostServer& server, const pmix_proc_t* proc, const char* key,
                     pmix_value_cbfunc_t cbfunc, void* cbdata);
pmix_status_t store_internal(const HostServer& server, const pmix_proc_t* proc, const char* key,
                             const pmix_value_t* value);
// Kept in this process's handler registry (events.cpp), which the server feeds the events meant
// for the host; cbfunc NULL: the handler's reference is the return value.
pmix_status_t register_event_handler(const HostServer& server, const pmix_status_t* codes,
                                     std::size_t ncodes, const pmix_info_t* info, std::size_t ninfo,
                                     pmix_notification_fn_t evhdlr, pmix_hdlr_reg_cbfunc_t cbfunc,
                                     void* cbdata);
pmix_status_t deregister_event_handler(const HostServer& server, std::size_t ref,
                                       pmix_op_cbfunc_t cbfunc, void* cbdata);

}  // namespace host

}  // namespace pmix::client
