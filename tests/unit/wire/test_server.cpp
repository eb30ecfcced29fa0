// Listener + dial: the handshake (accepted, spoofed, refused, malformed, silent), many real
// clients at once (threads and separate processes), rogue clients next to well-behaved ones.
#include "helpers.h"

#include "exec/completion.h"
#include "wire/dial.h"
#include "wire/unix_socket.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <thread>

extern char** environ;

namespace {

using namespace wiretest;
using pmix::exec::Clock;
using pmix::exec::Completion;
using pmix::exec::Executor;
using pmix::wire::Bytes;
using pmix::wire::CloseKind;
using pmix::wire::Hello;
using pmix::wire::Role;

class ServerTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_FALSE(tmp.path().empty());
        ASSERT_EQ(client.start(), PMIX_SUCCESS);
    }
    std::unique_ptr<EchoServer> serve(pmix::wire::ListenerOptions opts = {}) {
        auto s = std::make_unique<EchoServer>(path, opts);
        EXPECT_TRUE(s->ok()) << s->error();
        return s;
    }
    pmix::wire::Dialed dial_as(const Hello& h, std::chrono::milliseconds timeout = 5s) {
        pmix::wire::DialOptions o;
        o.timeout = timeout;
        return pmix::wire::dial(client, path, h, std::move(o));
    }

    TempDir tmp;
    std::string path = tmp.file("server.sock");
    Executor client{"client"};
};

TEST_F(ServerTest, HandshakeIsAcceptedAndRequestsAreServed) {
    auto server = serve();
    std::string why;
    auto conn = dial_echo(client, path, 5, &why);
    ASSERT_NE(conn, nullptr) << why;
    EXPECT_EQ(run_echoes(*conn, 5, 20, 100), 20);
    auto peers = server->peers();
    ASSERT_EQ(peers.size(), 1u);
    EXPECT_EQ(peers[0].hello.nspace, "echo-ns");
    EXPECT_EQ(peers[0].hello.rank, 5u);
    EXPECT_EQ(peers[0].cred.pid, ::getpid());
    EXPECT_EQ(peers[0].cred.uid, ::geteuid());
    EXPECT_EQ(server->listener().stats().accepted, 1u);
}

TEST_F(ServerTest, SpoofedCredentialsAreRefusedWithAReason) {
    auto server = serve();
    const std::pair<const char*, void (*)(Hello&)> spoofs[] = {
        {"pid mismatch", [](Hello& h) { h.pid = 1; }},
        {"uid mismatch", [](Hello& h) { h.uid += 1000; }},
        {"gid mismatch", [](Hello& h) { h.gid += 1000; }},
    };
    for (const auto& [what, spoof] : spoofs) {
        Hello h = Hello::for_this_process("ns", 0, Role::client);
        spoof(h);
        auto d = dial_as(h);
        EXPECT_EQ(d.status, PMIX_ERR_INVALID_CRED) << what;
        EXPECT_NE(d.error.find(what), std::string::npos) << d.error;
        EXPECT_EQ(d.reply.status, PMIX_ERR_INVALID_CRED);
        EXPECT_EQ(d.connection, nullptr);
    }
    EXPECT_EQ(server->listener().stats().refused, 3u);
    EXPECT_EQ(server->listener().stats().accepted, 0u);
    EXPECT_TRUE(server->peers().empty());
    // The server is unharmed.
    auto ok = dial_echo(client, path, 1);
    ASSERT_NE(ok, nullptr);
    EXPECT_EQ(run_echoes(*ok, 1, 3, 10), 3);
}

TEST_F(ServerTest, VersionAndNamespaceRulesAreEnforced) {
    auto server = serve();
    Hello future = Hello::for_this_process("ns", 0, Role::client);
    future.version = 2;
    auto d1 = dial_as(future);
    EXPECT_EQ(d1.status, PMIX_ERR_NOT_SUPPORTED);
    EXPECT_NE(d1.error.find("version 2"), std::string::npos) << d1.error;
    auto d2 = dial_as(Hello::for_this_process("", 0, Role::client));
    EXPECT_EQ(d2.status, PMIX_ERR_BAD_PARAM);
    auto d3 = dial_as(Hello::for_this_process("", PMIX_RANK_UNDEF, Role::tool));
    EXPECT_EQ(d3.status, PMIX_SUCCESS) << d3.error;
}

