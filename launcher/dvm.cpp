// launcher/dvm.cpp - pmixrun --dvm (pmix-dvm): the persistent launcher on one node, a distributed
// virtual machine in PRRTE's terms. It starts a PMIx server with no job of its own (namespace
// "pmix-dvm.<pid>", rank 0), writes the system server's rendezvous file
// (PMIX_SERVER_SYSTEM_SUPPORT: PMIx_tool_init with PMIX_CONNECT_TO_SYSTEM or
// PMIX_CONNECT_SYSTEM_FIRST finds it) beside the usual tool files, prints one line saying where it
// listens, and runs the jobs tools hand it with PMIx_Spawn (host.cpp's spawn, job.cpp's loop), many
// at once and one after another, until told to stop.
//
// A job's failure ends that job only: a process that exits nonzero, is killed, aborts or exits
// without PMIx_Finalize after connecting gets its job's other processes 1 s to end, then SIGTERM,
// then SIGKILL 3 s later (pmixrun's rule for its one job), while the others run on. Its tool gets
// JOB_END with the failure (lifecycle.cpp). A finished job (every process reaped and both output
// pipes at EOF) is retired at once: its clients and namespace deregistered (the library frees its
// data store segments, IOF and modex state there), its process set deleted, and its launcher
// state dropped (processes, lifecycle, stdin stream, IOF redirections), so that memory and
// descriptors stay flat however many jobs pass (tests/debug/dvm.sh counts them).
//
// Stop: PMIx_Job_control(PMIX_JOB_CTRL_TERMINATE) aimed at the DVM (a target in its namespace,
// or a tool's request with no targets, as PRRTE's pterm sends it), or pmixrun --dvm-stop
// (dvm_stop.cpp), or SIGINT/SIGTERM. Running jobs get SIGTERM at once, SIGKILL 3 s later; the
// server is finalized (rendezvous files, session directory, segments removed); exit status 0
// for a requested stop, 128+signal for a signal.
#include "fork_agent.h"
#include "launcher.h"
#include "output.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

