// tests/tools/event_record.h - what the debugger test tools (debug_stop, app_stops,
// cospawn_stops) record of the events they get, and their failure count: one copy for all three.
#pragma once

#include <pmix.h>

#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

namespace event_record {

// One event as a tool's handler saw it.
struct Seen {
    pmix_status_t code;
    pmix_proc_t source;
    std::string nspace, breakpoint;
    pmix_status_t term = PMIX_ERR_NOT_FOUND;
    int exit_code = -1;
    pmix_rank_t failed_rank = PMIX_RANK_INVALID;
};

inline std::mutex g_mu;
inline std::condition_variable g_cv;
inline std::vector<Seen> g_seen;  // guarded by g_mu
inline int g_failures = 0;

inline void check(bool ok, const std::string& what) {
    if (ok) return;
    std::printf("FAIL: %s\n", what.c_str());
    std::fflush(stdout);
    ++g_failures;
}

// The keys the tests look at: PMIX_NSPACE, PMIX_BREAKPOINT, PMIX_JOB_TERM_STATUS,
// PMIX_EXIT_CODE, PMIX_PROCID (the first failed process of a JOB_END).
inline Seen parse_event(pmix_status_t code, const pmix_proc_t* source, const pmix_info_t info[],
                        size_t ninfo) {
    Seen s{code, source != nullptr ? *source : pmix_proc_t{}, "", ""};
    for (size_t i = 0; i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        if (PMIX_CHECK_KEY(&in, PMIX_NSPACE) && in.value.type == PMIX_STRING)
            s.nspace = in.value.data.string;
        else if (PMIX_CHECK_KEY(&in, PMIX_BREAKPOINT) && in.value.type == PMIX_STRING)
            s.breakpoint = in.value.data.string;
        else if (PMIX_CHECK_KEY(&in, PMIX_JOB_TERM_STATUS) && in.value.type == PMIX_STATUS)
            s.term = in.value.data.status;
        else if (PMIX_CHECK_KEY(&in, PMIX_EXIT_CODE) && in.value.type == PMIX_INT)
            s.exit_code = in.value.data.integer;
        else if (PMIX_CHECK_KEY(&in, PMIX_PROCID) && in.value.type == PMIX_PROC &&
                 in.value.data.proc != nullptr)
            s.failed_rank = in.value.data.proc->rank;
    }
    return s;
}

inline void record(const Seen& s) {
    std::lock_guard lock(g_mu);
    g_seen.push_back(s);
    g_cv.notify_all();
}

}  // namespace event_record
