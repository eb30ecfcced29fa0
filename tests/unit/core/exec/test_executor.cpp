// The progress thread: ordering of posts, posting from many threads, contained exceptions,
// start/stop life cycle (stop with pending work, stop from the loop, repeated stops).
#include "exec/completion.h"
#include "exec/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using pmix::exec::Completion;
using pmix::exec::Executor;

constexpr auto kWait = 10s;  // generous bound for every wait; tests pass in milliseconds

// Posts a closure that completes once everything posted before it has run.
bool drain(Executor& ex) {
    Completion<bool> done;
    if (!ex.post([done] { done.complete(true); })) {
        return false;
    }
    return done.wait_for(kWait).value_or(false);
}

TEST(Executor, RefusesWorkBeforeStartAndStartsOnce) {
    Executor ex;
    EXPECT_FALSE(ex.running());
    EXPECT_FALSE(ex.post([] {}));
    EXPECT_EQ(ex.run_after(1ms, [] {}), pmix::exec::kInvalidTimer);
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    EXPECT_TRUE(ex.running());
    EXPECT_EQ(ex.start(), PMIX_ERR_INIT);
    EXPECT_FALSE(ex.on_loop_thread());
}

TEST(Executor, PostsFromOneThreadRunInOrderOnTheLoopThread) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    constexpr int kCount = 20000;
    std::vector<int> seen;  // touched only on the loop thread
    std::atomic<int> off_loop{0};
    for (int i = 0; i < kCount; ++i) {
        ASSERT_TRUE(ex.post([&seen, &off_loop, &ex, i] {
            if (!ex.on_loop_thread()) {
                off_loop.fetch_add(1);
            }
            seen.push_back(i);
        }));
    }
    ASSERT_TRUE(drain(ex));
    ASSERT_EQ(seen.size(), static_cast<std::size_t>(kCount));
    for (int i = 0; i < kCount; ++i) {
        ASSERT_EQ(seen[static_cast<std::size_t>(i)], i);
    }
    EXPECT_EQ(off_loop.load(), 0);
}

TEST(Executor, PostsFromManyThreadsAllRunAndKeepPerThreadOrder) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    constexpr int kThreads = 16;
    constexpr int kPerThread = 5000;
    std::vector<std::vector<int>> seen(kThreads);  // loop thread only
    std::vector<std::thread> posters;
    for (int t = 0; t < kThreads; ++t) {
        posters.emplace_back([&, t] {
            for (int i = 0; i < kPerThread; ++i) {
                ex.post([&seen, t, i] { seen[static_cast<std::size_t>(t)].push_back(i); });
            }
        });
    }
    for (auto& th : posters) {
        th.join();
    }
    ASSERT_TRUE(drain(ex));
    for (int t = 0; t < kThreads; ++t) {
        const auto& s = seen[static_cast<std::size_t>(t)];
        ASSERT_EQ(s.size(), static_cast<std::size_t>(kPerThread)) << "thread " << t;
        for (int i = 0; i < kPerThread; ++i) {
            ASSERT_EQ(s[static_cast<std::size_t>(i)], i) << "thread " << t;
        }
    }
}

TEST(Executor, PostFromTheLoopRunsAfterTheCurrentClosure) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    std::vector<int> order;
    ASSERT_TRUE(ex.post([&] {
        order.push_back(1);
        ex.post([&] { order.push_back(3); });
        order.push_back(2);
    }));
    ASSERT_TRUE(drain(ex));
    ASSERT_TRUE(drain(ex));  // the nested post may land in the batch after the first drain
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
}

// Posts from the loop thread skip the eventfd: a chain of them must still run to the end on its
// own (nothing else wakes the loop), from closures, timers and fd handlers alike, and a post
// from another thread that lands behind them is not lost.
TEST(Executor, PostsFromTheLoopRunWithoutAnyOtherWakeUp) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    pmix::exec::Completion<int> done;
    std::atomic<int> hops{0};
    std::function<void()> hop = [&] {
        if (hops.fetch_add(1) + 1 == 10000) {
            done.complete(hops.load());
            return;
        }
        ex.post([&] { hop(); });
    };
    ASSERT_TRUE(ex.post([&] { hop(); }));
    auto n = done.wait_for(std::chrono::seconds(10));
    ASSERT_TRUE(n.has_value());
    EXPECT_EQ(*n, 10000);
    pmix::exec::Completion<bool> from_timer;
    ex.run_after(std::chrono::milliseconds(1),
                 [&] { ex.post([from_timer] { from_timer.complete(true); }); });
    EXPECT_TRUE(from_timer.wait_for(std::chrono::seconds(10)).has_value());
    pmix::exec::Completion<bool> mixed;
    ASSERT_TRUE(ex.post([&] {
        ex.post([] {});  // queued by the loop, no wake-up
        std::thread([&] { ex.post([mixed] { mixed.complete(true); }); }).join();
    }));
    EXPECT_TRUE(mixed.wait_for(std::chrono::seconds(10)).has_value());
}

