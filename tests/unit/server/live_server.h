// tests/unit/server/live_server.h - the LiveServer fixture of test_live.cpp: a real server
// (PMIx_server_* from libpmix) with a host module whose upcalls count what reaches them, and raw
// client processes (raw_client.cpp) started from PMIx_server_setup_fork's environment. Every child
// is waited for under a deadline and killed if it overruns; each test finalizes the server and
// removes its temporary directory. The host's upcalls and counters live in live_server.cpp.
#pragma once

#include <gtest/gtest.h>

#include <pmix_server.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace live {

namespace fs = std::filesystem;

// malloc'd NULL-terminated string arrays, as setup_fork expects.
void env_append(char*** env, const char* entry);
void env_free(char** env);

// What reached the host (reset by each test's SetUp where it matters).
extern std::atomic<int> g_connected;
extern std::atomic<int> g_finalized;
extern std::atomic<int> g_fence_calls;
extern std::atomic<int> g_dmodex_calls;
extern std::atomic<int> g_published;
extern std::atomic<int> g_logged;
extern std::atomic<int> g_aborted;
extern std::mutex g_fence_mutex;
extern std::vector<std::uint8_t> g_fence_blob;    // the server's last fence contribution
extern std::vector<std::thread> g_fence_threads;  // host answers from other threads

// The host's upcalls (live_server.cpp says what each answers).
pmix_status_t on_connected(const pmix_proc_t*, void*, pmix_op_cbfunc_t, void*);
pmix_status_t on_finalized(const pmix_proc_t*, void*, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t host_fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t, char* data,
                         size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata);
pmix_status_t host_direct_modex(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                                pmix_modex_cbfunc_t cbfunc, void* cbdata);
pmix_status_t host_publish(const pmix_proc_t*, const pmix_info_t info[], size_t ninfo,
                           pmix_op_cbfunc_t cbfunc, void* cbdata);
void host_log(const pmix_proc_t* client, const pmix_info_t[], size_t ndata,
              const pmix_info_t dirs[], size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t host_abort(const pmix_proc_t*, void*, int status, const char msg[], pmix_proc_t[],
                         size_t, pmix_op_cbfunc_t, void*);

class LiveServer : public ::testing::Test {
protected:
    void SetUp() override {
        g_connected = 0;
        g_finalized = 0;
        g_fence_calls = 0;
        char tmpl[] = "/tmp/pmix-srv-test.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        tmp_ = tmpl;
        std::memset(&module_, 0, sizeof module_);
        module_.client_connected = on_connected;
        module_.client_finalized = on_finalized;
    }

    void TearDown() override {
        if (up_) {
            EXPECT_EQ(PMIx_server_finalize(), PMIX_SUCCESS);
        }
        for (auto& t : g_fence_threads) t.join();
        g_fence_threads.clear();
        EXPECT_TRUE(session_dirs().empty()) << "finalize must remove the session directory";
        std::error_code ec;
        fs::remove_all(tmp_, ec);
    }

    void start(bool tools = false) {
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmp_.c_str(), PMIX_STRING);
        bool yes = true;
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
        ASSERT_EQ(PMIx_server_init(&module_, info, tools ? 2 : 1), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        up_ = true;
    }

    std::vector<fs::path> session_dirs() const {
        std::vector<fs::path> out;
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(tmp_, ec)) {
            if (e.path().filename().string().rfind("pmix-cpp.", 0) == 0) out.push_back(e.path());
        }
        return out;
    }

    // A one-node job of n procs, each registered as a client of this user.
    void register_job(const char* ns, int n, int nclients = -1) {
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        std::string ranks;
        for (int r = 0; r < n; ++r) ranks += (r ? "," : "") + std::to_string(r);
        char* nmap = nullptr;
        char* pmap = nullptr;
        ASSERT_EQ(PMIx_generate_regex(host, &nmap), PMIX_SUCCESS);
        ASSERT_EQ(PMIx_generate_ppn(ranks.c_str(), &pmap), PMIX_SUCCESS);
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, nmap, PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, pmap, PMIX_STRING);
        std::free(nmap);
        std::free(pmap);
        for (int r = 0; r < (nclients < 0 ? n : nclients); ++r) {
            register_client(ns, static_cast<pmix_rank_t>(r));
        }
        ASSERT_EQ(PMIx_server_register_nspace(ns, n, info, 2, nullptr, nullptr), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
    }

    void register_client(const char* ns, pmix_rank_t r) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, ns, r);
        ASSERT_EQ(PMIx_server_register_client(&p, getuid(), getgid(), nullptr, nullptr, nullptr),
                  PMIX_SUCCESS);
    }

    // Starts this binary as a raw client in setup_fork's environment.
    pid_t spawn(const char* ns, pmix_rank_t rank, const char* scenario,
                std::vector<std::string> extra = {}) {
        char** env = nullptr;
        for (char** e = environ; *e != nullptr; ++e) {
            if (std::strncmp(*e, "PMIX_", 5) != 0) env_append(&env, *e);
        }
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, ns, rank);
        EXPECT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
        for (const auto& x : extra) env_append(&env, x.c_str());
        const pid_t pid = fork();
        if (pid == 0) {
            char self[] = "test_server";
            char flag[] = "--client";
            std::string sc = scenario;
            char* argv[] = {self, flag, sc.data(), nullptr};
            execve("/proc/self/exe", argv, env);
            _exit(127);
        }
        env_free(env);
        return pid;
    }

    // The child's exit status, or -1 if it overran the deadline (then it is killed).
    static int wait_child(pid_t pid) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (std::chrono::steady_clock::now() < deadline) {
            int st = 0;
            if (waitpid(pid, &st, WNOHANG) == pid) {
                return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
        return -1;
    }

    void run_exchange(const char* ns, int n, std::vector<std::string> extra = {}) {
        extra.push_back("TEST_NPROCS=" + std::to_string(n));
        std::vector<pid_t> kids;
        for (int r = 0; r < n; ++r)
            kids.push_back(spawn(ns, static_cast<pmix_rank_t>(r), "exchange", extra));
        for (int r = 0; r < n; ++r) EXPECT_EQ(wait_child(kids[r]), 0) << "rank " << r;
    }

    std::string tmp_;
    pmix_server_module_t module_;
    bool up_ = false;
};

}  // namespace live
