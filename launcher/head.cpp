// pmixrun across nodes: start one pmixd per node through the launch agent, hand every daemon the
// job and everyone's fabric address, then relay: output lines to our stdout/stderr, the first
// failure to every daemon (which kill their ranks as single-node pmixrun would), events between
// nodes, and a daemon's death to the others (their fences fail at once, never hang).
#include "channel.h"
#include "debug_nodes.h"
#include "directory.h"
#include "dvm_head.h"
#include "head_debug_spawn.h"
#include "indirect.h"
#include "launcher.h"
#include "remote_connect.h"
#include "remote_spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <sstream>

namespace pmix::launcher {
#ifndef PMIXRUN_MULTINODE
int run_head(const Options&) {
    std::fprintf(stderr,
                 "pmixrun: --host/--hostfile need pmixd, which is built for our library only\n");
    return 2;
}
#else
namespace {

constexpr int kStartupMs = 60000;                      // every daemon's address
constexpr auto kQuitGrace = std::chrono::seconds(10);  // daemons exit after quit
constexpr auto kFailGrace = std::chrono::seconds(15);  // after a failure, then SIGKILL

struct Daemon {
    size_t index = 0;
    std::string name;
    std::string ip;  // where its fabric endpoint listens (for the instant-on endpoint plugin)
    pid_t pid = -1;
    std::unique_ptr<Channel> channel;
    std::string address;
    bool gone = false;  // EOF on its channel
    bool done = false;  // sent done (or died)
    int code = 0;
    bool stdin_target = false;                 // a rank --stdin names runs there
    uint64_t stdin_sent = 0, stdin_taken = 0;  // bytes of our stdin sent, and taken by its ranks
};

struct Head {
    Options options;
    Layout layout;
    std::string nspace, launch_blob;
    std::string credential_key;  // PMIX_CRYPTO_KEY of every node's server (random, per job)
    bool server_up = false;
    std::vector<Daemon> daemons;
    bool failing = false, timed_out = false;
    int fail_code = 0;
    size_t connected_count = 0, finalized_count = 0;
    bool stdin_end_sent = false;  // the daemons of the --stdin targets were told EOF
    Clock::time_point start, started, sent, all_connected, all_finalized, all_done, end, fail_at;
    // What tools are told (query.cpp reads it through g_launcher, on this loop): every rank of the
    // job with its node, and the pid, state and exit code its daemon reported.
    Launcher tools;
    std::unique_ptr<Directory> directory;      // the job's publish/lookup directory (directory.h)
    std::unique_ptr<HeadSpawner> spawner;      // PMIx_Spawn from the ranks (remote_spawn.h)
    std::unique_ptr<HeadConnector> connector;  // PMIx_Connect / _Disconnect (remote_connect.h)
    std::unique_ptr<DvmHead> dvm;              // --dvm: the persistent launcher (dvm_head.h)
    std::string uri_file;                      // --dvm --report-uri FILE, removed at the end
};

// Fills the head's view of the job for tools: ranks block-mapped over the nodes, none started.
void init_tool_view(Head& head) {
    Launcher& view = head.tools;
    char host_name[256] = {};
    ::gethostname(host_name, sizeof host_name - 1);
    view.hostname = host_name;
    view.nspace = head.nspace;
    view.options = head.options;
    view.layout = head.layout;
    view.procs.resize(static_cast<size_t>(head.options.nprocs));
    for (size_t rank = 0; rank < view.procs.size(); ++rank) {
        Proc& process = view.procs[rank];
        process.rank = static_cast<pmix_rank_t>(rank);
        process.nspace = head.nspace;
        process.executable = head.options.argv.empty() ? std::string() : head.options.argv[0];
        const size_t node = head.layout.node_of(process.rank);
        process.node = node;
        process.host =
            node < head.layout.nodes.size() ? head.layout.nodes[node].name : std::string();
    }
    view.psets = app_psets(view);  // the daemons define them on their nodes
    lifecycle_watch(view, head.nspace, view.procs.size(), nullptr, {});  // its events: here
    view.times.start = head.start;  // PMIX_TIME_REMAINING counts from here
    g_launcher = &view;
}

// A rank's end as its daemon reported it, for lifecycle.cpp: its code as a wait status (128+sig:
// killed by sig) and the head's failure state (a rank ending while failing was killed by us).
void report_end(Head& head, const Proc& process) {
    Launcher& view = head.tools;
    view.failing = head.failing;
    view.fail_code = head.fail_code;
    view.kill_stage = head.failing ? 1 : 0;
    const int code = process.exit_code;
    const int wait_status = code > 128 && code < 128 + 65 ? code - 128 : (code & 0xff) << 8;
    ++view.exited_count;  // a job over is not failed by a keepalive (indirect.cpp)
    lifecycle_proc_ended(view, process, wait_status);
}

// A daemon's report about one rank (connected: rank pid; finalized: rank; exited: rank pid code).
Proc* reported_proc(Head& head, const Message& message) {
    const long rank = message.fields.empty() ? -1 : std::atol(message.fields[0].c_str());
    if (rank < 0 || static_cast<size_t>(rank) >= head.tools.procs.size()) return nullptr;
    Proc& process = head.tools.procs[static_cast<size_t>(rank)];
    if (message.fields.size() > 1)
        process.pid = static_cast<pid_t>(std::atol(message.fields[1].c_str()));
    return &process;
}

int g_signal_pipe[2] = {-1, -1};
void on_signal(int sig) {
    const unsigned char byte = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t written = ::write(g_signal_pipe[1], &byte, 1);
}

std::string self_dir() {
    char path[PATH_MAX] = {};
    const ssize_t length = ::readlink("/proc/self/exe", path, sizeof path - 1);
    const std::string executable(path, length > 0 ? static_cast<size_t>(length) : 0);
    return executable.substr(0, executable.rfind('/'));
}

bool start_daemon(Daemon& daemon, const std::vector<std::string>& agent, const std::string& pmixd,
                  bool dvm) {
    int to[2], from[2];  // pipes to the daemon's stdin and from its stdout
    if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) return false;
    std::vector<std::string> args = agent;
    args.insert(args.end(), {daemon.name, pmixd, "--node-name", daemon.name, "--node-index",
                             std::to_string(daemon.index)});
    if (dvm) args.emplace_back("--dvm");
    pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);  // a ^C reaches pmixrun, which takes the job down in order
        ::dup2(to[0], 0);
        ::dup2(from[1], 1);
        std::vector<char*> argv;
        for (std::string& arg : args) argv.push_back(arg.data());
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        std::fprintf(stderr, "pmixrun: cannot run launch agent '%s': %s\n", argv[0],
                     std::strerror(errno));
        ::_exit(127);
    }
    ::close(to[0]);
    ::close(from[1]);
    if (pid < 0) return false;
    daemon.pid = pid;
    daemon.channel = std::make_unique<Channel>(from[0], to[1]);
    return true;
}

