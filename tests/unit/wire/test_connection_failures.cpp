// Connection against misbehaving peers: garbage, oversized and truncated frames, a peer that
// stops reading (bounded queue), and a peer process that dies in the middle of its reply.
#include "connection_pair.h"

#include "base/le.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

namespace {

using namespace wiretest;
using pmix::exec::Clock;
using pmix::exec::Completion;
using pmix::wire::Bytes;
using pmix::wire::CloseKind;
using pmix::wire::Connection;
using pmix::wire::Frame;

using ConnectionFailureTest = ConnectionPairTest;

pmix::wire::CloseReason expect_closed(CloseLog& log, CloseKind kind,
                                      const std::string& detail_has) {
    auto why = log.first.wait_for(kWait);
    EXPECT_TRUE(why.has_value());
    if (!why) {
        return {};
    }
    EXPECT_EQ(why->kind, kind) << why->detail;
    EXPECT_NE(why->detail.find(detail_has), std::string::npos) << why->detail;
    return *why;
}

TEST_F(ConnectionFailureTest, GarbageClosesWithBadMagic) {
    auto [a, raw] = make_raw();
    const char junk[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
    ASSERT_TRUE(write_all(raw.get(), junk, sizeof junk - 1));
    expect_closed(a_closed, CloseKind::bad_frame, "magic");
    EXPECT_TRUE(wait_for_eof(raw.get(), 5s));  // and the socket really is closed
}

TEST_F(ConnectionFailureTest, OversizedLengthIsRefusedFromTheHeader) {
    pmix::wire::ConnectionOptions small;
    small.max_payload = 1024;
    auto [a, raw] = make_raw(small);
    auto h = pmix::wire::encode_header(0, kOpNotify, 0, 1025);
    ASSERT_TRUE(write_all(raw.get(), h.data(), h.size()));  // no payload needed to refuse it
    expect_closed(a_closed, CloseKind::bad_frame, "exceeds the limit of 1024");
}

TEST_F(ConnectionFailureTest, TruncatedFrameThenHangUp) {
    auto [a, raw] = make_raw();
    auto h = pmix::wire::encode_header(0, kOpNotify, 0, 100);
    ASSERT_TRUE(write_all(raw.get(), h.data(), h.size()));
    ASSERT_TRUE(write_all(raw.get(), "0123456789", 10));
    raw.reset();
    expect_closed(a_closed, CloseKind::bad_frame, "truncated frame: peer hung up after 34 of 124");
}

TEST_F(ConnectionFailureTest, TruncatedHeaderThenHangUp) {
    auto [a, raw] = make_raw();
    ASSERT_TRUE(write_all(raw.get(), "PMXW\x01", 5));
    raw.reset();
    expect_closed(a_closed, CloseKind::bad_frame, "after 5 of at least 24");
}

TEST_F(ConnectionFailureTest, CleanHangUpBetweenFramesIsNotAnError) {
    auto [a, raw] = make_raw();
    Frame f;
    f.op = kOpNotify;
    ASSERT_TRUE(write_all(raw.get(), pmix::wire::encode_frame(f)));
    raw.reset();
    expect_closed(a_closed, CloseKind::peer_hung_up, "hung up");
}

TEST_F(ConnectionFailureTest, FramesBeforeTheDamageAreDelivered) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    pmix::exec::UniqueFd raw(sv[1]);
    auto a = Connection::create(ax, pmix::exec::UniqueFd(sv[0]));
    Completion<Frame> got;
    a->on_message([got](Connection&, Frame&& f) { got.complete(std::move(f)); });
    a->on_closed(a_closed.handler());
    Frame good;
    good.op = kOpNotify;
    good.payload = make_payload(40, 3);
    Bytes stream = pmix::wire::encode_frame(good);
    Bytes bad = pmix::wire::encode_frame(good);
    bad[4] = 0x7F;  // unsupported version in the second frame
    stream.insert(stream.end(), bad.begin(), bad.end());
    ASSERT_TRUE(write_all(raw.get(), stream));  // both in one write: one read sees both
    ASSERT_EQ(a->start(), PMIX_SUCCESS);
    auto f = got.wait_for(kWait);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->payload, good.payload);
    expect_closed(a_closed, CloseKind::bad_frame, "version");
}

