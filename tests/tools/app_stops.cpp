// app_stops: the debugger stops of one app's own info (pmix_app_t.info), and the output a tool
// asked forwarded to itself (launcher/host.cpp spawn_plan / forward_only). Public API only.
//   app_stops rank DIR TAG          a spawned process: PMIx_Init, DIR/TAG.<rank>, a line
//                                   "app-stops-line TAG <rank>" on stdout; the last rank exits
//                                   $AS_EXIT (0 if unset)
//   app_stops wait DIR              no PMIx: waits (at most 60 s) for DIR/stop
//   app_stops tool PID DIR CASE     a tool attached to PID:
//     app      spawns 2 "application" ranks (PMIX_DEBUG_STOP_IN_INIT in their app info, exit 5)
//              and 2 co-spawned "cospawned" ranks (PMIX_COSPAWN_APP): the application is held
//              (READY_FOR_DEBUG from its 2 ranks, breakpoint pmix-init; no marker) while the
//              co-spawned ranks pass PMIx_Init and end well; the release lets it finish:
//              JOB_END NON-ZERO TERMINATION exit 5
//     cospawn  the same with the stop in the co-spawned app's info: it is held, the application
//              runs
//     fwd      spawns 2 "fwd" ranks with PMIX_FWD_STDOUT: their lines reach the tool (its
//              library's default handler writes them to its stdout; the script counts them)
// Prints "app_stops: ok" and exits 0 when every check held; "FAIL: ..." and 1 otherwise.
#include <pmix.h>
#include <pmix_tool.h>

#include <unistd.h>

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

constexpr int kRanks = 2, kExit = 5;
std::string g_dir;

void on_event(size_t, pmix_status_t code, const pmix_proc_t* source, pmix_info_t info[],
              size_t ninfo, pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
              void* cbdata) {
    Seen s = parse_event(code, source, info, ninfo);
    record(s);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

// The events of `code`: about `nspace` (PMIX_NSPACE), or from its ranks (by_source).
std::vector<Seen> seen(pmix_status_t code, const std::string& nspace, bool by_source) {
    std::lock_guard lock(g_mu);
    std::vector<Seen> out;
    for (const Seen& s : g_seen)
        if (s.code == code &&
            (by_source ? nspace == s.source.nspace && s.source.rank < kRanks : s.nspace == nspace))
            out.push_back(s);
    return out;
}

template <typename Done>
bool wait_until(int ms, Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::unique_lock lock(g_mu);
        g_cv.wait_for(lock, std::chrono::milliseconds(50));
    }
    return true;
}

pmix_info_t flag(const char* key) {
    pmix_info_t i;
    const bool yes = true;
    PMIX_INFO_LOAD(&i, key, &yes, PMIX_BOOL);
    return i;
}

int markers(const std::string& tag) {
    int found = 0;
    for (int r = 0; r < kRanks; ++r)
        found += access((g_dir + "/" + tag + "." + std::to_string(r)).c_str(), F_OK) == 0;
    return found;
}

void fill_app(pmix_app_t& app, const char* self, const std::string& tag,
              std::vector<const char*> keys, bool held) {
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    const char* args[] = {self, "rank", g_dir.c_str(), tag.c_str()};
    app.argv = static_cast<char**>(calloc(5, sizeof(char*)));
    for (int i = 0; i < 4; ++i) app.argv[i] = strdup(args[i]);
    app.env = static_cast<char**>(calloc(2, sizeof(char*)));
    if (held) app.env[0] = strdup(("AS_EXIT=" + std::to_string(kExit)).c_str());
    app.maxprocs = kRanks;
    if (keys.empty()) return;
    PMIX_INFO_CREATE(app.info, keys.size());
    app.ninfo = keys.size();
    for (size_t i = 0; i < keys.size(); ++i) app.info[i] = flag(keys[i]);
}

