// A server under abuse keeps serving its well-behaved clients; and the measured request/reply
// round trip (printed, never asserted: timings depend on the machine).
#include "helpers.h"

#include "exec/completion.h"
#include "wire/dial.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <thread>

namespace {

using namespace wiretest;
using pmix::exec::Clock;
using pmix::exec::Executor;
using pmix::wire::Bytes;
using pmix::wire::CloseKind;
using pmix::wire::Hello;
using pmix::wire::Role;

// A raw client that completed a genuine handshake as `rank` (or an invalid fd).
pmix::exec::UniqueFd raw_accepted_client(const std::string& path, pmix_rank_t rank) {
    return wiretest::raw_accepted_client(path,
                                         Hello::for_this_process("rogue", rank, Role::client));
}

// Each rogue returns true when the server hung up on it (as it must).
bool rogue_garbage(const std::string& path) {
    auto fd = raw_connect(path);
    const char junk[] = "\x00\xff garbage that is not a PMXW stream \x01\x02";
    return fd && write_all(fd.get(), junk, sizeof junk) && wait_for_eof(fd.get(), 5s);
}

bool rogue_oversized(const std::string& path) {
    auto fd = raw_accepted_client(path, 900);
    auto h = pmix::wire::encode_header(0, kOpEcho, 7, pmix::wire::kDefaultMaxPayload + 1);
    return fd && write_all(fd.get(), h.data(), h.size()) && wait_for_eof(fd.get(), 5s);
}

bool rogue_truncated(const std::string& path) {
    auto fd = raw_accepted_client(path, 901);
    auto h = pmix::wire::encode_header(0, kOpEcho, 7, 4096);
    bool sent = fd && write_all(fd.get(), h.data(), h.size()) && write_all(fd.get(), "abc", 3);
    fd.reset();  // hang up in the middle of the frame
    return sent;
}

bool rogue_spoofer(const std::string& path) {
    auto fd = raw_connect(path);
    Hello lie = Hello::for_this_process("rogue", 902, Role::client);
    lie.pid = 1;
    if (!fd || !write_all(fd.get(), hello_frame(lie))) {
        return false;
    }
    auto reply = read_frame(fd.get(), 5s);
    bool refused = reply && pmix::wire::decode_hello_reply(reply->payload).value.status ==
                                PMIX_ERR_INVALID_CRED;
    return refused && wait_for_eof(fd.get(), 5s);
}

bool rogue_silent(const std::string& path) {
    auto fd = raw_connect(path);
    return fd && wait_for_eof(fd.get(), 5s);  // dropped at the handshake timeout
}

bool rogue_flapper(const std::string& path) {
    for (int i = 0; i < 100; ++i) {
        auto fd = raw_connect(path);  // connect and vanish
        if (!fd) {
            return false;
        }
    }
    return true;
}

// Server-side closes for an oversized frame and for a truncated one.
std::pair<int, int> bad_frame_closes(const EchoServer& server) {
    int oversized = 0, truncated = 0;
    for (const auto& c : server.closes()) {
        if (c.kind != CloseKind::bad_frame) {
            continue;
        }
        oversized += c.detail.find("exceeds the limit") != std::string::npos ? 1 : 0;
        truncated += c.detail.find("truncated") != std::string::npos ? 1 : 0;
    }
    return {oversized, truncated};
}

template <class Pred>
bool eventually(Pred pred) {
    auto deadline = Clock::now() + kWait;
    while (!pred()) {
        if (Clock::now() >= deadline) {
            return false;
        }
        std::this_thread::sleep_for(10ms);
    }
    return true;
}

TEST(RogueClients, ServerKeepsServingOthers) {
    TempDir tmp;
    std::string path = tmp.file("server.sock");
    pmix::wire::ListenerOptions opts;
    opts.handshake_timeout = 300ms;
    EchoServer server(path, opts);
    ASSERT_TRUE(server.ok()) << server.error();
    Executor client("good-clients");
    ASSERT_EQ(client.start(), PMIX_SUCCESS);

    constexpr int kGood = 8;
    constexpr int kCalls = 150;
    std::atomic<int> matched{0};
    std::vector<std::thread> good;
    for (int r = 0; r < kGood; ++r) {
        good.emplace_back([&, r] {
            auto rank = static_cast<pmix_rank_t>(r);
            if (auto conn = dial_echo(client, path, rank)) {
                matched.fetch_add(run_echoes(*conn, rank, kCalls, 1024));
            }
        });
    }
    // The abuse runs while the good clients work.
    EXPECT_TRUE(rogue_garbage(path));
    EXPECT_TRUE(rogue_oversized(path));
    EXPECT_TRUE(rogue_truncated(path));
    EXPECT_TRUE(rogue_spoofer(path));
    EXPECT_TRUE(rogue_silent(path));
    EXPECT_TRUE(rogue_flapper(path));
    for (auto& t : good) {
        t.join();
    }
    EXPECT_EQ(matched.load(), kGood * kCalls);

    // The accepted rogues were closed for the right reasons (and logged them).
    auto one_each = std::make_pair(1, 1);
    EXPECT_TRUE(eventually([&] { return bad_frame_closes(server) == one_each; }));
    EXPECT_EQ(bad_frame_closes(server), one_each);
    EXPECT_TRUE(eventually([&] { return server.listener().stats().failed >= 102; }));
    auto stats = server.listener().stats();
    EXPECT_EQ(stats.refused, 1u);                                    // the spoofer
    EXPECT_EQ(stats.accepted, static_cast<std::size_t>(kGood + 2));  // + oversized, truncated
    EXPECT_EQ(stats.failed, 102u);  // garbage, silent, 100 flappers (all closed, no verdict)
    // And it still accepts newcomers.
    auto late = dial_echo(client, path, 77);
    ASSERT_NE(late, nullptr);
    EXPECT_EQ(run_echoes(*late, 77, 5, 10), 5);
}

double percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

TEST(RoundTrip, MeasuredAndPrinted) {
    TempDir tmp;
    std::string path = tmp.file("server.sock");
    EchoServer server(path);
    ASSERT_TRUE(server.ok()) << server.error();
    Executor client("rtt-client");
    ASSERT_EQ(client.start(), PMIX_SUCCESS);
    auto conn = dial_echo(client, path, 0);
    ASSERT_NE(conn, nullptr);

    Bytes payload = make_payload(32, 1);
    Bytes want = echo_reply_payload(0, payload);
    for (int i = 0; i < 200; ++i) {  // warm-up: page faults, allocator, scheduler
        ASSERT_TRUE(conn->call(kOpEcho, payload, 5s).ok());
    }
    constexpr int kSamples = 3000;
    std::vector<double> us;
    us.reserve(kSamples);
    for (int i = 0; i < kSamples; ++i) {
        auto t0 = Clock::now();
        auto r = conn->call(kOpEcho, payload, 5s);
        auto t1 = Clock::now();
        ASSERT_TRUE(r.ok() && r.value.payload == want);
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
    }
    double mean = 0;
    for (double v : us) {
        mean += v;
    }
    mean /= kSamples;

    // Pipelined: 64 requests in flight from the client's progress thread.
    constexpr int kPipelined = 20000;
    pmix::exec::Completion<bool> all;
    auto done = std::make_shared<std::atomic<int>>(0);
    auto t0 = Clock::now();
    for (int i = 0; i < kPipelined; ++i) {
        while (i - done->load() >= 64) {  // keep at most 64 in flight
            std::this_thread::yield();
        }
        pmix_status_t st =
            conn->request(kOpEcho, payload, 10s, [done, all](pmix_status_t s, auto&&) {
                if (s == PMIX_SUCCESS && done->fetch_add(1) + 1 == kPipelined) {
                    all.complete(true);
                }
            });
        ASSERT_EQ(st, PMIX_SUCCESS);
    }
    ASSERT_TRUE(all.wait_for(kWait).value_or(false));
    double secs = std::chrono::duration<double>(Clock::now() - t0).count();

    std::printf(
        "[ wire RTT ] 32-byte request/reply over a Unix socket, blocking call(): "
        "mean %.1f us, p50 %.1f us, p99 %.1f us, min %.1f us (%d samples)\n",
        mean, percentile(us, 0.5), percentile(us, 0.99), percentile(us, 0.0), kSamples);
    std::printf("[ wire RTT ] pipelined (<=64 in flight): %.0f requests/s\n", kPipelined / secs);
    ::testing::Test::RecordProperty("rtt_mean_us", std::to_string(mean));
    ::testing::Test::RecordProperty("rtt_p50_us", std::to_string(percentile(us, 0.5)));
    EXPECT_EQ(server.echoes(), static_cast<std::size_t>(200 + kSamples + kPipelined));
}

}  // namespace
