// test_arrays.cpp - pmix_data_array_t: construction, nesting, deep copies and bad input.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "data/value.h"
#include "samples.h"

namespace pmix::data::test {
namespace {

// info[0] = {"outer.0", darray of 2 info{"inner.j", darray of 3 strings}}, info[1] = int.
void build_nested(pmix_data_array_t* outer) {
    ASSERT_EQ(data_array_init(outer, 2, PMIX_INFO), PMIX_SUCCESS);
    auto* top = static_cast<pmix_info_t*>(outer->array);
    pmix_data_array_t middle;
    ASSERT_EQ(data_array_init(&middle, 2, PMIX_INFO), PMIX_SUCCESS);
    auto* mid = static_cast<pmix_info_t*>(middle.array);
    for (int j = 0; j < 2; ++j) {
        pmix_data_array_t leaves;
        ASSERT_EQ(data_array_init(&leaves, 3, PMIX_STRING), PMIX_SUCCESS);
        for (int k = 0; k < 3; ++k) {
            std::string s = "leaf-" + std::to_string(j) + "-" + std::to_string(k);
            static_cast<char**>(leaves.array)[k] = ::strdup(s.c_str());
        }
        std::string key = "inner." + std::to_string(j);
        ASSERT_EQ(info_load(&mid[j], key.c_str(), &leaves, PMIX_DATA_ARRAY), PMIX_SUCCESS);
        data_array_destruct(&leaves);
    }
    ASSERT_EQ(info_load(&top[0], "outer.0", &middle, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    data_array_destruct(&middle);
    int n = 11;
    ASSERT_EQ(info_load(&top[1], "outer.1", &n, PMIX_INT), PMIX_SUCCESS);
}

char* leaf(const pmix_data_array_t* outer, int j, int k) {
    auto* top = static_cast<pmix_info_t*>(outer->array);
    auto* mid = static_cast<pmix_info_t*>(top[0].value.data.darray->array);
    return static_cast<char**>(mid[j].value.data.darray->array)[k];
}

TEST(DataArray, NestedInfoArraysAreDeepCopied) {
    pmix_data_array_t outer;
    build_nested(&outer);
    Value v;
    ASSERT_EQ(value_load(&v.v, &outer, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    Value copy;
    ASSERT_EQ(value_xfer(&copy.v, &v.v), PMIX_SUCCESS);
    EXPECT_EQ(value_compare(&copy.v, &v.v), PMIX_EQUAL);
    EXPECT_NE(leaf(copy.v.data.darray, 1, 2), leaf(v.v.data.darray, 1, 2));
    EXPECT_STREQ(leaf(copy.v.data.darray, 1, 2), "leaf-1-2");

    // Change one leaf deep inside the copy: the comparison sees it, the original does not.
    leaf(copy.v.data.darray, 1, 2)[0] = 'X';
    EXPECT_NE(value_compare(&copy.v, &v.v), PMIX_EQUAL);
    EXPECT_STREQ(leaf(&outer, 1, 2), "leaf-1-2");
    std::string out;
    EXPECT_EQ(print(out, nullptr, &v.v, PMIX_VALUE), PMIX_SUCCESS);
    EXPECT_NE(out.find("leaf-0-1"), std::string::npos) << out;
    data_array_destruct(&outer);
}

TEST(DataArray, ArrayOfArrays) {
    pmix_data_array_t outer;
    ASSERT_EQ(data_array_init(&outer, 2, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    auto* inner = static_cast<pmix_data_array_t*>(outer.array);
    fill(&inner[0], PMIX_DATA_ARRAY, 1);
    ASSERT_EQ(data_array_init(&inner[1], 4, PMIX_UINT16), PMIX_SUCCESS);
    void* copied = nullptr;
    ASSERT_EQ(copy(&copied, &outer, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    EXPECT_EQ(compare_element(copied, &outer, PMIX_DATA_ARRAY), PMIX_EQUAL);
    destruct_element(copied, PMIX_DATA_ARRAY);
    std::free(copied);
    data_array_destruct(&outer);
}

TEST(DataArray, InitAndDestruct) {
    pmix_data_array_t a;
    ASSERT_EQ(data_array_init(&a, 0, PMIX_STRING), PMIX_SUCCESS);
    EXPECT_EQ(a.type, PMIX_STRING);
    EXPECT_EQ(a.size, 0u);
    EXPECT_EQ(a.array, nullptr);
    data_array_destruct(&a);

    ASSERT_EQ(data_array_init(&a, 2, PMIX_DEVICE_DIST), PMIX_SUCCESS);
    auto* d = static_cast<pmix_device_distance_t*>(a.array);
    EXPECT_EQ(d[1].mindist, UINT16_MAX);  // "unknown distance", as PMIX_DEVICE_DIST_CREATE
    EXPECT_EQ(d[1].maxdist, UINT16_MAX);
    data_array_destruct(&a);

    ASSERT_EQ(data_array_init(&a, 4, PMIX_POINTER), PMIX_SUCCESS);
    static_cast<void**>(a.array)[3] = &a;  // room for a full pointer per element
    data_array_destruct(&a);

    EXPECT_EQ(data_array_init(nullptr, 1, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(data_array_init(&a, 1, 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(data_array_init(&a, 1, PMIX_UNDEF), PMIX_ERR_UNKNOWN_DATA_TYPE);
    data_array_destruct(nullptr);
}

TEST(DataArray, UnknownElementTypeIsFreedAsABlock) {
    pmix_data_array_t a{999, 3, std::calloc(3, 8)};
    data_array_destruct(&a);  // LeakSanitizer checks the block went away
    EXPECT_EQ(a.array, nullptr);
    EXPECT_EQ(a.type, PMIX_UNDEF);
}

TEST(DataArray, MissingStorageCopiesAsEmpty) {
    pmix_data_array_t hollow{PMIX_INT, 5, nullptr};
    Value v;
    ASSERT_EQ(value_load(&v.v, &hollow, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    EXPECT_EQ(v.v.data.darray->type, PMIX_INT);
    EXPECT_EQ(v.v.data.darray->size, 0u);
    EXPECT_EQ(v.v.data.darray->array, nullptr);
}

TEST(DataArray, PersistentInfosInsideArraysAreNotReleased) {
    char* text = ::strdup("borrowed");
    pmix_data_array_t a;
    ASSERT_EQ(data_array_init(&a, 1, PMIX_INFO), PMIX_SUCCESS);
    auto* info = static_cast<pmix_info_t*>(a.array);
    std::strcpy(info->key, "k");
    info->flags = PMIX_INFO_PERSISTENT;
    info->value.type = PMIX_STRING;
    info->value.data.string = text;
    data_array_destruct(&a);
    EXPECT_STREQ(text, "borrowed");
    std::free(text);
}

}  // namespace
}  // namespace pmix::data::test