void send_all(Head& head, MessageKind kind, const std::vector<std::string>& fields,
              size_t except = SIZE_MAX) {
    for (Daemon& daemon : head.daemons)
        if (!daemon.gone && daemon.index != except) daemon.channel->send(kind, fields);
}

void fail(Head& head, int code, const std::string& why) {
    if (head.failing) return;
    head.failing = true;
    head.fail_code = code;
    head.fail_at = Clock::now();
    if (!why.empty()) std::fprintf(stderr, "pmixrun: %s\n", why.c_str());
    std::fflush(stderr);
    send_all(head, MessageKind::kill, {std::to_string(code)});
}

int wait_status(pid_t pid) {
    int status = 0;
    for (int i = 0; i < 100; ++i) {  // the agent ends with its daemon; give it a second
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
        ::usleep(10000);
    }
    return 1;
}

void daemon_gone(Head& head, Daemon& daemon) {
    daemon.gone = true;
    if (daemon.done) return;
    daemon.done = true;
    daemon.code = wait_status(daemon.pid);
    daemon.pid = -1;
    send_all(head, MessageKind::node_lost, {std::to_string(daemon.index)});  // its fences fail
    head.directory->node_lost(daemon.index);
    head.spawner->node_lost(daemon.index);
    head.connector->node_lost(daemon.index);
    const std::string died = "the daemon of node " + std::to_string(daemon.index) + " (" +
                             daemon.name + ") died (status " + std::to_string(daemon.code) + ")";
    // Already failing (the other nodes' ranks may report their failed fence first): still named,
    // it is the cause (tests/faults, case daemon_killed: 1 run in 3 said only "rank 0 exited").
    if (head.failing) std::fprintf(stderr, "pmixrun: %s\n", died.c_str());
    fail(head, daemon.code == 0 ? 1 : daemon.code, died + "; killing the job");
}

void report_unexpected(const Daemon& daemon, const Message& message) {
    std::fprintf(stderr, "pmixrun: unexpected message %s from node %s\n", describe(message).c_str(),
                 daemon.name.c_str());
}

