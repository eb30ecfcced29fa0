// tests/hostile/test_half_frames.cpp - 200 clients that complete their handshake, send half of a
// request frame and then nothing, and 50 connections that send half of a Hello: while they all
// hold on, well-behaved clients and a remote tool are served; when they let go, the server's
// descriptors return to what they were.
#include "hostile_server.h"

#include <cstdio>
#include <thread>

namespace {

using namespace std::chrono_literals;
using hostile::HostileServer;
namespace exec = pmix::exec;
namespace wire = pmix::wire;

class HalfFrames : public HostileServer {};

TEST_F(HalfFrames, TwoHundredHoldersDoNotStopTheServer) {
    ASSERT_TRUE(serves(1));
    const int fds_before = stable_fd_count();
    const long rss_before = hostile::rss_kib(pid());
    constexpr int kHolders = 200, kHalfHellos = 50;
    std::vector<exec::UniqueFd> holders;
    const auto get = static_cast<std::uint32_t>(pmix::proto::Op::kGet);
    for (int i = 0; i < kHolders; ++i) {
        auto fd = raw_client(static_cast<pmix_rank_t>(100 + i));
        ASSERT_TRUE(fd) << "holder " << i;
        // A header announcing 4096 bytes, and 100 of them.
        auto h = wire::encode_header(0, get, 1, 4096);
        wire::Bytes half(h.begin(), h.end());
        half.resize(half.size() + 100, 0x11);
        ASSERT_TRUE(wiretest::write_all(fd.get(), half));
        holders.push_back(std::move(fd));
    }
    const auto hello = wiretest::hello_frame(
        wire::Hello::for_this_process(hostile::kRawNs, 999, wire::Role::client));
    for (int i = 0; i < kHalfHellos; ++i) {
        auto fd = wiretest::raw_connect(socket_path());
        ASSERT_TRUE(fd);
        ASSERT_TRUE(wiretest::write_all(fd.get(), hello.data(), hello.size() / 2));
        holders.push_back(std::move(fd));
    }
    for (pmix_rank_t r = 2; r < 12; ++r) EXPECT_TRUE(serves(r)) << "rank " << r;
    EXPECT_TRUE(serves_tcp_tool());
    const int fds_held = hostile::fd_count(pid());
    std::printf("server descriptors %d before, %d with the holders; VmRSS %ld -> %ld kB\n",
                fds_before, fds_held, rss_before, hostile::rss_kib(pid()));
    EXPECT_GE(fds_held, fds_before + kHolders) << "the holders are connected meanwhile";
    holders.clear();
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (hostile::fd_count(pid()) != fds_before && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(20ms);
    EXPECT_EQ(hostile::fd_count(pid()), fds_before);
    EXPECT_TRUE(serves(20));
}

}  // namespace
