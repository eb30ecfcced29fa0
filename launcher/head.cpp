// pmixrun across nodes: start one pmixd per node through the launch agent, hand every daemon the
// job and everyone's fabric address, then relay: output lines to our stdout/stderr, the first
// failure to every daemon (which kill their ranks as single-node pmixrun would), events between
// nodes, and a daemon's death to the others (their fences fail at once, never hang).
#include "channel.h"
#include "launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
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
constexpr auto kQuitGrace = std::chrono::seconds(10);  // daemons exit after 'Q'
constexpr auto kFailGrace = std::chrono::seconds(15);  // after a failure, then SIGKILL

struct Daemon {
    size_t index = 0;
    std::string name;
    std::string ip;  // where its fabric endpoint listens (for the instant-on endpoint plugin)
    pid_t pid = -1;
    std::unique_ptr<Channel> ch;
    std::string address;
    bool gone = false;  // EOF on its channel
    bool done = false;  // sent 'D' (or died)
    int code = 0;
};

struct Head {
    Options opt;
    Layout layout;
    std::string nspace, tmpdir, launch_blob;
    bool server_up = false;
    std::vector<Daemon> d;
    bool failing = false, timed_out = false;
    int fail_code = 0;
    size_t nconnected = 0, nfinalized = 0;
    Clock::time_point start, started, sent, all_connected, all_finalized, all_done, end, fail_at;
    // What tools are told (query.cpp reads it through g_launcher, on this loop): every rank of the
    // job with its node, and the pid, state and exit code its daemon reported.
    Launcher tools;
};

// Fills the head's view of the job for tools: ranks block-mapped over the nodes, none started.
void init_tool_view(Head& h) {
    Launcher& L = h.tools;
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    L.hostname = host;
    L.nspace = h.nspace;
    L.opt = h.opt;
    L.layout = h.layout;
    L.procs.resize(static_cast<size_t>(h.opt.nprocs));
    for (size_t r = 0; r < L.procs.size(); ++r) {
        Proc& p = L.procs[r];
        p.rank = static_cast<pmix_rank_t>(r);
        p.nspace = h.nspace;
        p.executable = h.opt.argv.empty() ? std::string() : h.opt.argv[0];
        const size_t node = h.layout.node_of(p.rank);
        p.host = node < h.layout.nodes.size() ? h.layout.nodes[node].name : std::string();
    }
    g_launcher = &L;
}

// A daemon's report about one rank ('C' rank pid, 'F' rank, 'X' rank pid code).
Proc* reported_proc(Head& h, const Message& m) {
    const long r = m.fields.empty() ? -1 : std::atol(m.fields[0].c_str());
    if (r < 0 || static_cast<size_t>(r) >= h.tools.procs.size()) return nullptr;
    Proc& p = h.tools.procs[static_cast<size_t>(r)];
    if (m.fields.size() > 1) p.pid = static_cast<pid_t>(std::atol(m.fields[1].c_str()));
    return &p;
}

int g_sig[2] = {-1, -1};
void on_signal(int sig) {
    unsigned char b = static_cast<unsigned char>(sig);
    ssize_t r = ::write(g_sig[1], &b, 1);
    (void)r;
}

std::string self_dir() {
    char buf[PATH_MAX] = {};
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    std::string p(buf, n > 0 ? static_cast<size_t>(n) : 0);
    return p.substr(0, p.rfind('/'));
}

std::vector<std::string> split_words(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
}

bool start_daemon(Daemon& dm, const std::vector<std::string>& agent, const std::string& pmixd) {
    int to[2], from[2];
    if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) return false;
    std::vector<std::string> args = agent;
    args.insert(args.end(),
                {dm.name, pmixd, "--node-name", dm.name, "--node-index", std::to_string(dm.index)});
    pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);  // a ^C reaches pmixrun, which takes the job down in order
        ::dup2(to[0], 0);
        ::dup2(from[1], 1);
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execvp(argv[0], argv.data());
        std::fprintf(stderr, "pmixrun: cannot run launch agent '%s': %s\n", argv[0],
                     std::strerror(errno));
        ::_exit(127);
    }
    ::close(to[0]);
    ::close(from[1]);
    if (pid < 0) return false;
    dm.pid = pid;
    dm.ch = std::make_unique<Channel>(from[0], to[1]);
    return true;
}