// A chunk of a remote rank's output (nspace, rank, stream, bytes, end): delivered to our server
// and printed exactly as a local rank's (take_output), so tools attached to pmixrun pull it.
void take_remote_output(Head& head, const Daemon& daemon, const Message& message) {
    const std::vector<std::string>& fields = message.fields;
    const long rank = fields.size() == 5 ? std::atol(fields[1].c_str()) : -1;
    Proc* process = nullptr;
    if (rank >= 0 && fields[0] == head.nspace &&
        static_cast<size_t>(rank) < static_cast<size_t>(head.options.nprocs)) {
        process = &head.tools.procs[static_cast<size_t>(rank)];
    } else if (rank >= 0) {  // a spawned job's (head_spawn.cpp appends them)
        for (Proc& p : head.tools.procs)
            if (p.job != 0 && p.rank == static_cast<pmix_rank_t>(rank) && p.nspace == fields[0])
                process = &p;
    }
    if (process == nullptr || (fields[2] != "1" && fields[2] != "2")) {
        report_unexpected(daemon, message);
        return;
    }
    const bool end = fields[4] == "1";
    take_output(*process, fields[2] == "1" ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL,
                fields[3].data(), fields[3].size(), end);
    if (end) (fields[2] == "1" ? process->out : process->err).fd = kStreamEnded;
}

void handle(Head& head, Daemon& daemon, const Message& message) {
    const auto number = [&](size_t field) {
        return field < message.fields.size() ? std::atoi(message.fields[field].c_str()) : 0;
    };
    const size_t nprocs = static_cast<size_t>(head.options.nprocs);
    if (!message.kind) {
        report_unexpected(daemon, message);
        return;
    }
    switch (*message.kind) {
        case MessageKind::output:
            take_remote_output(head, daemon, message);
            break;
        case MessageKind::stdin_taken:
            if (!message.fields.empty())
                daemon.stdin_taken = std::strtoull(message.fields[0].c_str(), nullptr, 10);
            break;
        case MessageKind::connected:
            if (Proc* process = reported_proc(head, message)) process->connected = true;
            if (++head.connected_count == nprocs) {
                head.all_connected = Clock::now();
                // No fork/exec reports: all connected is when the whole job started (held on
                // exec: once every node reported its part started, debug_nodes.h).
                if (!debug_launch_reported(head.nspace)) lifecycle_started(head.tools, head.nspace);
            }
            break;
        case MessageKind::finalized:
            if (Proc* process = reported_proc(head, message)) process->finalized = true;
            if (++head.finalized_count == nprocs) head.all_finalized = Clock::now();
            break;
        case MessageKind::exited:
            if (message.fields.size() > 3)  // its PMIX_PERSIST_PROC values, its waiting lookups
                head.directory->proc_ended(
                    message.fields[3],
                    static_cast<pmix_rank_t>(std::strtoul(message.fields[0].c_str(), nullptr, 10)));
            if (head.spawner->exited(message)) break;  // a spawned job's process
            if (Proc* process = reported_proc(head, message)) {
                process->exited = true;
                process->exit_code = number(2);
                report_end(head, *process);
            }
            break;
        case MessageKind::aborted:  // before the kills it causes: JOB_END names it
            lifecycle_remote_aborted(head.tools, message.fields);
            break;
        case MessageKind::failed:
            fail(head, number(0),
                 message.fields.size() > 1 ? message.fields[1] : "node " + daemon.name + " failed");
            break;
        case MessageKind::event:  // an event, or a job-control signal: every other node applies it
        case MessageKind::signal:
            send_all(head, *message.kind, message.fields, daemon.index);
            break;
        case MessageKind::publish:  // the job's one directory: answered to that daemon
        case MessageKind::lookup:
        case MessageKind::unpublish:
            head.directory->take(daemon.index, message);
            break;
        case MessageKind::spawn:  // a rank's PMIx_Spawn, and the daemons' parts of it
        case MessageKind::spawn_started:
            head.spawner->take(daemon.index, message);
            break;
        case MessageKind::connect:
            head.connector->take(daemon.index, message);
            break;
        case MessageKind::debug_ready:  // the debugger stops across nodes (debug_nodes.h)
        case MessageKind::debug_started:
        case MessageKind::debug_release:  // a release a rank raised, for every node
            if (head_debug_report(head.tools, message, head.daemons.size()))
                lifecycle_started(head.tools, message.fields[0]);  // the held job's namespace
            break;
        case MessageKind::done:
            if (head.spawner->awaiting(daemon.index)) break;  // new processes are coming
            daemon.done = true;
            daemon.code = number(0);
            break;
        default:  // a kind only the head sends
            report_unexpected(daemon, message);
    }
}

