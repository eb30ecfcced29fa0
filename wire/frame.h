// wire/frame.h - the unit of the control-plane byte stream, and its incremental decoder.
//
// Every message is one frame: a fixed 24-byte little-endian header followed by `length` bytes of
// payload. wire never looks inside a payload (core/codec packs them); it only checks that the
// header is one this version can read, so a peer speaking another protocol, a stray writer or a
// corrupted stream is rejected at the first header instead of being misread.
//
//   offset size field
//        0    4 magic     "PMXW"
//        4    2 version   kProtocolVersion
//        6    2 flags     kFlagReply; every other bit must be zero
//        8    4 op        what the payload is (kOpHello, or an upper layer's op >= kFirstUserOp)
//       12    4 tag       request/reply matching; 0 for one-way messages
//       16    4 length    payload bytes, at most the receiver's limit (default 64 MiB)
//       20    4 reserved  must be zero (room for a future field without a version bump)
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace pmix::wire {

using Bytes = std::vector<std::uint8_t>;

inline constexpr std::array<std::uint8_t, 4> kMagic = {'P', 'M', 'X', 'W'};
inline constexpr std::uint16_t kProtocolVersion = 1;
inline constexpr std::size_t kHeaderSize = 24;
inline constexpr std::uint32_t kDefaultMaxPayload = 64u << 20;

// Frame flags.
inline constexpr std::uint16_t kFlagReply = 0x0001;  // answers the sender's request `tag`
inline constexpr std::uint16_t kKnownFlags = kFlagReply;

// Ops below kFirstUserOp belong to wire itself.
inline constexpr std::uint32_t kOpHello = 1;
inline constexpr std::uint32_t kFirstUserOp = 0x100;

struct Frame {
    std::uint16_t flags = 0;
    std::uint32_t op = 0;
    std::uint32_t tag = 0;
    Bytes payload;

    bool is_reply() const noexcept { return (flags & kFlagReply) != 0; }
};

using HeaderBytes = std::array<std::uint8_t, kHeaderSize>;

// The header for a frame with these fields and a payload of `length` bytes.
HeaderBytes encode_header(std::uint16_t flags, std::uint32_t op, std::uint32_t tag,
                          std::uint32_t length) noexcept;
// Rewrites the tag of an encoded header (a request's tag is chosen when it is queued).
void set_header_tag(HeaderBytes& header, std::uint32_t tag) noexcept;
// Header + payload in one buffer (tests and small messages; Connection avoids the copy).
Bytes encode_frame(const Frame& frame);

// Why a stream was rejected. The decoder stops at the first error and stays failed: after a
// bad header nothing that follows can be trusted to start at a frame boundary.
enum class DecodeError {
    none,
    bad_magic,
    bad_version,
    bad_flags,
    bad_reserved,
    too_large,
};
const char* to_string(DecodeError e) noexcept;

class FrameDecoder {
public:
    explicit FrameDecoder(std::uint32_t max_payload = kDefaultMaxPayload) noexcept
        : max_payload_(max_payload) {}

    // Consumes `chunk` (any size, any split of the stream) and appends each completed frame to
    // `out`. Returns false once the stream is invalid; error()/reason() say why.
    bool feed(std::span<const std::uint8_t> chunk, std::vector<Frame>& out);

    bool failed() const noexcept { return error_ != DecodeError::none; }
    DecodeError error() const noexcept { return error_; }
    const std::string& reason() const noexcept { return reason_; }

    // True between frames. At end of stream, !at_boundary() means the peer sent a truncated frame.
    bool at_boundary() const noexcept { return header_fill_ == 0 && !in_payload_; }
    // Bytes of the unfinished frame received so far, and how many it needs in total (0 when the
    // header is not complete yet): for "truncated after N of M bytes" messages.
    std::size_t partial_bytes() const noexcept;
    std::size_t partial_needed() const noexcept;

private:
    std::size_t take_header(std::span<const std::uint8_t> chunk);
    bool check_header();
    bool fail(DecodeError e, std::string why);

    std::uint32_t max_payload_;
    HeaderBytes header_{};
    std::size_t header_fill_ = 0;
    bool in_payload_ = false;
    std::uint32_t payload_length_ = 0;
    Frame current_;
    DecodeError error_ = DecodeError::none;
    std::string reason_;
};

}  // namespace pmix::wire
