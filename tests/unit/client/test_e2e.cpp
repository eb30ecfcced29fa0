// End to end: the real server (PMIx_server_* from libpmix, in this process, with a one-node
// host fence) and client processes started from PMIx_server_setup_fork's environment running
// the "exchange" scenario: Init, Put, Commit, collecting Fence, Get of every peer's key,
// Resolve_peers, Finalize. Every child runs under a deadline; the server is finalized and its
// directory removed at the end.
#include "fake_server.h"

#include <pmix_server.h>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace clienttest {
namespace {

std::mutex g_mu;
std::vector<std::thread> g_threads;
std::atomic<int> g_fences{0};

// One node: the collected data is just this server's own, handed back from another thread
// (as a real host answers later, from its own progress thread).
pmix_status_t host_fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t, char* data,
                         size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
    ++g_fences;
    std::string blob(data, ndata);
    std::lock_guard lock(g_mu);
    g_threads.emplace_back([cbfunc, cbdata, blob = std::move(blob)] {
        cbfunc(PMIX_SUCCESS, blob.data(), blob.size(), cbdata, nullptr, nullptr);
    });
    return PMIX_SUCCESS;
}

char** build_env(const pmix_proc_t& p, int nprocs) {
    std::vector<std::string> keep;
    for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "PMIX_", 5) != 0) keep.emplace_back(*e);
    }
    keep.push_back("TEST_NPROCS=" + std::to_string(nprocs));
    auto** env = static_cast<char**>(std::calloc(keep.size() + 1, sizeof(char*)));
    for (std::size_t i = 0; i < keep.size(); ++i) env[i] = ::strdup(keep[i].c_str());
    EXPECT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);  // appends (reallocs) env
    return env;
}

void free_env(char** env) {
    for (char** e = env; e != nullptr && *e != nullptr; ++e) std::free(*e);
    std::free(env);
}

int wait_child(pid_t pid) {
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

TEST(ClientEndToEnd, ExchangeThroughTheRealServer) {
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    pmix_server_module_t module;
    std::memset(&module, 0, sizeof module);
    module.fence_nb = host_fence;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_SERVER_TMPDIR, dir.path().c_str(), PMIX_STRING);
    ASSERT_EQ(PMIx_server_init(&module, &info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);

    constexpr int kProcs = 4;
    const char* ns = "e2e.job";
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    char* nmap = nullptr;
    char* pmap = nullptr;
    ASSERT_EQ(PMIx_generate_regex(host, &nmap), PMIX_SUCCESS);
    ASSERT_EQ(PMIx_generate_ppn("0,1,2,3", &pmap), PMIX_SUCCESS);
    pmix_info_t job[3];
    std::uint32_t size = kProcs;
    PMIX_INFO_LOAD(&job[0], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&job[1], PMIX_PROC_MAP, pmap, PMIX_STRING);
    PMIX_INFO_LOAD(&job[2], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    std::free(nmap);
    std::free(pmap);
    ASSERT_EQ(PMIx_server_register_nspace(ns, kProcs, job, 3, nullptr, nullptr), PMIX_SUCCESS);
    for (auto& j : job) PMIX_INFO_DESTRUCT(&j);

    std::vector<pid_t> kids;
    for (int r = 0; r < kProcs; ++r) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, ns, static_cast<pmix_rank_t>(r));
        ASSERT_EQ(PMIx_server_register_client(&p, ::getuid(), ::getgid(), nullptr, nullptr, nullptr),
                  PMIX_SUCCESS);
        char** env = build_env(p, kProcs);
        const pid_t pid = ::fork();
        if (pid == 0) {
            char self[] = "test_client";
            char flag[] = "--scenario";
            char name[] = "exchange";
            char* argv[] = {self, flag, name, nullptr};
            ::execve("/proc/self/exe", argv, env);
            ::_exit(127);
        }
        free_env(env);
        kids.push_back(pid);
    }
    for (int r = 0; r < kProcs; ++r) EXPECT_EQ(wait_child(kids[r]), 0) << "rank " << r;
    EXPECT_GE(g_fences.load(), 1);
    EXPECT_EQ(PMIx_server_finalize(), PMIX_SUCCESS);
    std::lock_guard lock(g_mu);
    for (auto& t : g_threads) t.join();
    g_threads.clear();
}

}  // namespace
}  // namespace clienttest
