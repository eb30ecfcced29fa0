// capi/security.cpp - credentials (PMIx_Get_credential, PMIx_Validate_credential) and process
// monitors (PMIx_Process_monitor), implemented by client/security.cpp; the server side is
// server/credential_ops.cpp and server/monitor.cpp.
#include "client/client.h"
#include "shim_support.h"

#include <pmix.h>

namespace cl = pmix::client;
using pmix::capi::guarded;

// ---- credentials -------------------------------------------------------------------------------

pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t ninfo,
                                  pmix_byte_object_t* credential) {
    return guarded([&] { return cl::get_credential(info, ninfo, credential); });
}

pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[], size_t ninfo,
                                     pmix_credential_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::get_credential_nb(info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t* cred,
                                       const pmix_info_t directives[], size_t ndirs,
                                       pmix_info_t** info, size_t* ninfo) {
    return guarded([&] { return cl::validate_credential(cred, directives, ndirs, info, ninfo); });
}

pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t* cred,
                                          const pmix_info_t directives[], size_t ndirs,
                                          pmix_validation_cbfunc_t cbfunc, void* cbdata) {
    return guarded(
        [&] { return cl::validate_credential_nb(cred, directives, ndirs, cbfunc, cbdata); });
}

// ---- process monitors --------------------------------------------------------------------------

pmix_status_t PMIx_Process_monitor(const pmix_info_t* monitor, pmix_status_t error,
                                   const pmix_info_t directives[], size_t ndirs,
                                   pmix_info_t** results, size_t* nresults) {
    return guarded(
        [&] { return cl::process_monitor(monitor, error, directives, ndirs, results, nresults); });
}

pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t* monitor, pmix_status_t error,
                                      const pmix_info_t directives[], size_t ndirs,
                                      pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return guarded(
        [&] { return cl::process_monitor_nb(monitor, error, directives, ndirs, cbfunc, cbdata); });
}
