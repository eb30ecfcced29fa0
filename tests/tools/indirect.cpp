// tests/tools/indirect.cpp - an initiator of an indirect launch, on the public tool API only:
//   indirect PMIXRUN uri|file|self|selfnb|refuse|hangup|hold RNDZ_FILE -- PROGRAM [ARGS]
// It starts as a PMIX_LAUNCHER tool that connects to nobody (its server side writes RNDZ_FILE),
// fork/execs `PMIXRUN -n 2 PROGRAM ARGS` with PMIX_LAUNCHER_RNDZ_URI (the URI from that file;
// "file": PMIX_LAUNCHER_RNDZ_FILE instead) and PMIX_KEEPALIVE_PIPE, waits for
// PMIX_LAUNCHER_READY, makes pmixrun's server its own (PMIx_tool_set_server on the event's
// source), and releases it with PMIX_DEBUGGER_RELEASE carrying PMIX_LAUNCH_DIRECTIVES
// (PMIX_NOTIFY_JOB_EVENTS, PMIX_SET_ENVAR INDIRECT_VAR=from-initiator). "self": the library
// starts pmixrun (PMIx_Spawn of a tool attached to no server), the directives go with the spawn,
// READY must come from the namespace PMIx_Spawn returned, and what a self-spawn refuses is refused
// first (two apps, two processes, a required directive, a missing program); "selfnb" the same
// with PMIx_Spawn_nb. Then:
//   stop:      as uri, with PMIX_DEBUG_STOP_IN_INIT among the directives: waits for the job's
//              PMIX_READY_FOR_DEBUG, then releases the job (PMIX_DEBUGGER_RELEASE to its
//              namespace);
//   uri, file, self: waits for the job's JOB_END (status 0 expected) and pmixrun's exit (0;
//              self: the script checks that it is gone);
//   refuse:    the release adds a required directive pmixrun does not act on: pmixrun must exit
//              1 without starting the job;
//   hangup:    after JOB_START closes the keepalive pipe; pmixrun must end the job and exit 129;
//   hold:      after JOB_START prints "started <pmixrun pid>" and sleeps (the script kills us).
// Prints "indirect: ok" when every step did what it should.
#include <pmix_tool.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

struct Seen {
    std::mutex mutex;
    std::condition_variable changed;
    bool ready = false, started = false, ended = false;
    pmix_proc_t launcher{};
    pmix_status_t term_status = PMIX_ERROR;
    std::string ended_nspace;
    bool spawned = false;  // PMIx_Spawn_nb answered
    pmix_status_t spawn_status = PMIX_ERROR;
    std::string spawn_nspace;
    int procs_ready = 0;    // PMIX_READY_FOR_DEBUG of the job's processes ("stop")
    std::string job_ready;  // the namespace of the launcher's job-level PMIX_READY_FOR_DEBUG
};
Seen g_seen;
bool g_stop = false;  // "stop": PMIX_DEBUG_STOP_IN_INIT among the launch directives

void on_event(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[],
              size_t ninfo, pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
              void* cbdata) {
    {
        std::lock_guard lock(g_seen.mutex);
        if (status == PMIX_LAUNCHER_READY && source != nullptr) {
            g_seen.ready = true;
            g_seen.launcher = *source;
        } else if (status == PMIX_EVENT_JOB_START) {
            g_seen.started = true;
        } else if (status == PMIX_READY_FOR_DEBUG) {
            std::string nspace;
            for (size_t i = 0; i < ninfo; ++i)
                if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
                    nspace = info[i].value.data.string;
            if (source != nullptr && nspace == source->nspace) ++g_seen.procs_ready;
            else g_seen.job_ready = nspace;  // from the launcher: the whole job is held
        } else if (status == PMIX_EVENT_JOB_END) {
            g_seen.ended = true;
            for (size_t i = 0; i < ninfo; ++i) {
                if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS))
                    g_seen.term_status = info[i].value.data.status;
                if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
                    g_seen.ended_nspace = info[i].value.data.string;
            }
        }
    }
    std::printf("indirect: event %s\n", PMIx_Error_string(status));
    std::fflush(stdout);
    g_seen.changed.notify_all();
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

