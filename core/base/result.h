// core/base/result.h - the return type of every fallible function that produces a value (wire's
// sockets and handshakes, maps' parsers, the client's connection planning).
//
// A status the caller can hand to the C API unchanged, the value on success, and a sentence
// saying what went wrong (for logs, close reasons and tests: a status code alone cannot say "pid
// mismatch: hello says 12, the socket says 13"). Functions returning a Result throw nothing but
// std::bad_alloc.
#pragma once

#include <pmix_common.h>

#include <string>
#include <utility>

namespace pmix {

template <class T>
struct Result {
    pmix_status_t status = PMIX_SUCCESS;
    T value{};
    std::string error;  // empty on success

    bool ok() const noexcept { return status == PMIX_SUCCESS; }

    static Result success(T v) { return Result{PMIX_SUCCESS, std::move(v), {}}; }
    static Result failure(pmix_status_t s, std::string why) {
        return Result{s, T{}, std::move(why)};
    }
};

// Carries a failure from a Result of one type into another.
template <class T, class U>
Result<T> forward_failure(const Result<U>& failed) {
    return Result<T>::failure(failed.status, failed.error);
}

}  // namespace pmix