namespace pmix::launcher {
namespace {

constexpr auto kExitGrace = std::chrono::milliseconds(1000);  // as job.cpp's, per job here
constexpr auto kTermGrace = std::chrono::milliseconds(3000);

// A job that is failing: when it started to, and how far the killing went.
struct FailingJob {
    Clock::time_point since;
    int kill_stage = 0;  // 0 none, 1 SIGTERM sent, 2 SIGKILL sent
};
std::map<std::string, FailingJob> g_failing;  // by namespace; the loop only
bool g_stop_requested = false;                // the loop only
pmix_server_module_t g_base;                  // host.cpp's module, which the DVM's upcalls wrap
bool g_node_daemon = false;                   // pmixd of a DVM across nodes: the head stops it
// pmixd: the jobs the head retired (every node's processes ended): dropped here once this node's
// are reaped and their output read.
std::set<std::string> g_retire_ordered;

bool failed(const Proc& process) {
    return process.exit_code != 0 || (process.connected && !process.finalized);
}

void fail_job(const std::string& nspace, const std::string& why) {
    if (g_failing.count(nspace) != 0) return;
    g_failing[nspace].since = Clock::now();
    std::fprintf(stderr, "pmix-dvm: job %s: %s; ending the job\n", nspace.c_str(), why.c_str());
    std::fflush(stderr);
}

void request_stop(Launcher& launcher) {
    if (g_stop_requested || launcher.failing) return;
    g_stop_requested = true;
    launcher.fail(0, "");                          // no new spawns; every process is ended
    launcher.fail_at = Clock::now() - kExitGrace;  // SIGTERM now: no grace
}

bool is_job(const Launcher& launcher, const char* nspace) {
    for (const std::string& job : launcher.spawned_nspaces)
        if (job == nspace) return true;
    return false;
}

// The loop's part of a job control: stop the DVM when aimed at it, else host.cpp's job control
// for the targets (a job's process that names none means its own job, never the others').
void job_control_on_loop(const pmix_proc_t& requester, std::vector<pmix_proc_t> targets,
                         bool terminate, const pmix_info_t* directives, size_t ndirs,
                         pmix_info_cbfunc_t cbfunc, void* cbdata) {
    Launcher& launcher = *g_launcher;
    bool at_dvm = targets.empty() && !is_job(launcher, requester.nspace);
    for (const pmix_proc_t& target : targets) at_dvm = at_dvm || launcher.nspace == target.nspace;
    if (at_dvm) {
        // pmixd: the DVM is the head's to stop (tools reach it there, as the system server).
        const pmix_status_t rc =
            terminate && !g_node_daemon ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED;
        if (g_node_daemon) terminate = false;
        if (cbfunc != nullptr) cbfunc(rc, nullptr, 0, cbdata, nullptr, nullptr);
        if (terminate) request_stop(launcher);
        return;
    }
    if (targets.empty()) {
        pmix_proc_t own;
        PMIX_LOAD_PROCID(&own, requester.nspace, PMIX_RANK_WILDCARD);
        targets.push_back(own);
    }
    const pmix_status_t rc = g_base.job_control(&requester, targets.data(), targets.size(),
                                                directives, ndirs, cbfunc, cbdata);
    if (rc != PMIX_SUCCESS && cbfunc != nullptr) cbfunc(rc, nullptr, 0, cbdata, nullptr, nullptr);
}

pmix_status_t dvm_job_control(const pmix_proc_t* requester, const pmix_proc_t targets[],
                              size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                              pmix_info_cbfunc_t cbfunc, void* cbdata) {
    bool terminate = false;
    for (size_t i = 0; i < ndirs; ++i)
        terminate = terminate || PMIX_CHECK_KEY(&directives[i], PMIX_JOB_CTRL_TERMINATE);
    pmix_proc_t who;
    PMIX_PROC_CONSTRUCT(&who);
    if (requester != nullptr) who = *requester;
    std::vector<pmix_proc_t> list(targets, targets + (targets != nullptr ? ntargets : 0));
    // The directives stay the library's until cbfunc runs.
    g_launcher->queue.post(
        [who, list = std::move(list), terminate, directives, ndirs, cbfunc, cbdata]() mutable {
            job_control_on_loop(who, std::move(list), terminate, directives, ndirs, cbfunc, cbdata);
        });
    return PMIX_SUCCESS;
}

// PMIx_Abort from a job's process ends that job (pmixrun's abort ends its one job and itself).
pmix_status_t dvm_abort(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[],
                        size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    const pmix_proc_t client = *proc;
    const std::string message = msg != nullptr ? msg : "";
    g_launcher->queue.post([client, status, message, cbfunc, cbdata] {
        if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);  // releases the caller first
        lifecycle_aborted(*g_launcher, client, status);
        if (g_launcher->remote != nullptr) g_launcher->remote->aborted(client, status);  // pmixd
        fail_job(client.nspace, "rank " + std::to_string(client.rank) +
                                    " called PMIx_Abort(status " + std::to_string(status) +
                                    (message.empty() ? "" : ", \"" + message + "\"") + ")");
    });
    return PMIX_SUCCESS;
}

namespace {

// Whether the program of `app` is found where its processes will look for it (spawner.h
// find_program): its cwd / PMIX_WDIR, its environment's PATH (else the jobs' one).
bool app_program_found(const pmix_app_t& app, const pmix_info_t job_info[], size_t ninfo) {
    const char* program = app.cmd != nullptr                              ? app.cmd
                          : app.argv != nullptr && app.argv[0] != nullptr ? app.argv[0]
                                                                          : nullptr;
    StartAs how;
    if (program == nullptr ||
        app_start_as(app, job_info, ninfo, g_launcher->options.start_as, how) != PMIX_SUCCESS)
        return true;  // the spawn itself says what is wrong
    std::vector<std::string> env;
    for (char** entry = app.env; entry != nullptr && *entry != nullptr; ++entry)
        env.emplace_back(*entry);
    const char* path = path_of(env) != nullptr ? path_of(env) : path_of(g_launcher->child_env);
    return program_exists(first_program(how, {program}), how.wdir, path);
}

}  // namespace

// A program that cannot be found is refused before anything starts (in pmixrun a start failure
// ends the launcher, which a persistent one must not).
pmix_status_t dvm_spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo,
                        const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                        void* cbdata) {
    for (size_t a = 0; apps != nullptr && a < napps; ++a)
        if (!app_program_found(apps[a], job_info, ninfo)) return PMIX_ERR_JOB_EXE_NOT_FOUND;
    // The head across nodes: debugger daemons and co-spawn as pmixrun --host's head places them.
    if (g_launcher->debugger_spawn)  // set before the loop runs
        if (const pmix_status_t rc =
                g_launcher->debugger_spawn(proc, job_info, ninfo, apps, napps, cbfunc, cbdata);
            rc != PMIX_ERR_NOT_FOUND)
            return rc;
    if (g_launcher->spawn_placement)  // set before the loop runs
        if (const pmix_status_t rc = g_launcher->spawn_placement(
                job_info, ninfo, apps != nullptr && napps == 1 ? &apps[0] : nullptr, cbdata);
            rc != PMIX_SUCCESS)
            return rc;
    return g_base.spawn(proc, job_info, ninfo, apps, napps, cbfunc, cbdata);
}

