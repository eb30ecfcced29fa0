// gds/keys.h - hashing and the fixed ids of standard attribute keys.
//
// Standard keys (the PMIX_* attribute strings of the attribute dictionary, core/text) get ids
// 1..N in dictionary order, the same in every process built from the same sources; keys_stamp()
// fingerprints that table and is written into every segment, so a reader built from a different
// dictionary refuses the segment instead of misreading ids. Other keys are interned per
// namespace in the store itself (ids from layout::kDynamicKeyBase).
#pragma once

#include <cstdint>
#include <string_view>

namespace pmix::gds::keys {

// 64-bit mixer (splitmix64's finaliser): every input bit affects the low bits used as the slot
// index and the high bits used as the slot tag.
constexpr std::uint64_t mix(std::uint64_t x) noexcept {
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

// Hash of a byte string, 8 bytes per step (keys and namespaces are short, and a get hashes two
// of them). hash_text is unseeded; seeded() derives the hash of the same text in a given space,
// so a key hashed once serves both the standard table and the namespace's interned names.
std::uint64_t hash_text(std::string_view text) noexcept;
constexpr std::uint64_t seeded(std::uint64_t text_hash, std::uint64_t seed) noexcept {
    return mix(text_hash ^ mix(seed + 0x9e3779b97f4a7c15ull));
}
inline std::uint64_t hash_string(std::uint64_t seed, std::string_view text) noexcept {
    return seeded(hash_text(text), seed);
}

// Hash of a numeric identity (space, entity, key).
constexpr std::uint64_t hash_identity(std::uint8_t space, std::uint32_t entity,
                                      std::uint32_t key) noexcept {
    return mix((std::uint64_t{space} << 56) ^ (std::uint64_t{entity} << 24) ^
               mix(std::uint64_t{key} + 0x9e3779b97f4a7c15ull));
}

// Id of a standard key, 0 when `key` is not one. Lock-free after the first call. The second
// form takes hash_text(key) when the caller has it already.
std::uint32_t standard_id(std::string_view key) noexcept;
std::uint32_t standard_id(std::string_view key, std::uint64_t text_hash) noexcept;

// String of a standard key id; empty when `id` is not one.
std::string_view standard_name(std::uint32_t id) noexcept;

// Number of standard ids (ids are 1..count()).
std::uint32_t count() noexcept;

// Fingerprint of the table (count and every string in id order).
std::uint64_t keys_stamp() noexcept;

}  // namespace pmix::gds::keys