// Sends what waits of our stdin (read, or pushed by a tool) to the daemons of the --stdin
// targets, at most kStdinHeld beyond what their ranks took; then EOF once.
void forward_stdin(Head& head) {
    StdinForward& f = head.tools.stdin_fwd;
    for (;;) {
        uint64_t room = kStdinHeld;
        for (const Daemon& daemon : head.daemons)
            if (daemon.stdin_target && !daemon.gone)
                room = std::min(room, kStdinHeld - std::min(kStdinHeld, daemon.stdin_sent -
                                                                            daemon.stdin_taken));
        const size_t n = static_cast<size_t>(std::min<uint64_t>({room, f.pending.size(), 65536}));
        const bool end = f.eof && n == f.pending.size() && !head.stdin_end_sent;
        if (n == 0 && !end) return;
        for (Daemon& daemon : head.daemons) {
            if (!daemon.stdin_target || daemon.gone) continue;
            daemon.channel->send(MessageKind::stdin_data,
                                 {f.pending.substr(0, n), end ? "1" : "0"});
            daemon.stdin_sent += n;
        }
        f.pending.erase(0, n);
        stdin_release_pushes(f, false);
        if (end) head.stdin_end_sent = true;
    }
}

void read_stdin(Head& head) {
    StdinForward& f = head.tools.stdin_fwd;
    char chunk[65536];
    const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
    if (n > 0) f.pending.append(chunk, static_cast<size_t>(n));
    else if (n == 0 || (errno != EINTR && errno != EAGAIN)) f.eof = true;
}

// Polls every daemon (and our signal pipe, the tools' work queue and our stdin) once, for up to
// `timeout_ms`. A daemon's channel is not read while our server still has much output to take
// (take_output's back-pressure): the daemon then stops reading its ranks' pipes.
void pump(Head& head, int timeout_ms) {
    StdinForward& in = head.tools.stdin_fwd;
    const bool read_in = in.own_stdin && !in.eof && in.pending.size() < kStdinHeld;
    std::vector<pollfd> fds{{g_signal_pipe[0], POLLIN, 0},
                            {head.tools.queue.fd(), POLLIN, 0},
                            {read_in ? STDIN_FILENO : -1, POLLIN, 0}};
    std::vector<Daemon*> polled;  // fds[3 + 2i] and fds[4 + 2i] are polled[i]'s channel
    const bool take_more = !output_backlogged();
    for (Daemon& daemon : head.daemons) {
        if (daemon.gone) continue;
        fds.push_back({take_more ? daemon.channel->in_fd() : -1, POLLIN, 0});
        fds.push_back({daemon.channel->queued() > 0 ? daemon.channel->out_fd() : -1, POLLOUT, 0});
        polled.push_back(&daemon);
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) return;
    unsigned char signals[16];
    for (ssize_t count; (count = ::read(g_signal_pipe[0], signals, sizeof signals)) > 0;)
        for (ssize_t i = 0; i < count; ++i)
            fail(head, 128 + signals[i],
                 std::string("received signal ") + strsignal(signals[i]) + "; killing the job");
    head.tools.failing = head.failing;
    head.tools.queue.drain();  // tools' queries (query.cpp) and pushes, answered on this loop
    // An indirect launch's keepalive pipe closed (indirect.cpp): the view failed, and said why.
    if (head.tools.failing && !head.failing) fail(head, head.tools.fail_code, "");
    if (fds[2].fd >= 0 && fds[2].revents != 0) read_stdin(head);
    for (size_t i = 0; i < polled.size(); ++i) {
        if (fds[3 + 2 * i].revents == 0 && fds[4 + 2 * i].revents == 0) continue;
        std::vector<Message> messages;
        const bool alive =
            polled[i]->channel->flush_some() && polled[i]->channel->receive(messages);
        for (const Message& message : messages) handle(head, *polled[i], message);
        if (!alive) daemon_gone(head, *polled[i]);
    }
    forward_stdin(head);
}

bool all_done(const Head& head) {
    return std::all_of(head.daemons.begin(), head.daemons.end(),
                       [](const Daemon& daemon) { return daemon.done; });
}

bool collect_addresses(Head& head) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(kStartupMs);
    for (;;) {
        size_t reported = 0;
        for (Daemon& daemon : head.daemons) {
            if (daemon.gone) {
                std::fprintf(stderr, "pmixrun: the daemon of node %s did not start (status %d)\n",
                             daemon.name.c_str(), wait_status(daemon.pid));
                daemon.pid = -1;
                return false;
            }
            reported += daemon.address.empty() ? 0 : 1;
        }
        if (reported == head.daemons.size()) return true;
        if (Clock::now() > deadline) {
            std::fprintf(stderr, "pmixrun: not every daemon reported within %d s\n",
                         kStartupMs / 1000);
            return false;
        }
        std::vector<pollfd> fds;
        for (Daemon& daemon : head.daemons) fds.push_back({daemon.channel->in_fd(), POLLIN, 0});
        ::poll(fds.data(), fds.size(), 100);
        for (size_t i = 0; i < head.daemons.size(); ++i) {
            Daemon& daemon = head.daemons[i];
            if (fds[i].revents == 0 || !daemon.address.empty()) continue;
            std::vector<Message> messages;
            const bool alive = daemon.channel->receive(messages);
            for (const Message& message : messages)
                if (message.kind == MessageKind::address && !message.fields.empty()) {
                    daemon.address = message.fields[0];
                    if (message.fields.size() > 2) daemon.ip = message.fields[2];
                }
            if (!alive) daemon.gone = true;
        }
    }
}

