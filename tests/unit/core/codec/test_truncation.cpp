// tests/unit/core/codec/test_truncation.cpp - a buffer holding many types, cut at every byte
// boundary and damaged byte by byte: every unpack either succeeds exactly as with the intact
// buffer or fails cleanly (a PMIx error, position unchanged, nothing leaked, no crash).
#include "samples.h"

#include "codec/codec.h"
#include "data/value.h"

#include <gtest/gtest.h>

#include <random>

namespace codec_test {
namespace {

using pmix::codec::pack;
using pmix::codec::unpack;

// The batches of the multi-type buffer: (type, count). Topology is left to its own test below,
// because re-importing XML thousands of times would dominate the run time; strings stop
// before the 5000-character sample and byte objects before the kilobyte ones.
const std::vector<std::pair<pmix_data_type_t, std::int32_t>>& plan() {
    static const std::vector<std::pair<pmix_data_type_t, std::int32_t>> p = {
        {PMIX_INT32, 2},       {PMIX_STRING, 3},     {PMIX_BOOL, 2},        {PMIX_PROC, 3},
        {PMIX_VALUE, 4},       {PMIX_INFO, 4},       {PMIX_DATA_ARRAY, 4},  {PMIX_APP, 2},
        {PMIX_BYTE_OBJECT, 2}, {PMIX_NODE_STATS, 2}, {PMIX_PROC_CPUSET, 4}, {PMIX_KVAL, 4},
        {PMIX_QUERY, 2},       {PMIX_GEOMETRY, 2},   {PMIX_DOUBLE, 1},      {PMIX_REGATTR, 2},
    };
    return p;
}

std::vector<unsigned char> multi_type_bytes() {
    Buffer buf;
    for (auto [type, n] : plan()) {
        Elements e = samples(type, static_cast<std::size_t>(n));
        EXPECT_EQ(PMIX_SUCCESS, pack(buf.get(), e.data(), n, type)) << type_name(type);
    }
    return buf.bytes();
}

// Unpack the plan from `bytes`; returns how many batches succeeded. Each failure must be a
// known error with the buffer position unchanged; after the first failure we stop.
std::size_t unpack_plan(const std::vector<unsigned char>& bytes) {
    Buffer buf;
    buf.load(bytes);
    std::size_t ok = 0;
    for (auto [type, n] : plan()) {
        Elements out(type, static_cast<std::size_t>(n));
        std::int32_t room = n;
        std::size_t before = buf.offset();
        pmix_status_t rc = unpack(buf.get(), out.data(), &room, type);
        if (rc != PMIX_SUCCESS) {
            EXPECT_TRUE(rc == PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER ||
                        rc == PMIX_ERR_UNPACK_FAILURE || rc == PMIX_ERR_PACK_MISMATCH ||
                        rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE)
                << "unexpected status " << rc << " for " << type_name(type);
            if (rc != PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
                EXPECT_EQ(before, buf.offset());
                EXPECT_EQ(0, room);
            }
            break;
        }
        EXPECT_LE(room, n);  // a damaged count may legitimately shrink a batch
        ++ok;
    }
    return ok;
}

TEST(Truncation, IntactBufferUnpacksCompletely) {
    std::vector<unsigned char> bytes = multi_type_bytes();
    EXPECT_EQ(plan().size(), unpack_plan(bytes));
}

TEST(Truncation, EveryByteBoundary) {
    const std::vector<unsigned char> bytes = multi_type_bytes();
    // Where each batch ends, so we know how many must still succeed at each cut.
    std::vector<std::size_t> ends;
    {
        Buffer buf;
        buf.load(bytes);
        for (auto [type, n] : plan()) {
            Elements out(type, static_cast<std::size_t>(n));
            std::int32_t room = n;
            ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), out.data(), &room, type));
            ends.push_back(buf.offset());
        }
    }
    for (std::size_t cut = 0; cut < bytes.size(); ++cut) {
        std::vector<unsigned char> prefix(bytes.begin(), bytes.begin() + static_cast<long>(cut));
        std::size_t complete = 0;
        while (complete < ends.size() && ends[complete] <= cut) {
            ++complete;
        }
        // The batch that is cut must report READ_PAST_END; all earlier ones succeed.
        Buffer buf;
        buf.load(prefix);
        for (std::size_t i = 0; i <= complete && i < plan().size(); ++i) {
            auto [type, n] = plan()[i];
            Elements out(type, static_cast<std::size_t>(n));
            std::int32_t room = n;
            std::size_t before = buf.offset();
            pmix_status_t rc = unpack(buf.get(), out.data(), &room, type);
            if (i < complete) {
                ASSERT_EQ(PMIX_SUCCESS, rc) << "cut " << cut << " batch " << i;
            } else {
                ASSERT_EQ(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER, rc) << "cut " << cut;
                EXPECT_EQ(before, buf.offset());
                EXPECT_EQ(0, room);
            }
        }
    }
}

// Every single byte overwritten with a few hostile values: no crash, no leak, clean errors.
TEST(Truncation, EveryByteCorrupted) {
    const std::vector<unsigned char> bytes = multi_type_bytes();
    for (std::size_t at = 0; at < bytes.size(); ++at) {
        for (unsigned char poison : {0x00, 0xFF, 0x7F, 0x80}) {
            if (bytes[at] == poison) {
                continue;
            }
            std::vector<unsigned char> damaged = bytes;
            damaged[at] = poison;
            unpack_plan(damaged);
        }
    }
}

TEST(Truncation, RandomGarbage) {
    std::mt19937 rng(20240611);
    for (int round = 0; round < 2000; ++round) {
        std::vector<unsigned char> junk(rng() % 96);
        for (auto& c : junk) {
            c = static_cast<unsigned char>(rng());
        }
        if (!junk.empty() && round % 2 == 0) {
            junk[0] = 0xA1;  // a real tag, so the decoder gets past the header
        }
        if (junk.size() >= 3 && round % 4 == 0) {
            auto [type, n] = plan()[rng() % plan().size()];
            junk[1] = static_cast<unsigned char>(type);
            junk[2] = 0;
        }
        unpack_plan(junk);
        for (pmix_data_type_t t : all_types()) {
            if (t == PMIX_TOPO) {
                continue;
            }
            Buffer buf;
            buf.load(junk);
            Elements out(t, 2);
            std::int32_t room = 2;
            pmix_status_t rc = unpack(buf.get(), out.data(), &room, t);
            if (rc != PMIX_SUCCESS && rc != PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
                EXPECT_EQ(0u, buf.offset());
            }
        }
    }
}

// Topology: cut its XML batch at a spread of points (each attempt re-parses XML).
TEST(Truncation, TopologyCuts) {
    Elements topo = samples(PMIX_TOPO, 2);
    Buffer full;
    ASSERT_EQ(PMIX_SUCCESS, pack(full.get(), topo.data(), 2, PMIX_TOPO));
    const std::vector<unsigned char> bytes = full.bytes();
    for (std::size_t cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / 64) {
        Buffer buf;
        buf.load(std::vector<unsigned char>(bytes.begin(), bytes.begin() + static_cast<long>(cut)));
        Elements out(PMIX_TOPO, 2);
        std::int32_t room = 2;
        EXPECT_EQ(PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER,
                  unpack(buf.get(), out.data(), &room, PMIX_TOPO));
        EXPECT_EQ(0u, buf.offset());
    }
}

}  // namespace
}  // namespace codec_test
