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

// ---- Query, log, allocation, job control ----------------------------------------------------

// ---- Groups ----------------------------------------------------------------------------------

pmix_status_t PMIx_Group_construct(const char[], const pmix_proc_t[], size_t, const pmix_info_t[],
                                   size_t, pmix_info_t**, size_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_construct_nb(const char[], const pmix_proc_t[], size_t,
                                      const pmix_info_t[], size_t, pmix_info_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_invite(const char[], const pmix_proc_t[], size_t, const pmix_info_t[],
                                size_t, pmix_info_t**, size_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_invite_nb(const char[], const pmix_proc_t[], size_t, const pmix_info_t[],
                                   size_t, pmix_info_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_join(const char[], const pmix_proc_t*, pmix_group_opt_t,
                              const pmix_info_t[], size_t, pmix_info_t**, size_t*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_join_nb(const char[], const pmix_proc_t*, pmix_group_opt_t,
                                 const pmix_info_t[], size_t, pmix_info_cbfunc_t, void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_leave(const char[], const pmix_info_t[], size_t) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_leave_nb(const char[], const pmix_info_t[], size_t, pmix_op_cbfunc_t,
                                  void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_destruct(const char[], const pmix_info_t[], size_t) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}

pmix_status_t PMIx_Group_destruct_nb(const char[], const pmix_info_t[], size_t, pmix_op_cbfunc_t,
                                     void*) {
    return pmix::capi::guarded([&] { return pmix::capi::not_implemented_status(); });
}
