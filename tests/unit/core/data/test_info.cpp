// test_info.cpp - pmix_info_t load/xfer/destruct and the PMIx_Info_list_* family.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "data/info_list.h"
#include "data/directives.h"
#include "data/value.h"
#include "samples.h"

namespace pmix::data::test {
namespace {

// find_info: first match by key, NULL for none or a NULL array; info_true: OpenPMIx's
// PMIX_INFO_TRUE (no value counts as set, a false bool or a non-boolean value does not; strings:
// test_directives.cpp).
TEST(InfoFind, FirstMatchAndBooleanDirectives) {
    pmix_info_t info[5];
    bool yes = true, no = false;
    int three = 3;
    ASSERT_EQ(info_load(&info[0], "pmix.a", &yes, PMIX_BOOL), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&info[1], "pmix.b", &no, PMIX_BOOL), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&info[2], "pmix.c", nullptr, PMIX_UNDEF), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&info[3], "pmix.d", &three, PMIX_INT), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&info[4], "pmix.a", &no, PMIX_BOOL), PMIX_SUCCESS);
    EXPECT_EQ(find_info(info, 5, "pmix.a"), &info[0]);
    EXPECT_EQ(find_info(info, 5, "pmix.d"), &info[3]);
    EXPECT_EQ(find_info(info, 5, "pmix.none"), nullptr);
    EXPECT_EQ(find_info(info, 3, "pmix.d"), nullptr) << "only the first n are searched";
    EXPECT_EQ(find_info(nullptr, 5, "pmix.a"), nullptr);
    EXPECT_EQ(find_info(info, 5, nullptr), nullptr);
    EXPECT_TRUE(info_true(info, 5, "pmix.a"));
    EXPECT_FALSE(info_true(info, 5, "pmix.b"));
    EXPECT_TRUE(info_true(info, 5, "pmix.c"));
    EXPECT_FALSE(info_true(info, 5, "pmix.d"));
    EXPECT_FALSE(info_true(info, 5, "pmix.none"));
    for (auto& i : info) info_destruct(&i);
}

TEST(InfoLoad, CopiesKeyAndValueAndClearsFlags) {
    pmix_info_t info;
    std::memset(&info, 0xff, sizeof(info));  // garbage, as a caller's stack would hold
    std::uint32_t n = 17;
    ASSERT_EQ(info_load(&info, "pmix.univ.size", &n, PMIX_UINT32), PMIX_SUCCESS);
    EXPECT_STREQ(info.key, "pmix.univ.size");
    EXPECT_EQ(info.flags, 0u);
    EXPECT_EQ(info.value.type, PMIX_UINT32);
    EXPECT_EQ(info.value.data.uint32, 17u);
    info_destruct(&info);
}

