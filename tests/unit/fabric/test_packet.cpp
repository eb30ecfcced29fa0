// tests/unit/fabric/test_packet.cpp - packet and block-list encoding; every truncation refused.
#include "fabric/packet.h"

#include <gtest/gtest.h>

namespace pmix::fabric {
namespace {

Bytes bytes_of(const std::string& s) {
    Bytes b;
    for (char ch : s) b.push_back(static_cast<std::byte>(ch));
    return b;
}

TEST(Packet, RoundTripsEveryField) {
    const PacketHeader h{Algorithm::ring, 0x1122334455667788ull, 17, 4000000000u};
    const Bytes body = bytes_of("payload");
    const Bytes wire = encode_packet(h, body);
    ASSERT_EQ(wire.size(), kPacketHeaderSize + body.size());
    std::string why;
    auto p = decode_packet(wire, why);
    ASSERT_TRUE(p) << why;
    EXPECT_EQ(p->header.algorithm, Algorithm::ring);
    EXPECT_EQ(p->header.collective, h.collective);
    EXPECT_EQ(p->header.round, 17u);
    EXPECT_EQ(p->header.from, 4000000000u);
    EXPECT_EQ(Bytes(p->body.begin(), p->body.end()), body);
}

TEST(Packet, EveryTruncationAndExtensionIsRefused) {
    const Bytes wire = encode_packet({Algorithm::bruck, 1, 0, 0}, bytes_of("abc"));
    for (std::size_t n = 0; n < wire.size(); ++n) {
        std::string why;
        EXPECT_FALSE(decode_packet(std::span(wire).first(n), why)) << n;
        EXPECT_FALSE(why.empty());
    }
    Bytes longer = wire;
    longer.push_back(std::byte{0});
    std::string why;
    EXPECT_FALSE(decode_packet(longer, why));
    Bytes bad_alg = wire;
    bad_alg[5] = std::byte{9};
    EXPECT_FALSE(decode_packet(bad_alg, why));
    EXPECT_NE(why.find("algorithm"), std::string::npos);
}

TEST(Blocks, RoundTripAndRefuseMalformedLists) {
    Block a{0, bytes_of("first")}, b{2, {}}, c{1, bytes_of("x")};
    const Bytes body = encode_blocks({&a, &b, &c});
    std::vector<Block> out;
    std::string why;
    ASSERT_TRUE(decode_blocks(body, 3, out, why)) << why;
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].data, a.data);
    EXPECT_EQ(out[1].origin, 2u);
    EXPECT_TRUE(out[1].data.empty());
    for (std::size_t n = 0; n < body.size(); ++n) {
        std::vector<Block> partial;
        EXPECT_FALSE(decode_blocks(std::span(body).first(n), 3, partial, why)) << n;
    }
    std::vector<Block> x;
    EXPECT_FALSE(decode_blocks(body, 2, x, why));  // origin 2 outside a group of 2
    Bytes trailing = body;
    trailing.push_back(std::byte{0});
    EXPECT_FALSE(decode_blocks(trailing, 3, x, why));
}

}  // namespace
}  // namespace pmix::fabric
