// fabric/packet.h - what one collective step sends to one peer, as bytes.
//
// A packet is a fixed 28-byte header followed by a body. Every field is little-endian and
// fixed-width, so daemons of different builds agree; decode() checks every length before it
// reads, so a corrupt or truncated packet is refused (the engine logs it and drops it), never
// read past its end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace pmix::fabric {

using Bytes = std::vector<std::byte>;

enum class Algorithm : std::uint8_t {
    bruck = 1,          // allgather in ceil(log2 P) rounds, any P
    ring = 2,           // allgather in P-1 rounds to the next neighbour (bandwidth-bound links)
    dissemination = 3,  // barrier in ceil(log2 P) rounds
    recursive_doubling = 4,  // allgather in log2 P rounds with partner i xor 2^k; P a power of two
    tree = 5,   // allgather: binomial gather to the first member, then binomial broadcast
    bcast = 6,  // the first member's contribution to everyone along a binomial tree
};

const char* algorithm_name(Algorithm a) noexcept;

struct PacketHeader {
    Algorithm algorithm = Algorithm::bruck;
    std::uint64_t collective = 0;  // chosen by the caller, the same on every member
    std::uint32_t round = 0;
    std::uint32_t from = 0;  // the sender's transport rank
};

inline constexpr std::size_t kPacketHeaderSize = 28;
inline constexpr std::uint32_t kPacketMagic = 0x43465850;  // "PXFC"
inline constexpr std::uint8_t kPacketVersion = 1;

Bytes encode_packet(const PacketHeader& h, std::span<const std::byte> body);

struct Packet {
    PacketHeader header;
    std::span<const std::byte> body;  // borrows the decoded buffer
};

// Empty with `why` set when the bytes are not a well-formed packet.
std::optional<Packet> decode_packet(std::span<const std::byte> bytes, std::string& why);

// One member's contribution to an allgather, tagged with its index in the group so that blocks
// can travel in any grouping and order.
struct Block {
    std::uint32_t origin = 0;
    Bytes data;
};

// Body of an allgather packet: count, then (origin, length, bytes) per block.
Bytes encode_blocks(const std::vector<const Block*>& blocks);
// False with `why` set when the body is malformed or names an origin >= `group_size`.
bool decode_blocks(std::span<const std::byte> body, std::uint32_t group_size,
                   std::vector<Block>& out, std::string& why);

}  // namespace pmix::fabric
