// core/codec/wire.h - internal to core/codec: the byte-level format and the two cursors every
// packer uses. Writer appends to a pmix_data_buffer_t and can undo everything it wrote; Reader
// walks a byte range and never reads past its end. All multi-byte numbers are little-endian.
//
// The format (version 1): numbers little-endian and fixed width. One pack call appends one batch:
// tag u8 (kBatchTag), type u16 (pmix_data_type_t), count u32, then `count` elements:
//   BOOL                        u8, 0 or 1 (anything else is refused)
//   1 / 2 / 4 / 8-byte scalars  their width (data/scalar_width.h); FLOAT/DOUBLE as IEEE-754 bits
//   TIMEVAL                     i64 seconds, i64 microseconds
//   STRING, REGEX (top level)   u32 length + bytes (no NUL); length kNullString = NULL
//   BYTE_OBJECT, COMPRESSED_*   u64 size + bytes (size 0 = NULL)
//   PROC_NSPACE / PROC          string of at most 255 chars / that plus u32 rank
//   POINTER                     u8 "was non-NULL"; always unpacks as NULL (addresses do not travel)
//   ENVAR                       envar string, value string, u8 separator
//   VALUE                       u16 type, then the element (none for UNDEF; a REGEX value as a
//                               u64 size + the bytes of data.bo)
//   INFO                        key (<= 511 chars), u32 flags without PMIX_INFO_PERSISTENT, value
//   PDATA / KVAL                proc, key, value / key, u8 has-value, value
//   DATA_ARRAY                  u16 type, u32 count, elements (UNDEF: count 0)
//   APP / QUERY                 cmd, argv, env, cwd, i32 maxprocs, u32 n + infos / keys argv,
//                               u32 n + qualifiers; an argv is u32 count + strings (0 = NULL argv)
//   PROC_INFO                   proc, hostname, executable, i32 pid, i32 exit code, u8 state
//   COORD, GEOMETRY, DEVICE_DIST, ENDPOINT, REGATTR   their fields in declaration order
//   PROC_CPUSET / TOPO          hwloc list string ("0-3,8") / hwloc XML; NULL when absent; the
//                               source becomes "hwloc"
//   PROC/DISK/NET/NODE_STATS    their fields in declaration order (PROC_STATS keeps peak_vsize)
//   DATA_BUFFER                 u64 size + the buffer's used bytes
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