template <typename Pred>
bool wait_until(Pred pred, int seconds) {
    std::unique_lock lock(g_seen.mutex);
    return g_seen.changed.wait_for(lock, std::chrono::seconds(seconds), pred);
}

int fail(const std::string& why) {
    std::printf("FAIL: %s\n", why.c_str());
    std::fflush(stdout);
    return 1;
}

pmix_status_t register_for(std::vector<pmix_status_t> codes) {
    const pmix_status_t rc = PMIx_Register_event_handler(codes.data(), codes.size(), nullptr, 0,
                                                         on_event, nullptr, nullptr);
    return rc < 0 ? rc : PMIX_SUCCESS;
}

// The URI: the first line of the rendezvous file our server side wrote.
std::string uri_of(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

std::string g_mark;  // "INDIRECT_MARK=<rendezvous path>": finds our pmixrun in `pgrep -f`

std::vector<std::string> pmixrun_args(const std::string& pmixrun,
                                      const std::vector<std::string>& program) {
    std::vector<std::string> args = {pmixrun, "-n", "2", "--timeout", "30", "-x", g_mark};
    // $INDIRECT_PMIXRUN_ARGS: more options, '|'-separated (tests/multinode/debug_netns.sh: the
    // launch agent and the simulated nodes).
    if (const char* more = std::getenv("INDIRECT_PMIXRUN_ARGS"); more != nullptr && *more != '\0')
        for (std::string rest = more;;) {
            const size_t bar = rest.find('|');
            args.push_back(rest.substr(0, bar));
            if (bar == std::string::npos) break;
            rest.erase(0, bar + 1);
        }
    args.insert(args.end(), program.begin(), program.end());
    return args;
}

pid_t start_pmixrun(const std::string& pmixrun, const std::vector<std::string>& program,
                    const std::string& rndz_var, int keepalive_read) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    env.push_back(rndz_var);
    env.push_back(std::string(PMIX_KEEPALIVE_PIPE) + "=" + std::to_string(keepalive_read));
    std::vector<std::string> args = pmixrun_args(pmixrun, program);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::fcntl(keepalive_read, F_SETFD, 0);  // the one descriptor pmixrun inherits from us
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    return pid;
}