std::string system_tmpdir() {
    for (const char* name : {"PMIX_SYSTEM_TMPDIR", "TMPDIR", "TEMP", "TMP"})
        if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return v;
    return "/tmp";
}

// The pid in a live system server's rendezvous file (its third line), 0 when there is none: a
// second DVM would replace that file and remove it when it stops, hiding the first one.
long live_system_server(const std::string& path) {
    std::ifstream in(path);
    std::string uri, version, line;
    if (!std::getline(in, uri) || !std::getline(in, version) || !std::getline(in, line)) return 0;
    const long pid = std::atol(line.c_str());
    return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM) ? pid : 0;
}

pmix_status_t init_dvm_server(Launcher& launcher) {
    pmix_server_module_t module;
    fill_module(module);
    dvm_module(module, false);
    const bool yes = true;
    const pmix_rank_t rank = 0;
    InfoList info;
    info.add(PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    info.add(PMIX_SERVER_SYSTEM_SUPPORT, &yes, PMIX_BOOL);
    info.add(PMIX_SERVER_NSPACE, launcher.nspace);
    info.add(PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
    info.add(PMIX_SERVER_REMOTE_CONNECTIONS, &launcher.options.remote_tools, PMIX_BOOL);
    // Across nodes the head's key, every pmixd's too (head.cpp); one node: the library's own.
    pmix_byte_object_t key{launcher.credential_key.data(), launcher.credential_key.size()};
    if (key.size > 0) info.add(PMIX_CRYPTO_KEY, &key, PMIX_BYTE_OBJECT);
    const pmix_status_t rc = info.convert();
    return rc == PMIX_SUCCESS ? PMIx_server_init(&module, info.info(), info.size()) : rc;
}

// The one line saying where the DVM listens (the URI of its system rendezvous file), and the
// URI alone where --report-uri says ("-" stdout, "+" stderr, else a file, removed at the end).
bool report_where(const Launcher& launcher, std::string& uri_file) {
    const std::string system_file = system_tmpdir() + "/pmix.sys." + launcher.hostname;
    std::string uri;
    std::ifstream in(system_file);
    if (!std::getline(in, uri) || uri.empty()) {
        std::fprintf(stderr, "pmix-dvm: no system rendezvous file %s\n", system_file.c_str());
        return false;
    }
    std::printf("pmix-dvm: ready: nspace %s pid %d uri %s rendezvous %s\n", launcher.nspace.c_str(),
                static_cast<int>(::getpid()), uri.c_str(), system_file.c_str());
    std::fflush(stdout);
    const std::string& target = launcher.options.report_uri;
    if (target == "-" || target == "+") {
        std::fprintf(target == "-" ? stdout : stderr, "%s\n", uri.c_str());
        std::fflush(target == "-" ? stdout : stderr);
    } else if (!target.empty()) {
        FILE* file = std::fopen(target.c_str(), "we");
        if (file == nullptr || std::fprintf(file, "%s\n", uri.c_str()) < 0) {
            std::fprintf(stderr, "pmix-dvm: --report-uri %s: %s\n", target.c_str(),
                         std::strerror(errno));
            if (file != nullptr) std::fclose(file);
            return false;
        }
        std::fclose(file);
        uri_file = target;
    }
    return true;
}

void ignore_status(pmix_status_t, void*) {}

// Hands a finished job back: the library's view of it, its set, and the launcher's state.
void retire_job(Launcher& launcher, const std::string& nspace) {
    for (const Proc& process : launcher.procs) {
        if (process.nspace != nspace) continue;
        pmix_proc_t proc;
        PMIX_PROC_LOAD(&proc, nspace.c_str(), process.rank);
        PMIx_server_deregister_client(&proc, nullptr, nullptr);
    }
    PMIx_server_deregister_nspace(nspace.c_str(), ignore_status, nullptr);
    std::erase_if(launcher.psets, [&](const ProcessSetDef& set) {
        if (set.members.empty() || nspace != set.members.front().nspace) return false;
        (void)PMIx_server_delete_process_set(const_cast<char*>(set.name.c_str()));
        return true;
    });
    if (auto in = launcher.spawned_stdin.find(nspace); in != launcher.spawned_stdin.end()) {
        for (StdinForward::Target& target : in->second.targets)
            if (target.fd >= 0) ::close(target.fd);
        stdin_release_pushes(in->second, true);
        launcher.spawned_stdin.erase(in);
    }
    std::erase_if(launcher.redirects, [&](const Redirect& r) {
        for (const pmix_proc_t& p : r.procs)
            if (nspace != p.nspace) return false;
        return true;
    });
    launcher.lifecycles.erase(nspace);
    debug_forget(nspace);
    output_printer().close_files_of(nspace);  // --output-filename's files of the job
    g_failing.erase(nspace);
    g_retire_ordered.erase(nspace);
    launcher.job_layouts.erase(nspace);
    std::erase(launcher.spawned_nspaces, nspace);
    fea_forget(nspace);  // its fork/exec agents' debugger job, if any
    const size_t removed = std::erase_if(
        launcher.procs, [&](const Proc& process) { return process.nspace == nspace; });
    launcher.exited_count -= removed;
    // Erasing from the deque moved the others: the reaping index is rebuilt (live ones only).
    launcher.by_pid.clear();
    for (Proc& process : launcher.procs)
        if (process.pid > 0 && !process.exited) launcher.by_pid[process.pid] = &process;
}

// Every job whose processes all ended and whose output reached EOF.
std::vector<std::string> finished_jobs(const Launcher& launcher) {
    std::vector<std::string> out;
    for (const std::string& nspace : launcher.spawned_nspaces) {
        bool done = !g_node_daemon || g_retire_ordered.count(nspace) != 0;
        for (const Proc& process : launcher.procs)
            if (process.nspace == nspace &&
                (!process.exited || process.out.fd >= 0 || process.err.fd >= 0))
                done = false;
        if (done) out.push_back(nspace);
    }
    return out;
}

// Failing jobs: their survivors get kExitGrace, then SIGTERM, then SIGKILL (job.cpp's stages).
void advance_job_kills(Launcher& launcher) {
    const Clock::time_point now = Clock::now();
    for (auto& [nspace, job] : g_failing) {
        pmix_proc_t all;
        PMIX_LOAD_PROCID(&all, nspace.c_str(), PMIX_RANK_WILDCARD);
        int sig = 0;
        if (job.kill_stage == 0 && now - job.since >= kExitGrace) sig = SIGTERM;
        else if (job.kill_stage == 1 && now - job.since >= kExitGrace + kTermGrace) sig = SIGKILL;
        if (sig == 0) continue;
        ++job.kill_stage;
        signal_local(launcher, {all}, sig);
        // pmixd: the job's processes of the other nodes too (they may wait in a fence for ours).
        if (launcher.remote != nullptr) launcher.remote->signal_others({all}, sig);
    }
}

}  // namespace

std::vector<std::string> dvm_command_line(int argc, char** argv) {
    std::vector<std::string> words(argv, argv + argc);
    const char* slash = argc > 0 ? std::strrchr(argv[0], '/') : nullptr;
    const std::string name = argc == 0 ? "" : slash != nullptr ? slash + 1 : argv[0];
    if (name != "pmix-dvm") return words;
    bool stop = false;
    for (size_t i = 1; i < words.size(); ++i) {
        if (words[i] == "--") break;
        if (words[i] == "--stop" || words[i] == "-stop") {
            words[i] = "--dvm-stop";
            stop = true;
        }
    }
    if (!stop) words.insert(words.begin() + 1, "--dvm");
    return words;
}

void dvm_proc_ended(Launcher& launcher, Proc& process, int wait_status) {
    if (launcher.failing || !failed(process)) return;
    const std::string how =
        WIFSIGNALED(wait_status) ? "was killed by signal " + std::to_string(WTERMSIG(wait_status))
        : process.exit_code != 0 ? "exited with status " + std::to_string(process.exit_code)
                                 : "exited without calling PMIx_Finalize";
    fail_job(process.nspace, "rank " + std::to_string(process.rank) + " (pid " +
                                 std::to_string(process.pid) + ") " + how);
}

void dvm_tick(Launcher& launcher) {
    if (!launcher.failing) advance_job_kills(launcher);
    for (const std::string& nspace : finished_jobs(launcher)) retire_job(launcher, nspace);
}

bool dvm_finished(const Launcher& launcher) { return launcher.failing; }

void dvm_module(pmix_server_module_t& module, bool node_daemon) {
    g_base = module;
    g_node_daemon = node_daemon;
    module.job_control = dvm_job_control;
    module.abort = dvm_abort;
    module.spawn = dvm_spawn;
}

bool dvm_stop_requested() { return g_stop_requested; }

void dvm_fail_job(const std::string& nspace, const std::string& why) { fail_job(nspace, why); }

void dvm_retire_job(Launcher& launcher, const std::string& nspace) { retire_job(launcher, nspace); }

void dvm_order_retire(const std::string& nspace) { g_retire_ordered.insert(nspace); }

int dvm_open_server(Launcher& launcher, std::string& uri_file) {
    const std::string system_file = system_tmpdir() + "/pmix.sys." + launcher.hostname;
    if (const long other = live_system_server(system_file); other != 0) {
        std::fprintf(stderr, "pmix-dvm: a system server (pid %ld) already serves %s\n", other,
                     system_file.c_str());
        return 1;
    }
    if (const pmix_status_t rc = init_dvm_server(launcher); rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmix-dvm: PMIx_server_init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    debug_watch_events();                 // the debugger stops of spawned jobs (debug.cpp)
    register_spawn_attributes(launcher);  // query_keys.cpp
    if (report_where(launcher, uri_file)) return 0;
    PMIx_server_finalize();
    return 1;
}

int run_dvm(Launcher& launcher) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    launcher.hostname = host;
    launcher.nspace = "pmix-dvm." + std::to_string(::getpid());
    launcher.layout.nodes = {{launcher.hostname, 0}};
    launcher.layout.map(0);
    launcher.child_env = child_env(launcher.options);
    launcher.job_uid = ::geteuid();
    launcher.job_gid = ::getegid();
    std::string uri_file;
    if (dvm_open_server(launcher, uri_file) != 0) return 1;
    std::vector<char*> no_env{nullptr};
    int code = 1;
    if (spawn_all(launcher, no_env.data())) {  // signals
        run_loop(launcher);
        code = g_stop_requested ? 0 : launcher.fail_code;
    }
    lifecycle_flush();
    deregister_job(launcher);
    clear_published();
    PMIx_server_finalize();
    if (!uri_file.empty()) ::unlink(uri_file.c_str());
    return code;
}

}  // namespace pmix::launcher
