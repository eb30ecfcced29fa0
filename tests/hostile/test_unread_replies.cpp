// tests/hostile/test_unread_replies.cpp - clients that send many requests and never read the
// replies: one sends 80 Gets of its own 1 MiB value, another 10,000 Gets of a small one. The server
// must not queue without bound what it cannot deliver: its resident size stays within a bound
// below the 80 MiB of large replies asked for, while other clients are served. When the clients
// finally read, every reply arrives: the server paused reading them rather than refusing replies
// past its outgoing queue limits (4096 frames, which the small Gets pass; 128 MiB).
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

constexpr pmix_rank_t kBigHog = 10;
constexpr int kBigGets = 80, kSmallGets = 10000;

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

// Writes `out` (from `*at`) until all is written or the peer has taken nothing for 300 ms (it
// stopped reading).
void write_until_stuck(int fd, const wire::Bytes& out, std::size_t* at) {
    for (write_some(fd, out, at); *at < out.size(); write_some(fd, out, at)) {
        pollfd p{fd, POLLOUT, 0};
        if (poll(&p, 1, 300) <= 0) return;
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

// `n` Get requests for `payload`, one buffer.
wire::Bytes gets_of(const wire::Bytes& payload, int n) {
    wire::Bytes out;
    for (int i = 0; i < n; ++i) {
        const auto f = hostile::request_frame(Op::kGet, static_cast<std::uint32_t>(2 + i), payload);
        out.insert(out.end(), f.begin(), f.end());
    }
    return out;
}

class UnreadReplies : public HostileServer {};

TEST_F(UnreadReplies, ServerMemoryStaysBoundedAndNoReplyIsLost) {
    auto big_hog = raw_client(kBigHog);        // asks for large replies
    auto small_hog = raw_client(kBigHog + 1);  // asks for many small ones
    ASSERT_TRUE(big_hog && small_hog);
    ASSERT_EQ(commit_big(big_hog.get()), PMIX_SUCCESS);
    ASSERT_TRUE(serves(1));
    const long rss_before = hostile::rss_kib(pid());
    const wire::Bytes big =
        gets_of(hostile::get_payload(hostile::kRawNs, kBigHog, "hostile.big"), kBigGets);
    const wire::Bytes small = gets_of(
        hostile::get_payload(hostile::kRawNs, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE), kSmallGets);
    std::size_t big_sent = 0, small_sent = 0;
    write_until_stuck(big_hog.get(), big, &big_sent);  // no reply is read
    write_until_stuck(small_hog.get(), small, &small_sent);
    // Others are served meanwhile (and the round trip means the server has had its turn).
    for (pmix_rank_t r = 2; r < 6; ++r) EXPECT_TRUE(serves(r)) << "rank " << r;
    EXPECT_TRUE(serves_tcp_tool());
    const long rss_held = hostile::rss_kib(pid());
    std::printf(
        "server VmRSS %ld kB before, %ld kB with requests sent and no reply read: %zu of "
        "%zu bytes for %d Gets of 1 MiB, %zu of %zu for %d small ones\n",
        rss_before, rss_held, big_sent, big.size(), kBigGets, small_sent, small.size(), kSmallGets);
    EXPECT_LT(rss_held - rss_before, hostile::kRssBoundKiB);
    const int got_big = read_replies(big_hog.get(), big, &big_sent, kBigGets);
    const int got_small = read_replies(small_hog.get(), small, &small_sent, kSmallGets);
    std::printf("the clients then read %d of %d and %d of %d replies\n", got_big, kBigGets,
                got_small, kSmallGets);
    EXPECT_EQ(got_big, kBigGets);
    EXPECT_EQ(got_small, kSmallGets);
    EXPECT_TRUE(serves(7));
}

}  // namespace