// The directives for the job the launcher starts: its events to us, a variable for its ranks.
// `refused`: also a required directive no launcher acts on.
pmix_data_array_t launch_directives(bool refused) {
    void* dirs = PMIx_Info_list_start();
    const bool yes = true;
    PMIx_Info_list_add(dirs, PMIX_NOTIFY_JOB_EVENTS, &yes, PMIX_BOOL);
    if (refused) {
        PMIx_Info_list_add(dirs, "pmix.test.no.such.directive", &yes, PMIX_BOOL);
        pmix_data_array_t directives;
        PMIx_Info_list_convert(dirs, &directives);
        PMIx_Info_list_release(dirs);
        PMIX_INFO_REQUIRED(static_cast<pmix_info_t*>(directives.array) + directives.size - 1);
        return directives;
    }
    pmix_envar_t envar{const_cast<char*>("INDIRECT_VAR"), const_cast<char*>("from-initiator"), ':'};
    PMIx_Info_list_add(dirs, PMIX_SET_ENVAR, &envar, PMIX_ENVAR);
    if (g_stop) PMIx_Info_list_add(dirs, PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
    pmix_data_array_t directives;
    PMIx_Info_list_convert(dirs, &directives);
    PMIx_Info_list_release(dirs);
    return directives;
}

// PMIX_DEBUGGER_RELEASE to the launcher, with the directives (unless `self`: they went with
// PMIx_Spawn).
pmix_status_t release(const pmix_proc_t& launcher, bool self, bool refused) {
    pmix_data_array_t directives = launch_directives(refused);
    const bool yes = true;
    void* list = PMIx_Info_list_start();
    PMIx_Info_list_add(list, PMIX_EVENT_CUSTOM_RANGE, &launcher, PMIX_PROC);
    PMIx_Info_list_add(list, PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    if (!self) PMIx_Info_list_add(list, PMIX_LAUNCH_DIRECTIVES, &directives, PMIX_DATA_ARRAY);
    pmix_data_array_t info;
    PMIx_Info_list_convert(list, &info);
    PMIx_Info_list_release(list);
    PMIX_DATA_ARRAY_DESTRUCT(&directives);
    const pmix_status_t rc =
        PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, nullptr, PMIX_RANGE_CUSTOM,
                          static_cast<pmix_info_t*>(info.array), info.size, nullptr, nullptr);
    PMIX_DATA_ARRAY_DESTRUCT(&info);
    return rc;
}

// pmixrun's exit status, or -1 if it did not exit within `seconds`.
int reap(pid_t pid, int seconds) {
    for (int i = 0; i < seconds * 10; ++i) {
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return -1;
}

// Self-spawn: PMIx_Spawn of pmixrun by this tool, attached to no server, with the rendezvous URI
// in its environment and the launch directives in the job info.
void on_spawned(pmix_status_t status, char nspace[], void*) {
    {
        std::lock_guard lock(g_seen.mutex);
        g_seen.spawned = true;
        g_seen.spawn_status = status;
        g_seen.spawn_nspace = nspace != nullptr ? nspace : "";
    }
    g_seen.changed.notify_all();
}

// What a self-spawn refuses before starting anything: "" or the first unexpected answer.
std::string check_refusals(const pmix_app_t& good) {
    pmix_nspace_t ns;
    pmix_app_t two[2] = {good, good};
    if (PMIx_Spawn(nullptr, 0, two, 2, ns) != PMIX_ERR_NOT_SUPPORTED) return "two apps";
    pmix_app_t many = good;
    many.maxprocs = 2;
    if (PMIx_Spawn(nullptr, 0, &many, 1, ns) != PMIX_ERR_NOT_SUPPORTED) return "two processes";
    pmix_info_t odd;
    const bool yes = true;
    PMIX_INFO_LOAD(&odd, "pmix.test.no.such.directive", &yes, PMIX_BOOL);
    PMIX_INFO_REQUIRED(&odd);
    const pmix_status_t rc = PMIx_Spawn(&odd, 1, &good, 1, ns);
    PMIX_INFO_DESTRUCT(&odd);
    if (rc != PMIX_ERR_NOT_SUPPORTED) return "a required directive it does not act on";
    pmix_app_t missing = good;
    missing.cmd = const_cast<char*>("/nonexistent/launcher");
    if (PMIx_Spawn(nullptr, 0, &missing, 1, ns) != PMIX_ERR_NOT_FOUND) return "a missing program";
    return {};
}

// PMIx_Spawn (`nb`: PMIx_Spawn_nb) of the launcher; the refusals are checked first.
pmix_status_t spawn_app(const pmix_info_t* info, size_t ninfo, const pmix_app_t& app, bool nb,
                        std::string& nspace) {
    if (std::string why = check_refusals(app); !why.empty()) {
        std::printf("FAIL: self-spawn accepted %s\n", why.c_str());
        return PMIX_ERROR;
    }
    if (!nb) {
        pmix_nspace_t ns = {};
        const pmix_status_t rc = PMIx_Spawn(info, ninfo, &app, 1, ns);
        nspace = ns;
        return rc;
    }
    if (pmix_status_t rc = PMIx_Spawn_nb(info, ninfo, &app, 1, on_spawned, nullptr);
        rc != PMIX_SUCCESS)
        return rc;
    if (!wait_until([] { return g_seen.spawned; }, 10)) return PMIX_ERR_TIMEOUT;
    std::lock_guard lock(g_seen.mutex);
    nspace = g_seen.spawn_nspace;
    return g_seen.spawn_status;
}

pmix_status_t spawn_launcher(const std::string& pmixrun, const std::vector<std::string>& program,
                             const std::string& uri_var, bool nb, std::string& nspace) {
    std::vector<std::string> args = pmixrun_args(pmixrun, program);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string env_entry = uri_var;
    char* envp[] = {env_entry.data(), nullptr};
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = args[0].data();
    app.argv = argv.data();
    app.env = envp;
    app.maxprocs = 1;
    pmix_data_array_t directives = launch_directives(false);
    void* list = PMIx_Info_list_start();
    const bool yes = true;
    PMIx_Info_list_add(list, PMIX_SPAWN_TOOL, &yes, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_LAUNCH_DIRECTIVES, &directives, PMIX_DATA_ARRAY);
    pmix_data_array_t info;
    PMIx_Info_list_convert(list, &info);
    PMIx_Info_list_release(list);
    PMIX_DATA_ARRAY_DESTRUCT(&directives);
    const pmix_status_t rc =
        spawn_app(static_cast<pmix_info_t*>(info.array), info.size, app, nb, nspace);
    PMIX_DATA_ARRAY_DESTRUCT(&info);
    return rc;
}

pmix_status_t attach_to(const pmix_proc_t& launcher) {
    void* list = PMIx_Info_list_start();
    const bool yes = true;
    const int timeout = 10;
    PMIx_Info_list_add(list, PMIX_WAIT_FOR_CONNECTION, &yes, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_TIMEOUT, &timeout, PMIX_INT);
    pmix_data_array_t info;
    PMIx_Info_list_convert(list, &info);
    PMIx_Info_list_release(list);
    const pmix_status_t rc =
        PMIx_tool_set_server(&launcher, static_cast<pmix_info_t*>(info.array), info.size);
    PMIX_DATA_ARRAY_DESTRUCT(&info);
    return rc;
}

pmix_status_t init_launcher_tool(const std::string& rndz) {
    void* list = PMIx_Info_list_start();
    const bool yes = true;
    PMIx_Info_list_add(list, PMIX_LAUNCHER, &yes, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    PMIx_Info_list_add(list, PMIX_LAUNCHER_RENDEZVOUS_FILE, rndz.c_str(), PMIX_STRING);
    pmix_data_array_t info;
    PMIx_Info_list_convert(list, &info);
    PMIx_Info_list_release(list);
    pmix_proc_t me;
    const pmix_status_t rc = PMIx_tool_init(&me, static_cast<pmix_info_t*>(info.array), info.size);
    PMIX_DATA_ARRAY_DESTRUCT(&info);
    return rc;
}

// The launcher started by us or by the library, and how to hang up on it.
struct Started {
    pid_t pid = -1;      // -1: self-spawned (the library holds its keepalive pipe)
    int keepalive = -1;  // our end of its keepalive pipe
    pmix_proc_t proc{};  // the source of its PMIX_LAUNCHER_READY
};

// Starts pmixrun, waits for its READY and makes its server ours; "" or what failed.
std::string start(const std::string& pmixrun, const std::string& mode, const std::string& rndz,
                  const std::vector<std::string>& program, Started& out) {
    const std::string var = mode == "file"
                                ? std::string(PMIX_LAUNCHER_RNDZ_FILE) + "=" + rndz
                                : std::string(PMIX_LAUNCHER_RNDZ_URI) + "=" + uri_of(rndz);
    std::string spawned;
    const bool self = mode == "self" || mode == "selfnb";
    if (self) {
        if (pmix_status_t rc = spawn_launcher(pmixrun, program, var, mode == "selfnb", spawned);
            rc != PMIX_SUCCESS)
            return std::string("PMIx_Spawn: ") + PMIx_Error_string(rc);
        std::printf("indirect: spawned %s\n", spawned.c_str());
    } else {
        int keepalive[2];
        if (::pipe2(keepalive, O_CLOEXEC) != 0) return "pipe";
        out.pid = start_pmixrun(pmixrun, program, var, keepalive[0]);
        ::close(keepalive[0]);
        out.keepalive = keepalive[1];
    }
    if (!wait_until([] { return g_seen.ready; }, 15)) return "no PMIX_LAUNCHER_READY";
    {
        std::lock_guard lock(g_seen.mutex);
        out.proc = g_seen.launcher;
    }
    std::printf("indirect: launcher %s:%u ready\n", out.proc.nspace, out.proc.rank);
    if (self && spawned != out.proc.nspace) return "READY from another namespace";
    if (pmix_status_t rc = attach_to(out.proc); rc != PMIX_SUCCESS)
        return std::string("set_server: ") + PMIx_Error_string(rc);
    if (pmix_status_t rc =
            register_for({PMIX_EVENT_JOB_START, PMIX_EVENT_JOB_END, PMIX_READY_FOR_DEBUG});
        rc != PMIX_SUCCESS)
        return std::string("register job events: ") + PMIx_Error_string(rc);
    return {};
}

// "stop": every process is held in PMIx_Init (on every node) until we release the job, once the
// launcher said the whole job is ready; "" or what went wrong.
std::string release_held_job() {
    if (!wait_until([] { return !g_seen.job_ready.empty(); }, 15))
        return "no READY_FOR_DEBUG for the job";
    std::string job;
    {
        std::lock_guard lock(g_seen.mutex);
        job = g_seen.job_ready;
        std::printf("indirect: job %s held, %d processes ready\n", job.c_str(), g_seen.procs_ready);
    }
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, job.c_str(), PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    const bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &all, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    const pmix_status_t rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, nullptr, PMIX_RANGE_CUSTOM,
                                               info, 2, nullptr, nullptr);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) return std::string("release the job: ") + PMIx_Error_string(rc);
    return {};
}

// After the release: how the job and pmixrun must end in `mode`; "" or what went wrong.
std::string finish(const std::string& mode, const Started& launcher) {
    if (mode == "refuse") {  // the job must not start: pmixrun says why and exits 1
        const int code = reap(launcher.pid, 15);
        if (code != 1) return "pmixrun exited " + std::to_string(code) + ", want 1";
        if (wait_until([] { return g_seen.started; }, 0)) return "the job started";
        return {};
    }
    if (!wait_until([] { return g_seen.started; }, 15)) return "no JOB_START";
    if (mode == "hold") {
        std::printf("started %d\n", static_cast<int>(launcher.pid));
        std::fflush(stdout);
        std::this_thread::sleep_for(std::chrono::seconds(60));
        return "not killed";
    }
    if (mode == "hangup") {
        ::close(launcher.keepalive);
        const int code = reap(launcher.pid, 15);
        return code == 129 ? "" : "pmixrun exited " + std::to_string(code) + ", want 129";
    }
    if (g_stop)
        if (std::string why = release_held_job(); !why.empty()) return why;
    if (!wait_until([] { return g_seen.ended; }, 20)) return "no JOB_END";
    std::lock_guard lock(g_seen.mutex);
    if (g_seen.term_status != PMIX_SUCCESS)
        return std::string("JOB_END status ") + PMIx_Error_string(g_seen.term_status);
    std::printf("indirect: job %s ended\n", g_seen.ended_nspace.c_str());
    if (launcher.pid < 0) return {};  // self-spawned: the script checks that it is gone
    ::close(launcher.keepalive);
    const int code = reap(launcher.pid, 15);
    return code == 0 ? "" : "pmixrun exited " + std::to_string(code);
}

int run(const std::string& pmixrun, const std::string& mode, const std::string& rndz,
        const std::vector<std::string>& program) {
    pmix_status_t rc = init_launcher_tool(rndz);
    if (rc != PMIX_SUCCESS) return fail(std::string("tool_init: ") + PMIx_Error_string(rc));
    if ((rc = register_for({PMIX_LAUNCHER_READY})) != PMIX_SUCCESS)
        return fail(std::string("register READY: ") + PMIx_Error_string(rc));
    Started launcher;
    if (std::string why = start(pmixrun, mode, rndz, program, launcher); !why.empty())
        return fail(why);
    if ((rc = release(launcher.proc, launcher.pid < 0, mode == "refuse")) != PMIX_SUCCESS)
        return fail(std::string("release: ") + PMIx_Error_string(rc));
    if (std::string why = finish(mode, launcher); !why.empty()) return fail(why);
    PMIx_tool_finalize();
    std::printf("indirect: ok\n");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 6 || std::strcmp(argv[4], "--") != 0) {
        std::fprintf(stderr, "usage: indirect PMIXRUN uri|file|hangup|hold RNDZ -- PROG...\n");
        return 2;
    }
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    g_mark = std::string("INDIRECT_MARK=") + argv[3];
    g_stop = std::strcmp(argv[2], "stop") == 0;
    return run(argv[1], argv[2], argv[3], std::vector<std::string>(argv + 5, argv + argc));
}