void send_all(Head& h, char type, const std::vector<std::string>& fields,
              size_t except = SIZE_MAX) {
    for (Daemon& dm : h.d)
        if (!dm.gone && dm.index != except) dm.ch->send(type, fields);
}

void fail(Head& h, int code, const std::string& why) {
    if (h.failing) return;
    h.failing = true;
    h.fail_code = code;
    h.fail_at = Clock::now();
    std::fprintf(stderr, "pmixrun: %s\n", why.c_str());
    std::fflush(stderr);
    send_all(h, 'K', {std::to_string(code)});
}

int wait_status(pid_t pid) {
    int st = 0;
    for (int i = 0; i < 100; ++i) {  // the agent ends with its daemon; give it a second
        if (::waitpid(pid, &st, WNOHANG) == pid)
            return WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
        ::usleep(10000);
    }
    return 1;
}

void daemon_gone(Head& h, Daemon& dm) {
    dm.gone = true;
    if (dm.done) return;
    dm.done = true;
    dm.code = wait_status(dm.pid);
    dm.pid = -1;
    send_all(h, 'L', {std::to_string(dm.index)});  // its fences fail everywhere, now
    fail(h, dm.code == 0 ? 1 : dm.code,
         "the daemon of node " + std::to_string(dm.index) + " (" + dm.name + ") died (status " +
             std::to_string(dm.code) + "); killing the job");
}

void handle(Head& h, Daemon& dm, const Message& m) {
    const auto num = [&](size_t i) {
        return i < m.fields.size() ? std::atoi(m.fields[i].c_str()) : 0;
    };
    switch (m.type) {
        case 'O':
            if (m.fields.size() == 3) {
                FILE* f = m.fields[1] == "1" ? stdout : stderr;
                std::fprintf(f, "[%s] %s\n", m.fields[0].c_str(), m.fields[2].c_str());
                std::fflush(f);
            }
            break;
        case 'C':
            if (Proc* p = reported_proc(h, m)) p->connected = true;
            if (++h.nconnected == static_cast<size_t>(h.opt.nprocs)) h.all_connected = Clock::now();
            break;
        case 'F':
            if (Proc* p = reported_proc(h, m)) p->finalized = true;
            if (++h.nfinalized == static_cast<size_t>(h.opt.nprocs)) h.all_finalized = Clock::now();
            break;
        case 'X':
            if (Proc* p = reported_proc(h, m)) {
                p->exited = true;
                p->exit_code = num(2);
            }
            break;
        case 'E':
            fail(h, num(0), m.fields.size() > 1 ? m.fields[1] : "node " + dm.name + " failed");
            break;
        case 'N':  // an event, or a job-control signal: every other node applies it locally
        case 'S':
            send_all(h, m.type, m.fields, dm.index);
            break;
        case 'D':
            dm.done = true;
            dm.code = num(0);
            break;
        default:
            std::fprintf(stderr, "pmixrun: unexpected message '%c' from node %s\n", m.type,
                         dm.name.c_str());
    }
}

