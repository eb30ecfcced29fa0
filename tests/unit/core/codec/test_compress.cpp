// tests/unit/core/codec/test_compress.cpp - zlib round trips and refusal of anything that is not
// intact compress() output.
#include "codec/codec.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

using pmix::codec::compress;
using pmix::codec::decompress;

struct Blob {
    std::uint8_t* p = nullptr;
    std::size_t n = 0;
    ~Blob() { std::free(p); }
    std::vector<std::uint8_t> vec() const { return {p, p + n}; }
};

std::vector<std::uint8_t> text(std::size_t n) {
    std::vector<std::uint8_t> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        v[i] = static_cast<std::uint8_t>("pmix.job.size=4;"[i % 16]);
    }
    return v;
}

std::vector<std::uint8_t> noise(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> v(n);
    for (auto& c : v) {
        c = static_cast<std::uint8_t>(rng());
    }
    return v;
}

void round_trip(const std::vector<std::uint8_t>& in) {
    Blob z;
    ASSERT_TRUE(compress(in.data(), in.size(), &z.p, &z.n));
    Blob out;
    ASSERT_TRUE(decompress(z.p, z.n, &out.p, &out.n));
    EXPECT_EQ(in, out.vec());
    EXPECT_EQ(0, out.p[out.n]);  // NUL kept past the end for string users
}

TEST(Compress, RoundTrips) {
    round_trip({'x'});
    round_trip(text(100));
    round_trip(text(1 << 20));
    round_trip(noise(4096, 1));
    Blob z;
    std::vector<std::uint8_t> big = text(1 << 20);
    ASSERT_TRUE(compress(big.data(), big.size(), &z.p, &z.n));
    EXPECT_LT(z.n, big.size() / 50);  // repetitive text really shrinks
}

TEST(Compress, RefusesBadArguments) {
    std::uint8_t in[4] = {1, 2, 3, 4};
    Blob z;
    EXPECT_FALSE(compress(nullptr, 4, &z.p, &z.n));
    EXPECT_FALSE(compress(in, 0, &z.p, &z.n));
    EXPECT_FALSE(compress(in, 4, nullptr, &z.n));
    EXPECT_FALSE(compress(in, 4, &z.p, nullptr));
    EXPECT_EQ(nullptr, z.p);
    EXPECT_EQ(0u, z.n);
    EXPECT_FALSE(decompress(nullptr, 4, &z.p, &z.n));
    EXPECT_FALSE(decompress(in, 0, &z.p, &z.n));
    EXPECT_FALSE(decompress(in, 4, nullptr, &z.n));
}

TEST(Compress, RefusesGarbage) {
    for (unsigned seed = 0; seed < 200; ++seed) {
        std::vector<std::uint8_t> junk = noise(seed % 64 + 1, seed);
        if (seed % 2 == 0 && junk.size() >= 4) {
            std::memcpy(junk.data(), "PXZ1", 4);  // right magic, wrong everything else
        }
        Blob out;
        EXPECT_FALSE(decompress(junk.data(), junk.size(), &out.p, &out.n));
        EXPECT_EQ(nullptr, out.p);
        EXPECT_EQ(0u, out.n);
    }
}

TEST(Compress, RefusesEveryTruncationAndExtension) {
    std::vector<std::uint8_t> in = text(3000);
    Blob z;
    ASSERT_TRUE(compress(in.data(), in.size(), &z.p, &z.n));
    for (std::size_t cut = 0; cut < z.n; ++cut) {
        Blob out;
        EXPECT_FALSE(decompress(z.p, cut, &out.p, &out.n)) << cut;
    }
    std::vector<std::uint8_t> longer = z.vec();
    longer.push_back(0);
    Blob out;
    EXPECT_FALSE(decompress(longer.data(), longer.size(), &out.p, &out.n));
}

TEST(Compress, RefusesCorruptionAndLies) {
    std::vector<std::uint8_t> in = text(3000);
    Blob z;
    ASSERT_TRUE(compress(in.data(), in.size(), &z.p, &z.n));
    std::vector<std::uint8_t> good = z.vec();
    for (std::size_t at = 0; at < good.size(); ++at) {
        std::vector<std::uint8_t> bad = good;
        bad[at] ^= 0x10;
        // Some bits of a deflate stream do not affect the output (padding, unused code
        // lengths); a flip there may still decode, but only ever to the original bytes.
        Blob out;
        if (decompress(bad.data(), bad.size(), &out.p, &out.n)) {
            EXPECT_EQ(in, out.vec()) << "byte " << at;
            EXPECT_GE(at, 12u) << "a damaged header must always be refused";
        }
    }
    // Claimed lengths: a huge one must not be allocated, a wrong one must not be believed.
    for (std::uint64_t claim : {std::uint64_t{0}, std::uint64_t{2999}, std::uint64_t{3001},
                                std::uint64_t{1} << 40, ~std::uint64_t{0}}) {
        std::vector<std::uint8_t> bad = good;
        for (int i = 0; i < 8; ++i) {
            bad[4 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(claim >> (8 * i));
        }
        Blob out;
        EXPECT_FALSE(decompress(bad.data(), bad.size(), &out.p, &out.n)) << claim;
    }
}

}  // namespace