// Deviation (documented in value.cpp): OpenPMIx 4.2.2 truncates such keys to PMIX_MAX_KEYLEN
// characters and reports success.
TEST(InfoLoad, OverlongKeyIsBadParamAndTheInfoUntouched) {
    std::string longest(PMIX_MAX_KEYLEN, 'k');
    pmix_info_t info;
    ASSERT_EQ(info_load(&info, longest.c_str(), "v", PMIX_STRING), PMIX_SUCCESS);
    EXPECT_EQ(std::strlen(info.key), static_cast<std::size_t>(PMIX_MAX_KEYLEN));
    pmix_info_t before = info;
    std::string too_long(PMIX_MAX_KEYLEN + 1, 'x');
    EXPECT_EQ(info_load(&info, too_long.c_str(), "w", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(std::memcmp(&info, &before, sizeof(info)), 0);
    info_destruct(&info);
}

TEST(InfoLoad, BadInput) {
    pmix_info_t info;
    std::memset(&info, 0, sizeof(info));
    EXPECT_EQ(info_load(nullptr, "k", "v", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_load(&info, nullptr, "v", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_load(&info, "k", "v", 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(info.key[0], '\0');
    EXPECT_EQ(info_xfer(nullptr, &info), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_xfer(&info, nullptr), PMIX_ERR_BAD_PARAM);
    info_destruct(nullptr);
}

TEST(InfoXfer, DeepCopiesKeyFlagsAndValue) {
    pmix_info_t src;
    ASSERT_EQ(info_load(&src, "pmix.hname", "node7", PMIX_STRING), PMIX_SUCCESS);
    src.flags = PMIX_INFO_REQD;
    pmix_info_t dst;
    ASSERT_EQ(info_xfer(&dst, &src), PMIX_SUCCESS);
    EXPECT_STREQ(dst.key, "pmix.hname");
    EXPECT_EQ(dst.flags, static_cast<pmix_info_directives_t>(PMIX_INFO_REQD));
    EXPECT_NE(dst.value.data.string, src.value.data.string);
    EXPECT_EQ(value_compare(&dst.value, &src.value), PMIX_EQUAL);
    info_destruct(&src);
    EXPECT_STREQ(dst.value.data.string, "node7");
    info_destruct(&dst);
}

TEST(InfoXfer, PersistentInfoSharesItsValue) {
    char* text = ::strdup("shared");
    pmix_info_t src;
    std::memset(&src, 0, sizeof(src));
    std::strcpy(src.key, "k");
    src.flags = PMIX_INFO_PERSISTENT;
    src.value.type = PMIX_STRING;
    src.value.data.string = text;
    pmix_info_t dst;
    ASSERT_EQ(info_xfer(&dst, &src), PMIX_SUCCESS);
    EXPECT_EQ(dst.value.data.string, text);
    info_destruct(&dst);  // must not free the caller's string
    info_destruct(&src);
    EXPECT_STREQ(text, "shared");
    std::free(text);
}

TEST(InfoList, AddXferConvertInOrder) {
    void* list = info_list_start();
    ASSERT_NE(list, nullptr);
    int n = 5;
    ASSERT_EQ(info_list_add(list, "a.one", &n, PMIX_INT), PMIX_SUCCESS);
    ASSERT_EQ(info_list_add(list, "a.two", "text", PMIX_STRING), PMIX_SUCCESS);
    pmix_info_t extra;
    ASSERT_EQ(info_load(&extra, "a.three", nullptr, PMIX_BOOL), PMIX_SUCCESS);
    ASSERT_EQ(info_list_xfer(list, &extra), PMIX_SUCCESS);
    info_destruct(&extra);  // the list holds its own copy

    pmix_data_array_t array;
    ASSERT_EQ(info_list_convert(list, &array), PMIX_SUCCESS);
    EXPECT_EQ(array.type, PMIX_INFO);
    ASSERT_EQ(array.size, 3u);
    auto* infos = static_cast<pmix_info_t*>(array.array);
    EXPECT_STREQ(infos[0].key, "a.one");
    EXPECT_EQ(infos[0].value.data.integer, 5);
    EXPECT_STREQ(infos[1].key, "a.two");
    EXPECT_STREQ(infos[1].value.data.string, "text");
    EXPECT_STREQ(infos[2].key, "a.three");
    EXPECT_TRUE(infos[2].value.data.flag);
    info_list_release(list);  // the converted array is independent of the list
    EXPECT_STREQ(infos[1].value.data.string, "text");
    data_array_destruct(&array);
}

TEST(InfoList, InsertSharesTheCallersValue) {
    void* list = info_list_start();
    pmix_info_t mine;
    ASSERT_EQ(info_load(&mine, "b.key", "owned by caller", PMIX_STRING), PMIX_SUCCESS);
    ASSERT_EQ(info_list_insert(list, &mine), PMIX_SUCCESS);
    pmix_data_array_t array;
    ASSERT_EQ(info_list_convert(list, &array), PMIX_SUCCESS);
    auto* infos = static_cast<pmix_info_t*>(array.array);
    EXPECT_EQ(infos[0].value.data.string, mine.value.data.string);
    EXPECT_NE(infos[0].flags & PMIX_INFO_PERSISTENT, 0u);
    data_array_destruct(&array);
    info_list_release(list);
    EXPECT_STREQ(mine.value.data.string, "owned by caller");  // still alive (ASan checks)
    info_destruct(&mine);
}

TEST(InfoList, EmptyConvertAndBadInput) {
    void* list = info_list_start();
    pmix_data_array_t array{PMIX_INT, 9, reinterpret_cast<void*>(0x1)};
    EXPECT_EQ(info_list_convert(list, &array), PMIX_ERR_EMPTY);
    EXPECT_EQ(array.type, PMIX_INFO);
    EXPECT_EQ(array.size, 0u);
    EXPECT_EQ(array.array, nullptr);

    std::string too_long(PMIX_MAX_KEYLEN + 1, 'x');
    EXPECT_EQ(info_list_add(list, too_long.c_str(), "v", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_list_add(list, "k", "v", 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(info_list_convert(list, &array), PMIX_ERR_EMPTY);  // failed adds left nothing

    EXPECT_EQ(info_list_add(nullptr, "k", "v", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_list_insert(nullptr, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_list_insert(list, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_list_xfer(list, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_list_convert(nullptr, &array), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(info_list_convert(list, nullptr), PMIX_ERR_BAD_PARAM);
    info_list_release(list);
    info_list_release(nullptr);
}

TEST(InfoList, ManyEntriesSurviveGrowth) {
    void* list = info_list_start();
    for (int i = 0; i < 1000; ++i) {
        std::string key = "k." + std::to_string(i);
        std::string val = "v." + std::to_string(i);
        ASSERT_EQ(info_list_add(list, key.c_str(), val.c_str(), PMIX_STRING), PMIX_SUCCESS);
    }
    pmix_data_array_t array;
    ASSERT_EQ(info_list_convert(list, &array), PMIX_SUCCESS);
    ASSERT_EQ(array.size, 1000u);
    auto* infos = static_cast<pmix_info_t*>(array.array);
    EXPECT_STREQ(infos[999].value.data.string, "v.999");
    data_array_destruct(&array);
    info_list_release(list);
}

}  // namespace
}  // namespace pmix::data::test
