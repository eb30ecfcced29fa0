// The client library against the fake server: each test starts the fake server in this
// process and runs client scenarios (scenarios.cpp) as real child processes with the
// environment a server would give them, under a timeout.
#include "fake_server.h"

#include <pmix.h>

#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace clienttest {
namespace {

constexpr auto kChildTimeout = std::chrono::seconds(60);

struct Child {
    pid_t pid = -1;
};

// Starts this test binary as `--scenario name` with the current environment plus `extra`.
Child start(const std::string& name, const std::vector<std::string>& extra) {
    std::vector<std::string> env_store;
    for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "PMIX_", 5) != 0) env_store.emplace_back(*e);
    }
    env_store.insert(env_store.end(), extra.begin(), extra.end());
    std::vector<char*> envp;
    for (auto& s : env_store) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string self = "/proc/self/exe", flag = "--scenario", arg = name;
    char* argv[] = {self.data(), flag.data(), arg.data(), nullptr};
    Child c;
    if (::posix_spawn(&c.pid, "/proc/self/exe", nullptr, nullptr, argv, envp.data()) != 0) {
        c.pid = -1;
    }
    return c;
}

// Exit code of the child, or -1 (killed) if it did not finish in time.
int finish(Child c) {
    if (c.pid <= 0) return -2;
    auto deadline = std::chrono::steady_clock::now() + kChildTimeout;
    int status = 0;
    while (true) {
        pid_t r = ::waitpid(c.pid, &status, WNOHANG);
        if (r == c.pid) break;
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(c.pid, SIGKILL);
            ::waitpid(c.pid, &status, 0);
            return -1;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run(const std::string& name, const std::vector<std::string>& env) {
    return finish(start(name, env));
}

// Runs the scenario with its stderr in a file; returns the exit code and fills `err`.
int run_capturing_stderr(const std::string& name, const std::vector<std::string>& env,
                         std::string* err) {
    char path[] = "/tmp/client-stderr.XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return -3;
    const int saved = ::dup(2);
    ::dup2(fd, 2);
    Child c = start(name, env);
    ::dup2(saved, 2);
    ::close(saved);
    const int rc = finish(c);
    err->clear();
    char buf[4096];
    ::lseek(fd, 0, SEEK_SET);
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) err->append(buf, n);
    ::close(fd);
    ::unlink(path);
    return rc;
}

// A client started by an OpenPMIx server finds only that server's URIs (the versioned
// variables, a tcp4:// address): PMIx_Init fails with PMIX_ERR_NOT_SUPPORTED and an error line
// naming the variable and the address.
TEST(ClientForeignServer, InitNamesTheUriItCannotSpeak) {
    const std::string uri = "pmix-server.123;tcp4://127.0.0.1:5555";
    std::string err;
    EXPECT_EQ(run_capturing_stderr("foreign_server",
                                   {"PMIX_NAMESPACE=job", "PMIX_RANK=0", "PMIX_SERVER_URI41=" + uri,
                                    "PMIX_SERVER_URI4=" + uri, "PMIX_SERVER_URI3=" + uri},
                                   &err),
              0)
        << err;
    EXPECT_NE(err.find("PMIX_SERVER_URI41=" + uri + " is not a server of this implementation"),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("not supported"), std::string::npos) << err;
    // Something that is no URI at all in the unversioned variable: the same answer.
    EXPECT_EQ(run_capturing_stderr("foreign_server",
                                   {"PMIX_NAMESPACE=job", "PMIX_RANK=0",
                                    "PMIX_SERVER_URI=rendezvous-we-cannot-parse"},
                                   &err),
              0)
        << err;
    EXPECT_NE(err.find("PMIX_SERVER_URI=rendezvous-we-cannot-parse is not a server"),
              std::string::npos)
        << err;
}

class ClientTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(server.ok()); }
    FakeServer server;
};

TEST_F(ClientTest, InitIsCountedAndFinalizeTellsTheServerOnce) {
    EXPECT_EQ(run("lifecycle", server.client_env(0)), 0);
    // Two lives in the child: one finalize message per last PMIx_Finalize.
    EXPECT_EQ(server.finalizes(), 2);
}

TEST_F(ClientTest, InitFindsTheServerThroughTheUriAlone) {
    EXPECT_EQ(run("lifecycle", server.client_env(0, /*uri_only=*/true)), 0);
    EXPECT_EQ(server.finalizes(), 2);
}

TEST_F(ClientTest, PutCommitGet) {
    EXPECT_EQ(run("put_get", server.client_env(0)), 0);
    auto commits = server.commits_of(0);
    ASSERT_EQ(commits.size(), 3u);  // the second commit had nothing new
    EXPECT_EQ(commits[0].key, "my.string");
    EXPECT_EQ(commits[0].scope, PMIX_GLOBAL);
    EXPECT_EQ(commits[0].type, PMIX_STRING);
    EXPECT_NE(commits[0].printed.find("hello"), std::string::npos);
    EXPECT_EQ(commits[1].key, "my.u64");
    EXPECT_EQ(commits[1].scope, PMIX_LOCAL);
    EXPECT_EQ(commits[1].type, PMIX_UINT64);
    EXPECT_EQ(commits[2].key, "my.int");
    EXPECT_EQ(commits[2].scope, PMIX_REMOTE);
    EXPECT_NE(commits[2].printed.find('6'), std::string::npos);
    // Own keys never went to the server; the job-level key went once, then came from the cache.
    EXPECT_EQ(server.gets_of("my.string"), 0);
    EXPECT_EQ(server.gets_of(PMIX_JOB_SIZE), 1);
    EXPECT_EQ(server.gets_of("<all>"), 1);
}

