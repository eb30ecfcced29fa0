// core/base/le.h - fixed-width little-endian fields: the byte order of every header and length
// the library writes (wire frames and handshakes, codec batches, compressed lengths, fabric
// packets and chunks), so processes of different builds and hosts agree. Written with shifts so
// the result does not depend on the host's byte order; compilers turn the loops into one load or
// store on little-endian hosts.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace pmix::le {

// The byte types a buffer may be made of.
template <class B>
concept Byte =
    std::same_as<std::remove_const_t<B>, std::byte> || std::same_as < std::remove_const_t<B>,
unsigned char > || std::same_as<std::remove_const_t<B>, char>;

// Writes the low sizeof(T) bytes of `v` at `at`, least significant first.
template <std::integral T, Byte B>
constexpr void store(B* at, T v) noexcept {
    const auto bits = static_cast<std::make_unsigned_t<T>>(v);
    for (std::size_t i = 0; i < sizeof(T); ++i) {
        at[i] = static_cast<B>((static_cast<std::uint64_t>(bits) >> (8 * i)) & 0xffu);
    }
}

// Reads sizeof(T) bytes at `at`, least significant first.
template <std::integral T, Byte B>
constexpr T load(const B* at) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
        v |= static_cast<std::uint64_t>(static_cast<unsigned char>(at[i])) << (8 * i);
    }
    return static_cast<T>(v);
}

}  // namespace pmix::le
