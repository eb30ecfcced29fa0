// capi/server_unsupported.cpp - the server API (pmix_server.h) until the server core lands.
//
// PMIx_server_init cannot succeed yet: PMIX_ERR_NOT_SUPPORTED, outputs untouched. Every other
// server operation answers PMIX_ERR_INIT ("not initialised"), the Standard's status before init,
// and a call that returns an error status never invokes its callback.
//
// The two deregistration calls return void, so their callback is the only channel for the
// outcome: they report PMIX_ERR_INIT through it (synchronously, as OpenPMIx does), otherwise a
// host waiting for that callback would wait forever.
//
// PMIx_generate_regex/ppn and the locality/cpuset functions of this header live in capi/maps.cpp.
#include <pmix_server.h>

namespace {
constexpr pmix_status_t kNotInitialised = PMIX_ERR_INIT;
}  // namespace

// ---- Lifecycle -------------------------------------------------------------------------------

pmix_status_t PMIx_server_init(pmix_server_module_t*, pmix_info_t[], size_t) {
    return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_server_finalize(void) {
    return kNotInitialised;
}

// ---- Namespaces and clients ------------------------------------------------------------------

pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t, int, pmix_info_t[], size_t,
                                          pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

void PMIx_server_deregister_nspace(const pmix_nspace_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (cbfunc != nullptr) {
        cbfunc(kNotInitialised, cbdata);
    }
}

pmix_status_t PMIx_server_register_client(const pmix_proc_t*, uid_t, gid_t, void*,
                                          pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

void PMIx_server_deregister_client(const pmix_proc_t*, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (cbfunc != nullptr) {
        cbfunc(kNotInitialised, cbdata);
    }
}

pmix_status_t PMIx_server_setup_fork(const pmix_proc_t*, char***) {
    return kNotInitialised;
}

pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t*, pmix_dmodex_response_fn_t, void*) {
    return kNotInitialised;
}

// ---- Application setup (launch-time support from the fabric/network plugins) -----------------

pmix_status_t PMIx_server_setup_application(const pmix_nspace_t, pmix_info_t[], size_t,
                                            pmix_setup_application_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t, pmix_info_t[], size_t,
                                              pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

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
