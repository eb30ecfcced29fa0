// capi/client_unsupported.cpp - the client API (pmix.h) not implemented by client/ yet.
//
// (Init, Finalize, Put/Get/Fence, Publish/Lookup, Connect, Log: capi/client.cpp.) Every
// remaining client operation answers PMIX_ERR_INIT before init (the Standard's answer) and
// PMIX_ERR_NOT_SUPPORTED after. A non-blocking call that returns an error status never invokes its
// callback (Standard: the callback fires only after PMIX_SUCCESS), so none of these call theirs.
// When one is implemented, it moves out of this file into the file of its family.
#include "compose.h"
#include "shim_support.h"

#include <pmix.h>

// ---- Lifecycle -------------------------------------------------------------------------------

void PMIx_Progress(void) {
    // Nothing to progress: no connection, no pending operation.
}

// ---- Key/value exchange ----------------------------------------------------------------------

// ---- Publish / lookup ------------------------------------------------------------------------

// ---- Spawn, connect, peers -------------------------------------------------------------------

// ---- Events ----------------------------------------------------------------------------------

// ---- Query, log, allocation, job control, monitoring -----------------------------------------

pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t, pmix_info_t*, size_t, pmix_info_t**,
                                      size_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t, pmix_info_t*, size_t,
                                         pmix_info_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Process_monitor(const pmix_info_t*, pmix_status_t, const pmix_info_t[], size_t,
                                   pmix_info_t**, size_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t*, pmix_status_t, const pmix_info_t[],
                                      size_t, pmix_info_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

// ---- Credentials -----------------------------------------------------------------------------

pmix_status_t PMIx_Get_credential(const pmix_info_t[], size_t, pmix_byte_object_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Get_credential_nb(const pmix_info_t[], size_t, pmix_credential_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t*, const pmix_info_t[], size_t,
                                       pmix_info_t**, size_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t*, const pmix_info_t[], size_t,
                                          pmix_validation_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

// ---- Fabric ----------------------------------------------------------------------------------

pmix_status_t PMIx_Fabric_register(pmix_fabric_t*, const pmix_info_t[], size_t) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t*, const pmix_info_t[], size_t, pmix_op_cbfunc_t,
                                      void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Fabric_update(pmix_fabric_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t*, pmix_op_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t*, pmix_op_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}
