// fabric/packet.cpp - packet and block-list encoding (see packet.h).
#include "fabric/packet.h"

#include "base/le.h"

#include <cstring>

namespace pmix::fabric {
namespace {

template <class T>
void put(Bytes& out, T v) {
    std::byte field[sizeof(T)];
    le::store(field, v);
    out.insert(out.end(), field, field + sizeof(T));
}

template <class T>
T get(std::span<const std::byte> in, std::size_t at) {
    return le::load<T>(in.data() + at);
}

bool known_algorithm(std::uint8_t a) {
    return a >= static_cast<std::uint8_t>(Algorithm::bruck) &&
           a <= static_cast<std::uint8_t>(Algorithm::bcast);
}

}  // namespace

const char* algorithm_name(Algorithm a) noexcept {
    switch (a) {
        case Algorithm::bruck:
            return "bruck";
        case Algorithm::ring:
            return "ring";
        case Algorithm::dissemination:
            return "dissemination";
        case Algorithm::recursive_doubling:
            return "recursive-doubling";
        case Algorithm::tree:
            return "tree";
        case Algorithm::bcast:
            return "bcast";
    }
    return "unknown";
}

Bytes encode_packet(const PacketHeader& h, std::span<const std::byte> body) {
    Bytes out;
    out.reserve(kPacketHeaderSize + body.size());
    put<std::uint32_t>(out, kPacketMagic);
    put<std::uint8_t>(out, kPacketVersion);
    put<std::uint8_t>(out, static_cast<std::uint8_t>(h.algorithm));
    put<std::uint16_t>(out, 0);
    put<std::uint64_t>(out, h.collective);
    put<std::uint32_t>(out, h.round);
    put<std::uint32_t>(out, h.from);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(body.size()));
    out.insert(out.end(), body.begin(), body.end());
    return out;
}

std::optional<Packet> decode_packet(std::span<const std::byte> bytes, std::string& why) {
    if (bytes.size() < kPacketHeaderSize) {
        why = "packet of " + std::to_string(bytes.size()) + " bytes is shorter than its header";
        return std::nullopt;
    }
    if (get<std::uint32_t>(bytes, 0) != kPacketMagic ||
        get<std::uint8_t>(bytes, 4) != kPacketVersion) {
        why = "packet has a wrong magic number or version";
        return std::nullopt;
    }
    const auto alg = get<std::uint8_t>(bytes, 5);
    if (!known_algorithm(alg)) {
        why = "packet names unknown algorithm " + std::to_string(alg);
        return std::nullopt;
    }
    const auto len = get<std::uint32_t>(bytes, 24);
    if (len != bytes.size() - kPacketHeaderSize) {
        why = "packet body length " + std::to_string(len) + " does not match the " +
              std::to_string(bytes.size() - kPacketHeaderSize) + " bytes received";
        return std::nullopt;
    }
    Packet p;
    p.header.algorithm = static_cast<Algorithm>(alg);
    p.header.collective = get<std::uint64_t>(bytes, 8);
    p.header.round = get<std::uint32_t>(bytes, 16);
    p.header.from = get<std::uint32_t>(bytes, 20);
    p.body = bytes.subspan(kPacketHeaderSize);
    return p;
}

Bytes encode_blocks(const std::vector<const Block*>& blocks) {
    std::size_t total = 4;
    for (const Block* b : blocks) total += 8 + b->data.size();
    Bytes out;
    out.reserve(total);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(blocks.size()));
    for (const Block* b : blocks) {
        put<std::uint32_t>(out, b->origin);
        put<std::uint32_t>(out, static_cast<std::uint32_t>(b->data.size()));
        out.insert(out.end(), b->data.begin(), b->data.end());
    }
    return out;
}

bool decode_blocks(std::span<const std::byte> body, std::uint32_t group_size,
                   std::vector<Block>& out, std::string& why) {
    if (body.size() < 4) {
        why = "block list shorter than its count";
        return false;
    }
    const auto count = get<std::uint32_t>(body, 0);
    if (count > group_size) {
        why = "block list of " + std::to_string(count) + " blocks in a group of " +
              std::to_string(group_size);
        return false;
    }
    std::size_t at = 4;
    for (std::uint32_t i = 0; i < count; ++i) {
        if (body.size() - at < 8) {
            why = "block list truncated in a block header";
            return false;
        }
        Block b;
        b.origin = get<std::uint32_t>(body, at);
        const auto len = get<std::uint32_t>(body, at + 4);
        at += 8;
        if (b.origin >= group_size || body.size() - at < len) {
            why = b.origin >= group_size ? "block origin outside the group"
                                         : "block list truncated in a block's data";
            return false;
        }
        b.data.assign(body.begin() + static_cast<std::ptrdiff_t>(at),
                      body.begin() + static_cast<std::ptrdiff_t>(at + len));
        at += len;
        out.push_back(std::move(b));
    }
    if (at != body.size()) {
        why = "block list has trailing bytes";
        return false;
    }
    return true;
}

}  // namespace pmix::fabric
