// Completion: timed waits, cross-thread completion, first-result-wins, move-only results, and
// the deadlock rule (waiting on a progress thread is PMIX_ERR_WOULD_BLOCK).
#include "exec/completion.h"
#include "exec/executor.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using pmix::exec::Clock;
using pmix::exec::Completion;
using pmix::exec::Executor;

constexpr auto kCompletionWait = 10s;

TEST(Completion, WaitForTimesOutWithNothing) {
    Completion<int> never;
    auto t0 = Clock::now();
    auto r = never.wait(40ms);
    auto waited = Clock::now() - t0;
    EXPECT_EQ(r.status, PMIX_ERR_TIMEOUT);
    EXPECT_FALSE(r.value.has_value());
    EXPECT_GE(waited, 40ms);
    EXPECT_LT(waited, 5s);
    EXPECT_FALSE(never.wait_for(1ms).has_value());
    EXPECT_FALSE(never.ready());
}

TEST(Completion, ZeroTimeoutPollsWithoutBlocking) {
    Completion<int> c;
    EXPECT_FALSE(c.wait_for(0ms).has_value());
    c.complete(3);
    EXPECT_EQ(c.wait_for(0ms).value_or(0), 3);
}

TEST(Completion, CompletionFromAnotherThreadWakesTheWaiter) {
    Completion<std::string> c;
    std::thread producer([c] {
        std::this_thread::sleep_for(20ms);
        c.complete("done");
    });
    auto r = c.wait(kCompletionWait);
    producer.join();
    EXPECT_EQ(r.status, PMIX_SUCCESS);
    EXPECT_EQ(r.value.value_or(""), "done");
    EXPECT_TRUE(c.ready());
}

TEST(Completion, FirstResultWinsAndEveryWaiterSeesIt) {
    Completion<int> c;
    std::vector<std::thread> waiters;
    std::vector<int> got(8, -1);
    for (std::size_t i = 0; i < got.size(); ++i) {
        waiters.emplace_back([c, &got, i] { got[i] = c.wait_for(kCompletionWait).value_or(-2); });
    }
    EXPECT_TRUE(c.complete(1));
    EXPECT_FALSE(c.complete(2));
    for (auto& t : waiters) {
        t.join();
    }
    for (int v : got) {
        EXPECT_EQ(v, 1);
    }
}

TEST(Completion, MoveOnlyResultIsMovedOut) {
    Completion<std::unique_ptr<int>> c;
    c.complete(std::make_unique<int>(9));
    auto r = c.wait_for(kCompletionWait);
    ASSERT_TRUE(r.has_value());
    ASSERT_NE(*r, nullptr);
    EXPECT_EQ(**r, 9);
}

TEST(Completion, LateCompletionAfterTheWaiterGaveUpIsHarmless) {
    std::thread late;
    {
        Completion<int> c;
        EXPECT_FALSE(c.wait_for(5ms).has_value());
        late = std::thread([c] {
            std::this_thread::sleep_for(10ms);
            c.complete(1);  // the waiter's copy is gone; the shared state keeps this safe
        });
    }
    late.join();
    SUCCEED() << "no crash, no leak (checked under ASan)";
}

TEST(Completion, WaitingOnTheProgressThreadIsWouldBlock) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    Completion<int> pending;
    Completion<pmix_status_t> outcome;
    auto t0 = Clock::now();
    ASSERT_TRUE(ex.post([pending, outcome] {
        // Only this thread could complete `pending`: blocking here would deadlock.
        outcome.complete(pending.wait(5s).status);
    }));
    EXPECT_EQ(outcome.wait_for(kCompletionWait).value_or(PMIX_SUCCESS), PMIX_ERR_WOULD_BLOCK);
    EXPECT_LT(Clock::now() - t0, 4s);  // returned at once, not after the 5 s timeout
    EXPECT_FALSE(pmix::exec::on_progress_thread());
}

TEST(Completion, AReadyResultIsReturnedEvenOnTheProgressThread) {
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    Completion<int> ready;
    ready.complete(5);
    Completion<int> seen;
    ASSERT_TRUE(ex.post([ready, seen] {
        auto r = ready.wait(1s);
        seen.complete(r.status == PMIX_SUCCESS ? r.value.value_or(-1) : -1);
    }));
    EXPECT_EQ(seen.wait_for(kCompletionWait).value_or(0), 5);
}

TEST(Completion, BlockingCallBuiltFromAsyncPlusWait) {
    // The pattern every blocking API follows: start the async twin, wait with a timeout.
    Executor ex;
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    auto async_square = [&ex](int x, auto done) { ex.run_after(2ms, [x, done] { done(x * x); }); };
    Completion<int> result;
    async_square(7, [result](int v) { result.complete(v); });
    auto r = result.wait(kCompletionWait);
    EXPECT_EQ(r.status, PMIX_SUCCESS);
    EXPECT_EQ(r.value.value_or(0), 49);
}

}  // namespace