TEST_F(ServerTest, TheOwnerCanRefuseAPeer) {
    auto server = serve();
    server->set_policy([](const pmix::wire::Peer& p) {
        if (p.hello.rank == 13) {
            return pmix::wire::Verdict{PMIX_ERR_NO_PERMISSIONS, "rank 13 is not welcome"};
        }
        return pmix::wire::Verdict{};
    });
    auto d = dial_as(Hello::for_this_process("ns", 13, Role::client));
    EXPECT_EQ(d.status, PMIX_ERR_NO_PERMISSIONS);
    EXPECT_NE(d.error.find("rank 13 is not welcome"), std::string::npos) << d.error;
    EXPECT_EQ(dial_as(Hello::for_this_process("ns", 12, Role::client)).status, PMIX_SUCCESS);
}

TEST_F(ServerTest, DialErrors) {
    auto none = dial_as(Hello::for_this_process("ns", 0, Role::client));
    EXPECT_EQ(none.status, PMIX_ERR_UNREACH) << none.error;
    pmix::wire::DialOptions zero;
    zero.timeout = 0ms;
    auto bad = pmix::wire::dial(client, path, Hello::for_this_process("ns", 0, Role::client),
                                std::move(zero));
    EXPECT_EQ(bad.status, PMIX_ERR_BAD_PARAM);
    Completion<pmix_status_t> on_loop;
    ASSERT_TRUE(client.post([this, on_loop] {
        on_loop.complete(dial_as(Hello::for_this_process("ns", 0, Role::client)).status);
    }));
    EXPECT_EQ(on_loop.wait_for(kWait).value_or(PMIX_SUCCESS), PMIX_ERR_WOULD_BLOCK);
}

TEST_F(ServerTest, DialTimesOutWhenNobodyAnswersTheHello) {
    // A listening socket that nobody serves: connect succeeds (kernel backlog), hello waits.
    auto mute = pmix::wire::listen_unix(path, 16);
    ASSERT_TRUE(mute.ok()) << mute.error;
    auto t0 = Clock::now();
    auto d = dial_as(Hello::for_this_process("ns", 0, Role::client), 200ms);
    auto took = Clock::now() - t0;
    EXPECT_EQ(d.status, PMIX_ERR_TIMEOUT) << d.error;
    EXPECT_GE(took, 200ms);
    EXPECT_LT(took, 3s);
    pmix::wire::remove_listening_files(mute.value);
}

TEST_F(ServerTest, SilentAndConfusedPeersAreDropped) {
    pmix::wire::ListenerOptions opts;
    opts.handshake_timeout = 200ms;
    auto server = serve(opts);
    auto silent = raw_connect(path);
    ASSERT_TRUE(static_cast<bool>(silent));
    auto t0 = Clock::now();
    EXPECT_TRUE(wait_for_eof(silent.get(), 5s));
    EXPECT_GE(Clock::now() - t0, 150ms);
    // A well-formed frame that is not a hello.
    auto confused = raw_connect(path);
    pmix::wire::Frame f;
    f.op = kOpEcho;
    f.tag = 3;
    ASSERT_TRUE(write_all(confused.get(), pmix::wire::encode_frame(f)));
    EXPECT_TRUE(wait_for_eof(confused.get(), 5s));
    // A hello whose payload is malformed gets a reasoned refusal, then the hang-up.
    auto malformed = raw_connect(path);
    pmix::wire::Frame h;
    h.op = pmix::wire::kOpHello;
    h.tag = 1;
    h.payload = Bytes{1, 0, 1};
    ASSERT_TRUE(write_all(malformed.get(), pmix::wire::encode_frame(h)));
    auto reply = read_frame(malformed.get(), 5s);
    ASSERT_TRUE(reply.has_value());
    auto decoded = pmix::wire::decode_hello_reply(reply->payload);
    ASSERT_TRUE(decoded.ok());
    EXPECT_EQ(decoded.value.status, PMIX_ERR_UNPACK_FAILURE);
    EXPECT_NE(decoded.value.reason.find("truncated"), std::string::npos) << decoded.value.reason;
    EXPECT_TRUE(wait_for_eof(malformed.get(), 5s));
    auto stats = server->listener().stats();
    EXPECT_EQ(stats.failed, 2u);
    EXPECT_EQ(stats.refused, 1u);
}

