// Timers (delay, ordering, cancellation from the loop and from elsewhere) and fd watches
// (readiness, set_events, unwatch from inside the handler, loop-thread-only registration).
#include "exec/completion.h"
#include "exec/executor.h"
#include "exec/unique_fd.h"

#include <gtest/gtest.h>

#include <sys/epoll.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using pmix::exec::Clock;
using pmix::exec::Completion;
using pmix::exec::Executor;
using pmix::exec::TimerId;
using pmix::exec::UniqueFd;
using pmix::exec::WatchId;

constexpr auto kFdWait = 10s;

class ExecutorTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(ex.start(), PMIX_SUCCESS); }

    // Runs `fn` on the loop thread and returns its result.
    template <class Fn>
    auto on_loop(Fn fn) -> decltype(fn()) {
        Completion<decltype(fn())> result;
        EXPECT_TRUE(ex.post([&fn, result] { result.complete(fn()); }));
        auto r = result.wait_for(kFdWait);
        EXPECT_TRUE(r.has_value());
        return r.value_or(decltype(fn()){});
    }

    Executor ex;
};

TEST_F(ExecutorTest, TimerFiresNoEarlierThanItsDelay) {
    Completion<Clock::time_point> fired;
    auto start = Clock::now();
    ASSERT_NE(ex.run_after(30ms, [fired] { fired.complete(Clock::now()); }),
              pmix::exec::kInvalidTimer);
    auto when = fired.wait_for(kFdWait);
    ASSERT_TRUE(when.has_value());
    EXPECT_GE(*when - start, 30ms);
}

TEST_F(ExecutorTest, TimersFireInDeadlineOrder) {
    static constexpr int kTimers = 60;
    std::vector<int> delays_ms(kTimers);
    std::mt19937 rng(12345);
    for (auto& d : delays_ms) {
        d = static_cast<int>(rng() % 40);  // plenty of equal deadlines: ties go by creation
    }
    std::vector<int> fired;  // loop thread only
    Completion<bool> all;
    // Scheduled from one closure on the loop thread against one base time, so the expected
    // order is exact however slow the machine is: by deadline, then by creation.
    ASSERT_TRUE(ex.post([&] {
        auto base = Clock::now() + 5ms;
        for (int i = 0; i < kTimers; ++i) {
            ex.run_at(base + std::chrono::milliseconds(delays_ms[static_cast<std::size_t>(i)]),
                      [&fired, all, i] {
                          fired.push_back(i);
                          if (fired.size() == kTimers) {
                              all.complete(true);
                          }
                      });
        }
    }));
    ASSERT_TRUE(all.wait_for(kFdWait).value_or(false));
    std::vector<int> expected(kTimers);
    for (int i = 0; i < kTimers; ++i) {
        expected[static_cast<std::size_t>(i)] = i;
    }
    std::stable_sort(expected.begin(), expected.end(), [&](int a, int b) {
        return delays_ms[static_cast<std::size_t>(a)] < delays_ms[static_cast<std::size_t>(b)];
    });
    EXPECT_EQ(fired, expected);
}

TEST_F(ExecutorTest, CancelOnTheLoopThreadStopsTheTimer) {
    std::atomic<bool> fired{false};
    bool cancelled = on_loop([&] {
        TimerId id = ex.run_after(20ms, [&fired] { fired = true; });
        return ex.cancel(id);
    });
    EXPECT_TRUE(cancelled);
    std::this_thread::sleep_for(80ms);
    EXPECT_FALSE(fired.load());
    EXPECT_EQ(on_loop([&] { return ex.timer_count(); }), 0u);
}

TEST_F(ExecutorTest, CancelFromAnotherThreadBeforeTheDeadline) {
    std::atomic<bool> fired{false};
    TimerId id = ex.run_after(100ms, [&fired] { fired = true; });
    ASSERT_NE(id, pmix::exec::kInvalidTimer);
    EXPECT_FALSE(ex.cancel(id));  // queued: the answer comes only on the loop thread
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(fired.load());
}

// Cancelling the earliest timer leaves the timerfd armed for it (it fires once, finds nothing
// due and re-arms): the later timer must still fire, no earlier than its own deadline.
TEST_F(ExecutorTest, CancellingTheEarliestTimerKeepsTheLaterOnes) {
    Completion<Clock::time_point> later;
    const auto start = Clock::now();
    const bool cancelled = on_loop([&] {
        TimerId first = ex.run_after(5ms, [] { ADD_FAILURE() << "cancelled timer ran"; });
        ex.run_after(40ms, [later] { later.complete(Clock::now()); });
        return ex.cancel(first);
    });
    EXPECT_TRUE(cancelled);
    auto when = later.wait_for(kFdWait);
    ASSERT_TRUE(when.has_value());
    EXPECT_GE(*when - start, 40ms);
    // And a timer earlier than the standing arming re-arms the timerfd earlier.
    Completion<Clock::time_point> soon;
    const auto again = Clock::now();
    on_loop([&] {
        ex.run_after(10s, [] {});
        ex.run_after(20ms, [soon] { soon.complete(Clock::now()); });
        return true;
    });
    auto fired = soon.wait_for(kFdWait);
    ASSERT_TRUE(fired.has_value());
    EXPECT_GE(*fired - again, 20ms);
    EXPECT_LT(*fired - again, 5s);
}

TEST_F(ExecutorTest, CancelAfterFiringReportsFalse) {
    Completion<TimerId> fired;
    TimerId id = ex.run_after(1ms, [] {});
    ex.run_after(20ms, [fired, id] { fired.complete(id); });
    ASSERT_TRUE(fired.wait_for(kFdWait).has_value());
    EXPECT_FALSE(on_loop([&] { return ex.cancel(id); }));
    EXPECT_FALSE(on_loop([&] { return ex.cancel(pmix::exec::kInvalidTimer); }));
}

