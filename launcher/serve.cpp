// What pmixrun and pmixd share: the work queue and waiter, failure bookkeeping, the rank layout,
// and serve_job (server init, register, fork, loop, teardown).
#include "launcher.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace pmix::launcher {

Launcher* g_launcher = nullptr;

WorkQueue::WorkQueue() : fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
WorkQueue::~WorkQueue() {
    if (fd_ >= 0) ::close(fd_);
}

void WorkQueue::post(std::function<void()> fn) {
    {
        std::lock_guard lk(mu_);
        items_.push_back(std::move(fn));
    }
    uint64_t one = 1;
    ssize_t r = ::write(fd_, &one, sizeof one);
    (void)r;
}

void WorkQueue::drain() {
    uint64_t v;
    ssize_t r = ::read(fd_, &v, sizeof v);
    (void)r;
    for (;;) {
        std::function<void()> fn;
        {
            std::lock_guard lk(mu_);
            if (items_.empty()) return;
            fn = std::move(items_.front());
            items_.pop_front();
        }
        fn();
    }
}

void Waiter::done(pmix_status_t st) {
    std::lock_guard lk(mu_);
    status_ = st;
    done_ = true;
    cv_.notify_all();
}

pmix_status_t Waiter::wait() {
    std::unique_lock lk(mu_);
    cv_.wait(lk, [&] { return done_; });
    return status_;
}

pmix_status_t Waiter::wait_for(std::chrono::milliseconds limit) {
    std::unique_lock lk(mu_);
    if (!cv_.wait_for(lk, limit, [&] { return done_; })) return PMIX_ERR_TIMEOUT;
    return status_;
}

void Waiter::op_cb(pmix_status_t st, void* cbdata) { static_cast<Waiter*>(cbdata)->done(st); }

void Launcher::fail(int code, const std::string& why) {
    if (failing) return;
    failing = true;
    undisturbed.store(false, std::memory_order_release);
    fail_code = code;
    fail_at = Clock::now();
    if (why.empty()) return;  // pmixd: the head ordered it and has said why
    if (remote != nullptr) {
        remote->failed(code, why);
        return;
    }
    std::fprintf(stderr, "pmixrun: %s\n", why.c_str());
    std::fflush(stderr);
}

bool Layout::map(uint32_t nprocs) {
    first.assign(nodes.size(), 0);
    count.assign(nodes.size(), 0);
    uint32_t next = 0;
    for (size_t n = 0; n < nodes.size(); ++n) {
        first[n] = next;
        count[n] = std::min<uint32_t>(static_cast<uint32_t>(nodes[n].slots), nprocs - next);
        next += count[n];
    }
    return next == nprocs;
}

size_t Layout::node_of(pmix_rank_t r) const {
    for (size_t n = 0; n < nodes.size(); ++n)
        if (r >= first[n] && r - first[n] < count[n]) return n;
    return nodes.size();
}

int Launcher::final_exit_code() const {
    if (timed_out) return 124;
    // The worst status of the processes that ended on their own; the ones pmixrun killed do not
    // count (their SIGTERM is our doing), but the failure that made us kill them does.
    int worst = failing ? fail_code : 0;
    for (const Proc& p : procs)
        if (p.counted) worst = std::max(worst, p.exit_code);
    return worst;
}

// Resolves the program like execvp would, so a missing program fails before anything starts.
bool program_exists(const std::string& prog) {
    if (prog.find('/') != std::string::npos) return ::access(prog.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    size_t start = 0;
    while (start <= dirs.size()) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        std::string d = dirs.substr(start, end - start);
        std::string full = (d.empty() ? "." : d) + "/" + prog;
        if (::access(full.c_str(), X_OK) == 0) return true;
        start = end + 1;
    }
    return false;
}

// The environment every rank starts from: ours, plus -x VAR=value (a bare -x VAR is already in it).
std::vector<std::string> child_env(const Options& o) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    for (const std::string& x : o.env) {
        size_t eq = x.find('=');
        if (eq == std::string::npos) {
            if (std::getenv(x.c_str()) == nullptr)
                std::fprintf(stderr, "pmixrun: warning: -x %s: not set here, not passed\n",
                             x.c_str());
            continue;
        }
        std::string name = x.substr(0, eq + 1);
        std::erase_if(env,
                      [&](const std::string& e) { return e.compare(0, name.size(), name) == 0; });
        env.push_back(x);
    }
    return env;
}

int serve_job(Launcher& L, const std::vector<std::string>& env,
              const std::vector<std::pair<const char*, std::string>>& server_info) {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl =
        std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/pmixrun.XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
        std::fprintf(stderr, "pmixrun: cannot create a temporary directory: %s\n",
                     std::strerror(errno));
        return 1;
    }
    L.tmpdir = tmpl;

    pmix_server_module_t module;
    fill_module(module);
    // Tools find us through rendezvous files in the library's default server tmpdir
    // ($PMIX_SERVER_TMPDIR, $TMPDIR, ... /tmp), where pmix-ps and friends look by default; the
    // library's session directory goes there too and is removed at finalize.
    // --remote-tools adds a TCP listener for tools on other hosts (they need the secret from
    // our rendezvous file, see README "Tools").
    const size_t ninfo = 2 + server_info.size();
    pmix_info_t* info = nullptr;
    PMIX_INFO_CREATE(info, ninfo);
    bool yes = true;
    PMIx_Info_load(&info[0], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIx_Info_load(&info[1], PMIX_SERVER_REMOTE_CONNECTIONS, &L.opt.remote_tools, PMIX_BOOL);
    for (size_t i = 0; i < server_info.size(); ++i)
        PMIx_Info_load(&info[2 + i], server_info[i].first, server_info[i].second.c_str(),
                       PMIX_STRING);
    pmix_status_t rc = PMIx_server_init(&module, info, ninfo);
    PMIX_INFO_FREE(info, ninfo);
    L.t.server_init = Clock::now();
    int code = 1;
    if (rc != PMIX_SUCCESS) {
        L.fail(1, std::string("PMIx_server_init failed: ") + PMIx_Error_string(rc));
    } else {
        // On one node this is also the launcher's node: collect the fabric plugins' launch blob
        // here (across nodes the head did, and it came with the job).
        if (L.remote == nullptr) rc = setup_application(L.nspace, L.layout, "", L.launch_blob);
        if (rc != PMIX_SUCCESS) {
            L.fail(1,
                   std::string("PMIx_server_setup_application failed: ") + PMIx_Error_string(rc));
        } else {
            rc = register_job(L);
            if (rc == PMIX_SUCCESS) {
                rc = setup_local_support(L.nspace, L.launch_blob);
                if (rc != PMIX_SUCCESS) {
                    L.fail(1, std::string("PMIx_server_setup_local_support failed: ") +
                                  PMIx_Error_string(rc));
                }
            } else {
                L.fail(1, std::string("registering the job failed: ") + PMIx_Error_string(rc));
            }
        }
        L.t.registered = Clock::now();
        if (rc == PMIX_SUCCESS) {
            L.child_env = env;
            std::vector<char*> envp;
            for (std::string& e : L.child_env) envp.push_back(e.data());
            envp.push_back(nullptr);
            bool ok = spawn_all(L, envp.data());
            L.t.forked = Clock::now();
            if (!ok) L.fail(1, "could not start every process; killing the job");
            run_loop(L);
            code = L.final_exit_code();
        }
        deregister_job(L);
        clear_store();
        PMIx_server_finalize();
    }
    L.t.done = Clock::now();
    std::error_code ec;
    std::filesystem::remove_all(L.tmpdir, ec);
    return code;
}

}  // namespace pmix::launcher