TEST_F(ClientTest, FenceOfTwoProcessesWithAndWithoutCollect) {
    server.set_fence_size(2);
    Child a = start("fence", server.client_env(0));
    Child b = start("fence", server.client_env(1));
    EXPECT_EQ(finish(a), 0);
    EXPECT_EQ(finish(b), 0);
    auto procs = server.last_fence_procs();
    ASSERT_EQ(procs.size(), 1u);  // NULL procs = the whole own namespace
    EXPECT_STREQ(procs[0].nspace, kNamespace);
    EXPECT_EQ(procs[0].rank, PMIX_RANK_WILDCARD);
    EXPECT_TRUE(server.last_fence_collects());
}

TEST_F(ClientTest, ServerDyingMidFenceIsAnErrorNotAHang) {
    server.set_fence_mode(FakeServer::FenceMode::hang_up);
    EXPECT_EQ(run("fence_server_dies", server.client_env(0)), 0);
}

TEST_F(ClientTest, GetTimesOutWhenTheServerNeverAnswers) {
    EXPECT_EQ(run("get_timeout", server.client_env(1)), 0);
    EXPECT_EQ(server.gets_of(kSilentKey), 2);
}

TEST_F(ClientTest, BadArgumentsAreRefused) { EXPECT_EQ(run("bad_args", server.client_env(0)), 0); }

TEST_F(ClientTest, PublishLookupAndUnsupportedOps) {
    EXPECT_EQ(run("publish_lookup", server.client_env(0)), 0);
}

TEST_F(ClientTest, QuerySpawnJobControlAndResolve) {
    EXPECT_EQ(run("forwarded_ops", server.client_env(0)), 0);
}

TEST_F(ClientTest, EventHandlersRegisterReceiveAndDeregister) {
    EXPECT_EQ(run("events", server.client_env(0)), 0);
}

TEST_F(ClientTest, AbortReachesTheServer) {
    EXPECT_EQ(run("abort", server.client_env(0)), 0);
    auto [status, msg] = server.last_abort();
    EXPECT_EQ(status, 3);
    EXPECT_EQ(msg, "giving up");
}

TEST_F(ClientTest, BlockingCallsFromACallbackWouldBlock) {
    EXPECT_EQ(run("would_block", server.client_env(0)), 0);
}

// ---- in this process, without a server ------------------------------------------------------

TEST(ClientNoServer, CallsBeforeInitAreInitErrors) {
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "x", PMIX_STRING);
    pmix_proc_t p{};
    pmix_value_t* got = nullptr;
    int cbdata = 0;
    auto op_cb = [](pmix_status_t, void* d) { ++*static_cast<int*>(d); };
    auto val_cb = [](pmix_status_t, pmix_value_t*, void* d) { ++*static_cast<int*>(d); };
    EXPECT_EQ(PMIx_Initialized(), 0);
    EXPECT_EQ(PMIx_Put(PMIX_GLOBAL, "k", &v), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Commit(), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Get(&p, "k", nullptr, 0, &got), PMIX_ERR_INIT);
    EXPECT_EQ(got, nullptr);
    EXPECT_EQ(PMIx_Get_nb(&p, "k", nullptr, 0, val_cb, &cbdata), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Fence_nb(nullptr, 0, nullptr, 0, op_cb, &cbdata), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Store_internal(&p, "k", &v), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Abort(1, "m", nullptr, 0), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Finalize(nullptr, 0), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Publish_nb(nullptr, 0, op_cb, &cbdata), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_Connect_nb(&p, 1, nullptr, 0, op_cb, &cbdata), PMIX_ERR_INIT);
    EXPECT_EQ(cbdata, 0);
    PMIX_VALUE_DESTRUCT(&v);
}

TEST(ClientNoServer, InitWithoutAServerIsUnreachable) {
    // Like OpenPMIx 4.2.2 with no server environment: PMIX_ERR_UNREACH, nothing initialised.
    ::unsetenv("PMIX_NAMESPACE");
    ::unsetenv("PMIX_RANK");
    pmix_proc_t p{};
    EXPECT_EQ(PMIx_Init(&p, nullptr, 0), PMIX_ERR_UNREACH);
    EXPECT_EQ(PMIx_Initialized(), 0);
    EXPECT_EQ(PMIx_Init(nullptr, nullptr, 2), PMIX_ERR_BAD_PARAM);
}

TEST(ClientNoServer, InitWithADeadSocketIsUnreachable) {
    TempDir dir;
    std::string sock = dir.path() + "/nobody.sock";
    ::setenv("PMIX_NAMESPACE", "x", 1);
    ::setenv("PMIX_RANK", "0", 1);
    ::setenv("PMIX_CPP_SERVER_SOCKET", sock.c_str(), 1);
    pmix_proc_t p{};
    EXPECT_EQ(PMIx_Init(&p, nullptr, 0), PMIX_ERR_UNREACH);
    EXPECT_EQ(PMIx_Initialized(), 0);
    ::setenv("PMIX_RANK", "not-a-rank", 1);
    EXPECT_EQ(PMIx_Init(&p, nullptr, 0), PMIX_ERR_UNREACH);
    ::unsetenv("PMIX_NAMESPACE");
    ::unsetenv("PMIX_RANK");
    ::unsetenv("PMIX_CPP_SERVER_SOCKET");
}

}  // namespace
}  // namespace clienttest
