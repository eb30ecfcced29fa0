// cospawn_stops: a tool's PMIx_Spawn with a debugger stop AND a co-spawned debugger app, at a
// multi-node head (launcher/head_debug_spawn.h): the application is held, the co-spawned
// daemons are not. Public API only.
//   cospawn_stops app DIR                 a rank of the application: PMIx_Init, then
//   DIR/init.<rank>;
//                                         the last rank exits $CS_EXIT (0 if unset)
//   cospawn_stops tool PID DIR DAEMONS    a tool attached to the head PID: spawns 4 "app DIR"
//                                         (PMIX_DEBUG_STOP_IN_INIT, PMIX_NOTIFY_JOB_EVENTS, the
//                                         last rank exiting 7) with a co-spawned app of one
//                                         debugger daemon per node (`DAEMONS node-daemon`,
//                                         tests/tools/debug_daemons.cpp: it checks
//                                         PMIX_DEBUG_TARGET and its node's 2 target processes,
//                                         alive); checks every rank's READY_FOR_DEBUG
//                                         ("pmix-init"), the proc table on 2 hosts, the daemons'
//                                         job ending well while no rank passed PMIx_Init; releases;
//                                         JOB_END NON-ZERO TERMINATION, exit 7, rank 3; every rank
//                                         past PMIx_Init; JOB_START, LAUNCH_COMPLETE and JOB_END
//                                         once each; CS_STOP_IN_APP set: the stop in the
//                                         application's own info, not the job's
// Prints "cospawn_stops: ok" and exits 0 when every check held; "FAIL: ..." and 1 otherwise.
#include <pmix.h>
#include <pmix_tool.h>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "event_record.h"

