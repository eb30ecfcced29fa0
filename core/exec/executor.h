// core/exec/executor.h - the progress thread: one epoll loop that owns sockets and timers and
// runs posted work in order (docs/ARCHITECTURE.md describes the threads of each process).
//
// Threading contract:
// - post(), run_after(), cancel(), stop() and on_loop_thread() may be called from any thread.
// - watch_fd(), set_events() and unwatch() must be called on the loop thread (from a posted
//   closure, a timer or another fd handler): file descriptors are the progress thread's mutable
//   state, and doing the registration there means a handler can never run after unwatch()
//   returns. Called from elsewhere they fail (kInvalidWatch / false) and log why.
// - Closures posted from one thread run in the order they were posted. Closures posted while
//   the loop runs a batch go to the next batch, after pending fd events, so a busy poster cannot
//   starve sockets.
// - Nothing a callback throws escapes: it is logged (error level, exec/log.h) and the loop goes on.
//
// Stopping: stop() refuses further posts, lets the loop finish the closures already posted,
// then joins. Timers that have not fired and fd watches are destroyed without being called.
// An Executor must outlive everything that posts to it or registers with it.
#pragma once

#include "exec/unique_fd.h"
#include "exec/unique_function.h"

#include <pmix_common.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <queue>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace pmix::exec {

using Clock = std::chrono::steady_clock;
using WatchId = std::uint64_t;
using TimerId = std::uint64_t;
inline constexpr WatchId kInvalidWatch = 0;
inline constexpr TimerId kInvalidTimer = 0;

class Executor {
public:
    using Task = UniqueFunction<void()>;
    // Called with the epoll event bits that fired (EPOLLIN, EPOLLOUT, EPOLLHUP, ...).
    using FdHandler = UniqueFunction<void(std::uint32_t)>;

    explicit Executor(std::string name = "pmix-progress");
    ~Executor();  // stop()
    Executor(const Executor&) = delete;
    Executor& operator=(const Executor&) = delete;

    // Creates the epoll/eventfd/timerfd descriptors and the thread. PMIX_ERR_INIT if already
    // started or stopped, PMIX_ERR_OUT_OF_RESOURCE if the kernel refuses a descriptor/thread.
    pmix_status_t start();

    // Stops and joins (see the header comment). Safe to call twice and from the destructor.
    // On the loop thread itself it only requests the stop and returns PMIX_ERR_WOULD_BLOCK:
    // a thread cannot join itself; the join happens in a later stop() or the destructor.
    pmix_status_t stop();
    // stop() that gives up after `limit` when the running callback does not return (it blocks in
    // someone else's code): PMIX_ERR_TIMEOUT, the thread detached and left to end by itself once
    // that callback returns. The caller must then keep this Executor (and what its callbacks
    // use) alive for good: the thread still uses it.
    pmix_status_t stop_within(std::chrono::milliseconds limit);

    bool running() const noexcept { return accepting_.load(std::memory_order_acquire); }
    bool on_loop_thread() const noexcept;

    // Queues `task`. False (and `task` is destroyed here) once stop() has begun or before start().
    bool post(Task task);

    // Runs `task` on the loop thread after `delay`. Returns an id for cancel(), or
    // kInvalidTimer if the executor is not running.
    TimerId run_after(Clock::duration delay, Task task);
    TimerId run_at(Clock::time_point when, Task task);
    // On the loop thread: true if the timer was pending and now will never run. From another
    // thread the cancellation is queued and the result is false: a timer that is due may
    // still fire before the cancellation runs.
    bool cancel(TimerId id);

    // Loop thread only. `events` is an EPOLL* mask (level-triggered). The handler runs on the
    // loop thread for every readiness report until unwatch(). kInvalidWatch on failure.
    WatchId watch_fd(int fd, std::uint32_t events, FdHandler handler);
    bool set_events(WatchId id, std::uint32_t events);
    // The handler is never called again after this returns; if it is the handler currently
    // running, it is destroyed once it returns.
    bool unwatch(WatchId id);

    // Diagnostics for tests: number of live watches / pending timers (loop thread or stopped).
    std::size_t watch_count() const noexcept { return watches_.size(); }
    std::size_t timer_count() const noexcept { return timers_.size(); }

private:
    struct Watch {
        int fd;
        FdHandler handler;
    };
    struct TimerKey {
        Clock::time_point when;
        TimerId id;
        bool operator>(const TimerKey& o) const noexcept {
            return when != o.when ? when > o.when : id > o.id;
        }
    };

    void run() noexcept;
    void dispatch(std::uint64_t key, std::uint32_t events);
    void run_posted();
    void fire_due_timers();
    void rearm_timerfd();
    void add_timer(TimerId id, Clock::time_point when, Task task);
    void drain_and_release() noexcept;
    void wake() noexcept;

    std::string name_;
    UniqueFd epoll_;
    UniqueFd wake_fd_;   // eventfd: a post() or stop() happened
    UniqueFd timer_fd_;  // timerfd armed at the earliest pending deadline
    std::thread thread_;
    std::atomic<std::thread::id> loop_id_{};

    std::mutex post_mutex_;
    std::vector<Task> posted_;  // guarded by post_mutex_
    std::atomic<bool> accepting_{false};
    std::atomic<bool> stop_requested_{false};
    bool started_ = false;  // guarded by post_mutex_

    // Loop-thread state.
    std::unordered_map<WatchId, std::unique_ptr<Watch>> watches_;
    std::vector<std::unique_ptr<Watch>> retired_;  // unwatched during a dispatch; freed after it
    WatchId next_watch_ = 16;                      // ids below 16 tag internal descriptors
    std::priority_queue<TimerKey, std::vector<TimerKey>, std::greater<>> timer_heap_;
    std::unordered_map<TimerId, Task> timers_;
    std::atomic<TimerId> next_timer_{1};
    Clock::time_point armed_for_ = Clock::time_point::max();
    bool self_posted_ = false;  // the loop posted to itself: run the queue after this poll

    // stop() waits on this rather than a bare join so it can report a stuck callback.
    std::mutex exit_mutex_;
    std::condition_variable exit_cv_;
    bool exited_ = false;  // guarded by exit_mutex_
};

}  // namespace pmix::exec
