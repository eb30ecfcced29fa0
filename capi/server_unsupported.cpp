// capi/server_unsupported.cpp - the calls of the server API (pmix_server.h) server/ does not
// implement.
//
// The server operations not implemented yet answer PMIX_ERR_INIT before init and
// PMIX_ERR_NOT_SUPPORTED after; a call that returns an error
// status never invokes its callback. Lifecycle, registration, setup_fork, dmodex and the
// application-setup calls live in capi/server.cpp.
//
// PMIx_generate_regex/ppn and the locality/cpuset functions of this header live in capi/maps.cpp.
#include "server/api.h"
#include "shim_support.h"

#include <pmix_server.h>

namespace {
// Before PMIx_server_init the Standard's answer is PMIX_ERR_INIT; once the server runs, an
// operation we do not implement yet is PMIX_ERR_NOT_SUPPORTED, never a false success.
pmix_status_t not_available() {
    return pmix::server::initialized() ? PMIX_ERR_NOT_SUPPORTED : PMIX_ERR_INIT;
}
}  // namespace

// ---- process sets ---------------------------

pmix_status_t PMIx_server_define_process_set(const pmix_proc_t*, size_t, const char*) {
    return pmix::capi::guarded([&] { return not_available(); });
}

pmix_status_t PMIx_server_delete_process_set(char*) {
    return pmix::capi::guarded([&] { return not_available(); });
}