// Polls every daemon (and our signal pipe) once, for up to `ms`.
void pump(Head& h, int ms) {
    std::vector<pollfd> fds{{g_sig[0], POLLIN, 0}, {h.tools.queue.fd(), POLLIN, 0}};
    std::vector<Daemon*> owner;
    for (Daemon& dm : h.d) {
        if (dm.gone) continue;
        fds.push_back({dm.ch->in_fd(), POLLIN, 0});
        owner.push_back(&dm);
    }
    if (::poll(fds.data(), fds.size(), ms) < 0 && errno != EINTR) return;
    unsigned char b[16];
    for (ssize_t n; (n = ::read(g_sig[0], b, sizeof b)) > 0;)
        for (ssize_t i = 0; i < n; ++i)
            fail(h, 128 + b[i],
                 std::string("received signal ") + strsignal(b[i]) + "; killing the job");
    h.tools.failing = h.failing;
    h.tools.queue.drain();  // tools' queries (query.cpp), answered on this loop
    for (size_t i = 0; i < owner.size(); ++i) {
        if (fds[i + 2].revents == 0) continue;
        std::vector<Message> msgs;
        const bool alive = owner[i]->ch->receive(msgs);
        for (const Message& m : msgs) handle(h, *owner[i], m);
        if (!alive) daemon_gone(h, *owner[i]);
    }
}

bool all_done(const Head& h) {
    return std::all_of(h.d.begin(), h.d.end(), [](const Daemon& dm) { return dm.done; });
}

bool collect_addresses(Head& h) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(kStartupMs);
    for (;;) {
        size_t have = 0;
        for (Daemon& dm : h.d) {
            if (dm.gone) {
                std::fprintf(stderr, "pmixrun: the daemon of node %s did not start (status %d)\n",
                             dm.name.c_str(), wait_status(dm.pid));
                dm.pid = -1;
                return false;
            }
            have += dm.address.empty() ? 0 : 1;
        }
        if (have == h.d.size()) return true;
        if (Clock::now() > deadline) {
            std::fprintf(stderr, "pmixrun: not every daemon reported within %d s\n",
                         kStartupMs / 1000);
            return false;
        }
        std::vector<pollfd> fds;
        for (Daemon& dm : h.d) fds.push_back({dm.ch->in_fd(), POLLIN, 0});
        ::poll(fds.data(), fds.size(), 100);
        for (size_t i = 0; i < h.d.size(); ++i) {
            if (fds[i].revents == 0 || !h.d[i].address.empty()) continue;
            std::vector<Message> msgs;
            const bool alive = h.d[i].ch->receive(msgs);
            for (const Message& m : msgs)
                if (m.type == 'A' && !m.fields.empty()) {
                    h.d[i].address = m.fields[0];
                    if (m.fields.size() > 2) h.d[i].ip = m.fields[2];
                }
            if (!alive) h.d[i].gone = true;
        }
    }
}

std::vector<std::string> job_message(const Head& h) {
    std::vector<std::string> f{h.nspace, std::to_string(h.opt.nprocs), std::to_string(h.d.size())};
    for (const Daemon& dm : h.d) {
        f.push_back(dm.name);
        f.push_back(std::to_string(h.layout.count[dm.index]));
        f.push_back(dm.address);
    }
    f.push_back(std::to_string(h.opt.argv.size()));
    f.insert(f.end(), h.opt.argv.begin(), h.opt.argv.end());
    // -x: the value here (a bare VAR) or the one given; the daemons add these to their own
    // environment, as mpirun does on remote nodes.
    std::vector<std::string> env;
    for (const std::string& x : h.opt.env) {
        if (x.find('=') != std::string::npos) env.push_back(x);
        else if (const char* v = std::getenv(x.c_str()); v != nullptr) env.push_back(x + "=" + v);
        else std::fprintf(stderr, "pmixrun: warning: -x %s: not set here, not passed\n", x.c_str());
    }
    f.push_back(std::to_string(env.size()));
    f.insert(f.end(), env.begin(), env.end());
    f.push_back(h.launch_blob);
    return f;
}

