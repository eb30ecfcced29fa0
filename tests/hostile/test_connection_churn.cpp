// tests/hostile/test_connection_churn.cpp - 10,000 connections opened and dropped at once: a third
// with nothing sent, a third after part of a Hello, a third after a whole Hello (never reading
// the answer). Afterwards the server's open descriptors return to their count before (waited for
// up to 5 s, as the server closes what it accepted), and a well-behaved client is served.
#include "hostile_server.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <thread>

namespace {

using namespace std::chrono_literals;
using hostile::HostileServer;
namespace exec = pmix::exec;
namespace wire = pmix::wire;

// A non-blocking connect; retried while the server's backlog is full (EAGAIN), for at most 5 s.
exec::UniqueFd connect_nonblocking(const std::string& path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.c_str(), std::min(path.size(), sizeof addr.sun_path - 1));
    exec::UniqueFd fd(socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    while (fd && std::chrono::steady_clock::now() < deadline) {
        if (connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
        if (errno != EAGAIN && errno != EINTR) return {};
        std::this_thread::sleep_for(200us);
    }
    return {};
}

class ConnectionChurn : public HostileServer {};

TEST_F(ConnectionChurn, TenThousandDroppedConnectionsLeaveNoDescriptorBehind) {
    ASSERT_TRUE(serves(1));
    const int fds_before = stable_fd_count();
    const long rss_before = hostile::rss_kib(pid());
    constexpr int kConnections = 10000;
    int connected = 0;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kConnections; ++i) {
        auto fd = connect_nonblocking(socket_path());
        if (!fd) continue;
        ++connected;
        if (i % 3 == 0) continue;  // dropped with nothing sent
        const auto hello = wiretest::hello_frame(wire::Hello::for_this_process(
            hostile::kRawNs, static_cast<pmix_rank_t>(100 + i % 900), wire::Role::client));
        const std::size_t n = i % 3 == 1 ? hello.size() / 2 : hello.size();
        // Non-blocking: a full socket buffer just sends less, which is as good a drop.
        (void)!send(fd.get(), hello.data(), n, MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(connected, kConnections);
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    int fds_after = hostile::fd_count(pid());
    while (fds_after != fds_before && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(20ms);
        fds_after = hostile::fd_count(pid());
    }
    std::printf(
        "%d connections in %.2f s; server descriptors %d before, %d after; VmRSS %ld -> "
        "%ld kB\n",
        connected, secs, fds_before, fds_after, rss_before, hostile::rss_kib(pid()));
    EXPECT_EQ(fds_after, fds_before);
    EXPECT_TRUE(serves(2));
}

}  // namespace
