// tests/unit/core/codec/test_nested.cpp - nested values, infos and arrays; regex bytes in values;
// kval; the nesting limit on both sides.
#include "samples.h"

#include "codec/codec.h"
#include "data/value.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace codec_test {
namespace {

using pmix::codec::pack;
using pmix::codec::unpack;

// info[0] = { "outer", DATA_ARRAY of 2 INFO { "inner.i", VALUE = DATA_ARRAY of VALUE {...} } }
void build_deep(pmix_info_t* outer) {
    std::memset(outer, 0, sizeof(*outer));
    std::strcpy(outer->key, "outer");
    pmix_data_array_t infos{};
    ASSERT_EQ(PMIX_SUCCESS, pmix::data::data_array_init(&infos, 2, PMIX_INFO));
    auto* in = static_cast<pmix_info_t*>(infos.array);
    for (int i = 0; i < 2; ++i) {
        std::snprintf(in[i].key, sizeof(in[i].key), "inner.%d", i);
        pmix_data_array_t values{};
        ASSERT_EQ(PMIX_SUCCESS, pmix::data::data_array_init(&values, 3, PMIX_VALUE));
        auto* v = static_cast<pmix_value_t*>(values.array);
        make_value(&v[0], PMIX_STRING, i == 0 ? 0 : 2);  // NULL string, then a real one
        make_value(&v[1], PMIX_UINT64, 1);
        make_value(&v[2], PMIX_DATA_ARRAY, 3);  // yet another level of infos
        ASSERT_EQ(PMIX_SUCCESS, pmix::data::value_adopt(&in[i].value, &values, PMIX_DATA_ARRAY));
    }
    ASSERT_EQ(PMIX_SUCCESS, pmix::data::value_adopt(&outer->value, &infos, PMIX_DATA_ARRAY));
}

TEST(Nested, ArraysOfInfosOfValuesOfArrays) {
    Elements src(PMIX_INFO, 1);
    build_deep(static_cast<pmix_info_t*>(src.at(0)));
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), src.data(), 1, PMIX_INFO));
    Elements dst(PMIX_INFO, 1);
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), dst.data(), &n, PMIX_INFO));
    ASSERT_EQ(1, n);
    EXPECT_EQ(PMIX_EQUAL, pmix::data::compare_element(src.at(0), dst.at(0), PMIX_INFO));

    // Walk the copy by hand to be sure the structure is really there.
    auto* out = static_cast<pmix_info_t*>(dst.at(0));
    EXPECT_STREQ("outer", out->key);
    ASSERT_EQ(PMIX_DATA_ARRAY, out->value.type);
    pmix_data_array_t* infos = out->value.data.darray;
    ASSERT_EQ(PMIX_INFO, infos->type);
    ASSERT_EQ(2u, infos->size);
    auto* in = static_cast<pmix_info_t*>(infos->array);
    EXPECT_STREQ("inner.1", in[1].key);
    ASSERT_EQ(PMIX_DATA_ARRAY, in[1].value.type);
    pmix_data_array_t* values = in[1].value.data.darray;
    ASSERT_EQ(PMIX_VALUE, values->type);
    ASSERT_EQ(3u, values->size);
    auto* v = static_cast<pmix_value_t*>(values->array);
    auto* v0 = static_cast<pmix_value_t*>(in[0].value.data.darray->array);
    EXPECT_EQ(PMIX_STRING, v0[0].type);
    EXPECT_EQ(nullptr, v0[0].data.string);  // a NULL string inside stays NULL
    EXPECT_STREQ("hello, world", v[0].data.string);
    EXPECT_EQ(PMIX_UINT64, v[1].type);
    EXPECT_EQ(PMIX_DATA_ARRAY, v[2].type);
}

TEST(Nested, RegexValueKeepsItsBytes) {
    // A value's regex is a byte object and need not be text; its bytes travel unchanged.
    pmix_value_t v{};
    v.type = PMIX_REGEX;
    v.data.bo.size = 6;
    v.data.bo.bytes = static_cast<char*>(std::malloc(6));
    std::memcpy(v.data.bo.bytes, "pm\0ix\0", 6);
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &v, 1, PMIX_VALUE));
    pmix_value_t out{};
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &out, &n, PMIX_VALUE));
    ASSERT_EQ(PMIX_REGEX, out.type);
    ASSERT_EQ(6u, out.data.bo.size);
    EXPECT_EQ(0, std::memcmp(out.data.bo.bytes, "pm\0ix\0", 6));
    pmix::data::value_destruct(&v);
    pmix::data::value_destruct(&out);
}