TEST_F(ConnectionFailureTest, OutgoingQueueIsBoundedWhenThePeerStopsReading) {
    pmix::wire::ConnectionOptions opts;
    opts.max_queued_bytes = 1u << 20;
    auto [a, raw] = make_raw(opts);
    Bytes chunk(256 * 1024, 0x5A);
    int accepted = 0;
    pmix_status_t last = PMIX_SUCCESS;
    for (int i = 0; i < 1000 && last == PMIX_SUCCESS; ++i) {
        last = a->send(kOpNotify, chunk);
        accepted += last == PMIX_SUCCESS ? 1 : 0;
        std::this_thread::sleep_for(1ms);  // let the loop push what the socket buffer takes
    }
    EXPECT_EQ(last, PMIX_ERR_OUT_OF_RESOURCE);
    // At least the queue's worth got in (more if the socket buffer took some).
    EXPECT_GE(accepted,
              static_cast<int>(opts.max_queued_bytes / (chunk.size() + pmix::wire::kHeaderSize)));
    EXPECT_LE(a->queued_bytes(), opts.max_queued_bytes + chunk.size() + pmix::wire::kHeaderSize);
    // Once the peer reads again the queue drains and sending works again.
    std::atomic<bool> stop{false};
    std::atomic<std::size_t> total{0};  // written by the reader thread, polled here
    std::thread reader([&] {
        std::vector<std::uint8_t> buf(1 << 16);
        while (!stop.load()) {
            ssize_t n = ::recv(raw.get(), buf.data(), buf.size(), MSG_DONTWAIT);
            if (n > 0) {
                total += static_cast<std::size_t>(n);
            } else {
                std::this_thread::sleep_for(1ms);
            }
        }
    });
    auto deadline = Clock::now() + kWait;
    while (a->queued_bytes() != 0 && Clock::now() < deadline) {
        std::this_thread::sleep_for(5ms);
    }
    EXPECT_EQ(a->queued_bytes(), 0u);
    EXPECT_EQ(a->send(kOpNotify, chunk), PMIX_SUCCESS);
    std::size_t expected =
        static_cast<std::size_t>(accepted + 1) * (chunk.size() + pmix::wire::kHeaderSize);
    while (total.load() < expected && Clock::now() < deadline) {
        std::this_thread::sleep_for(5ms);
    }
    stop = true;
    reader.join();
    EXPECT_EQ(total.load(), expected);  // every accepted frame arrived whole, nothing more
    EXPECT_FALSE(a->closed());
}

// Reads one request frame from `fd` with plain system calls (safe after fork in a threaded
// process: no allocation, no locks). Returns its tag, or 0.
std::uint32_t child_read_request(int fd) {
    std::uint8_t buf[4096];
    std::size_t have = 0;
    while (have < pmix::wire::kHeaderSize ||
           have < pmix::wire::kHeaderSize + pmix::le::load<std::uint32_t>(buf + 16)) {
        ssize_t n = ::read(fd, buf + have, sizeof buf - have);
        if (n <= 0) {
            return 0;
        }
        have += static_cast<std::size_t>(n);
    }
    return pmix::le::load<std::uint32_t>(buf + 12);
}

// Forks a "server" process on the raw end that reads one request, writes the first
// `partial` bytes of a 1000-byte reply, says so on `ready_fd` (if >= 0) and then either exits
// or waits to be killed.
pid_t fork_dying_server(int raw_fd, int other_fd, std::size_t partial, bool wait_for_kill,
                        int ready_fd = -1) {
    auto reply_header = pmix::wire::encode_header(pmix::wire::kFlagReply, kOpEcho, 0, 1000);
    pid_t pid = ::fork();
    if (pid == 0) {
        ::close(other_fd);
        std::uint32_t tag = child_read_request(raw_fd);
        pmix::le::store<std::uint32_t>(reply_header.data() + 12, tag);
        std::uint8_t reply[24 + 1000] = {};
        std::copy(reply_header.begin(), reply_header.end(), reply);
        ssize_t ignored = ::write(raw_fd, reply, partial);
        if (ready_fd >= 0) {
            ignored = ::write(ready_fd, "r", 1);
        }
        (void)ignored;
        if (wait_for_kill) {
            for (;;) {
                ::pause();
            }
        }
        ::_exit(0);
    }
    return pid;
}