JobMessage job_message(const Head& head) {
    JobMessage job;
    job.nspace = head.nspace;
    job.nprocs = static_cast<uint32_t>(head.options.nprocs);
    for (const Daemon& daemon : head.daemons)
        job.nodes.push_back({daemon.name, head.layout.rank_count[daemon.index], daemon.address});
    job.argv = head.options.argv;
    if (job.argv.empty()) job.argv = {"pmix-dvm"};  // --dvm: no job of its own, nothing started
    // -x: the value here (a bare VAR) or the one given; the daemons add these to their own
    // environment, as mpirun does on remote nodes.
    for (const std::string& passed : head.options.env) {
        if (passed.find('=') != std::string::npos) {
            job.env.push_back(passed);
        } else if (const char* value = std::getenv(passed.c_str()); value != nullptr) {
            job.env.push_back(passed + "=" + value);
        } else {
            std::fprintf(stderr, "pmixrun: warning: -x %s: not set here, not passed\n",
                         passed.c_str());
        }
    }
    job.launch_blob = head.launch_blob;
    job.env_directives = head.options.env_directives;
    job.credential_key = head.credential_key;
    job.pset = head.options.first_pset;
    job.timeout_s = head.options.timeout_s;
    job.stdin_rank = head.options.stdin_rank;
    job.debug_stops = debug_stop_letters(head.options);
    job.start_as = head.options.start_as;
    return job;
}

// The launcher's side of the fabric plugins: a PMIx server of our own (no clients) answers
// PMIx_server_setup_application for the job, with every node's address for endpoint assignment.
bool collect_launch_blob(Head& head) {
    std::string addrs;
    for (const Daemon& daemon : head.daemons) addrs += (daemon.index ? "," : "") + daemon.ip;
    for (const Daemon& daemon : head.daemons)
        if (daemon.ip.empty()) addrs.clear();
    const pmix_status_t rc = setup_application(head.nspace, head.layout, addrs, head.launch_blob);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun: PMIx_server_setup_application failed: %s\n",
                     PMIx_Error_string(rc));
        return false;
    }
    return true;
}

// A server with no clients: for setup_application, and for tools, which find it through its
// rendezvous files in the library's default tmpdir ($TMPDIR...) and get the whole job's proc
// table (query.cpp on head.tools); finalized at the end.
// --dvm: the server is the DVM's (dvm.cpp: the system server), DvmHead its Remote.
bool start_dvm_server(Head& head) {
    Launcher& view = head.tools;
    view.psets.clear();  // no job of its own, no set
    view.credential_key = head.credential_key;
    head.dvm = std::make_unique<DvmHead>(
        view, *head.spawner, [&head](MessageKind kind, const std::vector<std::string>& fields) {
            send_all(head, kind, fields);
        });
    view.remote = head.dvm.get();
    head_debug_spawner(head.spawner.get());  // debugger daemons and co-spawn (dvm.cpp's spawn)
    head_debug_forward([&head](const std::vector<std::string>& fields) {  // stops (debug_nodes.h)
        send_all(head, MessageKind::debug_release, fields);
    });
    head_debug_spawned([dvm = head.dvm.get()](const std::string& nspace) { dvm->adopt(nspace); });
    view.debugger_spawn = [](const pmix_proc_t* proc, const pmix_info_t* info, size_t ninfo,
                             const pmix_app_t* apps, size_t napps, pmix_spawn_cbfunc_t cbfunc,
                             void* cbdata) {
        return head_spawn_takes(info, ninfo, apps, napps)
                   ? head_spawn_fn(proc, info, ninfo, apps, napps, cbfunc, cbdata)
                   : PMIX_ERR_NOT_FOUND;
    };
    view.spawn_placement = [dvm = head.dvm.get()](const pmix_info_t* info, size_t ninfo,
                                                  const pmix_app_t* app, void* cbdata) {
        return dvm->placement(info, ninfo, app, cbdata);
    };
    if (dvm_open_server(view, head.uri_file) != 0) return false;
    head.server_up = true;
    return true;
}

