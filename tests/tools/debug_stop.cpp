// debug_stop: the debugger stops of the Tools chapter under pmixrun (launcher/debug.cpp,
// client/debug_stop.cpp), with real processes.
//   debug_stop hold STOPFILE       a main-job rank: waits (at most 30 s) for STOPFILE
//   debug_stop hello MARKDIR       a spawned rank: PMIx_Init, then MARKDIR/init.<rank>; with
//                                  $DEBUG_STOP_SPIN, waits (at most 20 s) for MARKDIR/go first;
//                                  an init that fails writes MARKDIR/initfail.<rank> (its status)
//   debug_stop tool PID CASE DIR   a tool attached to pmixrun PID, CASE one of
//     init:   spawns 3 hellos with PMIX_DEBUG_STOP_IN_INIT: PMIX_READY_FOR_DEBUG from each, with
//             PMIX_BREAKPOINT "pmix-init"; none has passed PMIx_Init; PMIX_DEBUGGER_RELEASE to
//             the namespace; JOB_END with PMIX_SUCCESS and every rank's marker
//     early:  spawns 3 hellos stopped in init and releases them at once, before they report:
//             none stays stopped (pmixrun releases a late reporter again); JOB_END
//     rank:   spawns 2 hellos with PMIX_DEBUG_STOP_IN_INIT = rank 1: rank 0 runs through, rank 1
//             waits until released
//     affected: two jobs of 1 hello stopped in init; a release with range SESSION naming the
//             first (PMIX_EVENT_AFFECTED_PROC) releases it alone; then the second's
//     exec:   spawns 3 hellos with PMIX_DEBUG_STOP_ON_EXEC: LAUNCH_COMPLETE and READY_FOR_DEBUG;
//             every process is 'T' in /proc and stays so; released, JOB_END with PMIX_SUCCESS
//     pause:  spawns 2 spinning hellos; PMIx_Job_control PAUSE: each 'T'; RESUME: none 'T';
//             then they finish: JOB_END with PMIX_SUCCESS
//     orphan: spawns 1 hello stopped in init; once it is ready prints "pid <pid>" and leaves
//             (the script then kills pmixrun: the hello's PMIx_Init must fail)
//     app:    spawns 2 hellos with PMIX_DEBUG_STOP_IN_APP: each stops itself after PMIx_Init
//             (READY_FOR_DEBUG with its own PMIX_BREAKPOINT "app-main"); released, JOB_END
//     main-init / main-exec: pmixrun's own job of 2 hellos, started with --stop-in-init /
//             --stop-on-exec: none passes PMIx_Init (each 'T' on exec) until the tool releases
//             the job's namespace (the script checks that the job then ends well)
//     support: PMIX_QUERY_DEBUG_SUPPORT names the three stops
//     nodes-init / nodes-exec / nodes-app: pmixrun --host's own job of $DEBUG_STOP_NPROCS (4)
//             hellos over several nodes, started with --stop-in-init / --stop-on-exec /
//             --stop-in-app (tests/multinode/debug_netns.sh); the hellos wait for DIR/start
//             (DEBUG_STOP_START), which the tool writes once its handlers are in: every process's
//             READY_FOR_DEBUG and the job's one (on exec: LAUNCH_COMPLETE, every process 'T'),
//             the proc table's pids on more than one host, none past its stop until released,
//             then JOB_END with the status of $DEBUG_STOP_EXIT (the last rank's exit code)
//     nodes-pause: the same job of spinning hellos ($DEBUG_STOP_SPIN), not held: PAUSE at the
//             head stops every process ('T') on every node, RESUME continues them; JOB_END
// Prints "debug_stop: <case> ok" and exits 0 when every check held; "FAIL: ..." otherwise.
#include <pmix.h>
#include <pmix_tool.h>

#include <sys/stat.h>
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

// Not a PMIx code: how on_event records the launcher's job-level PMIX_READY_FOR_DEBUG.
constexpr pmix_status_t kJobReady = -100000;

