// capi/self_spawn.cpp - see self_spawn.h.
#include "self_spawn.h"

#include "client/client.h"
#include "client/state.h"
#include "data/directives.h"
#include "data/value.h"
#include "server/api.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace pmix::capi {

namespace {

// std::to_string would export libstdc++'s to_chars helper from libpmix.so.2 (abi_symbols).
std::string decimal(long long v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%lld", v);
    return buf;
}

std::mutex g_mutex;
std::vector<int> g_keepalive;  // write ends, held until the last PMIx_tool_finalize
unsigned g_spawned = 0;

// The launcher's environment: ours, app.env over it, then the two variables of the launch.
std::vector<std::string> launcher_env(const pmix_app_t& app, int keepalive_fd,
                                      const std::string& nspace) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) env.emplace_back(*e);
    auto put = [&env](const std::string& entry) {
        const std::string name = entry.substr(0, entry.find('=') + 1);
        std::erase_if(env,
                      [&](const std::string& e) { return e.compare(0, name.size(), name) == 0; });
        env.push_back(entry);
    };
    for (char** e = app.env; e != nullptr && *e != nullptr; ++e)
        if (std::strchr(*e, '=') != nullptr) put(*e);
    put(std::string(PMIX_KEEPALIVE_PIPE) + "=" + decimal(keepalive_fd));
    put("PMIX_SERVER_NAMESPACE=" + nspace);
    return env;
}

bool calls_back(const pmix_app_t& app) {
    for (char** e = app.env; e != nullptr && *e != nullptr; ++e) {
        if (std::strncmp(*e, PMIX_LAUNCHER_RNDZ_URI "=", sizeof(PMIX_LAUNCHER_RNDZ_URI)) == 0 ||
            std::strncmp(*e, PMIX_LAUNCHER_RNDZ_FILE "=", sizeof(PMIX_LAUNCHER_RNDZ_FILE)) == 0)
            return true;
    }
    return false;
}

// The PMIX_INFO_REQD rule for the job info (self_spawn.h lists what is acted on).
pmix_status_t check_directives(const pmix_info_t* info, std::size_t ninfo, const pmix_app_t& app) {
    static constexpr std::array kKnown = {PMIX_LAUNCH_DIRECTIVES, PMIX_SPAWN_TOOL, PMIX_FWD_STDOUT,
                                          PMIX_FWD_STDERR, PMIX_TIMEOUT};
    static constexpr std::array kKnownWithCallBack = {
        PMIX_LAUNCH_DIRECTIVES, PMIX_SPAWN_TOOL, PMIX_FWD_STDOUT,
        PMIX_FWD_STDERR,        PMIX_TIMEOUT,    PMIX_DEBUG_STOP_IN_INIT};
    const pmix_info_t* refused = calls_back(app)
                                     ? data::unknown_required(info, ninfo, kKnownWithCallBack)
                                     : data::unknown_required(info, ninfo, kKnown);
    if (refused == nullptr) refused = data::unknown_required(app.info, app.ninfo, {});
    return refused == nullptr ? PMIX_SUCCESS : PMIX_ERR_NOT_SUPPORTED;
}

struct Registered {
    std::mutex mutex;
    std::condition_variable cv;
    bool done = false;
    pmix_status_t status = PMIX_ERROR;
};

void registered(pmix_status_t status, void* cbdata) {
    auto* r = static_cast<Registered*>(cbdata);
    std::lock_guard lock(r->mutex);
    r->status = status;
    r->done = true;
    r->cv.notify_all();
}

// The launcher's PMIX_LAUNCH_DIRECTIVES, where it reads them: our server side, its namespace.
pmix_status_t register_directives(const std::string& nspace, const pmix_info_t* info,
                                  std::size_t ninfo) {
    const pmix_info_t* dirs = data::find_info(info, ninfo, PMIX_LAUNCH_DIRECTIVES);
    if (dirs == nullptr || !server::initialized()) return PMIX_SUCCESS;
    // Static: a callback that comes after the wait gave up must still find it.
    static Registered r;
    {
        std::lock_guard lock(r.mutex);
        r.done = false;
    }
    const pmix_status_t rc = server::register_nspace(nspace.c_str(), 0, dirs, 1, registered, &r);
    if (rc != PMIX_SUCCESS) return rc;
    std::unique_lock lock(r.mutex);
    if (!r.cv.wait_for(lock, std::chrono::seconds(10), [] { return r.done; }))
        return PMIX_ERR_TIMEOUT;
    return r.status;
}

