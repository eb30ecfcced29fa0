// The job: what pmixrun registers with the server, the fork/exec of every rank, and the event loop
// that forwards output, reaps children and enforces the failure and timeout rules.
#include "launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

constexpr auto kExitGrace = std::chrono::milliseconds(1000);  // survivors may exit on their own
constexpr auto kTermGrace = std::chrono::milliseconds(3000);  // SIGTERM -> SIGKILL

int g_sigpipe[2] = {-1, -1};

void on_signal(int sig) {
    int saved = errno;
    unsigned char b = static_cast<unsigned char>(sig);
    ssize_t r = ::write(g_sigpipe[1], &b, 1);
    (void)r;
    errno = saved;
}

void load(pmix_info_t& i, const char* key, const void* v, pmix_data_type_t t) {
    PMIx_Info_load(&i, key, v, t);
}

// One PMIX_PROC_DATA entry: the rank first, as Open MPI's hosts do.
void proc_data(pmix_info_t& out, const Layout& lay, pmix_rank_t r) {
    pmix_data_array_t* da = nullptr;
    PMIX_DATA_ARRAY_CREATE(da, 8, PMIX_INFO);
    auto* in = static_cast<pmix_info_t*>(da->array);
    const size_t node = lay.node_of(r);
    uint16_t lr = static_cast<uint16_t>(r - lay.first[node]);
    uint32_t zero = 0, nodeid = static_cast<uint32_t>(node);
    load(in[0], PMIX_RANK, &r, PMIX_PROC_RANK);
    load(in[1], PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
    load(in[2], PMIX_APP_RANK, &r, PMIX_PROC_RANK);
    load(in[3], PMIX_LOCAL_RANK, &lr, PMIX_UINT16);
    load(in[4], PMIX_NODE_RANK, &lr, PMIX_UINT16);
    load(in[5], PMIX_APPNUM, &zero, PMIX_UINT32);
    load(in[6], PMIX_NODEID, &nodeid, PMIX_UINT32);
    load(in[7], PMIX_HOSTNAME, lay.nodes[node].name.c_str(), PMIX_STRING);
    std::snprintf(out.key, sizeof out.key, "%s", PMIX_PROC_DATA);
    out.value.type = PMIX_DATA_ARRAY;
    out.value.data.darray = da;
}

std::string rank_list(uint32_t first, uint32_t n) {
    std::string s;
    for (uint32_t i = 0; i < n; ++i) s += (i ? "," : "") + std::to_string(first + i);
    return s;
}

pmix_status_t wait_op(pmix_status_t rc, Waiter& w) {
    if (rc == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) return rc;
    return w.wait();
}

void set_nonblock_cloexec(int fd) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    ::fcntl(fd, F_SETFD, FD_CLOEXEC);
}

}  // namespace

