// core/codec/wire.h - internal to core/codec: the byte-level format and the two cursors every
// packer uses. Writer appends to a pmix_data_buffer_t and can undo everything it wrote; Reader
// walks a byte range and never reads past its end. All multi-byte numbers are little-endian.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace pmix::codec::wire {

// A batch (one PMIx_Data_pack call) starts with this tag byte: high nibble 0xA marks a batch,
// low nibble is the format version. A reader meeting any other byte refuses the batch.
inline constexpr std::uint8_t kBatchTag = 0xA1;
// tag u8 + type u16 + count u32
inline constexpr std::size_t kBatchHeaderSize = 7;
// String length that encodes a NULL char* (distinct from "", which is length 0).
inline constexpr std::uint32_t kNullString = 0xFFFFFFFFu;
// Nesting limit for values inside arrays inside values...: a hostile buffer must not be able to
// exhaust the stack, and a cyclic in-memory structure must not recurse forever when packed.
inline constexpr int kMaxDepth = 64;

// Status for "the bytes ran out": truncated input or a count/length larger than what is left.
inline constexpr pmix_status_t kShort = PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
// Status for bytes that are present but cannot be valid (bad tag, bad marker, over-long key).
inline constexpr pmix_status_t kCorrupt = PMIX_ERR_UNPACK_FAILURE;

// True when the buffer's fields describe a state we can work with: either empty (no base) or
// base/bytes_used/bytes_allocated consistent and the unpack pointer inside the used bytes.
bool buffer_ok(const pmix_data_buffer_t& buf) noexcept;

class Writer {
public:
    // `buf` must satisfy buffer_ok(). Everything written can be undone with rollback().
    explicit Writer(pmix_data_buffer_t& buf) noexcept;

    bool reserve(std::size_t n) noexcept;  // room for n more bytes; false on overflow/ENOMEM
    bool bytes(const void* p, std::size_t n) noexcept;
    bool u8(std::uint8_t v) noexcept { return bytes(&v, 1); }
    bool u16(std::uint16_t v) noexcept;
    bool u32(std::uint32_t v) noexcept;
    bool u64(std::uint64_t v) noexcept;
    bool i32(std::int32_t v) noexcept { return u32(static_cast<std::uint32_t>(v)); }
    bool i64(std::int64_t v) noexcept { return u64(static_cast<std::uint64_t>(v)); }
    bool f32(float v) noexcept;
    bool f64(double v) noexcept;

    // Overwrite 4 bytes already written at absolute offset `at` (used for deferred counts).
    void patch_u32(std::size_t at, std::uint32_t v) noexcept;
    std::size_t size() const noexcept { return buf_.bytes_used; }
    void rollback() noexcept;

    // Nesting guard for recursive packers; false when kMaxDepth would be exceeded.
    bool enter() noexcept { return ++depth_ <= kMaxDepth; }
    void leave() noexcept { --depth_; }

private:
    pmix_data_buffer_t& buf_;
    std::size_t start_;
    int depth_ = 0;
};

class Reader {
public:
    Reader(const unsigned char* data, std::size_t size) noexcept : data_(data), size_(size) {}

    std::size_t pos() const noexcept { return pos_; }
    std::size_t remaining() const noexcept { return size_ - pos_; }
    // True when `count` items of at least `min_each` bytes could still be present. Checked before
    // any allocation sized by a count read from the wire.
    bool fits(std::uint64_t count, std::size_t min_each) const noexcept {
        return min_each == 0 ? count <= remaining() : count <= remaining() / min_each;
    }

    // Pointer to the next n bytes (consumed), or nullptr when fewer than n remain.
    const unsigned char* take(std::size_t n) noexcept {
        if (n > remaining()) {
            return nullptr;
        }
        const unsigned char* p = data_ + pos_;
        pos_ += n;
        return p;
    }
    bool bytes(void* dst, std::size_t n) noexcept;
    bool u8(std::uint8_t& v) noexcept { return bytes(&v, 1); }
    bool u16(std::uint16_t& v) noexcept;
    bool u32(std::uint32_t& v) noexcept;
    bool u64(std::uint64_t& v) noexcept;
    bool i32(std::int32_t& v) noexcept;
    bool i64(std::int64_t& v) noexcept;
    bool f32(float& v) noexcept;
    bool f64(double& v) noexcept;

    bool enter() noexcept { return ++depth_ <= kMaxDepth; }
    void leave() noexcept { --depth_; }

private:
    const unsigned char* data_;
    std::size_t size_;
    std::size_t pos_ = 0;
    int depth_ = 0;
};

// RAII nesting guard: `Nest g(w); if (!g) return ...;`
template <typename Cursor>
class Nest {
public:
    explicit Nest(Cursor& c) noexcept : c_(c), ok_(c.enter()) {}
    ~Nest() { c_.leave(); }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    explicit operator bool() const noexcept { return ok_; }

private:
    Cursor& c_;
    bool ok_;
};

}  // namespace pmix::codec::wire