TEST_F(ExecutorTest, ManyCancelledTimersDoNotAccumulate) {
    // Request timeouts are cancelled when the answer arrives; they must not pile up.
    std::size_t pending = on_loop([&] {
        for (int i = 0; i < 50000; ++i) {
            ex.cancel(ex.run_after(1h, [] {}));
        }
        return ex.timer_count();
    });
    EXPECT_EQ(pending, 0u);
    Completion<bool> still_works;
    ex.run_after(1ms, [still_works] { still_works.complete(true); });
    EXPECT_TRUE(still_works.wait_for(kFdWait).value_or(false));
}

TEST_F(ExecutorTest, TimerCallbackCanScheduleAnother) {
    Completion<int> chain;
    auto count = std::make_shared<int>(0);
    std::function<void()> step;  // test-only recursion helper
    step = [&, count] {
        if (++*count == 5) {
            chain.complete(*count);
        } else {
            ex.run_after(1ms, [&step] { step(); });
        }
    };
    ex.run_after(1ms, [&step] { step(); });
    EXPECT_EQ(chain.wait_for(kFdWait).value_or(0), 5);
}

TEST_F(ExecutorTest, FdReadinessCallsTheHandler) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    UniqueFd rd(p[0]), wr(p[1]);
    Completion<char> got;
    WatchId id = on_loop([&] {
        return ex.watch_fd(rd.get(), EPOLLIN, [&rd, got](std::uint32_t events) {
            char c = 0;
            if ((events & EPOLLIN) != 0 && ::read(rd.get(), &c, 1) == 1) {
                got.complete(c);
            }
        });
    });
    ASSERT_NE(id, pmix::exec::kInvalidWatch);
    ASSERT_EQ(::write(wr.get(), "x", 1), 1);
    EXPECT_EQ(got.wait_for(kFdWait).value_or('?'), 'x');
    EXPECT_TRUE(on_loop([&] { return ex.unwatch(id); }));
    EXPECT_FALSE(on_loop([&] { return ex.unwatch(id); }));
    EXPECT_EQ(on_loop([&] { return ex.watch_count(); }), 0u);
}

TEST_F(ExecutorTest, SetEventsSwitchesInterest) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    UniqueFd rd(p[0]), wr(p[1]);
    Completion<bool> writable;
    auto calls = std::make_shared<std::atomic<int>>(0);
    WatchId id = on_loop([&] {
        // No interest at first: an empty pipe's write end is writable, but nobody asked.
        return ex.watch_fd(wr.get(), 0, [calls, writable](std::uint32_t events) {
            calls->fetch_add(1);
            if ((events & EPOLLOUT) != 0) {
                writable.complete(true);
            }
        });
    });
    ASSERT_NE(id, pmix::exec::kInvalidWatch);
    std::this_thread::sleep_for(30ms);
    EXPECT_EQ(calls->load(), 0);
    EXPECT_TRUE(on_loop([&] { return ex.set_events(id, EPOLLOUT); }));
    EXPECT_TRUE(writable.wait_for(kFdWait).value_or(false));
    EXPECT_TRUE(on_loop([&] { return ex.unwatch(id); }));
    EXPECT_FALSE(on_loop([&] { return ex.set_events(id, EPOLLOUT); }));
}

TEST_F(ExecutorTest, UnwatchInsideTheHandlerStopsFurtherCalls) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    UniqueFd rd(p[0]), wr(p[1]);
    ASSERT_EQ(::write(wr.get(), "data", 4), 4);  // stays readable: level-triggered would repeat
    auto calls = std::make_shared<std::atomic<int>>(0);
    auto id = std::make_shared<WatchId>(pmix::exec::kInvalidWatch);
    on_loop([&] {
        *id = ex.watch_fd(rd.get(), EPOLLIN, [this, calls, id](std::uint32_t) {
            calls->fetch_add(1);
            ex.unwatch(*id);  // destroys this very handler - only after it returns
        });
        return *id;
    });
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(calls->load(), 1);
    EXPECT_EQ(id.use_count(), 1);  // the handler (and its captures) is gone
}

TEST_F(ExecutorTest, FdRegistrationIsRefusedOffTheLoopThread) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    UniqueFd rd(p[0]), wr(p[1]);
    EXPECT_EQ(ex.watch_fd(rd.get(), EPOLLIN, [](std::uint32_t) {}), pmix::exec::kInvalidWatch);
    EXPECT_FALSE(ex.unwatch(12345));
    EXPECT_FALSE(ex.set_events(12345, EPOLLIN));
    // A bad descriptor is refused on the loop thread too.
    EXPECT_EQ(on_loop([&] { return ex.watch_fd(-1, EPOLLIN, [](std::uint32_t) {}); }),
              pmix::exec::kInvalidWatch);
}

TEST_F(ExecutorTest, HangUpIsReported) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    UniqueFd rd(p[0]), wr(p[1]);
    Completion<std::uint32_t> seen;
    WatchId id = on_loop([&] {
        return ex.watch_fd(rd.get(), EPOLLIN,
                           [seen](std::uint32_t events) { seen.complete(events); });
    });
    wr.reset();
    auto events = seen.wait_for(kFdWait);
    ASSERT_TRUE(events.has_value());
    EXPECT_NE(*events & EPOLLHUP, 0u);
    EXPECT_TRUE(on_loop([&] { return ex.unwatch(id); }));
}

}  // namespace