namespace {

// Registers namespace `ns` of `n` processes on this node (clients first, as Open MPI does; the
// library must accept either order). `parent`: the process that spawned it, if any.
pmix_status_t register_nspace(Launcher& L, const std::string& ns, size_t n,
                              const pmix_proc_t* parent) {
    // The main job spans the layout's nodes; a spawned job runs on this node only.
    Layout lay;
    if (ns == L.nspace) {
        lay = L.layout;
    } else {
        lay.nodes = {{L.hostname, static_cast<int>(n)}};
        lay.map(static_cast<uint32_t>(n));
    }
    std::string names, ppn;
    for (size_t i = 0; i < lay.nodes.size(); ++i) {
        names += (i ? "," : "") + lay.nodes[i].name;
        ppn += (i ? ";" : "") + rank_list(lay.first[i], lay.count[i]);
    }
    const uint32_t nlocal = lay.count[lay.here];
    const std::string ranks = rank_list(lay.first[lay.here], nlocal);
    char* nodemap = nullptr;
    char* procmap = nullptr;
    // The maps must only be self-consistent with the same library's parser; fall back to the plain
    // host names / rank lists if the generator is not there.
    if (PMIx_generate_regex(names.c_str(), &nodemap) != PMIX_SUCCESS)
        nodemap = strdup(names.c_str());
    if (PMIx_generate_ppn(ppn.c_str(), &procmap) != PMIX_SUCCESS) procmap = strdup(ppn.c_str());

    const size_t njob = parent != nullptr ? 18 : 16;
    pmix_info_t* info = nullptr;
    PMIX_INFO_CREATE(info, njob + n);
    uint32_t size = static_cast<uint32_t>(n), one = 1, zero = 0;
    uint32_t nnodes = static_cast<uint32_t>(lay.nodes.size()),
             nodeid = static_cast<uint32_t>(lay.here);
    pmix_rank_t lldr = lay.first[lay.here];
    (void)one;
    load(info[0], PMIX_JOBID, ns.c_str(), PMIX_STRING);
    load(info[1], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    load(info[2], PMIX_UNIV_SIZE, &size, PMIX_UINT32);
    load(info[3], PMIX_MAX_PROCS, &size, PMIX_UINT32);
    load(info[4], PMIX_LOCAL_SIZE, &nlocal, PMIX_UINT32);
    load(info[5], PMIX_NODE_SIZE, &nlocal, PMIX_UINT32);
    load(info[6], PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    load(info[7], PMIX_JOB_NUM_APPS, &one, PMIX_UINT32);
    load(info[8], PMIX_APPNUM, &zero, PMIX_UINT32);
    load(info[9], PMIX_NPROC_OFFSET, &zero, PMIX_UINT32);
    load(info[10], PMIX_NODEID, &nodeid, PMIX_UINT32);
    load(info[11], PMIX_HOSTNAME, lay.nodes[lay.here].name.c_str(), PMIX_STRING);
    load(info[12], PMIX_NODE_MAP, nodemap, PMIX_STRING);
    load(info[13], PMIX_PROC_MAP, procmap, PMIX_STRING);
    load(info[14], PMIX_LOCAL_PEERS, ranks.c_str(), PMIX_STRING);
    load(info[15], PMIX_LOCALLDR, &lldr, PMIX_PROC_RANK);
    if (parent != nullptr) {
        bool yes = true;
        load(info[16], PMIX_PARENT_ID, parent, PMIX_PROC);
        load(info[17], PMIX_SPAWNED, &yes, PMIX_BOOL);
    }
    std::free(nodemap);
    std::free(procmap);
    for (size_t r = 0; r < n; ++r) proc_data(info[njob + r], lay, static_cast<pmix_rank_t>(r));

    for (uint32_t r = lay.first[lay.here]; r < lay.first[lay.here] + nlocal; ++r) {
        pmix_proc_t p;
        PMIX_PROC_LOAD(&p, ns.c_str(), static_cast<pmix_rank_t>(r));
        Waiter w;
        pmix_status_t rc = wait_op(
            PMIx_server_register_client(&p, ::geteuid(), ::getegid(), nullptr, Waiter::op_cb, &w),
            w);
        if (rc != PMIX_SUCCESS) {
            PMIX_INFO_FREE(info, njob + n);
            return rc;
        }
    }
    Waiter w;
    pmix_status_t rc = wait_op(PMIx_server_register_nspace(ns.c_str(), static_cast<int>(nlocal),
                                                           info, njob + n, Waiter::op_cb, &w),
                               w);
    PMIX_INFO_FREE(info, njob + n);
    return rc;
}

void setup_signals() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(SIGCHLD, &sa, nullptr);
    ::sigaction(SIGINT, &sa, nullptr);
    ::sigaction(SIGTERM, &sa, nullptr);
}

// setup_fork + fork/exec of one process with its output on two pipes.
bool start_proc(Launcher& L, Proc& pr, std::vector<char*>& argv, char** base_env) {
    char** env = nullptr;
    for (char** e = base_env; *e != nullptr; ++e) {
        pmix_status_t rc;
        PMIX_ARGV_APPEND(rc, env, *e);
        (void)rc;
    }
    pmix_proc_t p;
    PMIX_PROC_LOAD(&p, pr.nspace.c_str(), pr.rank);
    auto t0 = Clock::now();
    pmix_status_t rc = PMIx_server_setup_fork(&p, &env);
    if (pr.job == 0) L.t.setup_fork += Clock::now() - t0;
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun: PMIx_server_setup_fork(%s) failed: %s\n",
                     proc_tag(pr).c_str(), PMIx_Error_string(rc));
        PMIX_ARGV_FREE(env);
        return false;
    }
    int out[2], err[2];
    if (::pipe(out) != 0 || ::pipe(err) != 0) return false;
    pr.forked = Clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
        ::setpgid(0, 0);
        if (L.remote != nullptr)
            ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // pmixd gone: so are its ranks
        ::dup2(out[1], 1);
        ::dup2(err[1], 2);
        ::close(out[0]);
        ::close(out[1]);
        ::close(err[0]);
        ::close(err[1]);
        ::signal(SIGCHLD, SIG_DFL);
        ::signal(SIGINT, SIG_DFL);
        ::signal(SIGTERM, SIG_DFL);
        ::execvpe(argv[0], argv.data(), env);
        std::fprintf(stderr, "pmixrun: cannot execute '%s': %s\n", argv[0], std::strerror(errno));
        ::_exit(127);
    }
    if (pr.job == 0) L.t.fork += Clock::now() - pr.forked;
    PMIX_ARGV_FREE(env);
    ::close(out[1]);
    ::close(err[1]);
    if (pid < 0) {
        ::close(out[0]);
        ::close(err[0]);
        return false;
    }
    pr.pid = pid;
    pr.executable = argv[0];
    pr.out.fd = out[0];
    pr.err.fd = err[0];
    set_nonblock_cloexec(out[0]);
    set_nonblock_cloexec(err[0]);
    return true;
}

