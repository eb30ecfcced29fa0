// Connection on a socketpair: one-way messages, request/reply matched by tag (also out of
// order and from many threads), timeouts, close semantics, argument errors, blocking calls on
// the progress thread.
#include "connection_pair.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace {

using namespace wiretest;
using pmix::exec::Clock;
using pmix::exec::Completion;
using pmix::wire::Bytes;
using pmix::wire::CloseKind;
using pmix::wire::Connection;
using pmix::wire::Frame;

using ConnectionTest = ConnectionPairTest;

TEST_F(ConnectionTest, OneWayMessageArrivesIntact) {
    Completion<Frame> got;
    auto [a, b] = make_pair([got](Connection&, Frame&& f) { got.complete(std::move(f)); });
    Bytes payload = make_payload(1000, 5);
    ASSERT_EQ(a->send(kOpNotify, payload), PMIX_SUCCESS);
    auto f = got.wait_for(kWait);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->op, kOpNotify);
    EXPECT_EQ(f->tag, 0u);
    EXPECT_FALSE(f->is_reply());
    EXPECT_EQ(f->payload, payload);
}

TEST_F(ConnectionTest, RepliesAreMatchedByTagEvenInReverseOrder) {
    constexpr int kRequests = 200;
    // Side B holds every request until it has all of them, then answers last-first.
    auto held = std::make_shared<std::vector<Frame>>();
    auto [a, b] = make_pair([held](Connection& c, Frame&& f) {
        held->push_back(std::move(f));
        if (held->size() == kRequests) {
            for (auto it = held->rbegin(); it != held->rend(); ++it) {
                c.reply(*it, echo_reply_payload(3, it->payload));
            }
            held->clear();
        }
    });
    auto wrong = std::make_shared<std::atomic<int>>(0);
    auto answered = std::make_shared<std::atomic<int>>(0);
    Completion<bool> all;
    for (int i = 0; i < kRequests; ++i) {
        Bytes p = make_payload(static_cast<std::size_t>(i % 50), static_cast<std::uint32_t>(i));
        Bytes want = echo_reply_payload(3, p);
        ASSERT_EQ(a->request(kOpEcho, std::move(p), kWait,
                             [want, wrong, answered, all](pmix_status_t s, Frame&& f) {
                                 if (s != PMIX_SUCCESS || f.payload != want) {
                                     wrong->fetch_add(1);
                                 }
                                 if (answered->fetch_add(1) + 1 == kRequests) {
                                     all.complete(true);
                                 }
                             }),
                  PMIX_SUCCESS);
    }
    ASSERT_TRUE(all.wait_for(kWait).value_or(false));
    EXPECT_EQ(wrong->load(), 0);
    EXPECT_EQ(a->pending_requests(), 0u);
}

TEST_F(ConnectionTest, BlockingCallsFromManyThreads) {
    auto [a, b] = make_pair(echo_as(11));
    constexpr int kThreads = 8;
    constexpr int kCalls = 150;
    std::vector<std::thread> threads;
    std::atomic<int> matched{0};
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kCalls; ++i) {
                Bytes p = make_payload(64, static_cast<std::uint32_t>(t * 1000 + i));
                auto r = a->call(kOpEcho, p, std::chrono::seconds(10));
                if (r.ok() && r.value.payload == echo_reply_payload(11, p)) {
                    matched.fetch_add(1);
                }
            }
        });
    }
    for (auto& t : threads) {
        t.join();
    }
    EXPECT_EQ(matched.load(), kThreads * kCalls);
}

TEST_F(ConnectionTest, LargePayloadRoundTrip) {
    auto [a, b] = make_pair(echo_as(1));
    Bytes big = make_payload(8u << 20, 77);
    auto r = a->call(kOpEcho, big, std::chrono::seconds(15));
    ASSERT_TRUE(r.ok()) << r.error;
    EXPECT_EQ(r.value.payload.size(), big.size() + 4);
    EXPECT_TRUE(std::equal(big.begin(), big.end(), r.value.payload.begin() + 4));
}

