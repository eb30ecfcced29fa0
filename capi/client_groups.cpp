// capi/client_groups.cpp - the group calls of pmix.h (PMIx_Group_*), implemented by client/
// (groups.cpp). Each shim only guards against exceptions and forwards.
#include "client/client.h"
#include "shim_support.h"

#include <pmix.h>

namespace cl = pmix::client;
using pmix::capi::guarded;

pmix_status_t PMIx_Group_construct(const char grp[], const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t directives[], size_t ndirs,
                                   pmix_info_t** results, size_t* nresults) {
    return guarded([&] {
        return cl::group_construct(grp, procs, nprocs, directives, ndirs, results, nresults);
    });
}

pmix_status_t PMIx_Group_construct_nb(const char grp[], const pmix_proc_t procs[], size_t nprocs,
                                      const pmix_info_t info[], size_t ninfo,
                                      pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return guarded(
        [&] { return cl::group_construct_nb(grp, procs, nprocs, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Group_invite(const char grp[], const pmix_proc_t procs[], size_t nprocs,
                                const pmix_info_t info[], size_t ninfo, pmix_info_t** results,
                                size_t* nresult) {
    return guarded(
        [&] { return cl::group_invite(grp, procs, nprocs, info, ninfo, results, nresult); });
}

pmix_status_t PMIx_Group_invite_nb(const char grp[], const pmix_proc_t procs[], size_t nprocs,
                                   const pmix_info_t info[], size_t ninfo,
                                   pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return guarded(
        [&] { return cl::group_invite_nb(grp, procs, nprocs, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Group_join(const char grp[], const pmix_proc_t* leader, pmix_group_opt_t opt,
                              const pmix_info_t info[], size_t ninfo, pmix_info_t** results,
                              size_t* nresult) {
    return guarded([&] { return cl::group_join(grp, leader, opt, info, ninfo, results, nresult); });
}

pmix_status_t PMIx_Group_join_nb(const char grp[], const pmix_proc_t* leader, pmix_group_opt_t opt,
                                 const pmix_info_t info[], size_t ninfo, pmix_info_cbfunc_t cbfunc,
                                 void* cbdata) {
    return guarded(
        [&] { return cl::group_join_nb(grp, leader, opt, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Group_leave(const char grp[], const pmix_info_t info[], size_t ninfo) {
    return guarded([&] { return cl::group_leave(grp, info, ninfo); });
}

pmix_status_t PMIx_Group_leave_nb(const char grp[], const pmix_info_t info[], size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::group_leave_nb(grp, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Group_destruct(const char grp[], const pmix_info_t info[], size_t ninfo) {
    return guarded([&] { return cl::group_destruct(grp, info, ninfo); });
}

pmix_status_t PMIx_Group_destruct_nb(const char grp[], const pmix_info_t info[], size_t ninfo,
                                     pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::group_destruct_nb(grp, info, ninfo, cbfunc, cbdata); });
}
