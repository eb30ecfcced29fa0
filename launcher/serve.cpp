// What pmixrun and pmixd share: the work queue and waiter, failure bookkeeping and serve_job
// (server init, register, fork, loop, teardown).
#include "launcher.h"
#include "spawner.h"

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

void WorkQueue::post(std::function<void()> work) {
    {
        std::lock_guard lock(mutex_);
        items_.push_back(std::move(work));
    }
    uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = ::write(fd_, &one, sizeof one);
}

void WorkQueue::drain() {
    uint64_t wakeups;
    [[maybe_unused]] const ssize_t read = ::read(fd_, &wakeups, sizeof wakeups);
    for (;;) {
        std::function<void()> work;
        {
            std::lock_guard lock(mutex_);
            if (items_.empty()) return;
            work = std::move(items_.front());
            items_.pop_front();
        }
        work();
    }
}

void Waiter::done(pmix_status_t status) {
    std::lock_guard lock(mutex_);
    status_ = status;
    done_ = true;
    condition_.notify_all();
}

pmix_status_t Waiter::wait() {
    std::unique_lock lock(mutex_);
    condition_.wait(lock, [&] { return done_; });
    return status_;
}

pmix_status_t Waiter::wait_for(std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex_);
    if (!condition_.wait_for(lock, limit, [&] { return done_; })) return PMIX_ERR_TIMEOUT;
    return status_;
}

void Waiter::op_cb(pmix_status_t status, void* cbdata) {
    static_cast<Waiter*>(cbdata)->done(status);
}

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

int Launcher::final_exit_code() const {
    if (timed_out) return 124;
    // The worst status of the processes that ended on their own; the ones pmixrun killed do not
    // count (their SIGTERM is our doing), but the failure that made us kill them does.
    int worst = failing ? fail_code : 0;
    for (const Proc& process : procs)
        if (process.counted) worst = std::max(worst, process.exit_code);
    return worst;
}

// Resolves the program as spawn_process will (spawner.h), so a missing program fails before
// anything starts.
bool program_exists(const std::string& prog, const std::string& cwd, const char* path) {
    return !find_program(prog, path, cwd.c_str()).empty();
}

// The environment every rank starts from: ours, plus -x VAR=value (a bare -x VAR is already in it).
std::vector<std::string> child_env(const Options& options) {
    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) env.emplace_back(*entry);
    for (const std::string& passed : options.env) {
        const size_t equals = passed.find('=');
        if (equals == std::string::npos) {
            if (std::getenv(passed.c_str()) == nullptr)
                std::fprintf(stderr, "pmixrun: warning: -x %s: not set here, not passed\n",
                             passed.c_str());
            continue;
        }
        const std::string prefix = passed.substr(0, equals + 1);
        std::erase_if(env, [&](const std::string& entry) {
            return entry.compare(0, prefix.size(), prefix) == 0;
        });
        env.push_back(passed);
    }
    return env;
}

namespace {

// Tools find us through rendezvous files in the library's default server tmpdir
// ($PMIX_SERVER_TMPDIR, $TMPDIR, ... /tmp), where pmix-ps and friends look by default; the
// library's session directory goes there too and is removed at finalize. --remote-tools adds a
// TCP listener for tools on other hosts (they need the secret from our rendezvous file, see
// the top-level README, "Tools"). `server_info`: more string attributes (pmixd: its node's
// PMIX_HOSTNAME).
pmix_status_t init_server(Launcher& launcher,
                          const std::vector<std::pair<const char*, std::string>>& server_info) {
    pmix_server_module_t module;
    fill_module(module);
    if (launcher.options.dvm) dvm_module(module, true);  // pmixd of a DVM (dvm_head.h)
    const bool yes = true;
    InfoList info;
    info.add(PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    info.add(PMIX_SERVER_REMOTE_CONNECTIONS, &launcher.options.remote_tools, PMIX_BOOL);
    for (const auto& [key, value] : server_info) info.add(key, value);
    pmix_byte_object_t key{launcher.credential_key.data(), launcher.credential_key.size()};
    if (key.size > 0) info.add(PMIX_CRYPTO_KEY, &key, PMIX_BYTE_OBJECT);
    const pmix_status_t rc = info.convert();
    return rc == PMIX_SUCCESS ? PMIx_server_init(&module, info.info(), info.size()) : rc;
}

// The fabric plugins' launch blob, the job's registration and the local support, in that order;
// false once one fails (the launcher is failing, with the reason).
bool prepare_job(Launcher& launcher) {
    // On one node this is also the launcher's node: collect the launch blob here (across nodes
    // the head did, and it came with the job).
    if (launcher.remote == nullptr) {
        const pmix_status_t rc =
            setup_application(launcher.nspace, launcher.layout, "", launcher.launch_blob);
        if (rc != PMIX_SUCCESS) {
            launcher.fail(
                1, std::string("PMIx_server_setup_application failed: ") + PMIx_Error_string(rc));
            return false;
        }
    }
    if (const pmix_status_t rc = register_job(launcher); rc != PMIX_SUCCESS) {
        launcher.fail(1, std::string("registering the job failed: ") + PMIx_Error_string(rc));
        return false;
    }
    define_app_psets(launcher);
    if (const pmix_status_t rc = setup_local_support(launcher.nspace, launcher.launch_blob);
        rc != PMIX_SUCCESS) {
        launcher.fail(
            1, std::string("PMIx_server_setup_local_support failed: ") + PMIx_Error_string(rc));
        return false;
    }
    return true;
}

// Forks every rank from `env` and runs the loop until the job is over; the job's exit code.
int run_job(Launcher& launcher, const std::vector<std::string>& env) {
    launcher.child_env = env;
    std::vector<char*> envp;
    for (std::string& entry : launcher.child_env) envp.push_back(entry.data());
    envp.push_back(nullptr);
    const bool all_started = spawn_all(launcher, envp.data());
    launcher.times.forked = Clock::now();
    if (!all_started) launcher.fail(1, "could not start every process; killing the job");
    run_loop(launcher);
    lifecycle_flush();  // the job's last events reach the library before it is torn down
    return launcher.final_exit_code();
}

}  // namespace

int serve_job(Launcher& launcher, const std::vector<std::string>& env,
              const std::vector<std::pair<const char*, std::string>>& server_info) {
    const pmix_status_t rc = init_server(launcher, server_info);
    launcher.times.server_init = Clock::now();
    int code = 1;
    if (rc != PMIX_SUCCESS) {
        launcher.fail(1, std::string("PMIx_server_init failed: ") + PMIx_Error_string(rc));
    } else {
        // debug.cpp; pmixd too: its job, a DVM's or a job a rank spawns may be held
        // (debug_nodes.h)
        debug_watch_events();
        register_spawn_attributes(launcher);  // query_keys.cpp
        const bool go = !launcher.before_job || launcher.before_job(launcher);
        const bool prepared = go && prepare_job(launcher);
        launcher.times.registered = Clock::now();
        if (prepared) code = run_job(launcher, env);
        else if (!go) code = launcher.final_exit_code();
        deregister_job(launcher);
        clear_published();
        PMIx_server_finalize();
    }
    launcher.times.done = Clock::now();
    return code;
}

}  // namespace pmix::launcher
