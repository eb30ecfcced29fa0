// tests/unit/core/codec/test_roundtrip.cpp - every data type survives pack + unpack, and the
// batch-level behaviour (counts, partial unpack, several batches) matches the contract.
#include "samples.h"

#include "codec/codec.h"
#include "codec/coders.h"
#include "data/value.h"

#include <gtest/gtest.h>

#include <cstring>

namespace codec_test {
namespace {

using pmix::codec::pack;
using pmix::codec::unpack;

class EveryType : public ::testing::TestWithParam<pmix_data_type_t> {};

// Several variants (NULL/empty first, nested last) round-trip; the unpacked elements pack to the
// very same bytes (the encoding covers every field) and compare equal in the data model.
TEST_P(EveryType, RoundTripsEveryVariant) {
    const pmix_data_type_t type = GetParam();
    ASSERT_TRUE(pmix::data::is_known_type(type));  // the data model knows every codec type
    constexpr std::int32_t kCount = kVariants;
    Elements src = samples(type, kCount);
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), src.data(), kCount, type));
    const std::vector<unsigned char> first = buf.bytes();
    // min_wire must be a true lower bound, or the decoder's size checks would refuse real data.
    for (int k = 0; k < kVariants; ++k) {
        Elements one(type, 1);
        fill(type, one.at(0), k);
        EXPECT_GE(packed(one.data(), 1, type).size(),
                  7 + pmix::codec::detail::coder_for(type)->min_wire)
            << type_name(type) << " variant " << k;
    }

    Elements dst(type, kCount + 3);  // more room than needed
    std::int32_t n = kCount + 3;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), dst.data(), &n, type));
    EXPECT_EQ(kCount, n);
    EXPECT_EQ(0u, buf.unread());

    if (type == PMIX_POINTER) {
        // Addresses do not travel: every pointer arrives as NULL.
        for (std::int32_t i = 0; i < kCount; ++i) {
            EXPECT_EQ(nullptr, *static_cast<void**>(dst.at(static_cast<std::size_t>(i))));
        }
        return;
    }
    EXPECT_EQ(first, packed(dst.data(), kCount, type)) << type_name(type);
    for (std::int32_t i = 0; i < kCount; ++i) {
        auto at = static_cast<std::size_t>(i);
        pmix_value_cmp_t cmp = pmix::data::compare_element(src.at(at), dst.at(at), type);
        if (type == PMIX_TOPO || type == PMIX_PROC_CPUSET) {
            // The receiver names the source "hwloc" even when the sender left it NULL.
            EXPECT_NE(PMIX_VALUE_TYPE_DIFFERENT, cmp) << type_name(type) << " variant " << i;
        } else {
            EXPECT_EQ(PMIX_EQUAL, cmp) << type_name(type) << " variant " << i;
        }
    }
}

// Zero elements is a valid batch: it unpacks as "0 values" and consumes its header.
TEST_P(EveryType, EmptyBatch) {
    const pmix_data_type_t type = GetParam();
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), nullptr, 0, type));
    EXPECT_GT(buf->bytes_used, 0u);
    Elements dst(type, 1);
    std::int32_t n = 1;
    EXPECT_EQ(PMIX_SUCCESS, unpack(buf.get(), dst.data(), &n, type));
    EXPECT_EQ(0, n);
    EXPECT_EQ(0u, buf.unread());
}

// A value holding each type round-trips through PMIX_VALUE.
TEST_P(EveryType, InsideAValue) {
    const pmix_data_type_t type = GetParam();
    Elements src(PMIX_VALUE, 2);
    make_value(static_cast<pmix_value_t*>(src.at(0)), type, 1);
    make_value(static_cast<pmix_value_t*>(src.at(1)), type, 0);
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), src.data(), 2, PMIX_VALUE));
    Elements dst(PMIX_VALUE, 2);
    std::int32_t n = 2;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), dst.data(), &n, PMIX_VALUE));
    ASSERT_EQ(2, n);
    for (std::size_t i = 0; i < 2; ++i) {
        EXPECT_EQ(type, static_cast<pmix_value_t*>(dst.at(i))->type);
    }
    if (type != PMIX_POINTER) {
        EXPECT_EQ(buf.bytes(), packed(dst.data(), 2, PMIX_VALUE)) << type_name(type);
    }
}

INSTANTIATE_TEST_SUITE_P(Codec, EveryType, ::testing::ValuesIn(all_types()),
                         [](const ::testing::TestParamInfo<pmix_data_type_t>& info) {
                             return type_name(info.param).substr(5);
                         });

// The codec reads and writes exactly the element layout core/data allocates and destructs, and
// knows nothing the data model does not (and the other way round).
TEST(RoundTrip, ElementLayoutMatchesTheDataModel) {
    for (unsigned t = 0; t <= 0xFFFF; ++t) {
        auto type = static_cast<pmix_data_type_t>(t);
        const pmix::codec::detail::Coder* c = pmix::codec::detail::coder_for(type);
        ASSERT_EQ(pmix::data::is_known_type(type), c != nullptr) << type_name(type);
        if (c != nullptr) {
            EXPECT_EQ(pmix::data::element_size(type), c->elem_size) << type_name(type);
            EXPECT_GE(c->min_wire, 1u) << type_name(type);
        }
    }
}

TEST(RoundTrip, NullAndEmptyStringsStayDistinct) {
    const char* in[] = {nullptr, "", "x", nullptr};
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), in, 4, PMIX_STRING));
    Elements out(PMIX_STRING, 4);
    std::int32_t n = 4;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), out.data(), &n, PMIX_STRING));
    auto** s = static_cast<char**>(out.data());
    EXPECT_EQ(nullptr, s[0]);
    ASSERT_NE(nullptr, s[1]);
    EXPECT_STREQ("", s[1]);
    EXPECT_STREQ("x", s[2]);
    EXPECT_EQ(nullptr, s[3]);
}

