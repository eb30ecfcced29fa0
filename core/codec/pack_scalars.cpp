// core/codec/pack_scalars.cpp - fixed-width types: every integer-like PMIx type, bool, float,
// double, time and timeval. Each is stored as its width in little-endian order, so on a
// little-endian host an array of them is a single memcpy.
#include "codec/coders.h"

#include "data/scalar_width.h"

#include <bit>
#include <cstring>
#include <limits>
#include <sys/time.h>
#include <sys/types.h>

namespace pmix::codec::detail {
namespace {

// The wire widths below are fixed; the host types must match them for the raw copies.
static_assert(sizeof(int) == 4 && sizeof(unsigned int) == 4, "PMIX_INT/UINT are 32-bit");
static_assert(sizeof(pid_t) == 4, "PMIX_PID is 32-bit");
static_assert(sizeof(pmix_status_t) == 4, "PMIX_STATUS is 32-bit");
static_assert(sizeof(std::size_t) == 8, "PMIX_SIZE is 64-bit");
static_assert(sizeof(time_t) == 8, "PMIX_TIME is 64-bit");
static_assert(sizeof(bool) == 1, "PMIX_BOOL elements are one byte");

template <std::size_t W>
void swap_bytes(unsigned char* p) noexcept {
    for (std::size_t i = 0; i < W / 2; ++i) {
        unsigned char t = p[i];
        p[i] = p[W - 1 - i];
        p[W - 1 - i] = t;
    }
}

// n elements of width W, each a plain number in host order in memory.
template <std::size_t W>
pmix_status_t pack_raw(Writer& w, const void* elems, std::size_t n) noexcept {
    if (n > std::numeric_limits<std::size_t>::max() / W) {
        return PMIX_ERR_BAD_PARAM;
    }
    if constexpr (std::endian::native == std::endian::little || W == 1) {
        return put(w.bytes(elems, n * W));
    } else {
        if (!w.reserve(n * W)) {
            return PMIX_ERR_NOMEM;
        }
        const auto* src = static_cast<const unsigned char*>(elems);
        for (std::size_t i = 0; i < n; ++i) {
            unsigned char tmp[W];
            std::memcpy(tmp, src + i * W, W);
            swap_bytes<W>(tmp);
            w.bytes(tmp, W);
        }
        return PMIX_SUCCESS;
    }
}

template <std::size_t W>
pmix_status_t unpack_raw(Reader& r, void* elems, std::size_t n) noexcept {
    if (!r.fits(n, W)) {
        return wire::kShort;
    }
    const unsigned char* src = r.take(n * W);
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    std::memcpy(elems, src, n * W);
    if constexpr (std::endian::native != std::endian::little && W != 1) {
        auto* dst = static_cast<unsigned char*>(elems);
        for (std::size_t i = 0; i < n; ++i) {
            swap_bytes<W>(dst + i * W);
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t pack_bool(Writer& w, const void* elems, std::size_t n) noexcept {
    const bool* b = static_cast<const bool*>(elems);
    if (!w.reserve(n)) {
        return PMIX_ERR_NOMEM;
    }
    for (std::size_t i = 0; i < n; ++i) {
        w.u8(b[i] ? 1 : 0);
    }
    return PMIX_SUCCESS;
}

pmix_status_t unpack_bool(Reader& r, void* elems, std::size_t n) noexcept {
    const unsigned char* src = r.take(n);
    if (src == nullptr) {
        return wire::kShort;
    }
    bool* b = static_cast<bool*>(elems);
    for (std::size_t i = 0; i < n; ++i) {
        // Only 0 and 1 are ever written; anything else means the bytes are not ours.
        if (src[i] > 1) {
            return wire::kCorrupt;
        }
        b[i] = src[i] == 1;
    }
    return PMIX_SUCCESS;
}

pmix_status_t pack_tv(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* tv = static_cast<const struct timeval*>(elems);
    for (std::size_t i = 0; i < n; ++i) {
        if (pmix_status_t rc = pack_timeval(w, tv[i]); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t unpack_tv(Reader& r, void* elems, std::size_t n) noexcept {
    auto* tv = static_cast<struct timeval*>(elems);
    for (std::size_t i = 0; i < n; ++i) {
        if (pmix_status_t rc = unpack_timeval(r, tv[i]); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

constexpr Coder k_bool{sizeof(bool), 1, pack_bool, unpack_bool};
constexpr Coder k_w1{1, 1, pack_raw<1>, unpack_raw<1>};
constexpr Coder k_w2{2, 2, pack_raw<2>, unpack_raw<2>};
constexpr Coder k_w4{4, 4, pack_raw<4>, unpack_raw<4>};
constexpr Coder k_w8{8, 8, pack_raw<8>, unpack_raw<8>};
constexpr Coder k_tv{sizeof(struct timeval), 16, pack_tv, unpack_tv};

}  // namespace

pmix_status_t pack_timeval(Writer& w, const struct timeval& tv) noexcept {
    return put(w.i64(static_cast<std::int64_t>(tv.tv_sec)) &&
               w.i64(static_cast<std::int64_t>(tv.tv_usec)));
}

pmix_status_t unpack_timeval(Reader& r, struct timeval& tv) noexcept {
    std::int64_t sec = 0;
    std::int64_t usec = 0;
    if (!r.i64(sec) || !r.i64(usec)) {
        return wire::kShort;
    }
    tv.tv_sec = static_cast<time_t>(sec);
    tv.tv_usec = static_cast<suseconds_t>(usec);
    return PMIX_SUCCESS;
}

const Coder* scalar_coder(pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_BOOL:
            return &k_bool;
        case PMIX_TIMEVAL:
            return &k_tv;
        case PMIX_POINTER:
            return nullptr;  // an address means nothing in another process
        default:
            break;
    }
    // Every other fixed-width type travels as its width; float as its IEEE-754 bit pattern.
    switch (data::scalar_width(type)) {
        case 1:
            return &k_w1;
        case 2:
            return &k_w2;
        case 4:
            return &k_w4;
        case 8:
            return &k_w8;
        default:
            return nullptr;
    }
}

}  // namespace pmix::codec::detail
