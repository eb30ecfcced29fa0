// tests/unit/core/codec/test_payload.cpp - copy_payload, load, unload, embed, reset, and the
// PMIX_DATA_BUFFER_* macros working on buffers the codec filled.
#include "samples.h"

#include "codec/codec.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace codec_test {
namespace {

using pmix::codec::pack;
using pmix::codec::unpack;

void pack_ints(pmix_data_buffer_t* b, std::initializer_list<std::int32_t> values) {
    for (std::int32_t v : values) {
        ASSERT_EQ(PMIX_SUCCESS, pack(b, &v, 1, PMIX_INT32));
    }
}

std::vector<std::int32_t> unpack_ints(pmix_data_buffer_t* b) {
    std::vector<std::int32_t> out;
    for (;;) {
        std::int32_t v = 0;
        std::int32_t n = 1;
        if (unpack(b, &v, &n, PMIX_INT32) != PMIX_SUCCESS) {
            return out;
        }
        out.push_back(v);
    }
}

void expect_consistent(const pmix_data_buffer_t& b) {
    if (b.base_ptr == nullptr) {
        EXPECT_EQ(0u, b.bytes_used);
        return;
    }
    EXPECT_LE(b.bytes_used, b.bytes_allocated);
    EXPECT_EQ(b.base_ptr + b.bytes_used, b.pack_ptr);
    EXPECT_GE(b.unpack_ptr, b.base_ptr);
    EXPECT_LE(b.unpack_ptr, b.pack_ptr);
}

TEST(Payload, CopyAppendsTheUnreadPart) {
    Buffer src;
    Buffer dst;
    pack_ints(src.get(), {1, 2, 3});
    pack_ints(dst.get(), {9});
    std::int32_t v = 0;
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(src.get(), &v, &n, PMIX_INT32));  // consume "1"
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::copy_payload(dst.get(), src.get()));
    expect_consistent(dst.b);
    EXPECT_EQ((std::vector<std::int32_t>{9, 2, 3}), unpack_ints(dst.get()));
    EXPECT_EQ((std::vector<std::int32_t>{2, 3}), unpack_ints(src.get()));  // source untouched
}

TEST(Payload, CopyIntoItselfAndFromEmpty) {
    Buffer b;
    pack_ints(b.get(), {4, 5});
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::copy_payload(b.get(), b.get()));
    expect_consistent(b.b);
    EXPECT_EQ((std::vector<std::int32_t>{4, 5, 4, 5}), unpack_ints(b.get()));
    Buffer empty;
    Buffer dst;
    EXPECT_EQ(PMIX_SUCCESS, pmix::codec::copy_payload(dst.get(), empty.get()));
    EXPECT_EQ(0u, dst->bytes_used);
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pmix::codec::copy_payload(nullptr, empty.get()));
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pmix::codec::copy_payload(dst.get(), nullptr));
}

TEST(Payload, UnloadHandsOverUntouchedBuffers) {
    Buffer b;
    pack_ints(b.get(), {7, 8});
    char* base = b->base_ptr;
    std::size_t used = b->bytes_used;
    pmix_byte_object_t bo{};
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::unload(b.get(), &bo));
    EXPECT_EQ(base, bo.bytes);  // nothing consumed: the allocation itself moves
    EXPECT_EQ(used, bo.size);
    EXPECT_EQ(nullptr, b->base_ptr);
    EXPECT_EQ(0u, b->bytes_used);
    Buffer again;
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::load(again.get(), &bo));
    EXPECT_EQ(nullptr, bo.bytes);
    EXPECT_EQ(0u, bo.size);
    expect_consistent(again.b);
    EXPECT_EQ((std::vector<std::int32_t>{7, 8}), unpack_ints(again.get()));
}

TEST(Payload, UnloadAfterPartialUnpackCopiesTheRest) {
    Buffer b;
    pack_ints(b.get(), {1, 2, 3});
    std::int32_t v = 0;
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(b.get(), &v, &n, PMIX_INT32));
    pmix_byte_object_t bo{};
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::unload(b.get(), &bo));
    EXPECT_EQ(nullptr, b->base_ptr);
    Buffer rest;
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::load(rest.get(), &bo));
    EXPECT_EQ((std::vector<std::int32_t>{2, 3}), unpack_ints(rest.get()));
}

