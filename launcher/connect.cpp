// launcher/connect.cpp - the host's connect / disconnect upcalls on one node.
//
// PMIx_Connect(procs) completes once every process it names has called it with the same set
// (PMIX_RANK_WILDCARD: every process of that namespace); PMIx_Disconnect likewise. Our library
// hands each caller's request up as it comes (one upcall per caller, no caller identity), so the
// host counts the calls per set and answers them all together. OpenPMIx's server collects its
// local callers itself and makes one upcall per node with the whole set (its connect tracker), so
// pmixrun-openpmix (PMIXRUN_SERVER_COLLECTS_CONNECT) answers at once: on one node every
// participant is local. On one node every namespace is registered with this same server, so the
// participants already read each other's job data: nothing else is exchanged.
// A set whose process ended before joining fails with PMIX_ERR_LOST_CONNECTION, one past its
// PMIX_TIMEOUT (seconds) with PMIX_ERR_TIMEOUT.
#include "launcher.h"

#include <algorithm>
#include <cstring>

namespace pmix::launcher {
namespace {

struct PendingConnect {
    bool connect = true;
    std::vector<pmix_proc_t> procs;  // sorted: the key
    size_t expected = 0;             // the processes the set names
    std::vector<std::pair<pmix_op_cbfunc_t, void*>> callers;
    bool has_deadline = false;
    Clock::time_point deadline;
};

std::vector<PendingConnect> g_pending;  // the launcher's loop only

bool proc_less(const pmix_proc_t& a, const pmix_proc_t& b) {
    const int by_nspace = std::strncmp(a.nspace, b.nspace, PMIX_MAX_NSLEN);
    return by_nspace != 0 ? by_nspace < 0 : a.rank < b.rank;
}

bool same_set(const std::vector<pmix_proc_t>& a, const std::vector<pmix_proc_t>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!PMIX_CHECK_PROCID(&a[i], &b[i]) || a[i].rank != b[i].rank) return false;
    return true;
}

// How many processes `procs` names: a wildcard is every process of its namespace this launcher
// runs; a single rank is one (a tool's too). 0: a wildcard of a namespace it does not know.
size_t named_count(const Launcher& launcher, const std::vector<pmix_proc_t>& procs) {
    size_t count = 0;
    for (const pmix_proc_t& proc : procs) {
        if (proc.rank != PMIX_RANK_WILDCARD) {
            ++count;
            continue;
        }
        const size_t members = static_cast<size_t>(
            std::count_if(launcher.procs.begin(), launcher.procs.end(),
                          [&](const Proc& p) { return p.nspace == proc.nspace; }));
        if (members == 0) return 0;
        count += members;
    }
    return count;
}

bool named(const std::vector<pmix_proc_t>& procs, const Proc& process) {
    for (const pmix_proc_t& proc : procs)
        if (process.nspace == proc.nspace &&
            (proc.rank == PMIX_RANK_WILDCARD || proc.rank == process.rank))
            return true;
    return false;
}

void answer(PendingConnect& pending, pmix_status_t status) {
    for (auto& [cbfunc, cbdata] : pending.callers)
        if (cbfunc != nullptr) cbfunc(status, cbdata);
    pending.callers.clear();
}

// On the loop: one caller's request joins its set's.
void join(bool connect, std::vector<pmix_proc_t> procs, int timeout_s, pmix_op_cbfunc_t cbfunc,
          void* cbdata) {
    std::sort(procs.begin(), procs.end(), proc_less);
    const size_t expected = named_count(*g_launcher, procs);
    if (expected == 0) {
        if (cbfunc != nullptr) cbfunc(PMIX_ERR_NOT_FOUND, cbdata);
        return;
    }
    auto it = std::find_if(g_pending.begin(), g_pending.end(), [&](const PendingConnect& p) {
        return p.connect == connect && same_set(p.procs, procs);
    });
    if (it == g_pending.end()) {
        PendingConnect fresh;
        fresh.connect = connect;
        fresh.procs = procs;
        fresh.expected = expected;
        it = g_pending.insert(g_pending.end(), std::move(fresh));
    }
    it->callers.emplace_back(cbfunc, cbdata);
    if (timeout_s > 0) {
        const Clock::time_point deadline = Clock::now() + std::chrono::seconds(timeout_s);
        if (!it->has_deadline || deadline < it->deadline) it->deadline = deadline;
        it->has_deadline = true;
    }
#ifdef PMIXRUN_SERVER_COLLECTS_CONNECT
    const bool complete = true;  // the library collected this node's callers already
#else
    const bool complete = it->callers.size() >= it->expected;
#endif
    if (!complete) return;
    PendingConnect done = std::move(*it);
    g_pending.erase(it);
    answer(done, PMIX_SUCCESS);
}

pmix_status_t post_join(bool connect, const pmix_proc_t procs[], size_t nprocs,
                        const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                        void* cbdata) {
    if (procs == nullptr || nprocs == 0) return PMIX_ERR_BAD_PARAM;
    const int timeout_s = timeout_of(info, ninfo);
    std::vector<pmix_proc_t> set(procs, procs + nprocs);
    g_launcher->queue.post([connect, set = std::move(set), timeout_s, cbfunc, cbdata]() mutable {
        join(connect, std::move(set), timeout_s, cbfunc, cbdata);
    });
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t host_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return post_join(true, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

pmix_status_t host_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return post_join(false, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

void connect_tick(Launcher& launcher) {
    if (g_pending.empty()) return;
    const Clock::time_point now = Clock::now();
    for (auto it = g_pending.begin(); it != g_pending.end();) {
        const bool lost =
            std::any_of(launcher.procs.begin(), launcher.procs.end(),
                        [&](const Proc& p) { return p.exited && named(it->procs, p); });
        const bool late = it->has_deadline && now >= it->deadline;
        if (!lost && !late) {
            ++it;
            continue;
        }
        PendingConnect done = std::move(*it);
        it = g_pending.erase(it);
        answer(done, lost ? PMIX_ERR_LOST_CONNECTION : PMIX_ERR_TIMEOUT);
    }
}

void connect_fail_all(pmix_status_t status) {
    std::vector<PendingConnect> all = std::move(g_pending);
    g_pending.clear();
    for (PendingConnect& pending : all) answer(pending, status);
}

}  // namespace pmix::launcher
