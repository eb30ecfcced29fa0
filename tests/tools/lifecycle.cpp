// lifecycle: the job-lifecycle events pmixrun raises (launcher/lifecycle.cpp), the server's cache
// of them and the handler chain's PMIX_EVENT_HDLR_BEFORE / AFTER, with real processes.
//   lifecycle hold STOPFILE    a main-job rank: waits (at most 30 s) for STOPFILE, then ends well
//   lifecycle child            a spawned rank; $LIFECYCLE_CHILD=ok: finalize, exit 0; =mixed:
//                              rank 1 exits 7 after finalize, rank 2 waits for $LIFECYCLE_GO
//                              (written once rank 1's end was reported) and exits 0 without
//                              PMIx_Finalize, the others end well
//   lifecycle tool PID STOP    a tool attached to pmixrun PID: handlers for the lifecycle codes
//                              (JOB_START's chain with BEFORE / AFTER), spawns 2 "ok" children
//                              with PMIX_NOTIFY_JOB_EVENTS + PMIX_NOTIFY_PROC_TERMINATION, checks
//                              every event, then registers for JOB_END after the job ended (the
//                              cached one arrives, filtered by PMIX_EVENT_AFFECTED_PROC), and a
//                              required directive pmixrun does not act on is refused
//   lifecycle watch PID STOP   a tool attached to pmixrun PID (one node or the multi-node head):
//                              the job's cached JOB_START, then its JOB_END once STOP is written
//   lifecycle watch-abort PID STOP RANK  a tool attached to pmixrun PID whose job's rank RANK
//                              calls PMIx_Abort(3) once STOP is written: one JOB_END, ABORTED,
//                              PMIX_EXIT_CODE 3, RANK's PMIX_PROCID
//   lifecycle parent GOFILE    a main-job rank spawns 3 "mixed" children with
//                              PMIX_NOTIFY_COMPLETION + PMIX_NOTIFY_PROC_TERMINATION
// Prints "lifecycle: <mode> ok" and exits 0 when every check held; "FAIL: ..." and 1 otherwise.
#include <pmix.h>
#include <pmix_tool.h>

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Seen {
    pmix_status_t code;
    std::string nspace;    // PMIX_NSPACE
    pmix_proc_t affected;  // PMIX_EVENT_AFFECTED_PROC
    bool stamped;          // PMIX_EVENT_TIMESTAMP
    pmix_status_t term = PMIX_SUCCESS;
    bool has_procid = false;
    pmix_proc_t procid{};
    int exit_code = -1;
    size_t handler;
};

std::mutex g_mu;
std::condition_variable g_cv;
std::vector<Seen> g_seen;
std::map<std::string, std::string> g_chains;  // per job: JOB_START's handlers, in order
std::string g_go_file;                        // parent: written when child rank 1's end is reported
int g_failures = 0;

void check(bool ok, const std::string& what) {
    if (ok) return;
    std::printf("FAIL: %s\n", what.c_str());
    std::fflush(stdout);
    ++g_failures;
}

void record(size_t id, pmix_status_t code, const pmix_info_t info[], size_t ninfo) {
    Seen s{code, "", {}, false, PMIX_SUCCESS, false, {}, -1, id};
    for (size_t i = 0; i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        if (PMIX_CHECK_KEY(&in, PMIX_NSPACE) && in.value.type == PMIX_STRING)
            s.nspace = in.value.data.string;
        else if (PMIX_CHECK_KEY(&in, PMIX_EVENT_AFFECTED_PROC) && in.value.type == PMIX_PROC)
            s.affected = *in.value.data.proc;
        else if (PMIX_CHECK_KEY(&in, PMIX_EVENT_TIMESTAMP))
            s.stamped = in.value.type == PMIX_TIME && in.value.data.time > 0;
        else if (PMIX_CHECK_KEY(&in, PMIX_JOB_TERM_STATUS) && in.value.type == PMIX_STATUS)
            s.term = in.value.data.status;
        else if (PMIX_CHECK_KEY(&in, PMIX_PROCID) && in.value.type == PMIX_PROC) {
            s.has_procid = true;
            s.procid = *in.value.data.proc;
        } else if (PMIX_CHECK_KEY(&in, PMIX_EXIT_CODE) && in.value.type == PMIX_INT)
            s.exit_code = in.value.data.integer;
    }
    if (code == PMIX_EVENT_PROC_TERMINATED && s.affected.rank == 1 && !g_go_file.empty()) {
        if (FILE* f = std::fopen(g_go_file.c_str(), "w")) std::fclose(f);
    }
    std::lock_guard lock(g_mu);
    g_seen.push_back(s);
    g_cv.notify_all();
}