TEST_F(ConnectionTest, RequestTimesOutAndALateReplyIsDropped) {
    // B answers kOpSilent only after 300 ms, far past the requester's 50 ms timeout.
    auto [a, b] = make_pair([this](Connection& c, Frame&& f) {
        if (f.op == kOpSilent) {
            bx.run_after(300ms, [weak = c.weak_from_this(), f = std::move(f)] {
                if (auto conn = weak.lock()) {
                    conn->reply(f, Bytes{1, 2, 3});
                }
            });
        } else if (f.op == kOpEcho) {
            c.reply(f, echo_reply_payload(2, f.payload));
        }
    });
    auto t0 = Clock::now();
    auto r = a->call(kOpSilent, Bytes{}, 50ms);
    auto took = Clock::now() - t0;
    EXPECT_EQ(r.status, PMIX_ERR_TIMEOUT);
    EXPECT_GE(took, 50ms);
    EXPECT_LT(took, 250ms + 1s);
    EXPECT_EQ(a->pending_requests(), 0u);
    std::this_thread::sleep_for(400ms);  // the late reply arrives and must be ignored
    EXPECT_FALSE(a->closed());
    EXPECT_EQ(run_echoes(*a, 2, 5, 16), 5);
}

TEST_F(ConnectionTest, PeerCloseFailsPendingRequestsPromptly) {
    auto [a, b] = make_pair([](Connection&, Frame&&) {});  // never answers
    Completion<pmix_status_t> outcome;
    ASSERT_EQ(a->request(kOpSilent, Bytes{9}, std::chrono::seconds(30),
                         [outcome](pmix_status_t s, Frame&&) { outcome.complete(s); }),
              PMIX_SUCCESS);
    std::this_thread::sleep_for(20ms);
    auto t0 = Clock::now();
    b->close("test closes side B");
    EXPECT_EQ(outcome.wait_for(kWait).value_or(PMIX_SUCCESS), PMIX_ERR_LOST_CONNECTION);
    EXPECT_LT(Clock::now() - t0, 5s);
    auto why_a = a_closed.first.wait_for(kWait);
    ASSERT_TRUE(why_a.has_value());
    EXPECT_EQ(why_a->kind, CloseKind::peer_hung_up);
    auto why_b = b_closed.first.wait_for(kWait);
    ASSERT_TRUE(why_b.has_value());
    EXPECT_EQ(why_b->kind, CloseKind::local);
    EXPECT_EQ(why_b->detail, "test closes side B");
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(a_closed.count->load(), 1);
    EXPECT_EQ(b_closed.count->load(), 1);
}

TEST_F(ConnectionTest, OnClosedIsCalledExactlyOnce) {
    auto [a, b] = make_pair(nullptr);
    std::vector<std::thread> closers;
    for (int i = 0; i < 4; ++i) {
        closers.emplace_back([a = a] { a->close("racing close"); });
    }
    for (auto& t : closers) {
        t.join();
    }
    ASSERT_TRUE(a_closed.first.wait_for(kWait).has_value());
    a->close("once more");
    ASSERT_TRUE(b_closed.first.wait_for(kWait).has_value());
    a.reset();
    b.reset();
    std::this_thread::sleep_for(20ms);
    EXPECT_EQ(a_closed.count->load(), 1);
    EXPECT_EQ(b_closed.count->load(), 1);
}

TEST_F(ConnectionTest, ClosedConnectionRefusesWork) {
    auto [a, b] = make_pair(nullptr);
    a->close();
    ASSERT_TRUE(a_closed.first.wait_for(kWait).has_value());
    EXPECT_TRUE(a->closed());
    EXPECT_EQ(a->send(kOpNotify, Bytes{1}), PMIX_ERR_LOST_CONNECTION);
    EXPECT_EQ(a->request(kOpEcho, Bytes{1}, 1s, [](pmix_status_t, Frame&&) {}),
              PMIX_ERR_LOST_CONNECTION);
    EXPECT_EQ(a->call(kOpEcho, Bytes{1}, 1s).status, PMIX_ERR_LOST_CONNECTION);
    EXPECT_EQ(a->native_handle(), -1);
}