bool start_local_server(Head& head) {
    init_tool_view(head);
    // One key for the whole job, handed to every pmixd over its channel (ssh carries it
    // encrypted; it is never on a command line nor in an environment a rank inherits).
    head.credential_key.resize(32);
    if (::getrandom(head.credential_key.data(), head.credential_key.size(), 0) != 32) return false;
    if (head.options.dvm) return start_dvm_server(head);
    pmix_server_module_t module;
    std::memset(&module, 0, sizeof module);
    module.query = host_query;
    module.tool_connected = host_tool_connected;
    module.iof_pull = host_iof_pull;      // remote ranks' output is delivered here (take_output)
    module.push_stdin = host_push_stdin;  // to the daemons of the --stdin targets
    module.spawn = head_spawn_fn;         // debugger daemons and co-spawn (head_debug_spawn.h)
    head_debug_spawner(head.spawner.get());
    module.job_control = head_job_control;  // pause / resume on every node (the same)
    head_job_control_sender([&head](const std::vector<std::string>& fields) {
        send_all(head, MessageKind::signal, fields);
    });
    const bool yes = true;
    InfoList info;
    info.add(PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    info.add(PMIX_SERVER_REMOTE_CONNECTIONS, &head.options.remote_tools, PMIX_BOOL);
    for (const auto& [key, value] : indirect_server_info()) info.add(key, value);  // indirect.h
    pmix_byte_object_t key{head.credential_key.data(), head.credential_key.size()};
    info.add(PMIX_CRYPTO_KEY, &key, PMIX_BYTE_OBJECT);
    pmix_status_t rc = info.convert();
    if (rc == PMIX_SUCCESS) rc = PMIx_server_init(&module, info.info(), info.size());
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun: PMIx_server_init failed: %s\n", PMIx_Error_string(rc));
        return false;
    }
    head.server_up = true;
    return true;
}

// An indirect launch (indirect.h): the initiator's release and its launch directives, for every
// node (the job message); then the debugger stops, the command line's or the directives'.
bool prepare_debugging(Head& head) {
    Launcher& view = head.tools;
    if (!indirect_before_head(view)) {
        head.fail_code = view.fail_code;
        head.timed_out = view.timed_out;
        return false;
    }
    head.options.env_directives = view.options.env_directives;
    head.options.stop_in_init = view.options.stop_in_init;
    head.options.stop_on_exec = view.options.stop_on_exec;
    head.options.stop_in_app = view.options.stop_in_app;
    if (view.main_requester)
        lifecycle_watch(view, head.nspace, view.procs.size(), &*view.main_requester,
                        view.main_lifecycle);
    head_debug_setup(view, head.nspace, [&head](const std::vector<std::string>& fields) {
        send_all(head, MessageKind::debug_release, fields);
    });
    return true;
}

void run_job(Head& head) {
    const auto limit = std::chrono::duration<double>(head.options.timeout_s);
    while (!all_done(head)) {
        pump(head, 100);
        const auto now = Clock::now();
        head.directory->tick(now);  // lookups and connects past their PMIX_TIMEOUT
        head.connector->tick(now);
        if (head.options.timeout_s > 0 && !head.timed_out && now - head.start >= limit) {
            head.timed_out = true;
            std::fprintf(stderr, "pmixrun: timeout after %g s; killing the job\n",
                         head.options.timeout_s);
            head.failing = true;
            head.fail_at = now;
            send_all(head, MessageKind::timeout, {});
        }
        if (head.failing && now - head.fail_at > kFailGrace) {
            std::fprintf(stderr, "pmixrun: daemons did not end after the failure; killing them\n");
            for (Daemon& daemon : head.daemons)
                if (daemon.pid > 0 && !daemon.done) {
                    ::kill(-daemon.pid, SIGKILL);
                    ::kill(daemon.pid, SIGKILL);
                    daemon.done = true;
                }
        }
    }
    head.all_done = Clock::now();
}

// --dvm: serves tools until a stop (dvm_head.h), then stops every daemon and reads their last
// reports (at most kQuitGrace), so that the running jobs' ends reach their tools; the exit status.
int serve_dvm(Head& head) {
    while (!head.failing && !dvm_stop_requested()) {
        pump(head, 100);
        const auto now = Clock::now();
        head.directory->tick(now);
        head.connector->tick(now);
        head.dvm->retire_finished();
    }
    const bool asked = !head.failing;
    head.failing = true;        // no new spawns (HeadSpawner reads the view's)
    head.tools.kill_stage = 1;  // the jobs' ends: killed by command (lifecycle.cpp)
    head.dvm->fail_requests(PMIX_ERR_JOB_TERMINATED);
    for (Daemon& daemon : head.daemons) daemon.done = true;  // their exit is the stop's
    send_all(head, MessageKind::quit, {});
    const auto until = Clock::now() + kQuitGrace;
    while (Clock::now() < until && std::any_of(head.daemons.begin(), head.daemons.end(),
                                               [](const Daemon& d) { return !d.gone; }))
        pump(head, 100);
    // What a lost daemon's processes never reported (they died with it: PR_SET_PDEATHSIG): ended
    // by SIGKILL, so that every job's tool still gets its JOB_END before the server goes.
    for (Proc& process : head.tools.procs) {
        if (process.exited) continue;
        process.exited = true;
        process.exit_code = 128 + SIGKILL;
        lifecycle_proc_ended(head.tools, process, SIGKILL);
    }
    return asked ? 0 : head.fail_code;
}

