// fabric/le.h - fixed-width little-endian fields, the byte order of every fabric header (packets
// and transport chunks), so daemons of different builds and hosts agree.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pmix::fabric::le {

template <class T>
void store(std::byte* at, T v) noexcept {
    for (std::size_t i = 0; i < sizeof(T); ++i) {
        at[i] = static_cast<std::byte>((static_cast<std::uint64_t>(v) >> (8 * i)) & 0xffu);
    }
}

template <class T>
T load(const std::byte* at) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
        v |= static_cast<std::uint64_t>(std::to_integer<std::uint8_t>(at[i])) << (8 * i);
    }
    return static_cast<T>(v);
}

}  // namespace pmix::fabric::le