TEST(Executor, ExceptionsFromCallbacksAreContained) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    std::atomic<int> ran{0};
    ASSERT_TRUE(ex.post([] { throw std::runtime_error("posted closure failure (expected)"); }));
    ASSERT_TRUE(ex.post([] { throw 7; }));
    ASSERT_NE(ex.run_after(1ms, [] { throw std::logic_error("timer failure (expected)"); }),
              pmix::exec::kInvalidTimer);
    ASSERT_TRUE(ex.post([&] { ran.fetch_add(1); }));
    Completion<bool> after_timer;
    ex.run_after(5ms, [after_timer] { after_timer.complete(true); });
    EXPECT_TRUE(after_timer.wait_for(kWait).value_or(false));
    EXPECT_EQ(ran.load(), 1);
    EXPECT_TRUE(ex.running());
}

TEST(Executor, StopRunsWorkPostedBeforeItAndRefusesLaterWork) {
    auto ex = std::make_unique<Executor>();
    ASSERT_EQ(ex->start(), PMIX_SUCCESS);
    constexpr int kCount = 2000;
    std::atomic<int> ran{0};
    // The first closure holds the loop so that the rest are certainly still queued at stop().
    ASSERT_TRUE(ex->post([] { std::this_thread::sleep_for(50ms); }));
    for (int i = 0; i < kCount; ++i) {
        ASSERT_TRUE(ex->post([&ran] { ran.fetch_add(1); }));
    }
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(ex->stop(), PMIX_SUCCESS);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, kWait);
    EXPECT_EQ(ran.load(), kCount);
    EXPECT_FALSE(ex->running());
    auto refused_capture = std::make_shared<int>(0);
    EXPECT_FALSE(ex->post([refused_capture] {}));
    EXPECT_EQ(refused_capture.use_count(), 1);  // the refused closure was destroyed, not kept
    EXPECT_EQ(ex->stop(), PMIX_SUCCESS);        // second stop is a no-op
}

TEST(Executor, StopDestroysPendingTimersWithoutRunningThem) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    auto capture = std::make_shared<int>(0);
    std::atomic<bool> fired{false};
    ASSERT_NE(ex.run_after(1h, [capture, &fired] { fired = true; }), pmix::exec::kInvalidTimer);
    ASSERT_TRUE(drain(ex));
    EXPECT_EQ(capture.use_count(), 2);
    EXPECT_EQ(ex.stop(), PMIX_SUCCESS);
    EXPECT_FALSE(fired.load());
    EXPECT_EQ(capture.use_count(), 1);
}

TEST(Executor, StopFromTheLoopThreadIsWouldBlockThenJoinsLater) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    Completion<pmix_status_t> inner;
    ASSERT_TRUE(ex.post([&ex, inner] { inner.complete(ex.stop()); }));
    auto status = inner.wait_for(kWait);
    ASSERT_TRUE(status.has_value());
    EXPECT_EQ(*status, PMIX_ERR_WOULD_BLOCK);
    EXPECT_FALSE(ex.post([] {}));
    EXPECT_EQ(ex.stop(), PMIX_SUCCESS);
}

TEST(Executor, ConcurrentStopsAllReturn) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    ASSERT_TRUE(ex.post([] { std::this_thread::sleep_for(20ms); }));
    std::vector<std::thread> stoppers;
    std::atomic<int> ok{0};
    for (int i = 0; i < 4; ++i) {
        stoppers.emplace_back([&] {
            if (ex.stop() == PMIX_SUCCESS) {
                ok.fetch_add(1);
            }
        });
    }
    for (auto& t : stoppers) {
        t.join();
    }
    EXPECT_EQ(ok.load(), 4);
}

TEST(Executor, DestructorStopsARunningLoop) {
    std::atomic<int> ran{0};
    {
        Executor ex;
        ASSERT_EQ(ex.start(), PMIX_SUCCESS);
        for (int i = 0; i < 100; ++i) {
            ex.post([&ran] { ran.fetch_add(1); });
        }
    }
    EXPECT_EQ(ran.load(), 100);
}

TEST(Executor, TwoExecutorsKnowTheirOwnThreads) {
    Executor a("exec-a");
    Executor b("exec-b");
    ASSERT_EQ(a.start(), PMIX_SUCCESS);
    ASSERT_EQ(b.start(), PMIX_SUCCESS);
    Completion<std::pair<bool, bool>> seen;
    ASSERT_TRUE(a.post([&, seen] { seen.complete({a.on_loop_thread(), b.on_loop_thread()}); }));
    auto r = seen.wait_for(kWait);
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(r->first);
    EXPECT_FALSE(r->second);
}

}  // namespace