TEST(Nested, TopLevelRegexIsAString) {
    const char* rx = "pmix[node[2:1-3]]";
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &rx, 1, PMIX_REGEX));
    char* out = nullptr;
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &out, &n, PMIX_REGEX));
    EXPECT_STREQ(rx, out);
    std::free(out);
}

TEST(Nested, KvalWithAndWithoutValue) {
    Elements src = samples(PMIX_KVAL, 4);
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), src.data(), 4, PMIX_KVAL));
    Elements dst(PMIX_KVAL, 4);
    std::int32_t n = 4;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), dst.data(), &n, PMIX_KVAL));
    auto* kv = static_cast<pmix::data::kval_t*>(dst.data());
    EXPECT_EQ(nullptr, kv[0].value);
    EXPECT_EQ(nullptr, kv[0].key);
    EXPECT_STREQ("kval.key", kv[1].key);
    ASSERT_NE(nullptr, kv[2].value);
    EXPECT_EQ(PMIX_PROC, kv[2].value->type);
    ASSERT_NE(nullptr, kv[3].value);
    EXPECT_EQ(PMIX_DATA_ARRAY, kv[3].value->type);
}

// A value chain deeper than the codec's limit is refused when packing (this is also what stops
// a cyclic structure) and nothing is left in the buffer.
TEST(Nested, PackRefusesExcessiveDepth) {
    pmix_value_t root{};
    pmix_value_t* cur = &root;
    for (int i = 0; i < 100; ++i) {
        cur->type = PMIX_VALUE;
        auto* next = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
        cur->data.ptr = next;
        cur = next;
    }
    cur->type = PMIX_INT;
    cur->data.integer = 1;
    Buffer buf;
    std::int32_t first = 7;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &first, 1, PMIX_INT32));
    std::size_t before = buf->bytes_used;
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(buf.get(), &root, 1, PMIX_VALUE));
    EXPECT_EQ(before, buf->bytes_used);
    pmix::data::value_destruct(&root);
}

TEST(Nested, ModerateDepthIsFine) {
    pmix_value_t root{};
    pmix_value_t* cur = &root;
    for (int i = 0; i < 30; ++i) {
        cur->type = PMIX_VALUE;
        auto* next = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
        cur->data.ptr = next;
        cur = next;
    }
    cur->type = PMIX_STRING;
    cur->data.string = ::strdup("leaf");
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &root, 1, PMIX_VALUE));
    pmix_value_t out{};
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &out, &n, PMIX_VALUE));
    EXPECT_EQ(PMIX_EQUAL, pmix::data::value_compare(&root, &out));
    pmix::data::value_destruct(&root);
    pmix::data::value_destruct(&out);
}

// Hand-made buffer: one value nested 10,000 levels deep ([u16 PMIX_VALUE] repeated). The
// decoder must stop at its limit instead of recursing until the stack runs out.
TEST(Nested, UnpackRefusesExcessiveDepth) {
    std::vector<unsigned char> bytes = {0xA1, PMIX_VALUE, 0, 1, 0, 0, 0};
    for (int i = 0; i < 10000; ++i) {
        bytes.push_back(PMIX_VALUE);
        bytes.push_back(0);
    }
    bytes.push_back(PMIX_INT8);
    bytes.push_back(0);
    bytes.push_back(1);
    Buffer buf;
    buf.load(bytes);
    pmix_value_t out{};
    std::int32_t n = 1;
    EXPECT_EQ(PMIX_ERR_UNPACK_FAILURE, unpack(buf.get(), &out, &n, PMIX_VALUE));
    EXPECT_EQ(0, n);
    EXPECT_EQ(PMIX_UNDEF, out.type);
    EXPECT_EQ(0u, buf.offset());
}

