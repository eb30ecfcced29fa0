// launcher/connect.cpp - the host's connect / disconnect upcalls on one node.
//
// The server library collects this node's callers of one PMIx_Connect (or PMIx_Disconnect) and
// makes ONE upcall with the whole proc array once every local participant has called
// (server/connect_tracker.h; OpenPMIx does the same, so pmixrun-openpmix is served alike). The
// operation completes when every node hosting a participant has called, and pmixrun is one node:
// the upcall is the whole operation, answered at once. (The library makes none when every
// participant is a registered process of this node: the upcall comes for a set naming a tool's
// namespace or a namespace this server does not know.) A timeout, or a participant that ended
// before joining, the library handles before the upcall. On one node every namespace is
// registered with this same server, so the participants already read each other's job data:
// nothing else is exchanged. A wildcard of a namespace pmixrun does not run, nor a rank beyond
// its size, is PMIX_ERR_NOT_FOUND.
#include "launcher.h"

#include <algorithm>

namespace pmix::launcher {
namespace {

// A process we run matches `proc` (a wildcard: any of its namespace).
bool ours(const Launcher& launcher, const pmix_proc_t& proc) {
    return std::any_of(launcher.procs.begin(), launcher.procs.end(), [&](const Proc& p) {
        return p.nspace == proc.nspace && (proc.rank == PMIX_RANK_WILDCARD || proc.rank == p.rank);
    });
}

// A single rank of a namespace we do not run: a tool's (its own namespace, not registered).
bool a_tool(const Launcher& launcher, const pmix_proc_t& proc) {
    return proc.rank != PMIX_RANK_WILDCARD &&
           std::none_of(launcher.procs.begin(), launcher.procs.end(),
                        [&](const Proc& p) { return p.nspace == proc.nspace; });
}

bool all_known(const Launcher& launcher, const std::vector<pmix_proc_t>& procs) {
    return std::all_of(procs.begin(), procs.end(), [&](const pmix_proc_t& proc) {
        return ours(launcher, proc) || a_tool(launcher, proc);
    });
}

pmix_status_t post_answer(const pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                          void* cbdata) {
    if (procs == nullptr || nprocs == 0) return PMIX_ERR_BAD_PARAM;
    std::vector<pmix_proc_t> set(procs, procs + nprocs);
    g_launcher->queue.post([set = std::move(set), cbfunc, cbdata] {
        const pmix_status_t status =
            all_known(*g_launcher, set) ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
        if (cbfunc != nullptr) cbfunc(status, cbdata);
    });
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t host_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                           pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return post_answer(procs, nprocs, cbfunc, cbdata);
}

pmix_status_t host_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                              pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return post_answer(procs, nprocs, cbfunc, cbdata);
}

}  // namespace pmix::launcher