std::vector<char*> c_strings(std::vector<std::string>& v) {
    std::vector<char*> out;
    for (std::string& s : v) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

}  // namespace

std::string proc_tag(const Proc& pr) {
    return pr.job == 0 ? std::to_string(pr.rank)
                       : std::to_string(pr.job) + "." + std::to_string(pr.rank);
}

pmix_status_t register_job(Launcher& L) {
    return register_nspace(L, L.nspace, static_cast<size_t>(L.opt.nprocs), nullptr);
}

pmix_status_t spawn_job(Launcher& L, const pmix_proc_t& parent, const AppSpec& app,
                        std::string* nspace) {
    if (L.failing) return PMIX_ERR_JOB_TERMINATED;
    if (app.argv.empty() || app.nprocs == 0) return PMIX_ERR_BAD_PARAM;
    const unsigned job = L.next_job++;
    const std::string ns = L.nspace + "." + std::to_string(job);
    const size_t first = L.procs.size();
    for (size_t r = 0; r < app.nprocs; ++r) {
        Proc& pr = L.procs.emplace_back();
        pr.rank = static_cast<pmix_rank_t>(r);
        pr.nspace = ns;
        pr.job = job;
    }
    if (pmix_status_t rc = register_nspace(L, ns, app.nprocs, &parent); rc != PMIX_SUCCESS) {
        L.procs.resize(first);
        return rc;
    }
    L.spawned_nspaces.push_back(ns);
    std::vector<std::string> env = L.child_env;
    for (const std::string& x : app.env) {
        const std::string name = x.substr(0, x.find('=') + 1);
        std::erase_if(env,
                      [&](const std::string& e) { return e.compare(0, name.size(), name) == 0; });
        env.push_back(x);
    }
    std::vector<std::string> args = app.argv;
    std::vector<char*> argv = c_strings(args);
    std::vector<char*> envp = c_strings(env);
    for (size_t i = first; i < L.procs.size(); ++i) {
        if (!start_proc(L, L.procs[i], argv, envp.data())) {
            L.fail(1, "could not start every process of spawned job " + ns + "; killing the job");
            return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
        }
    }
    *nspace = ns;
    return PMIX_SUCCESS;
}

bool spawn_all(Launcher& L, char** base_env) {
    if (::pipe2(g_sigpipe, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    setup_signals();
    std::vector<char*> argv = c_strings(L.opt.argv);
    for (Proc& pr : L.procs) {
        if (!start_proc(L, pr, argv, base_env)) return false;
    }
    return true;
}

void kill_all(Launcher& L, int sig) {
    for (Proc& pr : L.procs)
        if (pr.pid > 0 && !pr.exited) ::kill(pr.pid, sig);
}

namespace {

void emit(FILE* f, const std::string& tag, const char* s, size_t n) {
    if (Remote* remote = g_launcher->remote; remote != nullptr) {  // pmixd: the head prints it
        remote->output(tag, f == stdout ? 1 : 2, s, n);
        return;
    }
    std::fprintf(f, "[%s] %.*s\n", tag.c_str(), static_cast<int>(n), s);
}

// Forwards whole lines with a rank tag; a partial last line waits for more or for EOF.
void pump(Stream& s, const std::string& rank, FILE* f) {
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(s.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            if (!s.partial.empty()) emit(f, rank, s.partial.data(), s.partial.size());
            s.partial.clear();
            ::close(s.fd);
            s.fd = -1;
            std::fflush(f);
            return;
        }
        s.partial.append(buf, static_cast<size_t>(n));
        size_t start = 0;
        for (size_t nl; (nl = s.partial.find('\n', start)) != std::string::npos; start = nl + 1)
            emit(f, rank, s.partial.data() + start, nl - start);
        s.partial.erase(0, start);
        std::fflush(f);
    }
}

void reap(Launcher& L) {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
        for (Proc& pr : L.procs) {
            if (pr.pid != pid) continue;
            L.undisturbed.store(false, std::memory_order_release);
            pr.exited = true;
            pr.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
            pr.counted = L.kill_stage == 0;
            if (L.remote != nullptr && pr.job == 0) L.remote->exited(pr);
            if (++L.nexited == L.procs.size()) L.t.all_exited = Clock::now();
            if (L.failing) break;
            std::string how = WIFSIGNALED(status)
                                  ? "was killed by signal " + std::to_string(WTERMSIG(status)) +
                                        " (" + strsignal(WTERMSIG(status)) + ")"
                                  : "exited with status " + std::to_string(WEXITSTATUS(status));
            if (pr.exit_code != 0)
                L.fail(pr.exit_code, "rank " + proc_tag(pr) + " (pid " + std::to_string(pid) +
                                         ") " + how + "; killing the job");
            else if (pr.connected && !pr.finalized)
                L.fail(1, "rank " + proc_tag(pr) + " (pid " + std::to_string(pid) + ") " + how +
                              " without calling PMIx_Finalize; killing the job");
        }
    }
}

void handle_signals(Launcher& L) {
    unsigned char b[64];
    ssize_t n;
    while ((n = ::read(g_sigpipe[0], b, sizeof b)) > 0) {
        for (ssize_t i = 0; i < n; ++i) {
            if (b[i] == SIGCHLD) continue;
            L.fail(128 + b[i],
                   std::string("received signal ") + strsignal(b[i]) + "; killing the job");
            L.fail_at = Clock::now() - kExitGrace;  // no grace: the user asked us to stop
        }
    }
    reap(L);
}

void advance_kill(Launcher& L, Clock::time_point now) {
    if (L.opt.timeout_s > 0 && !L.timed_out &&
        now - L.t.start >= std::chrono::duration<double>(L.opt.timeout_s)) {
        L.timed_out = true;
        std::fprintf(stderr, "pmixrun: timeout after %g s; killing the job\n", L.opt.timeout_s);
        L.failing = true;
        L.fail_at = now - kExitGrace;
    }
    if (!L.failing) return;
    if (L.kill_stage == 0 && now - L.fail_at >= kExitGrace) {
        kill_all(L, SIGTERM);
        L.kill_stage = 1;
    } else if (L.kill_stage == 1 && now - L.fail_at >= kExitGrace + kTermGrace) {
        kill_all(L, SIGKILL);
        L.kill_stage = 2;
    }
}

}  // namespace