void on_event(size_t, pmix_status_t code, const pmix_proc_t* source, pmix_info_t info[],
              size_t ninfo, pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
              void* cbdata) {
    Seen s = parse_event(code, source, info, ninfo);
    // The launcher's one READY_FOR_DEBUG for a whole job (its source is not a process of the job)
    // is kept apart from the processes' own.
    if (code == PMIX_READY_FOR_DEBUG && !s.nspace.empty() &&
        std::strncmp(s.source.nspace, s.nspace.c_str(), PMIX_MAX_NSLEN) != 0)
        s.code = kJobReady;
    record(s);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

std::vector<Seen> seen(pmix_status_t code, const std::string& nspace) {
    std::lock_guard lock(g_mu);
    std::vector<Seen> out;
    for (const Seen& s : g_seen)
        if (s.code == code && s.nspace == nspace) out.push_back(s);
    return out;
}

bool wait_for(pmix_status_t code, const std::string& nspace, size_t want, int ms) {
    std::unique_lock lock(g_mu);
    return g_cv.wait_for(lock, std::chrono::milliseconds(ms), [&] {
        size_t n = 0;
        for (const Seen& s : g_seen) n += s.code == code && s.nspace == nspace;
        return n >= want;
    });
}

pmix_info_t flag(const char* key) {
    pmix_info_t i;
    const bool yes = true;
    PMIX_INFO_LOAD(&i, key, &yes, PMIX_BOOL);
    return i;
}

std::string g_dir;
void touch(const std::string& path, const std::string& text = "");

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

int markers(const char* prefix, int n) {
    int found = 0;
    for (int r = 0; r < n; ++r) found += exists(g_dir + "/" + prefix + std::to_string(r));
    return found;
}

pmix_status_t spawn(const char* self, int n, std::vector<pmix_info_t> info, bool spin,
                    char* nspace) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = static_cast<char**>(calloc(4, sizeof(char*)));
    app.argv[0] = strdup(self);
    app.argv[1] = strdup("hello");
    app.argv[2] = strdup(g_dir.c_str());
    app.env = static_cast<char**>(calloc(2, sizeof(char*)));
    if (spin) app.env[0] = strdup("DEBUG_STOP_SPIN=1");
    app.maxprocs = n;
    info.push_back(flag(PMIX_NOTIFY_JOB_EVENTS));
    const pmix_status_t rc = PMIx_Spawn(info.data(), info.size(), &app, 1, nspace);
    for (pmix_info_t& i : info) PMIX_INFO_DESTRUCT(&i);
    PMIX_APP_DESTRUCT(&app);
    return rc;
}

// The pids of `nspace`'s processes, from PMIX_QUERY_PROC_TABLE (and their hosts, if asked).
std::vector<pid_t> pids_of(const char* nspace, std::vector<std::string>* hosts = nullptr) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    {
        [[maybe_unused]] pmix_status_t appended;
        PMIX_ARGV_APPEND(appended, query.keys, PMIX_QUERY_PROC_TABLE);
    }
    query.nqual = 1;
    PMIX_INFO_CREATE(query.qualifiers, 1);
    PMIX_INFO_LOAD(&query.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    std::vector<pid_t> pids;
    const pmix_status_t rc = PMIx_Query_info(&query, 1, &results, &nresults);
    check(rc == PMIX_SUCCESS, std::string("proc table: ") + PMIx_Error_string(rc));
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nresults; ++i) {
        if (results[i].value.type != PMIX_DATA_ARRAY) continue;
        const pmix_data_array_t* a = results[i].value.data.darray;
        if (a == nullptr || a->type != PMIX_PROC_INFO) continue;
        const auto* p = static_cast<const pmix_proc_info_t*>(a->array);
        for (size_t k = 0; k < a->size; ++k) {
            pids.push_back(p[k].pid);
            if (hosts != nullptr) hosts->push_back(p[k].hostname ? p[k].hostname : "");
        }
    }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return pids;
}