// The launcher's side of the fabric plugins: a PMIx server of our own (no clients) answers
// PMIx_server_setup_application for the job, with every node's address for endpoint assignment.
bool collect_launch_blob(Head& h) {
    std::string addrs;
    for (const Daemon& dm : h.d) addrs += (dm.index ? "," : "") + dm.ip;
    for (const Daemon& dm : h.d)
        if (dm.ip.empty()) addrs.clear();
    const pmix_status_t rc = setup_application(h.nspace, h.layout, addrs, h.launch_blob);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun: PMIx_server_setup_application failed: %s\n",
                     PMIx_Error_string(rc));
        return false;
    }
    return true;
}

// A server with no clients: for setup_application, and for tools, which find it through its
// rendezvous files in the library's default tmpdir ($TMPDIR...) and get the whole job's proc
// table (query.cpp on h.tools); finalized at the end.
bool start_local_server(Head& h) {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/pmixrun.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) return false;
    h.tmpdir = tmpl;
    init_tool_view(h);
    pmix_server_module_t module;
    std::memset(&module, 0, sizeof module);
    module.query = host_query;
    module.tool_connected = host_tool_connected;
    pmix_info_t* info = nullptr;
    PMIX_INFO_CREATE(info, 2);
    bool yes = true;
    PMIx_Info_load(&info[0], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[1], PMIX_SERVER_REMOTE_CONNECTIONS, &h.opt.remote_tools, PMIX_BOOL);
    const pmix_status_t rc = PMIx_server_init(&module, info, 2);
    PMIX_INFO_FREE(info, 2);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun: PMIx_server_init failed: %s\n", PMIx_Error_string(rc));
        return false;
    }
    h.server_up = true;
    return true;
}

void run_job(Head& h) {
    const auto limit = std::chrono::duration<double>(h.opt.timeout_s);
    while (!all_done(h)) {
        pump(h, 100);
        const auto now = Clock::now();
        if (h.opt.timeout_s > 0 && !h.timed_out && now - h.start >= limit) {
            h.timed_out = true;
            std::fprintf(stderr, "pmixrun: timeout after %g s; killing the job\n", h.opt.timeout_s);
            h.failing = true;
            h.fail_at = now;
            send_all(h, 'T', {});
        }
        if (h.failing && now - h.fail_at > kFailGrace) {
            std::fprintf(stderr, "pmixrun: daemons did not end after the failure; killing them\n");
            for (Daemon& dm : h.d)
                if (dm.pid > 0 && !dm.done) {
                    ::kill(-dm.pid, SIGKILL);
                    ::kill(dm.pid, SIGKILL);
                    dm.done = true;
                }
        }
    }
    h.all_done = Clock::now();
}

void shut_down(Head& h) {
    send_all(h, 'Q', {});
    const auto deadline = Clock::now() + kQuitGrace;
    for (Daemon& dm : h.d) {
        while (dm.pid > 0) {
            int st = 0;
            const pid_t got = ::waitpid(dm.pid, &st, WNOHANG);
            if (got == dm.pid || (got < 0 && errno == ECHILD)) break;
            if (Clock::now() > deadline) {
                ::kill(-dm.pid, SIGKILL);
                ::kill(dm.pid, SIGKILL);
                ::waitpid(dm.pid, &st, 0);
                break;
            }
            ::usleep(10000);
        }
        dm.pid = -1;
    }
}

double ms(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

void report(const Head& h, int code) {
    std::fprintf(stderr,
                 "pmixrun report: %d process(es) on %zu node(s), launch agent \"%s\", exit %d\n",
                 h.opt.nprocs, h.d.size(), h.opt.launch_agent.c_str(), code);
    std::fprintf(stderr, "  %-28s %12s %12s\n", "phase", "at (ms)", "took (ms)");
    Clock::time_point prev = h.start;
    auto row = [&](const char* name, Clock::time_point at) {
        if (at == Clock::time_point{}) {
            std::fprintf(stderr, "  %-28s %12s %12s\n", name, "-", "-");
            return;
        }
        std::fprintf(stderr, "  %-28s %12.3f %12.3f\n", name, ms(h.start, at), ms(prev, at));
        prev = at;
    };
    row("daemons up (fabric open)", h.started);
    row("job sent to every daemon", h.sent);
    row("all clients connected", h.all_connected);
    row("all clients finalized", h.all_finalized);
    row("all processes exited", h.all_done);
    row("teardown", h.end);
    std::fprintf(stderr, "  connected %zu/%d, finalized %zu/%d\n", h.nconnected, h.opt.nprocs,
                 h.nfinalized, h.opt.nprocs);
}

}  // namespace

