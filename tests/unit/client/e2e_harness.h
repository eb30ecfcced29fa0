// tests/unit/client/e2e_harness.h - the real server in the test process and client children
// started from PMIx_server_setup_fork's environment (test_e2e.cpp, test_board.cpp).
#pragma once

#include "fake_server.h"

#include <pmix.h>
#include <pmix_server.h>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace clienttest {

inline std::mutex g_mu;
inline std::vector<std::thread> g_threads;
inline std::atomic<int> g_fences{0};

// One node: the collected data is just this server's own, handed back from another thread
// (as a real host answers later, from its own progress thread).
inline pmix_status_t host_fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                                char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void* cbdata) {
    ++g_fences;
    std::string blob(data, ndata);
    std::free(data);  // the host owns the contribution (as with OpenPMIx)
    std::lock_guard lock(g_mu);
    g_threads.emplace_back([cbfunc, cbdata, blob = std::move(blob)] {
        cbfunc(PMIX_SUCCESS, blob.data(), blob.size(), cbdata, nullptr, nullptr);
    });
    return PMIX_SUCCESS;
}

inline void free_env(char** env) {
    for (char** e = env; e != nullptr && *e != nullptr; ++e) std::free(*e);
    std::free(env);
}

inline char** build_env(const pmix_proc_t& p, int nprocs, const std::vector<std::string>& extra) {
    std::vector<std::string> keep;
    for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "PMIX_", 5) != 0) keep.emplace_back(*e);
    }
    keep.push_back("TEST_NPROCS=" + std::to_string(nprocs));
    auto** env = static_cast<char**>(std::calloc(keep.size() + 1, sizeof(char*)));
    for (std::size_t i = 0; i < keep.size(); ++i) env[i] = ::strdup(keep[i].c_str());
    EXPECT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);  // appends (reallocs) env
    if (extra.empty()) return env;
    // Extra settings win over what setup_fork put there (e.g. a bogus store locator).
    std::vector<std::string> all;
    for (char** e = env; *e != nullptr; ++e) {
        bool replaced = false;
        for (const auto& x : extra) {
            replaced = replaced || std::strncmp(*e, x.c_str(), x.find('=') + 1) == 0;
        }
        if (!replaced) all.emplace_back(*e);
    }
    all.insert(all.end(), extra.begin(), extra.end());
    free_env(env);
    env = static_cast<char**>(std::calloc(all.size() + 1, sizeof(char*)));
    for (std::size_t i = 0; i < all.size(); ++i) env[i] = ::strdup(all[i].c_str());
    return env;
}

inline int wait_child(pid_t pid) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
        int st = 0;
        if (::waitpid(pid, &st, WNOHANG) == pid) {
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return -1;
}

// Shared-memory segments whose name starts with `prefix` (without the leading '/').
inline int segments_named(const std::string& prefix) {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/dev/shm")) {
        n += e.path().filename().string().rfind(prefix, 0) == 0 ? 1 : 0;
    }
    return n;
}

// Unique segment names for this test process, so leftovers can be counted.
struct ShmPrefix {
    std::string name = "pmixtest-e2e-" + std::to_string(::getpid());
    ShmPrefix() { ::setenv("PMIX_CPP_GDS_PREFIX", ("/" + name).c_str(), 1); }
    ~ShmPrefix() { ::unsetenv("PMIX_CPP_GDS_PREFIX"); }
};

// The real server in this process, with a one-node host fence, in a private directory.
// `subdir` (created by the server) lets a test make the session directory's path long.
struct Server {
    TempDir dir;
    explicit Server(const std::string& subdir = "") {
        EXPECT_FALSE(dir.path().empty());
        pmix_server_module_t module;
        std::memset(&module, 0, sizeof module);
        module.fence_nb = host_fence;
        const std::string tmpdir = dir.path() + subdir;
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_SERVER_TMPDIR, tmpdir.c_str(), PMIX_STRING);
        EXPECT_EQ(PMIx_server_init(&module, &info, 1), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&info);
    }
    ~Server() {
        EXPECT_EQ(PMIx_server_finalize(), PMIX_SUCCESS);
        std::lock_guard lock(g_mu);
        for (auto& t : g_threads) t.join();
        g_threads.clear();
    }
};

// Registers a job of `n` processes on this node, or, with 0 < nlocal < n, ranks 0..nlocal-1 here
// and the others on a second node.
inline void register_job(const char* ns, int n, int nlocal = -1) {
    if (nlocal < 0) nlocal = n;
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string here, there;
    for (int r = 0; r < n; ++r) {
        std::string& list = r < nlocal ? here : there;
        list += (list.empty() ? "" : ",") + std::to_string(r);
    }
    const std::string nodes =
        nlocal < n ? std::string(host) + ",e2e-other-node" : std::string(host);
    const std::string ppn = nlocal < n ? here + ";" + there : here;
    char* nmap = nullptr;
    char* pmap = nullptr;
    ASSERT_EQ(PMIx_generate_regex(nodes.c_str(), &nmap), PMIX_SUCCESS);
    ASSERT_EQ(PMIx_generate_ppn(ppn.c_str(), &pmap), PMIX_SUCCESS);
    pmix_info_t job[3];
    std::uint32_t size = static_cast<std::uint32_t>(n);
    PMIX_INFO_LOAD(&job[0], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&job[1], PMIX_PROC_MAP, pmap, PMIX_STRING);
    PMIX_INFO_LOAD(&job[2], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    std::free(nmap);
    std::free(pmap);
    ASSERT_EQ(PMIx_server_register_nspace(ns, nlocal, job, 3, nullptr, nullptr), PMIX_SUCCESS);
    for (auto& j : job) PMIX_INFO_DESTRUCT(&j);
}

// Registers and starts one client process running `scenario`.
inline pid_t start_client(const char* ns, pmix_rank_t rank, int nprocs,
                          const std::vector<std::string>& extra, const char* scenario) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, rank);
    EXPECT_EQ(PMIx_server_register_client(&p, ::getuid(), ::getgid(), nullptr, nullptr, nullptr),
              PMIX_SUCCESS);
    char** env = build_env(p, nprocs, extra);
    const pid_t pid = ::fork();
    if (pid == 0) {
        char self[] = "test_client";
        char flag[] = "--scenario";
        std::string name = scenario;
        char* argv[] = {self, flag, name.data(), nullptr};
        ::execve("/proc/self/exe", argv, env);
        ::_exit(127);
    }
    free_env(env);
    return pid;
}

inline void expect_all_succeed(const std::vector<pid_t>& kids) {
    for (std::size_t i = 0; i < kids.size(); ++i)
        EXPECT_EQ(wait_child(kids[i]), 0) << "child " << i;
}

}  // namespace clienttest
