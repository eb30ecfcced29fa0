// wire/result.h - the return type of every fallible wire function that produces a value.
//
// A status the caller can hand to the C API unchanged, the value on success, and a sentence
// saying what went wrong (for logs and close reasons: a status code alone cannot say "pid
// mismatch: hello says 12, the socket says 13").
#pragma once

#include <pmix_common.h>

#include <string>
#include <utility>

namespace pmix::wire {

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

}  // namespace pmix::wire