int run_head(const Options& opt) {
    Head h;
    h.start = Clock::now();
    h.opt = opt;
    std::string why;
    bool ok = opt.hostfile.empty() ? parse_host_list(opt.hosts, h.layout.nodes, why)
                                   : parse_hostfile(opt.hostfile, h.layout.nodes, why);
    if (ok && !opt.hosts.empty() && !opt.hostfile.empty())
        ok = parse_host_list(opt.hosts, h.layout.nodes, why);
    if (!ok) {
        std::fprintf(stderr, "pmixrun: %s\n", why.c_str());
        return 2;
    }
    int slots = 0;
    for (const NodeSlot& n : h.layout.nodes) slots += n.slots;
    if (!opt.have_n) h.opt.nprocs = std::min(slots, 4096);
    if (!h.layout.map(static_cast<uint32_t>(h.opt.nprocs))) {
        std::fprintf(stderr, "pmixrun: %d processes do not fit in the %d slots of %zu node(s)\n",
                     h.opt.nprocs, slots, h.layout.nodes.size());
        return 2;
    }
    const char* env_pmixd = std::getenv("PMIXD");
    const std::string pmixd =
        env_pmixd != nullptr && *env_pmixd != '\0' ? env_pmixd : self_dir() + "/pmixd";
    if (::access(pmixd.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "pmixrun: cannot find the node daemon '%s' (set PMIXD)\n",
                     pmixd.c_str());
        return 127;
    }
    const std::vector<std::string> agent = split_words(opt.launch_agent);
    if (agent.empty()) {
        std::fprintf(stderr, "pmixrun: empty --launch-agent\n");
        return 2;
    }
    h.nspace = "pmixrun." + std::to_string(::getpid());
    if (::pipe2(g_sig, O_CLOEXEC | O_NONBLOCK) != 0) return 1;
    ::signal(SIGPIPE, SIG_IGN);  // a dead daemon's pipe: the write fails, EOF tells us the rest
    ::signal(SIGINT, on_signal);
    ::signal(SIGTERM, on_signal);
    for (size_t i = 0; i < h.layout.nodes.size(); ++i) {
        Daemon& dm = h.d.emplace_back();
        dm.index = i;
        dm.name = h.layout.nodes[i].name;
        if (!start_daemon(dm, agent, pmixd)) {
            std::fprintf(stderr, "pmixrun: cannot start the daemon of node %s\n", dm.name.c_str());
            dm.gone = dm.done = true;
        }
    }
    int code = 1;
    if (collect_addresses(h) && start_local_server(h) && collect_launch_blob(h)) {
        h.started = Clock::now();
        send_all(h, 'J', job_message(h));
        h.sent = Clock::now();
        run_job(h);
        code = h.timed_out ? 124 : h.fail_code;
        for (const Daemon& dm : h.d)
            if (!h.timed_out) code = std::max(code, dm.code);
    } else {
        for (Daemon& dm : h.d)
            if (dm.pid > 0) {
                ::kill(-dm.pid, SIGKILL);
                ::kill(dm.pid, SIGKILL);
            }
    }
    shut_down(h);
    if (h.server_up) PMIx_server_finalize();
    if (!h.tmpdir.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(h.tmpdir, ec);
    }
    h.end = Clock::now();
    if (opt.report) report(h, code);
    return code;
}
#endif

}  // namespace pmix::launcher