TEST(RoundTrip, ScalarExtremes) {
    const std::int64_t i64[] = {INT64_MIN, -1, 0, INT64_MAX};
    const std::uint16_t u16[] = {0, 1, 0x8000, 0xFFFF};
    const double dbl[] = {-0.0, 1.0 / 3.0, 1e-310, -1e308};
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), i64, 4, PMIX_INT64));
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), u16, 4, PMIX_UINT16));
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), dbl, 4, PMIX_DOUBLE));
    std::int64_t i64o[4] = {};
    std::uint16_t u16o[4] = {};
    double dblo[4] = {};
    std::int32_t n = 4;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), i64o, &n, PMIX_INT64));
    n = 4;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), u16o, &n, PMIX_UINT16));
    n = 4;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), dblo, &n, PMIX_DOUBLE));
    EXPECT_EQ(0, std::memcmp(i64, i64o, sizeof(i64)));
    EXPECT_EQ(0, std::memcmp(u16, u16o, sizeof(u16)));
    EXPECT_EQ(0, std::memcmp(dbl, dblo, sizeof(dbl)));  // bit-exact, including -0.0
}

// The format is little-endian with fixed widths, independent of the host.
TEST(RoundTrip, WireBytesAreLittleEndian) {
    std::uint32_t v = 0x11223344;
    std::vector<unsigned char> b = packed(&v, 1, PMIX_UINT32);
    ASSERT_EQ(11u, b.size());  // 7-byte header + 4
    EXPECT_EQ(0xA1, b[0]);
    EXPECT_EQ(PMIX_UINT32, b[1] | (b[2] << 8));
    EXPECT_EQ(1, b[3] | (b[4] << 8) | (b[5] << 16) | (b[6] << 24));
    EXPECT_EQ(0x44, b[7]);
    EXPECT_EQ(0x11, b[10]);
}

TEST(RoundTrip, SeveralBatchesInOrder) {
    Buffer buf;
    std::int32_t a = 5;
    const char* s = "two";
    pmix_proc_t p{};
    std::strcpy(p.nspace, "ns");
    p.rank = 3;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &a, 1, PMIX_INT32));
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &s, 1, PMIX_STRING));
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &p, 1, PMIX_PROC));
    std::int32_t ao = 0;
    char* so = nullptr;
    pmix_proc_t po{};
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &ao, &n, PMIX_INT32));
    n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &so, &n, PMIX_STRING));
    n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &po, &n, PMIX_PROC));
    EXPECT_EQ(5, ao);
    EXPECT_STREQ("two", so);
    EXPECT_STREQ("ns", po.nspace);
    EXPECT_EQ(3u, po.rank);
    std::free(so);
    n = 1;
    EXPECT_EQ(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, unpack(buf.get(), &ao, &n, PMIX_INT32));
    EXPECT_EQ(0, n);
}

// Asking for fewer values than a batch holds: that many arrive, the call says so, and the rest
// of the batch is still there for the next call.
TEST(RoundTrip, PartialUnpackKeepsTheRemainder) {
    const char* in[] = {"a", "bb", nullptr, "dddd", ""};
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), in, 5, PMIX_STRING));
    std::int32_t after = 99;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &after, 1, PMIX_INT32));

    Elements first(PMIX_STRING, 2);
    std::int32_t n = 2;
    EXPECT_EQ(PMIX_ERR_UNPACK_INADEQUATE_SPACE, unpack(buf.get(), first.data(), &n, PMIX_STRING));
    EXPECT_EQ(2, n);
    EXPECT_STREQ("a", static_cast<char**>(first.data())[0]);
    EXPECT_STREQ("bb", static_cast<char**>(first.data())[1]);

    Elements rest(PMIX_STRING, 10);
    n = 10;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), rest.data(), &n, PMIX_STRING));
    ASSERT_EQ(3, n);
    auto** r = static_cast<char**>(rest.data());
    EXPECT_EQ(nullptr, r[0]);
    EXPECT_STREQ("dddd", r[1]);
    EXPECT_STREQ("", r[2]);

    std::int32_t got = 0;
    n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &got, &n, PMIX_INT32));
    EXPECT_EQ(99, got);
}

TEST(RoundTrip, PartialUnpackOneAtATime) {
    std::uint8_t in[6] = {1, 2, 3, 4, 5, 6};
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), in, 6, PMIX_UINT8));
    for (int i = 0; i < 6; ++i) {
        std::uint8_t v = 0;
        std::int32_t n = 1;
        pmix_status_t rc = unpack(buf.get(), &v, &n, PMIX_UINT8);
        EXPECT_EQ(i < 5 ? PMIX_ERR_UNPACK_INADEQUATE_SPACE : PMIX_SUCCESS, rc);
        EXPECT_EQ(1, n);
        EXPECT_EQ(in[i], v);
    }
    EXPECT_EQ(0u, buf.unread());
}

TEST(RoundTrip, PeekSeesTheNextBatch) {
    Buffer buf;
    pmix_data_type_t t = PMIX_UNDEF;
    std::size_t count = 0;
    EXPECT_EQ(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, pmix::codec::peek(buf.get(), &t, &count));
    std::int16_t v[3] = {1, 2, 3};
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), v, 3, PMIX_INT16));
    EXPECT_EQ(PMIX_SUCCESS, pmix::codec::peek(buf.get(), &t, &count));
    EXPECT_EQ(PMIX_INT16, t);
    EXPECT_EQ(3u, count);
    EXPECT_EQ(0u, buf.offset());
}

}  // namespace
}  // namespace codec_test