// A rank whose daemon died (or was killed after a failure) never reported the end of its
// streams: what it wrote of a last line is printed now, and tools are told the stream ended.
void end_open_streams(Head& head) {
    for (Proc& process : head.tools.procs) {
        for (const pmix_iof_channel_t channel :
             {PMIX_FWD_STDOUT_CHANNEL, PMIX_FWD_STDERR_CHANNEL}) {
            Stream& stream = channel == PMIX_FWD_STDOUT_CHANNEL ? process.out : process.err;
            if (stream.fd != kStreamEnded) take_output(process, channel, nullptr, 0, true);
            stream.fd = kStreamEnded;
        }
    }
}

void shut_down(Head& head) {
    stdin_release_pushes(head.tools.stdin_fwd, true);  // tools' pushes still waiting for room
    send_all(head, MessageKind::quit, {});
    for (Daemon& daemon : head.daemons)
        if (!daemon.gone) daemon.channel->flush(1000);
    const auto deadline = Clock::now() + kQuitGrace;
    for (Daemon& daemon : head.daemons) {
        while (daemon.pid > 0) {
            int status = 0;
            const pid_t got = ::waitpid(daemon.pid, &status, WNOHANG);
            if (got == daemon.pid || (got < 0 && errno == ECHILD)) break;
            if (Clock::now() > deadline) {
                ::kill(-daemon.pid, SIGKILL);
                ::kill(daemon.pid, SIGKILL);
                ::waitpid(daemon.pid, &status, 0);
                break;
            }
            ::usleep(10000);
        }
        daemon.pid = -1;
    }
}

double milliseconds(Clock::time_point from, Clock::time_point to) {
    return std::chrono::duration<double, std::milli>(to - from).count();
}

void report(const Head& head, int code) {
    std::fprintf(stderr,
                 "pmixrun report: %d process(es) on %zu node(s), launch agent \"%s\", exit %d\n",
                 head.options.nprocs, head.daemons.size(), head.options.launch_agent.c_str(), code);
    std::fprintf(stderr, "  %-28s %12s %12s\n", "phase", "at (ms)", "took (ms)");
    Clock::time_point previous = head.start;
    auto row = [&](const char* name, Clock::time_point at) {
        if (at == Clock::time_point{}) {
            std::fprintf(stderr, "  %-28s %12s %12s\n", name, "-", "-");
            return;
        }
        std::fprintf(stderr, "  %-28s %12.3f %12.3f\n", name, milliseconds(head.start, at),
                     milliseconds(previous, at));
        previous = at;
    };
    row("daemons up (fabric open)", head.started);
    row("job sent to every daemon", head.sent);
    row("all clients connected", head.all_connected);
    row("all clients finalized", head.all_finalized);
    row("all processes exited", head.all_done);
    row("teardown", head.end);
    std::fprintf(stderr, "  connected %zu/%d, finalized %zu/%d\n", head.connected_count,
                 head.options.nprocs, head.finalized_count, head.options.nprocs);
}

// The nodes (--hostfile, then --host) and the ranks mapped over them; false after saying why.
bool plan_nodes(Head& head) {
    const Options& options = head.options;
    std::string error;
    bool ok = options.hostfile.empty() ? parse_host_list(options.hosts, head.layout.nodes, error)
                                       : parse_hostfile(options.hostfile, head.layout.nodes, error);
    if (ok && !options.hosts.empty() && !options.hostfile.empty())
        ok = parse_host_list(options.hosts, head.layout.nodes, error);
    if (!ok) {
        std::fprintf(stderr, "pmixrun: %s\n", error.c_str());
        return false;
    }
    int slots = 0;
    for (const NodeSlot& node : head.layout.nodes) slots += node.slots;
    if (!options.nprocs_given) head.options.nprocs = options.dvm ? 0 : std::min(slots, 4096);
    if (!head.layout.map(static_cast<uint32_t>(head.options.nprocs))) {
        std::fprintf(stderr, "pmixrun: %d processes do not fit in the %d slots of %zu node(s)\n",
                     head.options.nprocs, slots, head.layout.nodes.size());
        return false;
    }
    if (options.stdin_rank >= head.options.nprocs) {
        std::fprintf(stderr, "pmixrun: --stdin %ld: the job has ranks 0..%d\n", options.stdin_rank,
                     head.options.nprocs - 1);
        return false;
    }
    return true;
}

}  // namespace