char state_of(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    FILE* f = std::fopen(path, "re");
    if (f == nullptr) return '?';
    char line[1024] = {};
    const bool read = std::fgets(line, sizeof line, f) != nullptr;
    std::fclose(f);
    const char* after = read ? std::strrchr(line, ')') : nullptr;
    char state = '?';
    if (after != nullptr) std::sscanf(after + 1, " %c", &state);
    return state;
}

int count_state(const std::vector<pid_t>& pids, char state) {
    int n = 0;
    for (pid_t p : pids) n += state_of(p) == state;
    return n;
}

void release(const char* nspace) {
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &all, PMIX_PROC);
    info[1] = flag(PMIX_EVENT_NON_DEFAULT);
    const pmix_status_t rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, nullptr, PMIX_RANGE_CUSTOM,
                                               info, 2, nullptr, nullptr);
    check(rc == PMIX_SUCCESS, std::string("release: ") + PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

// Each lifecycle event of `nspace` arrived once (a little after its JOB_END: none comes late).
void check_once(const std::string& nspace) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    for (pmix_status_t code : {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END}) {
        const size_t n = seen(code, nspace).size();
        check(n == 1, std::to_string(n) + " " + PMIx_Error_string(code) + " for " + nspace);
    }
}

void check_job_end(const char* nspace) {
    check(wait_for(PMIX_EVENT_JOB_END, nspace, 1, 15000), "no JOB_END");
    const auto ends = seen(PMIX_EVENT_JOB_END, nspace);
    if (!ends.empty())
        check(ends[0].term == PMIX_SUCCESS,
              std::string("JOB_END status ") + PMIx_Error_string(ends[0].term));
    check_once(nspace);  // every spawn asks PMIX_NOTIFY_JOB_EVENTS
}

