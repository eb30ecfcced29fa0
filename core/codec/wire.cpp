// core/codec/wire.cpp - buffer growth and little-endian encoding for the Writer/Reader cursors.
#include "codec/wire.h"

#include "base/le.h"

#include <cstdlib>
#include <limits>

namespace pmix::codec::wire {
namespace {

// Small buffers grow by doubling from here; one PMIx message rarely needs more than a few KiB.
constexpr std::size_t kInitialCapacity = 256;

}  // namespace

bool buffer_ok(const pmix_data_buffer_t& buf) noexcept {
    if (buf.base_ptr == nullptr) {
        return buf.bytes_used == 0;
    }
    if (buf.bytes_used > buf.bytes_allocated) {
        return false;
    }
    // Compare as addresses: a foreign unpack_ptr may point anywhere.
    auto base = reinterpret_cast<std::uintptr_t>(buf.base_ptr);
    auto unpack = reinterpret_cast<std::uintptr_t>(buf.unpack_ptr);
    return unpack >= base && unpack - base <= buf.bytes_used;
}

Writer::Writer(pmix_data_buffer_t& buf) noexcept : buf_(buf), start_(buf.bytes_used) {}

bool Writer::reserve(std::size_t n) noexcept {
    std::size_t used = buf_.base_ptr == nullptr ? 0 : buf_.bytes_used;
    std::size_t have = buf_.base_ptr == nullptr ? 0 : buf_.bytes_allocated;
    if (n <= have - used) {
        return true;
    }
    if (n > std::numeric_limits<std::size_t>::max() - used) {
        return false;
    }
    std::size_t need = used + n;
    std::size_t cap = have < kInitialCapacity ? kInitialCapacity : have;
    while (cap < need) {
        cap = cap > std::numeric_limits<std::size_t>::max() / 2 ? need : cap * 2;
    }
    std::size_t unpack_off = buf_.base_ptr == nullptr ? 0 : buf_.unpack_ptr - buf_.base_ptr;
    auto* grown = static_cast<char*>(std::realloc(buf_.base_ptr, cap));
    if (grown == nullptr) {
        return false;
    }
    buf_.base_ptr = grown;
    buf_.bytes_allocated = cap;
    buf_.bytes_used = used;
    buf_.unpack_ptr = grown + unpack_off;
    buf_.pack_ptr = grown + used;
    return true;
}

bool Writer::bytes(const void* p, std::size_t n) noexcept {
    if (n == 0) {
        return true;
    }
    if (!reserve(n)) {
        return false;
    }
    std::memcpy(buf_.base_ptr + buf_.bytes_used, p, n);
    buf_.bytes_used += n;
    buf_.pack_ptr = buf_.base_ptr + buf_.bytes_used;
    return true;
}

bool Writer::u16(std::uint16_t v) noexcept {
    unsigned char b[2];
    le::store(b, v);
    return bytes(b, sizeof(b));
}

bool Writer::u32(std::uint32_t v) noexcept {
    unsigned char b[4];
    le::store(b, v);
    return bytes(b, sizeof(b));
}

bool Writer::u64(std::uint64_t v) noexcept {
    unsigned char b[8];
    le::store(b, v);
    return bytes(b, sizeof(b));
}

bool Writer::f32(float v) noexcept {
    static_assert(sizeof(float) == 4, "IEEE-754 binary32 expected");
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    return u32(bits);
}

bool Writer::f64(double v) noexcept {
    static_assert(sizeof(double) == 8, "IEEE-754 binary64 expected");
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof(bits));
    return u64(bits);
}

void Writer::patch_u32(std::size_t at, std::uint32_t v) noexcept {
    le::store(reinterpret_cast<unsigned char*>(buf_.base_ptr) + at, v);
}

void Writer::rollback() noexcept {
    if (buf_.base_ptr == nullptr) {
        return;
    }
    buf_.bytes_used = start_;
    buf_.pack_ptr = buf_.base_ptr + start_;
    // The unpack pointer never moves during a pack, and start_ >= its offset.
}

bool Reader::bytes(void* dst, std::size_t n) noexcept {
    const unsigned char* p = take(n);
    if (p == nullptr) {
        return false;
    }
    if (n != 0) {
        std::memcpy(dst, p, n);
    }
    return true;
}

bool Reader::u16(std::uint16_t& v) noexcept {
    const unsigned char* p = take(2);
    return p != nullptr && (v = le::load<std::uint16_t>(p), true);
}

bool Reader::u32(std::uint32_t& v) noexcept {
    const unsigned char* p = take(4);
    return p != nullptr && (v = le::load<std::uint32_t>(p), true);
}

bool Reader::u64(std::uint64_t& v) noexcept {
    const unsigned char* p = take(8);
    return p != nullptr && (v = le::load<std::uint64_t>(p), true);
}

bool Reader::i32(std::int32_t& v) noexcept {
    std::uint32_t u;
    return u32(u) && (v = static_cast<std::int32_t>(u), true);
}

bool Reader::i64(std::int64_t& v) noexcept {
    std::uint64_t u;
    return u64(u) && (v = static_cast<std::int64_t>(u), true);
}

bool Reader::f32(float& v) noexcept {
    std::uint32_t bits;
    return u32(bits) && (std::memcpy(&v, &bits, sizeof(v)), true);
}

bool Reader::f64(double& v) noexcept {
    std::uint64_t bits;
    return u64(bits) && (std::memcpy(&v, &bits, sizeof(v)), true);
}

}  // namespace pmix::codec::wire
