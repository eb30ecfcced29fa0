// wire/frame.cpp - frame header encoding and the incremental decoder (see frame.h).
#include "wire/frame.h"

#include "base/le.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace pmix::wire {
namespace {

// A header can announce up to the limit before a single payload byte arrives. Only this much is
// reserved up front; beyond it the buffer grows with the bytes actually received, so a peer
// cannot make us hold more than about twice what it really sent.
constexpr std::size_t kInitialReserve = 64u << 10;

constexpr std::size_t kVersionAt = 4;
constexpr std::size_t kFlagsAt = 6;
constexpr std::size_t kOpAt = 8;
constexpr std::size_t kTagAt = 12;
constexpr std::size_t kLengthAt = 16;
constexpr std::size_t kReservedAt = 20;

std::string hex(std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%x", v);
    return buf;
}

}  // namespace

HeaderBytes encode_header(std::uint16_t flags, std::uint32_t op, std::uint32_t tag,
                          std::uint32_t length) noexcept {
    HeaderBytes h{};
    std::copy(kMagic.begin(), kMagic.end(), h.begin());
    le::store<std::uint16_t>(h.data() + kVersionAt, kProtocolVersion);
    le::store<std::uint16_t>(h.data() + kFlagsAt, flags);
    le::store<std::uint32_t>(h.data() + kOpAt, op);
    le::store<std::uint32_t>(h.data() + kTagAt, tag);
    le::store<std::uint32_t>(h.data() + kLengthAt, length);
    le::store<std::uint32_t>(h.data() + kReservedAt, 0);
    return h;
}

void set_header_tag(HeaderBytes& header, std::uint32_t tag) noexcept {
    le::store<std::uint32_t>(header.data() + kTagAt, tag);
}

Bytes encode_frame(const Frame& frame) {
    HeaderBytes h = encode_header(frame.flags, frame.op, frame.tag,
                                  static_cast<std::uint32_t>(frame.payload.size()));
    // Sized up front and filled with memcpy: g++ 12 reports a false stringop-overflow for
    // two consecutive vector::insert calls here.
    Bytes out(kHeaderSize + frame.payload.size());
    std::memcpy(out.data(), h.data(), kHeaderSize);
    if (!frame.payload.empty()) {
        std::memcpy(out.data() + kHeaderSize, frame.payload.data(), frame.payload.size());
    }
    return out;
}

const char* to_string(DecodeError e) noexcept {
    switch (e) {
        case DecodeError::none:
            return "none";
        case DecodeError::bad_magic:
            return "bad magic";
        case DecodeError::bad_version:
            return "unsupported version";
        case DecodeError::bad_flags:
            return "unknown flags";
        case DecodeError::bad_reserved:
            return "non-zero reserved field";
        case DecodeError::too_large:
            return "payload too large";
    }
    return "unknown";
}

bool FrameDecoder::fail(DecodeError e, std::string why) {
    error_ = e;
    reason_ = std::move(why);
    return false;
}

std::size_t FrameDecoder::partial_bytes() const noexcept {
    return in_payload_ ? kHeaderSize + current_.payload.size() : header_fill_;
}

std::size_t FrameDecoder::partial_needed() const noexcept {
    return in_payload_ ? kHeaderSize + payload_length_ : 0;
}

// Copies header bytes out of `chunk`, checking the magic byte by byte so that a stream of
// garbage is refused at its first byte rather than after 24.
std::size_t FrameDecoder::take_header(std::span<const std::uint8_t> chunk) {
    std::size_t n = std::min(kHeaderSize - header_fill_, chunk.size());
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t at = header_fill_ + i;
        if (at < kMagic.size() && chunk[i] != kMagic[at]) {
            fail(DecodeError::bad_magic, "bad magic: byte " + std::to_string(at) + " is " +
                                             hex(chunk[i]) + ", expected " + hex(kMagic[at]) +
                                             " (not a PMXW stream)");
            return i;
        }
        header_[at] = chunk[i];
    }
    header_fill_ += n;
    return n;
}

bool FrameDecoder::check_header() {
    std::uint16_t version = le::load<std::uint16_t>(header_.data() + kVersionAt);
    std::uint16_t flags = le::load<std::uint16_t>(header_.data() + kFlagsAt);
    std::uint32_t length = le::load<std::uint32_t>(header_.data() + kLengthAt);
    std::uint32_t reserved = le::load<std::uint32_t>(header_.data() + kReservedAt);
    if (version != kProtocolVersion) {
        return fail(DecodeError::bad_version, "unsupported protocol version " +
                                                  std::to_string(version) + " (this side speaks " +
                                                  std::to_string(kProtocolVersion) + ")");
    }
    if ((flags & ~kKnownFlags) != 0) {
        return fail(DecodeError::bad_flags,
                    "unknown flag bits " + hex(static_cast<std::uint32_t>(flags & ~kKnownFlags)));
    }
    if (reserved != 0) {
        return fail(DecodeError::bad_reserved,
                    "reserved header field is " + hex(reserved) + " (must be zero)");
    }
    if (length > max_payload_) {
        return fail(DecodeError::too_large, "payload of " + std::to_string(length) +
                                                " bytes exceeds the limit of " +
                                                std::to_string(max_payload_));
    }
    current_ = Frame{};
    current_.flags = flags;
    current_.op = le::load<std::uint32_t>(header_.data() + kOpAt);
    current_.tag = le::load<std::uint32_t>(header_.data() + kTagAt);
    current_.payload.reserve(std::min<std::size_t>(length, kInitialReserve));
    payload_length_ = length;
    return true;
}

bool FrameDecoder::feed(std::span<const std::uint8_t> chunk, std::vector<Frame>& out) {
    if (failed()) {
        return false;
    }
    while (!chunk.empty()) {
        if (!in_payload_) {
            chunk = chunk.subspan(take_header(chunk));
            if (failed()) {
                return false;
            }
            if (header_fill_ < kHeaderSize) {
                break;  // the rest of the header is in a later chunk
            }
            if (!check_header()) {
                return false;
            }
            header_fill_ = 0;
            in_payload_ = true;
        }
        std::size_t missing = payload_length_ - current_.payload.size();
        std::size_t n = std::min(missing, chunk.size());
        current_.payload.insert(current_.payload.end(), chunk.begin(),
                                chunk.begin() + static_cast<std::ptrdiff_t>(n));
        chunk = chunk.subspan(n);
        if (current_.payload.size() == payload_length_) {
            out.push_back(std::move(current_));
            current_ = Frame{};
            in_payload_ = false;
        }
    }
    return true;
}

}  // namespace pmix::wire
