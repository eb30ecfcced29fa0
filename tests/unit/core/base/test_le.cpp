// Little-endian fields: the byte order is fixed whatever the host's, for every byte type.
#include "base/le.h"

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace {

TEST(LittleEndian, StoresLeastSignificantByteFirst) {
    std::array<std::uint8_t, 8> b{};
    pmix::le::store<std::uint32_t>(b.data(), 0x11223344u);
    EXPECT_EQ(b[0], 0x44);
    EXPECT_EQ(b[1], 0x33);
    EXPECT_EQ(b[2], 0x22);
    EXPECT_EQ(b[3], 0x11);
    EXPECT_EQ(b[4], 0x00);  // nothing beyond the field's width is written
    pmix::le::store<std::uint16_t>(b.data() + 4, 0xabcd);
    EXPECT_EQ(b[4], 0xcd);
    EXPECT_EQ(b[5], 0xab);
}

TEST(LittleEndian, RoundTripsEveryWidthAndByteType) {
    std::array<std::byte, 8> bytes{};
    pmix::le::store(bytes.data(), std::uint64_t{0x0102030405060708u});
    EXPECT_EQ(std::to_integer<int>(bytes[0]), 0x08);
    EXPECT_EQ(pmix::le::load<std::uint64_t>(bytes.data()), 0x0102030405060708u);

    std::array<unsigned char, 2> uc{};
    pmix::le::store(uc.data(), std::uint16_t{0xfffe});
    EXPECT_EQ(pmix::le::load<std::uint16_t>(uc.data()), 0xfffe);

    std::array<char, 4> chars{};  // bytes above 0x7f through a possibly signed char
    pmix::le::store(chars.data(), std::int32_t{-2});
    EXPECT_EQ(pmix::le::load<std::int32_t>(chars.data()), -2);
    EXPECT_EQ(pmix::le::load<std::uint32_t>(chars.data()), 0xfffffffeu);
}

TEST(LittleEndian, IsUsableAtCompileTime) {
    constexpr auto v = [] {
        std::array<std::uint8_t, 4> b{};
        pmix::le::store<std::uint32_t>(b.data(), 0xdeadbeefu);
        return pmix::le::load<std::uint32_t>(b.data());
    }();
    static_assert(v == 0xdeadbeefu);
    EXPECT_EQ(v, 0xdeadbeefu);
}

}  // namespace
