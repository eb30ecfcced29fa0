// test_capi.cpp - the value-model entry points through libpmix's exported C API, including the
// header macros that call them (PMIX_INFO_LOAD, PMIX_VALUE_RELEASE, PMIX_INFO_LIST_*, ...).
#include <gtest/gtest.h>

#include <pmix.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

TEST(CApi, ValueLoadUnloadXferCompareDestruct) {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    ASSERT_EQ(PMIx_Value_load(&v, "foo", PMIX_STRING), PMIX_SUCCESS);
    pmix_value_t* w = nullptr;
    pmix_status_t rc;
    PMIX_VALUE_XFER(rc, w, &v);  // allocates w with malloc, then PMIx_Value_xfer
    ASSERT_EQ(rc, PMIX_SUCCESS);
    EXPECT_EQ(PMIx_Value_compare(&v, w), PMIX_EQUAL);
    char* s = nullptr;
    size_t sz = 0;
    ASSERT_EQ(PMIx_Value_unload(w, reinterpret_cast<void**>(&s), &sz), PMIX_SUCCESS);
    EXPECT_STREQ(s, "foo");
    EXPECT_EQ(sz, 3u);
    free(s);
    PMIX_VALUE_RELEASE(w);  // PMIx_Value_destruct + free
    PMIx_Value_destruct(&v);
    EXPECT_EQ(v.type, PMIX_UNDEF);
}

TEST(CApi, BadInputIsReportedNotCrashed) {
    int n = 1;
    EXPECT_EQ(PMIx_Value_load(nullptr, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    EXPECT_EQ(PMIx_Value_load(&v, &n, 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(PMIx_Value_xfer(nullptr, &v), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_Value_unload(&v, nullptr, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_Value_compare(nullptr, &v), PMIX_VALUE_COMPARISON_NOT_AVAIL);
    PMIx_Value_destruct(nullptr);
    PMIx_Data_array_destruct(nullptr);
    EXPECT_EQ(PMIx_Info_xfer(nullptr, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_Data_copy(nullptr, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    char* out = nullptr;
    EXPECT_EQ(PMIx_Data_print(&out, nullptr, nullptr, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_Data_print(nullptr, nullptr, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_Data_print(&out, nullptr, &n, 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(out, nullptr);
    EXPECT_EQ(PMIx_Value_string(nullptr), nullptr);
    EXPECT_EQ(PMIx_Info_string(nullptr), nullptr);
}

// Deviation from OpenPMIx 4.2.2 (which truncates and succeeds): an over-long key is refused.
TEST(CApi, InfoLoadRefusesOverlongKeys) {
    pmix_info_t info;
    PMIX_INFO_CONSTRUCT(&info);
    std::string key(PMIX_MAX_KEYLEN + 1, 'k');
    EXPECT_EQ(PMIx_Info_load(&info, key.c_str(), "v", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_Info_load(&info, nullptr, "v", PMIX_STRING), PMIX_ERR_BAD_PARAM);
    ASSERT_EQ(PMIx_Info_load(&info, "pmix.hname", "n1", PMIX_STRING), PMIX_SUCCESS);
    char* text = PMIx_Info_string(&info);
    ASSERT_NE(text, nullptr);
    EXPECT_EQ(std::string(text),
              " KEY: PMIX_HOSTNAME\n \t Data type: PMIX_INFO_DIRECTIVES\tValue: OPTIONAL\n"
              " \t PMIX_VALUE:  Data type: PMIX_STRING\tValue: n1");
    free(text);
    PMIX_INFO_DESTRUCT(&info);
}

TEST(CApi, HeaderMacrosOverNestedArrays) {
    pmix_info_t* infos;
    PMIX_INFO_CREATE(infos, 2);
    uint32_t n = 4;
    PMIX_INFO_LOAD(&infos[0], "pmix.univ.size", &n, PMIX_UINT32);
    pmix_data_array_t* inner;
    PMIX_DATA_ARRAY_CREATE(inner, 2, PMIX_STRING);
    static_cast<char**>(inner->array)[0] = strdup("a");
    static_cast<char**>(inner->array)[1] = strdup("b");
    PMIX_INFO_LOAD(&infos[1], "test.array", inner, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_FREE(inner);  // the info holds its own deep copy

    pmix_info_t copy;
    ASSERT_EQ(PMIx_Info_xfer(&copy, &infos[1]), PMIX_SUCCESS);
    EXPECT_EQ(PMIx_Value_compare(&copy.value, &infos[1].value), PMIX_EQUAL);
    PMIX_INFO_DESTRUCT(&copy);
    PMIX_INFO_FREE(infos, 2);
}

TEST(CApi, DataCopyAndPrint) {
    void* dest = nullptr;
    ASSERT_EQ(PMIx_Data_copy(&dest, const_cast<char*>("abc"), PMIX_STRING), PMIX_SUCCESS);
    EXPECT_STREQ(static_cast<char*>(dest), "abc");
    free(dest);
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "ns1", 3);
    ASSERT_EQ(PMIx_Data_copy(&dest, &p, PMIX_PROC), PMIX_SUCCESS);
    EXPECT_TRUE(PMIX_CHECK_PROCID(static_cast<pmix_proc_t*>(dest), &p));
    free(dest);
    char* out = nullptr;
    ASSERT_EQ(PMIx_Data_print(&out, nullptr, &p, PMIX_PROC), PMIX_SUCCESS);
    EXPECT_STREQ(out, " PROC: ns1:3");
    free(out);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    int i = -5;
    PMIx_Value_load(&v, &i, PMIX_INT);
    char* s = PMIx_Value_string(&v);
    EXPECT_STREQ(s, " PMIX_VALUE:  Data type: PMIX_INT\tValue: -5");
    free(s);
    PMIx_Value_destruct(&v);
}

TEST(CApi, InfoListThroughTheMacros) {
    void* list;
    pmix_status_t rc;
    PMIX_INFO_LIST_START(list);
    ASSERT_NE(list, nullptr);
    PMIX_INFO_LIST_ADD(rc, list, "pmix.hname", "host", PMIX_STRING);
    EXPECT_EQ(rc, PMIX_SUCCESS);
    pmix_info_t borrowed;
    PMIX_INFO_LOAD(&borrowed, "pmix.nspace", "job", PMIX_STRING);
    PMIX_INFO_LIST_INSERT(rc, list, &borrowed);
    EXPECT_EQ(rc, PMIX_SUCCESS);
    pmix_data_array_t array;
    PMIX_INFO_LIST_CONVERT(rc, list, &array);
    ASSERT_EQ(rc, PMIX_SUCCESS);
    ASSERT_EQ(array.size, 2u);
    EXPECT_STREQ(static_cast<pmix_info_t*>(array.array)[1].value.data.string, "job");
    PMIX_DATA_ARRAY_DESTRUCT(&array);
    PMIX_INFO_LIST_RELEASE(list);
    EXPECT_STREQ(borrowed.value.data.string, "job");  // insert never took ownership
    PMIX_INFO_DESTRUCT(&borrowed);

    PMIX_INFO_LIST_START(list);
    PMIX_INFO_LIST_CONVERT(rc, list, &array);
    EXPECT_EQ(rc, PMIX_ERR_EMPTY);
    PMIX_INFO_LIST_RELEASE(list);
}

}  // namespace