std::string spawn(pmix_app_t* apps, size_t napps, std::vector<const char*> job_keys) {
    std::vector<pmix_info_t> info;
    for (const char* key : job_keys) info.push_back(flag(key));
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc = PMIx_Spawn(info.data(), info.size(), apps, napps, nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    for (pmix_info_t& i : info) PMIX_INFO_DESTRUCT(&i);
    for (size_t a = 0; a < napps; ++a) PMIX_APP_DESTRUCT(&apps[a]);
    return rc == PMIX_SUCCESS ? nspace : "";
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

// The namespace whose ranks raised READY_FOR_DEBUG ("" until one did).
std::string held_nspace() {
    std::lock_guard lock(g_mu);
    for (const Seen& s : g_seen)
        if (s.code == PMIX_READY_FOR_DEBUG && s.source.nspace[0] != '\0') return s.source.nspace;
    return "";
}

// The JOB_END of a namespace other than `held` (the app that ran), or nullptr.
bool other_ended(const std::string& held, Seen& end) {
    std::lock_guard lock(g_mu);
    for (const Seen& s : g_seen)
        if (s.code == PMIX_EVENT_JOB_END && !s.nspace.empty() && s.nspace != held) {
            end = s;
            return true;
        }
    return false;
}

void check_one_held(const char* self, bool stop_in_cospawned) {
    const char* held_tag = stop_in_cospawned ? "cospawned" : "application";
    const char* free_tag = stop_in_cospawned ? "application" : "cospawned";
    pmix_app_t apps[2];
    fill_app(apps[0], self, "application",
             stop_in_cospawned ? std::vector<const char*>{}
                               : std::vector<const char*>{PMIX_DEBUG_STOP_IN_INIT},
             !stop_in_cospawned);
    fill_app(apps[1], self, "cospawned",
             stop_in_cospawned ? std::vector<const char*>{PMIX_COSPAWN_APP, PMIX_DEBUG_STOP_IN_INIT}
                               : std::vector<const char*>{PMIX_COSPAWN_APP},
             stop_in_cospawned);
    const std::string application = spawn(apps, 2, {PMIX_NOTIFY_JOB_EVENTS});
    if (application.empty()) return;
    check(wait_until(20000, [] { return !held_nspace().empty(); }), "no READY_FOR_DEBUG");
    const std::string held = held_nspace();
    check(stop_in_cospawned ? held != application : held == application,
          "the held namespace " + held + " is not the " + held_tag + "'s");
    check(wait_until(20000, [&] { return seen(PMIX_READY_FOR_DEBUG, held, true).size() >= 2; }),
          "not a READY_FOR_DEBUG from every held rank");
    for (const Seen& s : seen(PMIX_READY_FOR_DEBUG, held, true))
        check(s.breakpoint == "pmix-init", "breakpoint '" + s.breakpoint + "'");
    Seen end{};
    check(wait_until(20000, [&] { return other_ended(held, end); }),
          std::string("the ") + free_tag + " did not end while the " + held_tag + " was held");
    check(end.term == PMIX_SUCCESS, std::string("its JOB_END: ") + PMIx_Error_string(end.term));
    check(markers(free_tag) == kRanks, std::string("the ") + free_tag + " did not run");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    check(markers(held_tag) == 0, "a held rank passed PMIx_Init before its release");
    std::printf("%s %s ended while %s %s was held\n", free_tag, end.nspace.c_str(), held_tag,
                held.c_str());
    release(held);
    check(wait_until(20000, [&] { return !seen(PMIX_EVENT_JOB_END, held, false).empty(); }),
          "no JOB_END of the held app");
    const std::vector<Seen> ends = seen(PMIX_EVENT_JOB_END, held, false);
    if (!ends.empty()) {
        std::printf("JOB_END %s exit code %d\n", PMIx_Error_string(ends[0].term),
                    ends[0].exit_code);
        check(ends[0].term == PMIX_ERR_JOB_NON_ZERO_TERM && ends[0].exit_code == kExit,
              "JOB_END not NON-ZERO TERMINATION, exit 5");
    }
    check(markers(held_tag) == kRanks, "not every held rank passed PMIx_Init after the release");
}

void check_forwarded(const char* self) {
    pmix_app_t app;
    fill_app(app, self, "fwd", {}, false);
    const std::string nspace = spawn(&app, 1, {PMIX_NOTIFY_JOB_EVENTS, PMIX_FWD_STDOUT});
    if (nspace.empty()) return;
    check(wait_until(20000, [&] { return !seen(PMIX_EVENT_JOB_END, nspace, false).empty(); }),
          "no JOB_END of the forwarded job");
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the last lines' delivery
    check(markers("fwd") == kRanks, "the forwarded job's ranks did not run");
}

int run_tool(const char* self, pid_t pid, const std::string& which) {
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
    pmix_status_t codes[] = {PMIX_READY_FOR_DEBUG, PMIX_EVENT_JOB_END};
    const pmix_status_t ref =
        PMIx_Register_event_handler(codes, 2, nullptr, 0, on_event, nullptr, nullptr);
    check(ref >= 0, std::string("register: ") + PMIx_Error_string(ref));
    if (which == "fwd") check_forwarded(self);
    else check_one_held(self, which == "cospawn");
    std::fflush(stdout);
    PMIx_tool_finalize();
    if (g_failures == 0) std::printf("app_stops: ok\n");
    return g_failures == 0 ? 0 : 1;
}

int run_rank(const char* dir, const std::string& tag) {
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 2;
    if (FILE* f =
            std::fopen((std::string(dir) + "/" + tag + "." + std::to_string(me.rank)).c_str(), "w"))
        std::fclose(f);
    std::printf("app-stops-line %s %u\n", tag.c_str(), me.rank);
    std::fflush(stdout);
    PMIx_Finalize(nullptr, 0);
    const char* code = std::getenv("AS_EXIT");
    return me.rank == kRanks - 1 && code != nullptr ? std::atoi(code) : 0;
}

int run_wait(const std::string& dir) {
    for (int i = 0; i < 600 && access((dir + "/stop").c_str(), F_OK) != 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "rank" && argc == 4) return run_rank(argv[2], argv[3]);
    if (mode == "wait" && argc == 3) return run_wait(argv[2]);
    if (mode == "tool" && argc == 5) {
        g_dir = argv[3];
        return run_tool(argv[0], static_cast<pid_t>(std::atoi(argv[2])), argv[4]);
    }
    std::fprintf(stderr, "usage: app_stops rank DIR TAG | wait DIR | tool PID DIR CASE\n");
    return 2;
}