int run_head(const Options& options) {
    Head head;
    head.start = Clock::now();
    head.options = options;
    head.directory = std::make_unique<Directory>([&head](size_t node, const auto& fields) {
        if (node < head.daemons.size() && !head.daemons[node].gone)
            head.daemons[node].channel->send(MessageKind::directory_reply, fields);
    });
    head.spawner = std::make_unique<HeadSpawner>(head.tools, [&head](size_t node, MessageKind kind,
                                                                     const auto& fields) {
        if (node == kHeadNode && kind == MessageKind::spawn_reply && head.dvm) {
            head.dvm->take_reply(fields);  // a tool of the DVM's server asked (dvm_head.h)
            return;
        }
        if (node >= head.daemons.size() || head.daemons[node].gone) return;
        // A daemon that reported all its processes ended gets new ones (its count in the
        // part, fields[5 + node], is not 0): it reports again once they ended.
        if (kind == MessageKind::spawn_part && 5 + node < fields.size() && fields[5 + node] != "0")
            head.daemons[node].done = false;
        head.daemons[node].channel->send(kind, fields);
    });
    head.connector = std::make_unique<HeadConnector>(
        head.tools, [&head](size_t node, const std::vector<std::string>& fields) {
            if (node < head.daemons.size() && !head.daemons[node].gone)
                head.daemons[node].channel->send(MessageKind::connect_reply, fields);
        });
    if (!plan_nodes(head)) return 2;
    const char* env_pmixd = std::getenv("PMIXD");
    const std::string pmixd =
        env_pmixd != nullptr && *env_pmixd != '\0' ? env_pmixd : self_dir() + "/pmixd";
    if (::access(pmixd.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "pmixrun: cannot find the node daemon '%s' (set PMIXD)\n",
                     pmixd.c_str());
        return 127;
    }
    const std::vector<std::string> agent = split_words(options.launch_agent);
    if (agent.empty()) {
        std::fprintf(stderr, "pmixrun: empty --launch-agent\n");
        return 2;
    }
    head.nspace = (options.dvm ? "pmix-dvm." : "pmixrun.") + std::to_string(::getpid());
    if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return 1;
    ::signal(SIGPIPE, SIG_IGN);  // a dead daemon's pipe: the write fails, EOF tells us the rest
    ::signal(SIGINT, on_signal);
    ::signal(SIGTERM, on_signal);
    for (size_t i = 0; i < head.layout.nodes.size(); ++i) {
        Daemon& daemon = head.daemons.emplace_back();
        daemon.index = i;
        daemon.name = head.layout.nodes[i].name;
        const long in = options.stdin_rank;
        daemon.stdin_target = head.layout.rank_count[i] > 0 &&
                              (in == Options::kStdinAll ||
                               (in >= 0 && head.layout.node_of(static_cast<pmix_rank_t>(in)) == i));
        if (!start_daemon(daemon, agent, pmixd, options.dvm)) {
            std::fprintf(stderr, "pmixrun: cannot start the daemon of node %s\n",
                         daemon.name.c_str());
            daemon.gone = daemon.done = true;
        }
    }
    int code = 1;
    if (collect_addresses(head) && start_local_server(head) && prepare_debugging(head) &&
        collect_launch_blob(head)) {
        head.started = Clock::now();
        send_all(head, MessageKind::job, encode_job(job_message(head)));
        head.tools.stdin_fwd.own_stdin = options.stdin_rank != Options::kStdinNone;
        head.sent = Clock::now();
        if (head.dvm) {
            code = serve_dvm(head);
        } else {
            run_job(head);
            code = head.timed_out ? 124 : head.fail_code;
            for (const Daemon& daemon : head.daemons)
                if (!head.timed_out) code = std::max(code, daemon.code);
        }
        end_open_streams(head);
        lifecycle_flush();  // the job's last events reach the library before it is torn down
    } else {
        if (head.fail_code != 0) code = head.timed_out ? 124 : head.fail_code;
        for (Daemon& daemon : head.daemons)
            if (daemon.pid > 0) {
                ::kill(-daemon.pid, SIGKILL);
                ::kill(daemon.pid, SIGKILL);
            }
    }
    shut_down(head);
    if (head.server_up) PMIx_server_finalize();
    if (!head.uri_file.empty()) ::unlink(head.uri_file.c_str());
    head.end = Clock::now();
    if (options.report) report(head, code);
    return code;
}
#endif

}  // namespace pmix::launcher