TEST_F(ServerTest, CloseRemovesTheSocketButKeepsEstablishedConnections) {
    auto server = serve();
    auto conn = dial_echo(client, path, 2);
    ASSERT_NE(conn, nullptr);
    server->listener().close();
    for (int i = 0; i < 100 && ::access(path.c_str(), F_OK) == 0; ++i) {
        std::this_thread::sleep_for(5ms);
    }
    EXPECT_NE(::access(path.c_str(), F_OK), 0);
    EXPECT_EQ(run_echoes(*conn, 2, 5, 10), 5);
    EXPECT_EQ(dial_as(Hello::for_this_process("ns", 0, Role::client)).status, PMIX_ERR_UNREACH);
}

TEST_F(ServerTest, SixtyFourConcurrentClientThreads) {
    auto server = serve();
    constexpr int kClients = 64;
    constexpr int kCalls = 50;
    std::vector<std::thread> threads;
    std::atomic<int> matched{0}, connected{0};
    for (int r = 0; r < kClients; ++r) {
        threads.emplace_back([&, r] {
            auto rank = static_cast<pmix_rank_t>(r);
            auto conn = dial_echo(client, path, rank);
            if (!conn) {
                return;
            }
            connected.fetch_add(1);
            matched.fetch_add(run_echoes(*conn, rank, kCalls, 256));
            conn->close();
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    EXPECT_EQ(connected.load(), kClients);
    EXPECT_EQ(matched.load(), kClients * kCalls);
    EXPECT_EQ(server->echoes(), static_cast<std::size_t>(kClients * kCalls));
    EXPECT_EQ(server->listener().stats().accepted, static_cast<std::size_t>(kClients));
}

// Spawns this test binary as an echo client process (see test_main.cpp).
pid_t spawn_client(const std::string& path, int rank, int calls) {
    std::string self = "/proc/self/exe";
    std::string r = std::to_string(rank), c = std::to_string(calls);
    char* argv[] = {self.data(),
                    const_cast<char*>("--echo-client"),
                    const_cast<char*>(path.c_str()),
                    r.data(),
                    c.data(),
                    nullptr};
    pid_t pid = -1;
    if (::posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv, environ) != 0) {
        return -1;
    }
    return pid;
}

// Waits for every child with a deadline; kills stragglers. Returns how many exited with 0.
int reap(std::vector<pid_t>& pids, std::chrono::seconds limit) {
    auto deadline = Clock::now() + limit;
    int ok = 0;
    std::size_t left = pids.size();
    while (left > 0 && Clock::now() < deadline) {
        for (auto& pid : pids) {
            int status = 0;
            if (pid > 0 && ::waitpid(pid, &status, WNOHANG) == pid) {
                ok += (WIFEXITED(status) && WEXITSTATUS(status) == 0) ? 1 : 0;
                pid = -1;
                --left;
            }
        }
        std::this_thread::sleep_for(10ms);
    }
    for (auto& pid : pids) {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
    }
    return ok;
}

TEST_F(ServerTest, SixtyFourConcurrentClientProcesses) {
    auto server = serve();
    constexpr int kClients = 64;
    constexpr int kCalls = 40;
    std::vector<pid_t> pids;
    for (int r = 0; r < kClients; ++r) {
        pids.push_back(spawn_client(path, r, kCalls));
        ASSERT_GT(pids.back(), 0);
    }
    EXPECT_EQ(reap(pids, std::chrono::seconds(50)), kClients);
    EXPECT_EQ(server->echoes(), static_cast<std::size_t>(kClients * kCalls));
    // Every peer was identified by the kernel as a distinct process, not as us.
    auto peers = server->peers();
    ASSERT_EQ(peers.size(), static_cast<std::size_t>(kClients));
    std::set<std::int32_t> distinct;
    for (const auto& p : peers) {
        EXPECT_NE(p.cred.pid, ::getpid());
        EXPECT_EQ(p.cred.pid, p.hello.pid);
        distinct.insert(p.cred.pid);
    }
    EXPECT_EQ(distinct.size(), static_cast<std::size_t>(kClients));
}

}  // namespace