// Unload after a partial unpack *inside* a batch: the remainder is still a valid batch.
TEST(Payload, UnloadInsideABatch) {
    Buffer b;
    std::int32_t in[4] = {10, 20, 30, 40};
    ASSERT_EQ(PMIX_SUCCESS, pack(b.get(), in, 4, PMIX_INT32));
    std::int32_t first[1] = {};
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_ERR_UNPACK_INADEQUATE_SPACE, unpack(b.get(), first, &n, PMIX_INT32));
    pmix_byte_object_t bo{};
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::unload(b.get(), &bo));
    Buffer rest;
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::load(rest.get(), &bo));
    std::int32_t out[4] = {};
    n = 4;
    ASSERT_EQ(PMIX_SUCCESS, unpack(rest.get(), out, &n, PMIX_INT32));
    ASSERT_EQ(3, n);
    EXPECT_EQ(20, out[0]);
    EXPECT_EQ(40, out[2]);
}

TEST(Payload, UnloadEmptyAndBadArguments) {
    Buffer b;
    pmix_byte_object_t bo{reinterpret_cast<char*>(0x1), 5};
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::unload(b.get(), &bo));
    EXPECT_EQ(nullptr, bo.bytes);
    EXPECT_EQ(0u, bo.size);
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pmix::codec::unload(nullptr, &bo));
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pmix::codec::unload(b.get(), nullptr));
}

TEST(Payload, LoadReplacesAndAcceptsNull) {
    Buffer b;
    pack_ints(b.get(), {1});
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::load(b.get(), nullptr));  // frees the old payload
    EXPECT_EQ(nullptr, b->base_ptr);
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pmix::codec::load(nullptr, nullptr));
    pmix_byte_object_t bad{nullptr, 4};
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pmix::codec::load(b.get(), &bad));
}

TEST(Payload, EmbedCopiesAndLeavesThePayload) {
    Buffer src;
    pack_ints(src.get(), {5, 6});
    pmix_byte_object_t bo{src->base_ptr, src->bytes_used};
    Buffer b;
    pack_ints(b.get(), {99});  // replaced, not appended to
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::embed(b.get(), &bo));
    EXPECT_EQ(src->base_ptr, bo.bytes);
    EXPECT_NE(src->base_ptr, b->base_ptr);
    expect_consistent(b.b);
    EXPECT_EQ((std::vector<std::int32_t>{5, 6}), unpack_ints(b.get()));
    ASSERT_EQ(PMIX_SUCCESS, pmix::codec::embed(b.get(), nullptr));
    EXPECT_EQ(nullptr, b->base_ptr);
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pmix::codec::embed(nullptr, &bo));
}

// The public macros touch the struct directly; they must work on what the codec builds.
TEST(Payload, PublicMacrosWorkOnCodecBuffers) {
    pmix_data_buffer_t* b = nullptr;
    PMIX_DATA_BUFFER_CREATE(b);
    ASSERT_NE(nullptr, b);
    pack_ints(b, {1, 2});
    PMIX_DATA_BUFFER_RELEASE(b);
    EXPECT_EQ(nullptr, b);

    pmix_data_buffer_t s;
    PMIX_DATA_BUFFER_CONSTRUCT(&s);
    pack_ints(&s, {3});
    expect_consistent(s);
    PMIX_DATA_BUFFER_DESTRUCT(&s);
    EXPECT_EQ(nullptr, s.base_ptr);

    pmix_data_buffer_t st = PMIX_DATA_BUFFER_STATIC_INIT;
    pack_ints(&st, {4});
    pmix::codec::reset(&st);
    EXPECT_EQ(nullptr, st.base_ptr);
}

TEST(Payload, GrowthKeepsPointersConsistent) {
    Buffer b;
    std::vector<std::int32_t> expect;
    for (std::int32_t i = 0; i < 5000; ++i) {
        pack_ints(b.get(), {i});
        expect.push_back(i);
        if (i == 100) {
            std::int32_t v = 0;
            std::int32_t n = 1;
            ASSERT_EQ(PMIX_SUCCESS, unpack(b.get(), &v, &n, PMIX_INT32));
            expect.erase(expect.begin());
        }
    }
    expect_consistent(b.b);
    EXPECT_EQ(expect, unpack_ints(b.get()));
}

}  // namespace
}  // namespace codec_test