void run_loop(Launcher& L) {
    bool reported = false;
    for (;;) {
        std::vector<pollfd> fds;
        std::vector<std::pair<Stream*, Proc*>> owners;
        fds.push_back({g_sigpipe[0], POLLIN, 0});
        fds.push_back({L.queue.fd(), POLLIN, 0});
        const int control = L.remote != nullptr ? L.remote->control_fd() : -1;
        fds.push_back({control, POLLIN, 0});  // a negative fd is ignored by poll
        for (Proc& pr : L.procs) {
            for (Stream* s : {&pr.out, &pr.err}) {
                if (s->fd < 0) continue;
                fds.push_back({s->fd, POLLIN, 0});
                owners.emplace_back(s, &pr);
            }
        }
        if (owners.empty() && L.nexited == L.procs.size()) {
            if (L.remote == nullptr) break;
            if (!reported) L.remote->job_done(L.final_exit_code());
            reported = true;
            if (L.quit) break;  // pmixd stays until the head says the whole job is over
        }
        int timeout_ms = 100;  // coarse tick for the timeout and kill stages
        int rc = ::poll(fds.data(), fds.size(), timeout_ms);
        if (rc < 0 && errno != EINTR) break;
        if (fds[1].revents != 0) L.queue.drain();
        if (fds[2].revents != 0) L.remote->on_control();
        if (L.remote != nullptr) L.remote->tick();
        for (size_t i = 0; i < owners.size(); ++i) {
            if (fds[i + 3].revents == 0) continue;
            Stream* s = owners[i].first;
            pump(*s, proc_tag(*owners[i].second), s == &owners[i].second->out ? stdout : stderr);
        }
        handle_signals(L);
        advance_kill(L, Clock::now());
    }
    L.queue.drain();
    fail_pending_lookups(PMIX_ERR_TIMEOUT);
}

namespace {
pmix_status_t deregister_nspace_bounded(const char* ns, Waiter& w) {
    PMIx_server_deregister_nspace(ns, Waiter::op_cb, &w);
    return w.wait_for(std::chrono::seconds(5));
}
}  // namespace

void deregister_job(Launcher& L) {
    for (Proc& pr : L.procs) {
        pmix_proc_t p;
        PMIX_PROC_LOAD(&p, pr.nspace.c_str(), pr.rank);
        PMIx_server_deregister_client(&p, nullptr, nullptr);
    }
    // Static: if the library never calls back, a late callback must still find a live object.
    static std::deque<Waiter> waiters;
    for (const std::string& ns : L.spawned_nspaces) {
        (void)deregister_nspace_bounded(ns.c_str(), waiters.emplace_back());
    }
    pmix_status_t rc = deregister_nspace_bounded(L.nspace.c_str(), waiters.emplace_back());
    (void)rc;
    for (Proc& pr : L.procs) {
        if (pr.out.fd >= 0) ::close(pr.out.fd);
        if (pr.err.fd >= 0) ::close(pr.err.fd);
    }
    if (g_sigpipe[0] >= 0) {
        ::close(g_sigpipe[0]);
        ::close(g_sigpipe[1]);
    }
}

}  // namespace pmix::launcher