namespace {

using namespace event_record;

constexpr int kRanks = 4, kExit = 7;

void on_event(size_t, pmix_status_t code, const pmix_proc_t* source, pmix_info_t info[],
              size_t ninfo, pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
              void* cbdata) {
    Seen s = parse_event(code, source, info, ninfo);
    record(s);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

// The events of `code` about `nspace` (by_source: from one of its processes).
std::vector<Seen> seen(pmix_status_t code, const std::string& nspace, bool by_source = false) {
    std::lock_guard lock(g_mu);
    std::vector<Seen> out;
    for (const Seen& s : g_seen)
        if (s.code == code &&
            (by_source ? nspace == s.source.nspace && s.source.rank < kRanks : s.nspace == nspace))
            out.push_back(s);
    return out;
}

// Waits (at most `ms`) until `done` holds of what was seen.
template <typename Done>
bool wait_until(int ms, Done done) {
    std::unique_lock lock(g_mu);
    return g_cv.wait_for(lock, std::chrono::milliseconds(ms), [&] {
        lock.unlock();
        const bool ok = done();
        lock.lock();
        return ok;
    });
}

pmix_info_t flag(const char* key) {
    pmix_info_t i;
    const bool yes = true;
    PMIX_INFO_LOAD(&i, key, &yes, PMIX_BOOL);
    return i;
}

std::string g_dir;

int markers() {
    int found = 0;
    for (int r = 0; r < kRanks; ++r)
        found += access((g_dir + "/init." + std::to_string(r)).c_str(), F_OK) == 0;
    return found;
}

void fill_app(pmix_app_t& app, const char* cmd, std::vector<std::string> args,
              std::vector<std::string> env, int maxprocs) {
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(cmd);
    args.insert(args.begin(), cmd);
    app.argv = static_cast<char**>(calloc(args.size() + 1, sizeof(char*)));
    for (size_t i = 0; i < args.size(); ++i) app.argv[i] = strdup(args[i].c_str());
    app.env = static_cast<char**>(calloc(env.size() + 1, sizeof(char*)));
    for (size_t i = 0; i < env.size(); ++i) app.env[i] = strdup(env[i].c_str());
    app.maxprocs = maxprocs;
}

// The application held in init and one daemon per node co-spawned with it: its namespace.
std::string spawn(const char* self, const char* daemons) {
    pmix_app_t apps[2];
    fill_app(apps[0], self, {"app", g_dir}, {"CS_EXIT=" + std::to_string(kExit)}, kRanks);
    fill_app(apps[1], daemons, {"node-daemon"}, {"DBG_EXPECT_LOCAL=1", "DBG_EXPECT_TARGETS=2"}, 0);
    const uint16_t one = 1;
    PMIX_INFO_CREATE(apps[1].info, 2);
    apps[1].ninfo = 2;
    const bool yes = true;
    PMIX_INFO_LOAD(&apps[1].info[0], PMIX_DEBUGGER_DAEMONS, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&apps[1].info[1], PMIX_DEBUG_DAEMONS_PER_NODE, &one, PMIX_UINT16);
    // CS_STOP_IN_APP set: the stop in the application's own info instead of the job's.
    const bool in_app = std::getenv("CS_STOP_IN_APP") != nullptr;
    if (in_app) {
        PMIX_INFO_CREATE(apps[0].info, 1);
        apps[0].ninfo = 1;
        apps[0].info[0] = flag(PMIX_DEBUG_STOP_IN_INIT);
    }
    pmix_info_t info[2] = {flag(PMIX_NOTIFY_JOB_EVENTS), flag(PMIX_DEBUG_STOP_IN_INIT)};
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc = PMIx_Spawn(info, in_app ? 1 : 2, apps, 2, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    for (pmix_info_t& i : info) PMIX_INFO_DESTRUCT(&i);
    for (pmix_app_t& a : apps) PMIX_APP_DESTRUCT(&a);
    return rc == PMIX_SUCCESS ? nspace : "";
}

// The hosts of `nspace`'s processes with a pid, from PMIX_QUERY_PROC_TABLE.
std::vector<std::string> hosts_of(const std::string& nspace) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    query.keys = static_cast<char**>(calloc(2, sizeof(char*)));
    query.keys[0] = strdup(PMIX_QUERY_PROC_TABLE);
    query.nqual = 1;
    PMIX_INFO_CREATE(query.qualifiers, 1);
    PMIX_INFO_LOAD(&query.qualifiers[0], PMIX_NSPACE, nspace.c_str(), PMIX_STRING);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    std::vector<std::string> hosts;
    if (PMIx_Query_info(&query, 1, &results, &nresults) == PMIX_SUCCESS)
        for (size_t i = 0; i < nresults; ++i) {
            const pmix_data_array_t* a = results[i].value.data.darray;
            if (results[i].value.type != PMIX_DATA_ARRAY || a == nullptr ||
                a->type != PMIX_PROC_INFO)
                continue;
            const auto* p = static_cast<const pmix_proc_info_t*>(a->array);
            for (size_t k = 0; k < a->size; ++k)
                if (p[k].pid > 0) hosts.emplace_back(p[k].hostname ? p[k].hostname : "");
        }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return hosts;
}

void release(const std::string& nspace) {
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, nspace.c_str(), PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &all, PMIX_PROC);
    info[1] = flag(PMIX_EVENT_NON_DEFAULT);
    const pmix_status_t rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, nullptr, PMIX_RANGE_CUSTOM,
                                               info, 2, nullptr, nullptr);
    check(rc == PMIX_SUCCESS, std::string("release: ") + PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

// The co-spawned daemons' JOB_END (another namespace than the application's).
bool daemons_ended(const std::string& application, Seen& end) {
    std::lock_guard lock(g_mu);
    for (const Seen& s : g_seen)
        if (s.code == PMIX_EVENT_JOB_END && !s.nspace.empty() && s.nspace != application) {
            end = s;
            return true;
        }
    return false;
}

void check_held_then_released(const std::string& nspace) {
    check(wait_until(20000, [&] { return seen(PMIX_READY_FOR_DEBUG, nspace, true).size() >= 4; }),
          "not a READY_FOR_DEBUG from every rank");
    for (const Seen& s : seen(PMIX_READY_FOR_DEBUG, nspace, true))
        check(s.breakpoint == "pmix-init", "breakpoint '" + s.breakpoint + "'");
    std::vector<std::string> hosts = hosts_of(nspace);
    check(hosts.size() == kRanks, "proc table of " + std::to_string(hosts.size()));
    std::sort(hosts.begin(), hosts.end());
    check(std::unique(hosts.begin(), hosts.end()) - hosts.begin() == 2, "not on 2 hosts");
    Seen end{};
    check(wait_until(20000, [&] { return daemons_ended(nspace, end); }),
          "the co-spawned daemons did not end while the application was held");
    check(end.term == PMIX_SUCCESS,
          "the daemons' JOB_END: " + std::string(PMIx_Error_string(end.term)));
    std::printf("daemons %s ended (%s) while %s was held\n", end.nspace.c_str(),
                PMIx_Error_string(end.term), nspace.c_str());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    check(markers() == 0, "a rank passed PMIx_Init before its release");
    release(nspace);
    check(wait_until(20000, [&] { return !seen(PMIX_EVENT_JOB_END, nspace).empty(); }),
          "no JOB_END of the application");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // none comes late
    const std::vector<Seen> ends = seen(PMIX_EVENT_JOB_END, nspace);
    if (!ends.empty()) {
        std::printf("JOB_END %s exit code %d rank %u\n", PMIx_Error_string(ends[0].term),
                    ends[0].exit_code, ends[0].failed_rank);
        check(ends[0].term == PMIX_ERR_JOB_NON_ZERO_TERM && ends[0].exit_code == kExit &&
                  ends[0].failed_rank == kRanks - 1,
              "JOB_END not NON-ZERO TERMINATION, exit 7, rank 3");
    }
    for (pmix_status_t code : {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END}) {
        const size_t n = seen(code, nspace).size();
        check(n == 1, std::to_string(n) + " " + PMIx_Error_string(code) + " for " + nspace);
    }
    check(markers() == kRanks, "not every rank passed PMIx_Init after the release");
}

int run_tool(const char* self, pid_t pid, const char* daemons) {
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (const char* t = std::getenv("TMPDIR"); t != nullptr)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TMPDIR, t, PMIX_STRING);
    pmix_proc_t me;
    const pmix_status_t rc = PMIx_tool_init(&me, info, ninfo);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        std::printf("FAIL: tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_status_t codes[] = {PMIX_READY_FOR_DEBUG, PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE,
                             PMIX_EVENT_JOB_END};
    const pmix_status_t ref =
        PMIx_Register_event_handler(codes, 4, nullptr, 0, on_event, nullptr, nullptr);
    check(ref >= 0, std::string("register: ") + PMIx_Error_string(ref));
    if (const std::string nspace = spawn(self, daemons); !nspace.empty())
        check_held_then_released(nspace);
    PMIx_tool_finalize();
    if (g_failures == 0) std::printf("cospawn_stops: ok\n");
    return g_failures == 0 ? 0 : 1;
}

int run_app(const char* dir) {
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 2;
    if (FILE* f = std::fopen((std::string(dir) + "/init." + std::to_string(me.rank)).c_str(), "w"))
        std::fclose(f);
    PMIx_Finalize(nullptr, 0);
    const char* code = std::getenv("CS_EXIT");
    return me.rank == kRanks - 1 && code != nullptr ? std::atoi(code) : 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "app" && argc == 3) return run_app(argv[2]);
    if (mode == "tool" && argc == 5) {
        g_dir = argv[3];
        return run_tool(argv[0], static_cast<pid_t>(std::atoi(argv[2])), argv[4]);
    }
    std::fprintf(stderr, "usage: cospawn_stops app DIR | tool PID DIR DAEMONS\n");
    return 2;
}