TEST(Nested, ValueWithNullBoxIsRefused) {
    pmix_value_t v{};
    v.type = PMIX_PROC;
    v.data.proc = nullptr;
    Buffer buf;
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(buf.get(), &v, 1, PMIX_VALUE));
    EXPECT_EQ(0u, buf->bytes_used);
}

TEST(Nested, ValueOfUnknownTypeIsRefused) {
    pmix_value_t v{};
    v.type = 300;
    Buffer buf;
    EXPECT_EQ(PMIX_ERR_UNKNOWN_DATA_TYPE, pack(buf.get(), &v, 1, PMIX_VALUE));
    pmix_data_array_t d{};
    d.type = 44;  // a hole in the type numbering
    d.size = 1;
    int dummy = 0;
    d.array = &dummy;
    EXPECT_EQ(PMIX_ERR_UNKNOWN_DATA_TYPE, pack(buf.get(), &d, 1, PMIX_DATA_ARRAY));
    EXPECT_EQ(0u, buf->bytes_used);
}

TEST(Nested, ArrayWithNullStorageIsRefused) {
    pmix_data_array_t d{};
    d.type = PMIX_INT;
    d.size = 2;
    d.array = nullptr;
    Buffer buf;
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(buf.get(), &d, 1, PMIX_DATA_ARRAY));
    pmix_app_t app{};
    app.ninfo = 1;
    EXPECT_EQ(PMIX_ERR_BAD_PARAM, pack(buf.get(), &app, 1, PMIX_APP));
    EXPECT_EQ(0u, buf->bytes_used);
}

// PERSISTENT means "the sender does not own this value"; the receiver always owns what it
// unpacked, so the flag is dropped (otherwise every received value would leak).
TEST(Nested, PersistentFlagDoesNotTravel) {
    char text[] = "borrowed";
    pmix_info_t in{};
    std::strcpy(in.key, "k");
    in.flags = PMIX_INFO_PERSISTENT | PMIX_INFO_REQD;
    in.value.type = PMIX_STRING;
    in.value.data.string = text;  // not ours to free
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &in, 1, PMIX_INFO));
    Elements out(PMIX_INFO, 1);
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), out.data(), &n, PMIX_INFO));
    auto* info = static_cast<pmix_info_t*>(out.data());
    EXPECT_EQ(static_cast<pmix_info_directives_t>(PMIX_INFO_REQD), info->flags);
    EXPECT_STREQ("borrowed", info->value.data.string);
    EXPECT_NE(text, info->value.data.string);
    // A hand-made batch that sets the flag anyway gets it stripped too (ASan checks no leak).
    std::vector<unsigned char> bytes = buf.bytes();
    bytes[7 + 4 + 1] = PMIX_INFO_PERSISTENT;  // flags follow the 1-char key
    Buffer hostile;
    hostile.load(bytes);
    Elements again(PMIX_INFO, 1);
    n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(hostile.get(), again.data(), &n, PMIX_INFO));
    EXPECT_EQ(0u, static_cast<pmix_info_t*>(again.data())->flags & PMIX_INFO_PERSISTENT);
}

TEST(Nested, DataBufferTravelsAsItsBytes) {
    pmix_data_buffer_t inner{};
    std::int32_t v = 42;
    ASSERT_EQ(PMIX_SUCCESS, pack(&inner, &v, 1, PMIX_INT32));
    Buffer buf;
    ASSERT_EQ(PMIX_SUCCESS, pack(buf.get(), &inner, 1, PMIX_DATA_BUFFER));
    pmix_data_buffer_t out{};
    std::int32_t n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(buf.get(), &out, &n, PMIX_DATA_BUFFER));
    ASSERT_EQ(inner.bytes_used, out.bytes_used);
    EXPECT_EQ(out.base_ptr, out.unpack_ptr);
    EXPECT_EQ(out.base_ptr + out.bytes_used, out.pack_ptr);
    std::int32_t got = 0;
    n = 1;
    ASSERT_EQ(PMIX_SUCCESS, unpack(&out, &got, &n, PMIX_INT32));
    EXPECT_EQ(42, got);
    pmix::codec::reset(&inner);
    pmix::codec::reset(&out);
}

}  // namespace
}  // namespace codec_test