void on_event(size_t id, pmix_status_t code, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
              pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    record(id, code, info, ninfo);
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

template <char Letter>
void chain_link(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
                pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    std::string nspace;
    for (size_t i = 0; i < ninfo; ++i)
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
            nspace = info[i].value.data.string;
    {
        std::lock_guard lock(g_mu);
        g_chains[nspace] += Letter;
    }
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

size_t count(pmix_status_t code, size_t handler = 0) {
    std::lock_guard lock(g_mu);
    size_t n = 0;
    for (const Seen& s : g_seen) n += s.code == code && (handler == 0 || s.handler == handler);
    return n;
}

bool wait_for(pmix_status_t code, size_t want, int ms, size_t handler = 0) {
    std::unique_lock lock(g_mu);
    return g_cv.wait_for(lock, std::chrono::milliseconds(ms), [&] {
        size_t n = 0;
        for (const Seen& s : g_seen) n += s.code == code && (handler == 0 || s.handler == handler);
        return n >= want;
    });
}

// The first `code` event about `nspace` (any namespace when empty), a copy.
std::optional<Seen> first(pmix_status_t code, const std::string& nspace, size_t handler = 0) {
    std::lock_guard lock(g_mu);
    for (const Seen& s : g_seen)
        if (s.code == code && (handler == 0 || s.handler == handler) &&
            (nspace.empty() || s.nspace == nspace))
            return s;
    return std::nullopt;
}

// Registers `fn` for `code` with up to two string/proc directives; the handler's id.
size_t reg(pmix_status_t code, pmix_notification_fn_t fn, std::vector<pmix_info_t> info = {}) {
    const pmix_status_t rc = PMIx_Register_event_handler(
        &code, 1, info.empty() ? nullptr : info.data(), info.size(), fn, nullptr, nullptr);
    for (pmix_info_t& i : info) PMIX_INFO_DESTRUCT(&i);
    check(rc >= 0,
          std::string("register for ") + PMIx_Error_string(code) + ": " + PMIx_Error_string(rc));
    return rc >= 0 ? static_cast<size_t>(rc) : 0;
}

pmix_info_t str_info(const char* key, const char* value) {
    pmix_info_t i;
    PMIX_INFO_LOAD(&i, key, value, PMIX_STRING);
    return i;
}

pmix_status_t spawn(const char* self, int n, const char* child_mode, std::vector<pmix_info_t> info,
                    char* nspace) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = static_cast<char**>(calloc(3, sizeof(char*)));
    app.argv[0] = strdup(self);
    app.argv[1] = strdup("child");
    app.env = static_cast<char**>(calloc(3, sizeof(char*)));
    app.env[0] = strdup((std::string("LIFECYCLE_CHILD=") + child_mode).c_str());
    app.env[1] = strdup((std::string("LIFECYCLE_GO=") + g_go_file).c_str());
    app.maxprocs = n;
    const pmix_status_t rc =
        PMIx_Spawn(info.empty() ? nullptr : info.data(), info.size(), &app, 1, nspace);
    for (pmix_info_t& i : info) PMIX_INFO_DESTRUCT(&i);
    PMIX_APP_DESTRUCT(&app);
    return rc;
}

pmix_info_t flag(const char* key, bool required = false) {
    pmix_info_t i;
    const bool yes = true;
    PMIX_INFO_LOAD(&i, key, &yes, PMIX_BOOL);
    if (required) PMIX_INFO_REQUIRED(&i);
    return i;
}

void check_common(const std::optional<Seen>& s, const char* what, const char* nspace) {
    check(s.has_value(), std::string("no ") + what + " for " + nspace);
    if (!s) return;
    check(s->nspace == nspace, std::string(what) + ": PMIX_NSPACE '" + s->nspace + "'");
    check(s->stamped, std::string(what) + ": no PMIX_EVENT_TIMESTAMP");
    check(std::strncmp(s->affected.nspace, nspace, PMIX_MAX_NSLEN) == 0,
          std::string(what) + ": PMIX_EVENT_AFFECTED_PROC of another namespace");
}

int run_child() {
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 2;
    const char* mode = std::getenv("LIFECYCLE_CHILD");
    const bool mixed = mode != nullptr && std::strcmp(mode, "mixed") == 0;
    if (mixed && me.rank == 2) {
        // As the parent (run_parent): pmixrun's SIGTERM, 1 s after rank 1's exit 7, must not end
        // this rank before it exits by itself (under TSan the parent's go took longer than that).
        std::signal(SIGTERM, SIG_IGN);
        const char* go = std::getenv("LIFECYCLE_GO");
        for (int i = 0; i < 1000 && go != nullptr && access(go, F_OK) != 0; ++i) usleep(10000);
        _exit(0);  // without PMIx_Finalize
    }
    PMIx_Finalize(nullptr, 0);
    return mixed && me.rank == 1 ? 7 : 0;
}

int run_hold(const char* stop) {
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 2;
    for (int i = 0; i < 3000 && access(stop, F_OK) != 0; ++i) usleep(10000);
    PMIx_Finalize(nullptr, 0);
    return 0;
}

// JOB_START's chain: A "a", B "b", C before "a", D after "a": C A D B.
void register_chain() {
    reg(PMIX_EVENT_JOB_START, chain_link<'A'>, {str_info(PMIX_EVENT_HDLR_NAME, "a")});
    reg(PMIX_EVENT_JOB_START, chain_link<'B'>, {str_info(PMIX_EVENT_HDLR_NAME, "b")});
    reg(PMIX_EVENT_JOB_START, chain_link<'C'>,
        {str_info(PMIX_EVENT_HDLR_NAME, "c"), str_info(PMIX_EVENT_HDLR_BEFORE, "a")});
    reg(PMIX_EVENT_JOB_START, chain_link<'D'>,
        {str_info(PMIX_EVENT_HDLR_NAME, "d"), str_info(PMIX_EVENT_HDLR_AFTER, "a")});
}

void check_late_registration(const char* nspace) {
    pmix_proc_t job, other;
    PMIX_LOAD_PROCID(&job, nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&other, "no-such-job", PMIX_RANK_WILDCARD);
    pmix_info_t mine, theirs;
    PMIX_INFO_LOAD(&mine, PMIX_EVENT_AFFECTED_PROC, &job, PMIX_PROC);
    PMIX_INFO_LOAD(&theirs, PMIX_EVENT_AFFECTED_PROC, &other, PMIX_PROC);
    const size_t early = count(PMIX_EVENT_JOB_END);
    const size_t filtered = reg(PMIX_EVENT_JOB_END, on_event, {theirs});
    const size_t late = reg(PMIX_EVENT_JOB_END, on_event, {mine});
    check(wait_for(PMIX_EVENT_JOB_END, 1, 5000, late), "no cached JOB_END for a late handler");
    check_common(first(PMIX_EVENT_JOB_END, nspace, late), "cached JOB_END", nspace);
    usleep(300000);  // nothing else may come
    check(count(PMIX_EVENT_JOB_END, filtered) == 0, "a handler of another job got the JOB_END");
    check(count(PMIX_EVENT_JOB_END) == early + 1, "the cached JOB_END reached an earlier handler");
}

// The main job's JOB_START came from the cache at registration (PMIX_RANGE_SESSION); once its
// rank is told to stop, its JOB_END reaches us before pmixrun tears its server down.
void check_main_job_end(const std::string& spawned, const char* stop) {
    std::string main_ns;
    {
        std::lock_guard lock(g_mu);
        for (const Seen& s : g_seen)
            if (s.code == PMIX_EVENT_JOB_START && s.nspace != spawned) main_ns = s.nspace;
    }
    check(!main_ns.empty(), "no cached JOB_START of the main job");
    if (FILE* f = std::fopen(stop, "w")) std::fclose(f);
    std::unique_lock lock(g_mu);
    const bool ended = g_cv.wait_for(lock, std::chrono::seconds(10), [&] {
        for (const Seen& s : g_seen)
            if (s.code == PMIX_EVENT_JOB_END && s.nspace == main_ns) return true;
        return false;
    });
    lock.unlock();
    check(ended, "no JOB_END of the main job " + main_ns);
    if (const std::optional<Seen> end = first(PMIX_EVENT_JOB_END, main_ns)) {
        check(end->term == PMIX_SUCCESS && !end->has_procid,
              std::string("main JOB_END: ") + PMIx_Error_string(end->term));
    }
}

int run_tool(const char* self, pid_t pid, const char* stop) {
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
    register_chain();
    for (pmix_status_t code : {PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE,
                               PMIX_EVENT_PROC_TERMINATED, PMIX_EVENT_JOB_END})
        reg(code, on_event);
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    rc = spawn(self, 2, "ok", {flag(PMIX_NOTIFY_JOB_EVENTS), flag(PMIX_NOTIFY_PROC_TERMINATION)},
               nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    check(wait_for(PMIX_EVENT_JOB_END, 1, 10000), "no JOB_END");
    check(wait_for(PMIX_EVENT_PROC_TERMINATED, 2, 2000), "not 2 PROC_TERMINATED");
    check_common(first(PMIX_EVENT_JOB_START, nspace), "JOB_START", nspace);
    check_common(first(PMIX_LAUNCH_COMPLETE, nspace), "LAUNCH_COMPLETE", nspace);
    check_common(first(PMIX_EVENT_PROC_TERMINATED, nspace), "PROC_TERMINATED", nspace);
    const std::optional<Seen> end = first(PMIX_EVENT_JOB_END, nspace);
    check_common(end, "JOB_END", nspace);
    if (end) {
        check(end->term == PMIX_SUCCESS,
              std::string("JOB_END status ") + PMIx_Error_string(end->term));
        check(!end->has_procid, "JOB_END of a job that ended well names a failed proc");
    }
    {
        std::lock_guard lock(g_mu);
        check(g_chains[nspace] == "CADB",
              "JOB_START chain ran '" + g_chains[nspace] + "', want 'CADB'");
    }
    check_late_registration(nspace);
    char refused[PMIX_MAX_NSLEN + 1] = {};
    rc = spawn(self, 1, "ok", {flag(PMIX_TIMEOUT_STACKTRACES, true)}, refused);
    check(rc == PMIX_ERR_NOT_SUPPORTED,
          std::string("a required PMIX_TIMEOUT_STACKTRACES: ") + PMIx_Error_string(rc));
    check_main_job_end(nspace, stop);
    PMIx_tool_finalize();
    if (g_failures == 0) std::printf("lifecycle: tool ok\n");
    return g_failures == 0 ? 0 : 1;
}

// A tool attached to a running job's launcher (on one node or the multi-node head): the job's
// cached JOB_START, then its JOB_END once STOP is written.
int run_watch(pid_t pid, const char* stop) {
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
    reg(PMIX_EVENT_JOB_START, on_event);
    reg(PMIX_EVENT_JOB_END, on_event);
    check(wait_for(PMIX_EVENT_JOB_START, 1, 10000), "no JOB_START");
    check_main_job_end("", stop);
    PMIx_tool_finalize();
    if (g_failures == 0) std::printf("lifecycle: watch ok\n");
    return g_failures == 0 ? 0 : 1;
}

// A tool attached to the launcher of a job whose rank RANK will call PMIx_Abort(3) once STOP is
// written: the job's one JOB_END is PMIX_ERR_JOB_ABORTED, PMIX_EXIT_CODE 3 and RANK's PMIX_PROCID.
int run_watch_abort(pid_t pid, const char* stop, pmix_rank_t rank) {
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
    reg(PMIX_EVENT_JOB_END, on_event);
    if (FILE* f = std::fopen(stop, "w")) std::fclose(f);
    check(wait_for(PMIX_EVENT_JOB_END, 1, 20000), "no JOB_END");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // a second one would come now
    std::vector<Seen> ends;
    {
        std::lock_guard lock(g_mu);
        for (const Seen& s : g_seen)
            if (s.code == PMIX_EVENT_JOB_END) ends.push_back(s);
    }
    check(ends.size() == 1, std::to_string(ends.size()) + " JOB_END");
    for (const Seen& end : ends) {
        std::printf("JOB_END of %s: %s, exit code %d, %s rank %d\n", end.nspace.c_str(),
                    PMIx_Error_string(end.term), end.exit_code,
                    end.has_procid ? end.procid.nspace : "(no PMIX_PROCID)",
                    end.has_procid ? static_cast<int>(end.procid.rank) : -1);
        check(end.term == PMIX_ERR_JOB_ABORTED, "not PMIX_ERR_JOB_ABORTED");
        check(end.exit_code == 3, "PMIX_EXIT_CODE not 3");
        check(end.has_procid && end.procid.rank == rank && end.nspace == end.procid.nspace,
              "PMIX_PROCID not the aborting rank");
    }
    PMIx_tool_finalize();
    if (g_failures == 0) std::printf("lifecycle: watch-abort ok\n");
    return g_failures == 0 ? 0 : 1;
}

int run_parent(const char* self, const char* go) {
    g_go_file = go;
    // Child rank 1's exit 7 makes pmixrun end the whole job: SIGTERM 1 s later, SIGKILL 3 s after
    // that. Under TSan on a loaded CI machine the children's last events reached this rank after
    // the SIGTERM (it died before printing): it keeps the 3 s until the SIGKILL to check them.
    std::signal(SIGTERM, SIG_IGN);
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 2;
    for (pmix_status_t code : {PMIX_EVENT_JOB_START, PMIX_EVENT_PROC_TERMINATED,
                               PMIX_ERR_PROC_TERM_WO_SYNC, PMIX_EVENT_JOB_END})
        reg(code, on_event);
    char nspace[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc =
        spawn(self, 3, "mixed", {flag(PMIX_NOTIFY_COMPLETION), flag(PMIX_NOTIFY_PROC_TERMINATION)},
              nspace);
    check(rc == PMIX_SUCCESS, std::string("spawn: ") + PMIx_Error_string(rc));
    check(wait_for(PMIX_EVENT_JOB_END, 1, 10000), "no JOB_END");
    check(wait_for(PMIX_EVENT_PROC_TERMINATED, 3, 1000), "not 3 PROC_TERMINATED");
    wait_for(PMIX_ERR_PROC_TERM_WO_SYNC, 1, 2000);  // checked below, with what it carries
    const std::optional<Seen> wo_sync = first(PMIX_ERR_PROC_TERM_WO_SYNC, nspace);
    check_common(wo_sync, "PROC_TERM_WO_SYNC", nspace);
    if (wo_sync) check(wo_sync->affected.rank == 2, "TERM_WO_SYNC not for rank 2");
    const std::optional<Seen> end = first(PMIX_EVENT_JOB_END, nspace);
    check_common(end, "JOB_END", nspace);
    if (end) {
        check(end->term == PMIX_ERR_JOB_NON_ZERO_TERM,
              std::string("JOB_END status ") + PMIx_Error_string(end->term));
        check(end->has_procid && end->procid.rank == 1 &&
                  std::strncmp(end->procid.nspace, nspace, PMIX_MAX_NSLEN) == 0,
              "JOB_END's PMIX_PROCID is not child rank 1");
        check(end->exit_code == 7, "JOB_END's PMIX_EXIT_CODE " + std::to_string(end->exit_code));
    }
    {  // the main job's own JOB_START (cached, PMIX_RANGE_SESSION) may come: not the children's
        std::lock_guard lock(g_mu);
        for (const Seen& s : g_seen)
            check(s.code != PMIX_EVENT_JOB_START || s.nspace != nspace,
                  "the children's JOB_START without PMIX_NOTIFY_JOB_EVENTS");
    }
    if (g_failures == 0) std::printf("lifecycle: parent ok\n");
    std::fflush(stdout);
    PMIx_Finalize(nullptr, 0);
    return g_failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "child") return run_child();
    if (mode == "hold" && argc > 2) return run_hold(argv[2]);
    if (mode == "tool" && argc > 3)
        return run_tool(argv[0], static_cast<pid_t>(std::atoi(argv[2])), argv[3]);
    if (mode == "parent" && argc > 2) return run_parent(argv[0], argv[2]);
    if (mode == "watch-abort" && argc > 4)
        return run_watch_abort(static_cast<pid_t>(std::atoi(argv[2])), argv[3],
                               static_cast<pmix_rank_t>(std::atoi(argv[4])));
    if (mode == "watch" && argc > 3)
        return run_watch(static_cast<pid_t>(std::atoi(argv[2])), argv[3]);
    std::fprintf(stderr,
                 "usage: lifecycle hold STOPFILE | child | tool PID STOPFILE | watch PID STOPFILE "
                 "| parent GOFILE\n");
    return 2;
}
