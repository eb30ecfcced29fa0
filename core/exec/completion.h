// core/exec/completion.h - a one-shot result that another thread can wait for, with a timeout.
//
// This is how every blocking API is built (one implementation per operation: the blocking call is
// the non-blocking one plus a wait): start the non-blocking operation with a callback that calls
// complete(), then wait(). The waiting side and the completing side share one small state, so
// either may outlive the other: a callback that fires after its waiter gave up completes a state
// nobody reads, which is harmless.
//
// The deadlock rule: the progress thread must never block waiting for work that only the
// progress thread can do. wait() on a progress thread therefore returns PMIX_ERR_WOULD_BLOCK
// at once (unless the result is already there), which the C API hands to the caller as is.
#pragma once

#include <pmix_common.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

namespace pmix::exec {

// True on the progress thread of any Executor in this process (defined in executor.cpp).
bool on_progress_thread() noexcept;

template <class T>
struct Waited {
    pmix_status_t status = PMIX_ERR_TIMEOUT;  // SUCCESS, PMIX_ERR_TIMEOUT or PMIX_ERR_WOULD_BLOCK
    std::optional<T> value;                   // set exactly when status == PMIX_SUCCESS
};

template <class T>
class Completion {
public:
    Completion() : state_(std::make_shared<State>()) {}

    // Copies share the same result: hand one to the callback, keep one to wait on.
    Completion(const Completion&) = default;
    Completion& operator=(const Completion&) = default;

    // Stores the result and wakes every waiter. Only the first call counts; later calls return
    // false and drop their value.
    bool complete(T value) const {
        // Our own reference: once the value is set a waiter may return and drop the last other
        // copy (or the Completion this was called on) before notify_all runs; the state must
        // outlive the notification (ThreadSanitizer saw the condition variable destroyed while
        // it was being broadcast).
        const std::shared_ptr<State> state = state_;
        {
            std::lock_guard lock(state->mutex);
            if (state->value.has_value()) {
                return false;
            }
            state->value.emplace(std::move(value));
        }
        state->ready.notify_all();
        return true;
    }

    bool ready() const {
        std::lock_guard lock(state_->mutex);
        return state_->value.has_value();
    }

    // Waits up to `timeout`. A copyable result is copied out (so several parties may wait); a
    // move-only one is moved out, so only one waiter may take it.
    template <class Rep, class Period>
    Waited<T> wait(std::chrono::duration<Rep, Period> timeout) const {
        std::unique_lock lock(state_->mutex);
        if (!state_->value.has_value()) {
            if (on_progress_thread()) {
                return Waited<T>{PMIX_ERR_WOULD_BLOCK, std::nullopt};
            }
            if (!state_->ready.wait_for(lock, timeout,
                                        [this] { return state_->value.has_value(); })) {
                return Waited<T>{PMIX_ERR_TIMEOUT, std::nullopt};
            }
        }
        if constexpr (std::is_copy_constructible_v<T>) {
            return Waited<T>{PMIX_SUCCESS, *state_->value};
        } else {
            return Waited<T>{PMIX_SUCCESS, std::move(*state_->value)};
        }
    }

    // The result, or nothing on timeout / would-block (use wait() to tell those apart).
    template <class Rep, class Period>
    std::optional<T> wait_for(std::chrono::duration<Rep, Period> timeout) const {
        return wait(timeout).value;
    }

private:
    struct State {
        mutable std::mutex mutex;
        std::condition_variable ready;
        std::optional<T> value;
    };
    std::shared_ptr<State> state_;
};

}  // namespace pmix::exec