TEST_F(ConnectionTest, BadArgumentsAreRefused) {
    pmix::wire::ConnectionOptions small;
    small.max_payload = 100;
    auto [a, b] = make_pair(echo_as(0), small);
    EXPECT_EQ(a->send(kOpNotify, Bytes(101)), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(a->request(kOpEcho, Bytes{}, 0ms, [](pmix_status_t, Frame&&) {}), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(a->request(kOpEcho, Bytes{}, -5ms, [](pmix_status_t, Frame&&) {}),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(a->request(kOpEcho, Bytes{}, 1s, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(a->start(), PMIX_ERR_INIT);  // already started
    Bytes exact(100, 0xAB);
    EXPECT_EQ(a->send(kOpNotify, exact), PMIX_SUCCESS);  // the limit itself is allowed
    EXPECT_FALSE(a->closed());
}

TEST_F(ConnectionTest, BlockingCallOnTheProgressThreadIsWouldBlock) {
    auto [a, b] = make_pair(echo_as(0));
    Completion<pmix_status_t> seen;
    ASSERT_TRUE(ax.post([a = a, seen] { seen.complete(a->call(kOpEcho, Bytes{}, 1s).status); }));
    EXPECT_EQ(seen.wait_for(kWait).value_or(PMIX_SUCCESS), PMIX_ERR_WOULD_BLOCK);
    // Also on the *other* side's progress thread: any progress thread must not block.
    Completion<pmix_status_t> seen_b;
    ASSERT_TRUE(
        bx.post([a = a, seen_b] { seen_b.complete(a->call(kOpEcho, Bytes{}, 1s).status); }));
    EXPECT_EQ(seen_b.wait_for(kWait).value_or(PMIX_SUCCESS), PMIX_ERR_WOULD_BLOCK);
    EXPECT_EQ(run_echoes(*a, 0, 3, 8), 3);  // and nothing was left half-sent
}

TEST_F(ConnectionTest, AsyncRequestFromTheProgressThreadWorks) {
    auto [a, b] = make_pair(echo_as(4));
    Completion<Bytes> got;
    Bytes p = make_payload(10, 1);
    ASSERT_TRUE(ax.post([a = a, got, p] {
        a->request(kOpEcho, p, 5s, [got](pmix_status_t, Frame&& f) { got.complete(f.payload); });
    }));
    EXPECT_EQ(got.wait_for(kWait).value_or(Bytes{}), echo_reply_payload(4, p));
}

TEST_F(ConnectionTest, ThrowingHandlersDoNotKillTheConnection) {
    auto calls = std::make_shared<std::atomic<int>>(0);
    auto [a, b] = make_pair([calls](Connection& c, Frame&& f) {
        if (calls->fetch_add(1) == 0) {
            throw std::runtime_error("message handler failure (expected)");
        }
        c.reply(f, echo_reply_payload(1, f.payload));
    });
    ASSERT_EQ(a->send(kOpNotify, Bytes{}), PMIX_SUCCESS);
    EXPECT_EQ(run_echoes(*a, 1, 3, 4), 3);
    Completion<bool> after;
    ASSERT_EQ(a->request(kOpEcho, Bytes{}, 5s,
                         [after](pmix_status_t, Frame&&) {
                             after.complete(true);
                             throw std::logic_error("reply handler failure (expected)");
                         }),
              PMIX_SUCCESS);
    EXPECT_TRUE(after.wait_for(kWait).value_or(false));
    EXPECT_EQ(run_echoes(*a, 1, 2, 4), 2);
    EXPECT_FALSE(a->closed());
}

TEST_F(ConnectionTest, MessageHandlerCanReplaceItself) {
    Completion<int> second;
    auto [a, b] = make_pair(nullptr);
    ASSERT_TRUE(bx.post([b = b, second] {
        b->on_message([second](Connection& c, Frame&&) {
            c.on_message([second](Connection&, Frame&&) { second.complete(2); });
        });
    }));
    ASSERT_EQ(a->send(kOpNotify, Bytes{}), PMIX_SUCCESS);
    ASSERT_EQ(a->send(kOpNotify, Bytes{}), PMIX_SUCCESS);
    EXPECT_EQ(second.wait_for(kWait).value_or(0), 2);
}

TEST_F(ConnectionTest, StoppingTheExecutorClosesOpenConnectionsOnce) {
    auto [a, b] = make_pair([](Connection&, Frame&&) {});
    Completion<pmix_status_t> pending;
    ASSERT_EQ(a->request(kOpSilent, Bytes{}, 30s,
                         [pending](pmix_status_t s, Frame&&) { pending.complete(s); }),
              PMIX_SUCCESS);
    std::this_thread::sleep_for(20ms);
    a.reset();  // only the connection's own watch keeps it alive now
    EXPECT_EQ(ax.stop(), PMIX_SUCCESS);
    EXPECT_EQ(pending.wait_for(kWait).value_or(PMIX_SUCCESS), PMIX_ERR_LOST_CONNECTION);
    EXPECT_EQ(a_closed.count->load(), 1);
    auto why_b = b_closed.first.wait_for(kWait);  // B sees A's socket close
    ASSERT_TRUE(why_b.has_value());
    EXPECT_EQ(why_b->kind, CloseKind::peer_hung_up);
}

TEST_F(ConnectionTest, NeverStartedConnectionReportsItsCloseOnDestruction) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
    pmix::exec::UniqueFd other(sv[1]);
    auto c = Connection::create(ax, pmix::exec::UniqueFd(sv[0]));
    c->on_closed(a_closed.handler());
    c.reset();
    EXPECT_EQ(a_closed.count->load(), 1);
    EXPECT_TRUE(wait_for_eof(other.get(), 5s));
}

}  // namespace