// Backpressure (ConnectionOptions::pause_reading_above, set on accepted connections): a peer
// that sends requests and never reads the replies is not read either once the replies waiting
// for it pass the mark; nothing is lost, everything is answered when it reads.
TEST_F(ConnectionFailureTest, APeerThatDoesNotReadItsRepliesIsNotReadEither) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    pmix::wire::ConnectionOptions opts;
    opts.pause_reading_above = 64 * 1024;
    auto a = Connection::create(ax, pmix::exec::UniqueFd(sv[0]), opts);
    pmix::exec::UniqueFd raw(sv[1]);
    auto handled = std::make_shared<std::atomic<int>>(0);
    a->on_message([handled](Connection& c, Frame&& f) {
        handled->fetch_add(1);
        c.reply(f, Bytes(16 * 1024, 0x5A));
    });
    a->on_closed(a_closed.handler());
    ASSERT_EQ(a->start(), PMIX_SUCCESS);
    constexpr int kRequests = 400;  // 9.6 KB of requests: all fit in the socket buffer
    Bytes requests;
    for (int i = 0; i < kRequests; ++i) {
        Frame f;
        f.op = kOpEcho;
        f.tag = static_cast<std::uint32_t>(i + 1);
        Bytes one = pmix::wire::encode_frame(f);
        requests.insert(requests.end(), one.begin(), one.end());
    }
    ASSERT_TRUE(write_all(raw.get(), requests));
    const auto deadline = Clock::now() + kWait;
    while (a->queued_bytes() <= opts.pause_reading_above && Clock::now() < deadline) {
        std::this_thread::sleep_for(1ms);
    }
    ASSERT_GT(a->queued_bytes(), opts.pause_reading_above);
    // Paused: the replies in the socket buffer and the queue, no more (400 would be 6.4 MB).
    const int at_pause = handled->load();
    EXPECT_LT(at_pause, kRequests);
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(handled->load(), at_pause) << "nothing changes until the peer reads";
    EXPECT_LE(a->queued_bytes(), opts.pause_reading_above + 16 * 1024 + pmix::wire::kHeaderSize);
    pmix::wire::FrameDecoder decoder;
    std::vector<Frame> replies;
    std::vector<std::uint8_t> buf(64 * 1024);
    while (replies.size() < static_cast<std::size_t>(kRequests) && Clock::now() < deadline) {
        pollfd p{raw.get(), POLLIN, 0};
        if (::poll(&p, 1, 1000) <= 0) continue;
        const ssize_t n = ::read(raw.get(), buf.data(), buf.size());
        ASSERT_GT(n, 0);
        ASSERT_TRUE(decoder.feed({buf.data(), static_cast<std::size_t>(n)}, replies));
    }
    ASSERT_EQ(replies.size(), static_cast<std::size_t>(kRequests));
    for (int i = 0; i < kRequests; ++i)
        EXPECT_EQ(replies[i].tag, static_cast<std::uint32_t>(i + 1));
    EXPECT_EQ(handled->load(), kRequests);
    a->close();
}

TEST_F(ConnectionFailureTest, PeerProcessExitsMidReply) {
    auto [a, raw] = make_raw();
    pid_t child = fork_dying_server(raw.get(), a->native_handle(), 24 + 300, false);
    ASSERT_GT(child, 0);
    raw.reset();  // only the child holds the other end now
    auto t0 = Clock::now();
    auto r = a->call(kOpEcho, make_payload(100, 1), std::chrono::seconds(30));
    auto took = Clock::now() - t0;
    EXPECT_EQ(r.status, PMIX_ERR_LOST_CONNECTION);
    EXPECT_LT(took, 5s) << "the request must fail when the peer dies, not at its timeout";
    expect_closed(a_closed, CloseKind::bad_frame,
                  "truncated frame: peer hung up after 324 of 1024");
    int status = 0;
    EXPECT_EQ(::waitpid(child, &status, 0), child);
}

TEST_F(ConnectionFailureTest, PeerProcessKilledWhileARequestIsPending) {
    auto [a, raw] = make_raw();
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    pmix::exec::UniqueFd ready_rd(ready[0]), ready_wr(ready[1]);
    pid_t child = fork_dying_server(raw.get(), a->native_handle(), 10, true, ready_wr.get());
    ASSERT_GT(child, 0);
    raw.reset();
    Completion<pmix_status_t> outcome;
    ASSERT_EQ(a->request(kOpEcho, Bytes{1, 2, 3}, std::chrono::seconds(30),
                         [outcome](pmix_status_t s, Frame&&) { outcome.complete(s); }),
              PMIX_SUCCESS);
    // The child has read the request and sent 10 bytes of its reply when it writes "r".
    pollfd pfd{ready_rd.get(), POLLIN, 0};
    ASSERT_EQ(::poll(&pfd, 1, 20000), 1);
    std::this_thread::sleep_for(20ms);  // let our side read the 10 bytes
    EXPECT_FALSE(outcome.ready());
    auto t0 = Clock::now();
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    EXPECT_EQ(outcome.wait_for(kWait).value_or(PMIX_SUCCESS), PMIX_ERR_LOST_CONNECTION);
    EXPECT_LT(Clock::now() - t0, 5s);
    expect_closed(a_closed, CloseKind::bad_frame, "after 10 of at least 24");
    int status = 0;
    EXPECT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status));
}

TEST_F(ConnectionFailureTest, WritingToADeadPeerIsAnErrorNotASignal) {
    auto [a, raw] = make_raw();
    raw.reset();
    // Whether the loop notices the hang-up first or the write fails with EPIPE, the process
    // must survive (MSG_NOSIGNAL) and the connection must close as a hang-up.
    for (int i = 0; i < 50 && !a->closed(); ++i) {
        a->send(kOpNotify, Bytes(4096, 1));
        std::this_thread::sleep_for(1ms);
    }
    auto why = a_closed.first.wait_for(kWait);
    ASSERT_TRUE(why.has_value());
    EXPECT_EQ(why->kind, CloseKind::peer_hung_up) << why->detail;
}

}  // namespace