void case_init(const char* self) {
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc = spawn(self, 3, {flag(PMIX_DEBUG_STOP_IN_INIT)}, false, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    check(wait_for(PMIX_READY_FOR_DEBUG, nspace, 3, 15000), "not 3 READY_FOR_DEBUG");
    bool ranks[3] = {false, false, false};
    for (const Seen& s : seen(PMIX_READY_FOR_DEBUG, nspace)) {
        check(s.breakpoint == "pmix-init", "breakpoint '" + s.breakpoint + "'");
        check(std::strncmp(s.source.nspace, nspace, PMIX_MAX_NSLEN) == 0 && s.source.rank < 3,
              "READY_FOR_DEBUG from another process");
        if (s.source.rank < 3) ranks[s.source.rank] = true;
    }
    check(ranks[0] && ranks[1] && ranks[2], "READY_FOR_DEBUG not from every rank");
    check(wait_for(kJobReady, nspace, 1, 10000), "no READY_FOR_DEBUG for the whole job");
    check(seen(kJobReady, nspace).size() == 1, "more than one READY_FOR_DEBUG for the job");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    check(markers("init.", 3) == 0, "a process passed PMIx_Init before its release");
    release(nspace);
    check_job_end(nspace);
    check(markers("init.", 3) == 3, "not every process passed PMIx_Init after its release");
}

void case_early(const char* self) {
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc = spawn(self, 3, {flag(PMIX_DEBUG_STOP_IN_INIT)}, false, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    release(nspace);
    check_job_end(nspace);
    check(markers("init.", 3) == 3, "not every process passed PMIx_Init");
}

void case_rank(const char* self) {
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    pmix_info_t only;
    const pmix_rank_t one = 1;
    PMIX_INFO_LOAD(&only, PMIX_DEBUG_STOP_IN_INIT, &one, PMIX_PROC_RANK);
    const pmix_status_t rc = spawn(self, 2, {only}, false, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    check(wait_for(PMIX_READY_FOR_DEBUG, nspace, 1, 15000), "no READY_FOR_DEBUG");
    for (int i = 0; i < 1000 && markers("init.", 1) < 1; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    check(markers("init.", 1) == 1, "rank 0, not asked to stop, did not pass PMIx_Init");
    const auto ready = seen(PMIX_READY_FOR_DEBUG, nspace);
    check(ready.size() == 1 && ready[0].source.rank == 1, "READY_FOR_DEBUG not from rank 1 alone");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    check(!exists(g_dir + "/init.1"), "rank 1 passed PMIx_Init before its release");
    release(nspace);
    check_job_end(nspace);
    check(markers("init.", 2) == 2, "rank 1 did not pass PMIx_Init after its release");
}

void case_affected(const char* self) {
    char first[PMIX_MAX_NSLEN + 1] = {}, second[PMIX_MAX_NSLEN + 1] = {};
    pmix_status_t rc = spawn(self, 1, {flag(PMIX_DEBUG_STOP_IN_INIT)}, false, first);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    const std::string top = g_dir;
    g_dir = top + "/second";
    ::mkdir(g_dir.c_str(), 0700);
    rc = spawn(self, 1, {flag(PMIX_DEBUG_STOP_IN_INIT)}, false, second);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    check(wait_for(PMIX_READY_FOR_DEBUG, first, 1, 15000) &&
              wait_for(PMIX_READY_FOR_DEBUG, second, 1, 15000),
          "no READY_FOR_DEBUG from both jobs");
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, first, PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_AFFECTED_PROC, &all, PMIX_PROC);
    info[1] = flag(PMIX_EVENT_NON_DEFAULT);
    rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, nullptr, PMIX_RANGE_SESSION, info, 2, nullptr,
                           nullptr);
    check(rc == PMIX_SUCCESS, std::string("release: ") + PMIx_Error_string(rc));
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    check_job_end(first);
    check(exists(top + "/init.0"), "the released job did not pass PMIx_Init");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    check(!exists(g_dir + "/init.0"), "a release naming another job released this one");
    release(second);
    check_job_end(second);
    check(exists(g_dir + "/init.0"), "the second job did not pass PMIx_Init after its release");
}

void case_exec(const char* self) {
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc = spawn(self, 3, {flag(PMIX_DEBUG_STOP_ON_EXEC)}, false, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    check(wait_for(PMIX_LAUNCH_COMPLETE, nspace, 1, 10000), "no LAUNCH_COMPLETE");
    check(wait_for(kJobReady, nspace, 1, 10000), "no READY_FOR_DEBUG for the job");
    const std::vector<pid_t> pids = pids_of(nspace);
    check(pids.size() == 3, "proc table of " + std::to_string(pids.size()) + " processes");
    std::string states;
    for (pid_t p : pids) states += state_of(p);
    check(count_state(pids, 'T') == 3, "not every process stopped on exec: states " + states);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    check(count_state(pids, 'T') == 3, "a process went on before its release");
    check(markers("init.", 3) == 0, "a process stopped on exec ran");
    release(nspace);
    check_job_end(nspace);
    check(markers("init.", 3) == 3, "not every process ran after its release");
}

pmix_status_t control(const char* nspace, const char* key) {
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, nspace, PMIX_RANK_WILDCARD);
    pmix_info_t directive = flag(key);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Job_control(&all, 1, &directive, 1, &results, &nresults);
    PMIX_INFO_DESTRUCT(&directive);
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    return rc;
}

void case_pause(const char* self) {
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    pmix_status_t rc = spawn(self, 2, {}, true, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    for (int i = 0; i < 1000 && markers("up.", 2) < 2; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    check(markers("up.", 2) == 2, "the spinning processes did not start");
    const std::vector<pid_t> pids = pids_of(nspace);
    check(pids.size() == 2, "proc table of " + std::to_string(pids.size()) + " processes");
    check(count_state(pids, 'T') == 0, "a process stopped before the pause");
    rc = control(nspace, PMIX_JOB_CTRL_PAUSE);
    check(rc == PMIX_SUCCESS, std::string("pause: ") + PMIx_Error_string(rc));
    check(count_state(pids, 'T') == 2, "not every process stopped once the pause was answered");
    rc = control(nspace, PMIX_JOB_CTRL_RESUME);
    check(rc == PMIX_SUCCESS, std::string("resume: ") + PMIx_Error_string(rc));
    for (int i = 0; i < 200 && count_state(pids, 'T') > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    check(count_state(pids, 'T') == 0, "a process still stopped after the resume");
    if (FILE* f = std::fopen((g_dir + "/go").c_str(), "w")) std::fclose(f);
    check_job_end(nspace);
    check(markers("init.", 2) == 2, "not every paused process finished");
}

void case_app(const char* self) {
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc = spawn(self, 2, {flag(PMIX_DEBUG_STOP_IN_APP)}, false, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    check(wait_for(PMIX_READY_FOR_DEBUG, nspace, 2, 15000), "not 2 READY_FOR_DEBUG");
    for (const Seen& s : seen(PMIX_READY_FOR_DEBUG, nspace))
        check(s.breakpoint == "app-main", "breakpoint '" + s.breakpoint + "'");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    check(markers("init.", 2) == 0, "a process went past its own stop before its release");
    release(nspace);
    check_job_end(nspace);
    check(markers("init.", 2) == 2, "not every process went on after its release");
}

// The namespace of the job of the pmixrun the tool is attached to.
std::string main_nspace() {
    std::string nspace;
    {
        pmix_query_t query;
        PMIX_QUERY_CONSTRUCT(&query);
        [[maybe_unused]] pmix_status_t appended;
        PMIX_ARGV_APPEND(appended, query.keys, PMIX_QUERY_NAMESPACES);
        pmix_info_t* results = nullptr;
        size_t nresults = 0;
        if (PMIx_Query_info(&query, 1, &results, &nresults) == PMIX_SUCCESS && nresults > 0 &&
            results[0].value.type == PMIX_STRING)
            nspace = std::string(results[0].value.data.string)
                         .substr(0, std::string(results[0].value.data.string).find(','));
        if (results != nullptr) PMIX_INFO_FREE(results, nresults);
        PMIX_QUERY_DESTRUCT(&query);
    }
    check(!nspace.empty(), "no namespace of pmixrun's job");
    return nspace;
}

int env_int(const char* name, int otherwise) {
    const char* v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::atoi(v) : otherwise;
}

// pmixrun --host's own job held by --stop-in-init, --stop-on-exec or --stop-in-app.
void case_nodes(const std::string& stop) {
    const int n = env_int("DEBUG_STOP_NPROCS", 4), code = env_int("DEBUG_STOP_EXIT", 0);
    const std::string nspace = main_nspace();
    touch(g_dir + "/start");  // the hellos go on to PMIx_Init now that the handlers are in
    if (stop == "exec") {
        check(wait_for(PMIX_LAUNCH_COMPLETE, nspace, 1, 15000), "no LAUNCH_COMPLETE");
    } else {
        check(wait_for(PMIX_READY_FOR_DEBUG, nspace, static_cast<size_t>(n), 15000),
              "not a READY_FOR_DEBUG from every process");
        std::vector<bool> ranks(static_cast<size_t>(n));
        for (const Seen& s : seen(PMIX_READY_FOR_DEBUG, nspace)) {
            check(s.breakpoint == (stop == "init" ? "pmix-init" : "app-main"),
                  "breakpoint '" + s.breakpoint + "'");
            if (s.source.rank < ranks.size()) ranks[s.source.rank] = true;
        }
        for (int r = 0; r < n; ++r)
            check(ranks[static_cast<size_t>(r)],
                  "no READY_FOR_DEBUG from rank " + std::to_string(r));
        check(wait_for(kJobReady, nspace, 1, 10000), "no READY_FOR_DEBUG for the whole job");
        check(seen(kJobReady, nspace).size() == 1, "more than one READY_FOR_DEBUG for the job");
    }
    std::vector<pid_t> pids;
    std::vector<std::string> hosts;
    for (int i = 0; i < 500; ++i) {
        hosts.clear();
        pids = pids_of(nspace.c_str(), &hosts);
        int started = 0;
        for (pid_t p : pids) started += p > 0;
        if (started == n) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    check(pids.size() == static_cast<size_t>(n), "proc table of " + std::to_string(pids.size()));
    std::sort(hosts.begin(), hosts.end());
    check(std::unique(hosts.begin(), hosts.end()) - hosts.begin() > 1, "the job is on one host");
    std::string states;
    for (pid_t p : pids) states += state_of(p);
    std::printf("%s: %zu processes, states %s\n", nspace.c_str(), pids.size(), states.c_str());
    if (stop == "exec") check(count_state(pids, 'T') == n, "not every process 'T': " + states);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (stop == "exec") check(count_state(pids, 'T') == n, "a process went on before its release");
    check(markers("init.", n) == 0, "a process went past its stop before its release");
    release(nspace.c_str());
    check(wait_for(PMIX_EVENT_JOB_END, nspace, 1, 20000), "no JOB_END");
    const auto ends = seen(PMIX_EVENT_JOB_END, nspace);
    if (!ends.empty()) {
        const pmix_status_t want = code == 0 ? PMIX_SUCCESS : PMIX_ERR_JOB_NON_ZERO_TERM;
        check(ends[0].term == want,
              std::string("JOB_END status ") + PMIx_Error_string(ends[0].term));
        if (code != 0)
            check(ends[0].exit_code == code,
                  "JOB_END exit code " + std::to_string(ends[0].exit_code));
        std::printf("JOB_END %s exit code %d\n", PMIx_Error_string(ends[0].term),
                    ends[0].exit_code);
    }
    check_once(nspace);
    check(markers("init.", n) == n, "not every process went on after its release");
}

// Polls (at most 3 s) until `n` of `pids` are (or, `stopped` false, none is) 'T'.
bool settle(const std::vector<pid_t>& pids, bool stopped, int n) {
    for (int i = 0; i < 300; ++i) {
        const int t = count_state(pids, 'T');
        if (stopped ? t == n : t == 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

// pmixrun --host's own job of spinning hellos: PMIx_Job_control PAUSE at the head stops every
// process on every node, RESUME continues them; then they finish.
void case_nodes_pause() {
    const int n = env_int("DEBUG_STOP_NPROCS", 4);
    const std::string nspace = main_nspace();
    touch(g_dir + "/start");
    for (int i = 0; i < 1000 && markers("up.", n) < n; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    check(markers("up.", n) == n, "the spinning processes did not start");
    std::vector<std::string> hosts;
    const std::vector<pid_t> pids = pids_of(nspace.c_str(), &hosts);
    check(pids.size() == static_cast<size_t>(n), "proc table of " + std::to_string(pids.size()));
    check(count_state(pids, 'T') == 0, "a process stopped before the pause");
    pmix_status_t rc = control(nspace.c_str(), PMIX_JOB_CTRL_PAUSE);
    check(rc == PMIX_SUCCESS, std::string("pause: ") + PMIx_Error_string(rc));
    check(settle(pids, true, n), "not every process 'T' after the pause");
    std::string states;
    for (pid_t p : pids) states += state_of(p);
    std::printf("%s paused: states %s\n", nspace.c_str(), states.c_str());
    rc = control(nspace.c_str(), PMIX_JOB_CTRL_RESUME);
    check(rc == PMIX_SUCCESS, std::string("resume: ") + PMIx_Error_string(rc));
    check(settle(pids, false, n), "a process still 'T' after the resume");
    touch(g_dir + "/go");
    check(wait_for(PMIX_EVENT_JOB_END, nspace, 1, 20000), "no JOB_END");
    const auto ends = seen(PMIX_EVENT_JOB_END, nspace);
    if (!ends.empty())
        check(ends[0].term == PMIX_SUCCESS,
              std::string("JOB_END status ") + PMIx_Error_string(ends[0].term));
    check(markers("init.", n) == n, "not every paused process finished");
}

// pmixrun's own job (2 ranks, started with --stop-in-init or --stop-on-exec).
void case_main(bool on_exec) {
    const std::string nspace = main_nspace();
    std::vector<pid_t> pids;
    for (int i = 0; i < 500; ++i) {
        pids = pids_of(nspace.c_str());
        if (pids.size() == 2 && pids[0] > 0 && pids[1] > 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    check(pids.size() == 2, "proc table of " + std::to_string(pids.size()) + " processes");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    if (on_exec) check(count_state(pids, 'T') == 2, "not every process stopped on exec");
    check(markers("init.", 2) == 0, "a process passed PMIx_Init before its release");
    release(nspace.c_str());
}

void case_orphan(const char* self) {
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc = spawn(self, 1, {flag(PMIX_DEBUG_STOP_IN_INIT)}, false, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    check(wait_for(PMIX_READY_FOR_DEBUG, nspace, 1, 15000), "no READY_FOR_DEBUG");
    const std::vector<pid_t> pids = pids_of(nspace);
    check(pids.size() == 1, "proc table of " + std::to_string(pids.size()) + " processes");
    if (!pids.empty()) std::printf("pid %d\n", static_cast<int>(pids[0]));
}

void case_support() {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    {
        [[maybe_unused]] pmix_status_t appended;
        PMIX_ARGV_APPEND(appended, query.keys, PMIX_QUERY_DEBUG_SUPPORT);
    }
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Query_info(&query, 1, &results, &nresults);
    check(rc == PMIX_SUCCESS, std::string("query: ") + PMIx_Error_string(rc));
    std::string answer;
    if (rc == PMIX_SUCCESS && nresults == 1 && results[0].value.type == PMIX_STRING)
        answer = results[0].value.data.string;
    for (const char* key : {PMIX_DEBUG_STOP_IN_INIT, PMIX_DEBUG_STOP_ON_EXEC,
                            PMIX_DEBUG_STOP_IN_APP, PMIX_JOB_CTRL_PAUSE})
        check(answer.find(key) != std::string::npos,
              std::string("debug support '") + answer + "' lacks " + key);
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
}

int run_tool(const char* self, pid_t pid, const std::string& which) {
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (const char* t = std::getenv("TMPDIR"); t != nullptr)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TMPDIR, t, PMIX_STRING);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, ninfo);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        std::printf("FAIL: tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_status_t codes[] = {PMIX_READY_FOR_DEBUG, PMIX_LAUNCH_COMPLETE, PMIX_EVENT_JOB_END,
                             PMIX_EVENT_JOB_START};
    rc = PMIx_Register_event_handler(codes, 4, nullptr, 0, on_event, nullptr, nullptr);
    check(rc >= 0, std::string("register: ") + PMIx_Error_string(rc));
    if (which == "init") case_init(self);
    else if (which == "exec") case_exec(self);
    else if (which == "pause") case_pause(self);
    else if (which == "orphan") case_orphan(self);
    else if (which == "app") case_app(self);
    else if (which == "early") case_early(self);
    else if (which == "rank") case_rank(self);
    else if (which == "affected") case_affected(self);
    else if (which == "main-init" || which == "main-exec") case_main(which == "main-exec");
    else if (which == "support") case_support();
    else if (which == "nodes-pause") case_nodes_pause();
    else if (which.rfind("nodes-", 0) == 0) case_nodes(which.substr(6));
    else check(false, "unknown case " + which);
    PMIx_tool_finalize();
    if (g_failures == 0) std::printf("debug_stop: %s ok\n", which.c_str());
    return g_failures == 0 ? 0 : 1;
}

void touch(const std::string& path, const std::string& text) {
    if (FILE* f = std::fopen(path.c_str(), "w")) {
        std::fputs(text.c_str(), f);
        std::fclose(f);
    }
}

bool g_app_released = false;

void on_app_release(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t[], size_t, pmix_info_t*,
                    size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_mu);
        g_app_released = true;
        g_cv.notify_all();
    }
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

bool app_stop_asked(const pmix_proc_t& me, pmix_value_t** v) {
    pmix_proc_t job = me;
    job.rank = PMIX_RANK_WILDCARD;
    pmix_info_t optional = flag(PMIX_OPTIONAL);
    const pmix_status_t rc = PMIx_Get(&job, PMIX_DEBUG_STOP_IN_APP, &optional, 1, v);
    PMIX_INFO_DESTRUCT(&optional);
    return rc == PMIX_SUCCESS && *v != nullptr;
}

int run_hello(const char* dir) {
    const std::string d = dir;
    if (const char* start = std::getenv("DEBUG_STOP_START"); start != nullptr)
        for (int i = 0; i < 2000 && !exists(start); ++i) usleep(10000);
    pmix_proc_t me;
    const pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        const char* rank = std::getenv("PMIX_RANK");
        touch(d + "/initfail." + (rank != nullptr ? rank : "x"), PMIx_Error_string(rc));
        return 3;
    }
    if (pmix_value_t* v = nullptr; app_stop_asked(me, &v)) {  // PMIX_DEBUG_STOP_IN_APP
        PMIX_VALUE_RELEASE(v);
        pmix_status_t code = PMIX_DEBUGGER_RELEASE;
        const pmix_status_t ref =
            PMIx_Register_event_handler(&code, 1, nullptr, 0, on_app_release, nullptr, nullptr);
        pmix_info_t info[2];
        info[0] = flag(PMIX_EVENT_NON_DEFAULT);
        PMIX_INFO_LOAD(&info[1], PMIX_BREAKPOINT, "app-main", PMIX_STRING);
        PMIx_Notify_event(PMIX_READY_FOR_DEBUG, &me, PMIX_RANGE_RM, info, 2, nullptr, nullptr);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        std::unique_lock lock(g_mu);
        if (!g_cv.wait_for(lock, std::chrono::seconds(20), [] { return g_app_released; })) return 4;
        lock.unlock();
        if (ref >= 0) PMIx_Deregister_event_handler(static_cast<size_t>(ref), nullptr, nullptr);
    }
    if (std::getenv("DEBUG_STOP_SPIN") != nullptr) {
        touch(d + "/up." + std::to_string(me.rank));
        for (int i = 0; i < 2000 && !exists(d + "/go"); ++i) usleep(10000);
    }
    touch(d + "/init." + std::to_string(me.rank));
    pmix_proc_t job = me;  // $DEBUG_STOP_EXIT: the last rank's exit code
    job.rank = PMIX_RANK_WILDCARD;
    pmix_value_t* size = nullptr;
    const bool last = PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &size) == PMIX_SUCCESS &&
                      size != nullptr && size->type == PMIX_UINT32 &&
                      me.rank + 1 == size->data.uint32;
    if (size != nullptr) PMIX_VALUE_RELEASE(size);
    PMIx_Finalize(nullptr, 0);
    return last ? env_int("DEBUG_STOP_EXIT", 0) : 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "hold" && argc == 3) {
        pmix_proc_t me;
        if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 2;
        for (int i = 0; i < 3000 && !exists(argv[2]); ++i) usleep(10000);
        PMIx_Finalize(nullptr, 0);
        return 0;
    }
    if (mode == "hello" && argc == 3) return run_hello(argv[2]);
    if (mode == "tool" && argc == 5) {
        g_dir = argv[4];
        return run_tool(argv[0], static_cast<pid_t>(std::atoi(argv[2])), argv[3]);
    }
    std::fprintf(stderr, "usage: debug_stop hold STOP | hello DIR | tool PID CASE DIR\n");
    return 2;
}
