// tests/hostile/test_unread_replies.cpp - a client that sends many requests whose replies are
// large (Gets of its own 1 MiB value) and never reads them. The server must not queue without
// bound what it cannot deliver: its resident size stays within a bound far below the 140 MiB of
// replies asked for (more than the 128 MiB outgoing queue limit, past which replies are lost),
// while other clients are served. When the client finally reads, every reply arrives (the server
// paused reading that client rather than dropping its replies).
#include "hostile_server.h"

#include "wire/proto/message.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace {

using namespace std::chrono_literals;
using hostile::HostileServer;
namespace exec = pmix::exec;
using hostile::kMiB;
using pmix::proto::Op;
namespace wire = pmix::wire;

constexpr pmix_rank_t kHog = 10;
constexpr int kGets = 140;

// Commits a 1 MiB byte object as "hostile.big" for the raw client on `fd`; its reply's status.
pmix_status_t commit_big(int fd) {
    std::vector<char> bytes(kMiB, 'x');
    pmix_byte_object_t bo{bytes.data(), bytes.size()};
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, "hostile.big", &bo, PMIX_BYTE_OBJECT);
    pmix::proto::Writer w;
    w.size(1).scope(PMIX_GLOBAL).raw(&info, 1, PMIX_INFO);
    PMIX_INFO_DESTRUCT(&info);
    if (!wiretest::write_all(fd, hostile::request_frame(Op::kCommit, 1, w.take())))
        return PMIX_ERR_LOST_CONNECTION;
    auto reply = wiretest::read_frame(fd, 10s);
    if (!reply) return PMIX_ERR_TIMEOUT;
    pmix::proto::Reader rd(reply->payload);
    pmix_status_t st = PMIX_ERROR;
    return rd.status(&st) == PMIX_SUCCESS ? st : PMIX_ERR_UNPACK_FAILURE;
}

// Writes as much of `out` (from `*at`) as the socket takes now.
void write_some(int fd, const wire::Bytes& out, std::size_t* at) {
    while (*at < out.size()) {
        const ssize_t n = send(fd, out.data() + *at, out.size() - *at, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n <= 0) return;
        *at += static_cast<std::size_t>(n);
    }
}

// Reads replies (writing the rest of `out` as the socket takes it) until `want` replies came
// or nothing moved for 5 s; how many came.
int read_replies(int fd, const wire::Bytes& out, std::size_t* at, int want) {
    wire::FrameDecoder decoder;
    std::vector<wire::Frame> frames;
    std::vector<std::uint8_t> buf(256 * 1024);
    int got = 0;
    while (got < want) {
        pollfd p{fd, static_cast<short>(POLLIN | (*at < out.size() ? POLLOUT : 0)), 0};
        if (poll(&p, 1, 5000) <= 0) break;
        if ((p.revents & POLLOUT) != 0) write_some(fd, out, at);
        if ((p.revents & POLLIN) == 0) continue;
        const ssize_t n = read(fd, buf.data(), buf.size());
        if (n <= 0 || !decoder.feed({buf.data(), static_cast<std::size_t>(n)}, frames)) break;
        got += static_cast<int>(frames.size());
        frames.clear();
    }
    return got;
}

class UnreadReplies : public HostileServer {};

TEST_F(UnreadReplies, ServerMemoryStaysBoundedAndNoReplyIsLost) {
    auto hog = raw_client(kHog);
    ASSERT_TRUE(hog);
    ASSERT_EQ(commit_big(hog.get()), PMIX_SUCCESS);
    ASSERT_TRUE(serves(1));
    const long rss_before = hostile::rss_kib(pid());
    wire::Bytes gets;
    const auto get = hostile::get_payload(hostile::kRawNs, kHog, "hostile.big");
    for (int i = 0; i < kGets; ++i) {
        const auto f = hostile::request_frame(Op::kGet, static_cast<std::uint32_t>(2 + i), get);
        gets.insert(gets.end(), f.begin(), f.end());
    }
    std::size_t sent = 0;
    write_some(hog.get(), gets, &sent);  // as much as the kernel takes; no reply is read
    // Others are served meanwhile (and the round trip means the server has had its turn).
    for (pmix_rank_t r = 2; r < 6; ++r) EXPECT_TRUE(serves(r)) << "rank " << r;
    EXPECT_TRUE(serves_tcp_tool());
    const long rss_held = hostile::rss_kib(pid());
    std::printf(
        "server VmRSS %ld kB before, %ld kB with %zu of %zu request bytes sent (%d Gets "
        "of 1 MiB) and no reply read\n",
        rss_before, rss_held, sent, gets.size(), kGets);
    EXPECT_LT(rss_held - rss_before, hostile::kRssBoundKiB);
    const int got = read_replies(hog.get(), gets, &sent, kGets);
    std::printf("the client then read %d of %d replies\n", got, kGets);
    EXPECT_EQ(got, kGets);
    EXPECT_TRUE(serves(7));
}

}  // namespace
