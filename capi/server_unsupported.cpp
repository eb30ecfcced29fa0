// capi/server_unsupported.cpp - the server API (pmix_server.h) until the server core lands.
//
// The server operations not implemented yet answer PMIX_ERR_INIT; a call that returns an error
// status never invokes its callback. Lifecycle, registration, setup_fork, dmodex and the
// application-setup calls live in capi/server.cpp.
//
// PMIx_generate_regex/ppn and the locality/cpuset functions of this header live in capi/maps.cpp.
#include <pmix_server.h>

namespace {
constexpr pmix_status_t kNotInitialised = PMIX_ERR_INIT;
}  // namespace

// ---- IO forwarding, inventory, resources, process sets, attributes ---------------------------

pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t*, pmix_iof_channel_t,
                                      const pmix_byte_object_t*, const pmix_info_t[], size_t,
                                      pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_server_collect_inventory(pmix_info_t[], size_t, pmix_info_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_server_deliver_inventory(pmix_info_t[], size_t, pmix_info_t[], size_t,
                                            pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_server_register_resources(pmix_info_t[], size_t, pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_server_deregister_resources(pmix_info_t[], size_t, pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_server_define_process_set(const pmix_proc_t*, size_t, const char*) {
    return kNotInitialised;
}

pmix_status_t PMIx_server_delete_process_set(char*) {
    return kNotInitialised;
}

// The host registers which attributes it supports for a function; this feeds query answers that
// exist only once the server runs.
pmix_status_t PMIx_Register_attributes(char*, char*[]) {
    return kNotInitialised;
}
