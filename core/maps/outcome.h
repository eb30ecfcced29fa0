// core/maps/outcome.h - the result type of every fallible pmix::maps function.
//
// A status the C API can return unchanged, the value on success, and a sentence saying what was
// wrong otherwise (for logs and tests: the C API has no channel for it). Functions returning an
// Outcome throw nothing but std::bad_alloc.
#pragma once

#include <pmix_common.h>

#include <string>
#include <utility>

namespace pmix::maps {

template <class T>
struct Outcome {
    pmix_status_t status = PMIX_SUCCESS;
    T value{};
    std::string error;  // empty on success

    bool ok() const noexcept { return status == PMIX_SUCCESS; }

    static Outcome success(T v) { return Outcome{PMIX_SUCCESS, std::move(v), {}}; }
    static Outcome failure(pmix_status_t s, std::string why) {
        return Outcome{s, T{}, std::move(why)};
    }
};

// Carry a failure from an Outcome of one type into another.
template <class T, class U>
Outcome<T> forward_failure(const Outcome<U>& failed) {
    return Outcome<T>::failure(failed.status, failed.error);
}

}  // namespace pmix::maps