pmix_status_t spawn_process(const pmix_app_t& app, const std::string& nspace, int* keepalive) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return PMIX_ERR_OUT_OF_RESOURCE;
    const int child_end = ::fcntl(fds[0], F_DUPFD, 3);  // not close-on-exec: the launcher's
    std::vector<std::string> env = launcher_env(app, child_end, nspace);
    std::vector<char*> envp, argv;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    for (char** a = app.argv; a != nullptr && *a != nullptr; ++a) argv.push_back(*a);
    if (argv.empty()) argv.push_back(app.cmd);
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (app.cwd != nullptr && *app.cwd != '\0')
        posix_spawn_file_actions_addchdir_np(&actions, app.cwd);
    pid_t pid = -1;
    const int err =
        child_end < 0 ? errno
                      : ::posix_spawnp(&pid, app.cmd, &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (child_end >= 0) ::close(child_end);
    ::close(fds[0]);
    if (err != 0) {
        ::close(fds[1]);
        return err == ENOENT || err == EACCES ? PMIX_ERR_NOT_FOUND : PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    }
    // Reaped when it ends, so that no zombie outlives it; this process's own waits name others.
    std::thread([pid] { ::waitpid(pid, nullptr, 0); }).detach();
    *keepalive = fds[1];
    return PMIX_SUCCESS;
}

}  // namespace

bool self_spawn_applies() { return client::unattached_tool(); }

pmix_status_t self_spawn(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                         std::size_t napps, char* nspace) {
    if (apps == nullptr || napps == 0 || (job_info == nullptr && ninfo > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    const pmix_app_t& app = apps[0];
    if (app.cmd == nullptr || app.cmd[0] == '\0') return PMIX_ERR_BAD_PARAM;
    // One launcher process: it is the launcher that starts the job's processes.
    if (napps > 1 || app.maxprocs > 1) return PMIX_ERR_NOT_SUPPORTED;
    if (const pmix_status_t rc = check_directives(job_info, ninfo, app); rc != PMIX_SUCCESS)
        return rc;
    std::lock_guard lock(g_mutex);
    const std::string name =
        "pmix-spawn." + decimal(::getpid()) + "." + decimal(++g_spawned);
    if (const pmix_status_t rc = register_directives(name, job_info, ninfo); rc != PMIX_SUCCESS)
        return rc;
    int keepalive = -1;
    if (const pmix_status_t rc = spawn_process(app, name, &keepalive); rc != PMIX_SUCCESS)
        return rc;
    g_keepalive.push_back(keepalive);
    if (nspace != nullptr) {
        std::memset(nspace, 0, PMIX_MAX_NSLEN + 1);
        std::strncpy(nspace, name.c_str(), PMIX_MAX_NSLEN);
    }
    return PMIX_SUCCESS;
}

pmix_status_t self_spawn_nb(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                            std::size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
    // A string, not a shared_ptr: libpmix.so.2 exports only PMIx names (abi_symbols), and a
    // shared_ptr here would export libstdc++'s type info for its control block.
    std::string name(PMIX_MAX_NSLEN + 1, '\0');
    const pmix_status_t rc = self_spawn(job_info, ninfo, apps, napps, name.data());
    return client::post(
        [rc, name, cbfunc, cbdata]() mutable { cbfunc(rc, name.data(), cbdata); });
}

void self_spawn_finalize() {
    std::lock_guard lock(g_mutex);
    for (const int fd : g_keepalive) ::close(fd);
    g_keepalive.clear();
}

}  // namespace pmix::capi
