// capi/shim_support.h - helpers shared by every C entry point in capi/*.cpp.
//
// A shim checks its arguments, calls one C++ function and maps the outcome to a pmix_status_t.
// Nothing may unwind out of a shim into C code, so every body runs inside one of the guard
// functions below: they are noexcept and turn an escaping exception into a status.
//
// Why not mark the shims themselves `noexcept`? In C++17 and later the exception specification is
// part of the function type, and the public headers declare the PMIx_* functions without one;
// a `noexcept` definition then conflicts with the header's declaration (g++: "declaration ... has
// a different exception specifier"). The guards give the same guarantee without touching the
// headers:
//
//     pmix_status_t PMIx_Foo(const char* in, char** out) {
//         return pmix::capi::guarded([&] {
//             if (pmix::capi::any_null(in, out)) return PMIX_ERR_BAD_PARAM;
//             return pmix::foo::do_it(in, out);
//         });
//     }
//
// A parameter of enum type that callers may fill with any integer (PMIx_Value_comparison_string)
// goes into the lambda as an integer capture, not by reference: UBSan reports a load of an
// out-of-range value through an enum lvalue.
#pragma once

#include <pmix_common.h>

#include <cerrno>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string_view>
#include <utility>

namespace pmix::capi {

// Run `body` (which returns pmix_status_t). std::bad_alloc becomes PMIX_ERR_NOMEM, anything else
// PMIX_ERROR: a C caller can act on both, and neither leaks a C++ type across the boundary.
template <class Body>
pmix_status_t guarded(Body&& body) noexcept {
    try {
        return std::forward<Body>(body)();
    } catch (const std::bad_alloc&) {
        return PMIX_ERR_NOMEM;
    } catch (...) {
        return PMIX_ERROR;
    }
}

// For entry points that return something other than a status (a pointer, a bool, an enum):
// `fallback` is what the caller sees if `body` throws.
template <class T, class Body>
T guarded_or(T fallback, Body&& body) noexcept {
    try {
        return std::forward<Body>(body)();
    } catch (...) {
        return fallback;
    }
}

// For void entry points (destructors, releases): there is no way to report a failure, so the
// exception is dropped after the body has done whatever it could.
template <class Body>
void guarded_void(Body&& body) noexcept {
    try {
        std::forward<Body>(body)();
    } catch (...) {
    }
}

// True when any of the given pointers is NULL (the usual PMIX_ERR_BAD_PARAM check).
template <class... P>
constexpr bool any_null(const P*... pointers) noexcept {
    return ((pointers == nullptr) || ...);
}

// An array argument is valid when it is non-NULL or its count is zero (the Standard allows
// `NULL, 0` for "no entries").
template <class T>
constexpr bool bad_array(const T* array, std::size_t count) noexcept {
    return array == nullptr && count > 0;
}

// Copy `text` into a malloc'd, NUL-terminated string the C caller releases with free(). Returns
// PMIX_ERR_NOMEM (and leaves *out untouched) when the allocation fails.
inline pmix_status_t dup_string(std::string_view text, char** out) noexcept {
    auto* copy = static_cast<char*>(std::malloc(text.size() + 1));
    if (copy == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    if (!text.empty()) {
        std::memcpy(copy, text.data(), text.size());
    }
    copy[text.size()] = '\0';
    *out = copy;
    return PMIX_SUCCESS;
}

// Map an errno value (from a system call or a C library used inside) to the closest PMIx status.
constexpr pmix_status_t status_from_errno(int err) noexcept {
    switch (err) {
        case 0:
            return PMIX_SUCCESS;
        case ENOMEM:
            return PMIX_ERR_NOMEM;
        case EINVAL:
        case ERANGE:
            return PMIX_ERR_BAD_PARAM;
        case ENOENT:
            return PMIX_ERR_NOT_FOUND;
        case EACCES:
        case EPERM:
            return PMIX_ERR_NO_PERMISSIONS;
        case ENOSYS:
        case ENOTSUP:
            return PMIX_ERR_NOT_SUPPORTED;
        case ETIMEDOUT:
            return PMIX_ERR_TIMEOUT;
        case EAGAIN:
            return PMIX_ERR_RESOURCE_BUSY;
        case ECONNREFUSED:
        case ECONNRESET:
        case EPIPE:
            return PMIX_ERR_UNREACH;
        default:
            return PMIX_ERROR;
    }
}

}  // namespace pmix::capi
