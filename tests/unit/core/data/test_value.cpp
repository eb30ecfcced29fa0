// test_value.cpp - PMIx_Value_load / xfer / destruct semantics that are specific to some types,
// and bad input.
#include <gtest/gtest.h>

#include <hwloc.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "data/value.h"
#include "samples.h"

namespace pmix::data::test {
namespace {

TEST(ValueLoad, StringIsPassedAsTheCharPointerAndCopied) {
    char text[] = "foo";
    Value v;
    ASSERT_EQ(value_load(&v.v, text, PMIX_STRING), PMIX_SUCCESS);
    ASSERT_NE(v.v.data.string, nullptr);
    EXPECT_NE(v.v.data.string, text);
    EXPECT_STREQ(v.v.data.string, "foo");
    text[0] = 'g';  // the value does not alias the caller's buffer
    EXPECT_STREQ(v.v.data.string, "foo");
}

TEST(ValueLoad, ByteObjectsCopyTheBytes) {
    for (pmix_data_type_t type :
         {PMIX_BYTE_OBJECT, PMIX_COMPRESSED_STRING, PMIX_COMPRESSED_BYTE_OBJECT}) {
        char bytes[] = {1, 2, 0, 4};
        pmix_byte_object_t bo{bytes, sizeof(bytes)};
        Value v;
        ASSERT_EQ(value_load(&v.v, &bo, type), PMIX_SUCCESS);
        EXPECT_NE(v.v.data.bo.bytes, bytes);
        ASSERT_EQ(v.v.data.bo.size, sizeof(bytes));
        EXPECT_EQ(std::memcmp(v.v.data.bo.bytes, bytes, sizeof(bytes)), 0);
    }
}

TEST(ValueLoad, PointerStoresThePointerItself) {
    int target = 42;
    Value v;
    ASSERT_EQ(value_load(&v.v, &target, PMIX_POINTER), PMIX_SUCCESS);
    EXPECT_EQ(v.v.data.ptr, &target);
    Value w;
    ASSERT_EQ(value_xfer(&w.v, &v.v), PMIX_SUCCESS);
    EXPECT_EQ(w.v.data.ptr, &target);  // xfer copies the address, never the pointee
}

TEST(ValueLoad, RegexKeepsItsTextAsBytesWithTerminator) {
    Value v;
    ASSERT_EQ(value_load(&v.v, "pmix[n0,n1]", PMIX_REGEX), PMIX_SUCCESS);
    ASSERT_NE(v.v.data.bo.bytes, nullptr);
    EXPECT_STREQ(v.v.data.bo.bytes, "pmix[n0,n1]");
    EXPECT_EQ(v.v.data.bo.size, std::strlen("pmix[n0,n1]") + 1);
}

TEST(ValueLoad, NspaceFromAShortStringReadsOnlyTheString) {
    Value v;
    ASSERT_EQ(value_load(&v.v, "job-1", PMIX_PROC_NSPACE), PMIX_SUCCESS);  // ASan: no over-read
    ASSERT_NE(v.v.data.nspace, nullptr);
    EXPECT_STREQ(*v.v.data.nspace, "job-1");
    std::string longer(PMIX_MAX_NSLEN + 20, 'n');
    Value w;
    ASSERT_EQ(value_load(&w.v, longer.c_str(), PMIX_PROC_NSPACE), PMIX_SUCCESS);
    EXPECT_EQ(std::strlen(*w.v.data.nspace), static_cast<std::size_t>(PMIX_MAX_NSLEN));
}

TEST(ValueLoad, NullDataGivesAnEmptyPayloadAndTrueForBool) {
    Value b;
    ASSERT_EQ(value_load(&b.v, nullptr, PMIX_BOOL), PMIX_SUCCESS);
    EXPECT_TRUE(b.v.data.flag);
    Value s;
    ASSERT_EQ(value_load(&s.v, nullptr, PMIX_STRING), PMIX_SUCCESS);
    EXPECT_EQ(s.v.type, PMIX_STRING);
    EXPECT_EQ(s.v.data.string, nullptr);
    Value p;
    ASSERT_EQ(value_load(&p.v, nullptr, PMIX_PROC), PMIX_SUCCESS);
    EXPECT_EQ(p.v.data.proc, nullptr);
    EXPECT_EQ(value_element(&p.v), nullptr);
}

TEST(ValueLoad, UndefIsAnEmptyValue) {
    Value v;
    int n = 3;
    ASSERT_EQ(value_load(&v.v, &n, PMIX_UNDEF), PMIX_SUCCESS);
    EXPECT_EQ(v.v.type, PMIX_UNDEF);
    Value w;
    ASSERT_EQ(value_xfer(&w.v, &v.v), PMIX_SUCCESS);
    EXPECT_EQ(value_compare(&v.v, &w.v), PMIX_EQUAL);
}

TEST(ValueLoad, UnknownTypeIsRejectedAndTheValueUntouched) {
    Value v;
    int n = 3;
    ASSERT_EQ(value_load(&v.v, &n, PMIX_INT), PMIX_SUCCESS);
    for (pmix_data_type_t bad :
         {pmix_data_type_t{26}, pmix_data_type_t{44}, pmix_data_type_t{999}}) {
        EXPECT_EQ(value_load(&v.v, &n, bad), PMIX_ERR_UNKNOWN_DATA_TYPE);
        EXPECT_EQ(v.v.type, PMIX_INT);
        EXPECT_EQ(v.v.data.integer, 3);
    }
}

TEST(ValueLoad, NullValueIsBadParam) {
    int n = 3;
    EXPECT_EQ(value_load(nullptr, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    Value v;
    EXPECT_EQ(value_xfer(nullptr, &v.v), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(value_xfer(&v.v, nullptr), PMIX_ERR_BAD_PARAM);
    value_destruct(nullptr);  // must not crash
}

TEST(ValueLoad, CpusetIsDuplicatedWithHwloc) {
    Element cs(PMIX_PROC_CPUSET, 4);
    Value v;
    ASSERT_EQ(value_load(&v.v, cs.get(), PMIX_PROC_CPUSET), PMIX_SUCCESS);
    auto* src = static_cast<pmix_cpuset_t*>(cs.get());
    ASSERT_NE(v.v.data.cpuset, nullptr);
    EXPECT_NE(v.v.data.cpuset->bitmap, src->bitmap);
    EXPECT_TRUE(hwloc_bitmap_isequal(static_cast<hwloc_const_bitmap_t>(v.v.data.cpuset->bitmap),
                                     static_cast<hwloc_const_bitmap_t>(src->bitmap)));
    EXPECT_STREQ(v.v.data.cpuset->source, "hwloc");
}

TEST(ValueLoad, ForeignCpusetIsNotSupported) {
    int opaque = 0;
    char source[] = "other";
    pmix_cpuset_t cs{source, &opaque};
    Value v;
    EXPECT_EQ(value_load(&v.v, &cs, PMIX_PROC_CPUSET), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_EQ(v.v.type, PMIX_UNDEF);
}

TEST(ValueLoad, TopologyIsDuplicatedWithHwloc) {
    Element topo(PMIX_TOPO, 3);
    Value v;
    ASSERT_EQ(value_load(&v.v, topo.get(), PMIX_TOPO), PMIX_SUCCESS);
    auto* src = static_cast<pmix_topology_t*>(topo.get());
    ASSERT_NE(v.v.data.topo, nullptr);
    ASSERT_NE(v.v.data.topo->topology, nullptr);
    EXPECT_NE(v.v.data.topo->topology, src->topology);
    auto* t = static_cast<hwloc_topology_t>(v.v.data.topo->topology);
    EXPECT_EQ(hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE), 3);
}

TEST(ValueLoad, DataArrayElementsAreDeepCopied) {
    Element strings(PMIX_DATA_ARRAY, 2);
    auto* src = static_cast<pmix_data_array_t*>(strings.get());
    Value v;
    ASSERT_EQ(value_load(&v.v, src, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    auto* mine = v.v.data.darray;
    ASSERT_NE(mine, nullptr);
    ASSERT_EQ(mine->size, src->size);
    for (std::size_t i = 0; i < src->size; ++i) {
        char* a = static_cast<char**>(mine->array)[i];
        char* b = static_cast<char**>(src->array)[i];
        EXPECT_NE(a, b);
        EXPECT_STREQ(a, b);
    }
}

TEST(ValueLoad, ArrayOfUnknownElementTypeIsRejected) {
    int raw[2] = {1, 2};
    pmix_data_array_t bad{999, 2, raw};
    Value v;
    EXPECT_EQ(value_load(&v.v, &bad, PMIX_DATA_ARRAY), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(v.v.type, PMIX_UNDEF);
}

TEST(ValueXfer, UnknownSourceTypeIsRejected) {
    pmix_value_t src{};
    src.type = 999;
    Value dst;
    EXPECT_EQ(value_xfer(&dst.v, &src), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(dst.v.type, PMIX_UNDEF);
}

TEST(ValueXfer, SelfTransferIsHarmless) {
    Value v;
    ASSERT_EQ(value_load(&v.v, "self", PMIX_STRING), PMIX_SUCCESS);
    EXPECT_EQ(value_xfer(&v.v, &v.v), PMIX_SUCCESS);
    EXPECT_STREQ(v.v.data.string, "self");
}

TEST(ValueDestruct, LeavesTheConstructedState) {
    Element app(PMIX_APP, 1);
    pmix_value_t v;
    ASSERT_EQ(value_load(&v, app.get(), PMIX_APP), PMIX_SUCCESS);
    value_destruct(&v);
    pmix_value_t zero;
    std::memset(&zero, 0, sizeof(zero));
    EXPECT_EQ(std::memcmp(&v, &zero, sizeof(v)), 0);
    value_destruct(&v);  // destructing twice is harmless
}

TEST(ValueDestruct, UnknownTypeIsOnlyReset) {
    pmix_value_t v{};
    v.type = 999;
    v.data.uint64 = 77;
    value_destruct(&v);
    EXPECT_EQ(v.type, PMIX_UNDEF);
    EXPECT_EQ(v.data.uint64, 0u);
}

TEST(ValueAdopt, BadInput) {
    Value v;
    int n = 1;
    EXPECT_EQ(value_adopt(nullptr, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(value_adopt(&v.v, nullptr, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(value_adopt(&v.v, &n, 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(value_adopt(&v.v, nullptr, PMIX_UNDEF), PMIX_SUCCESS);
}

TEST(ValueAdopt, RegexTakesTheString) {
    char* text = ::strdup("pmix[a]");
    Value v;
    ASSERT_EQ(value_adopt(&v.v, &text, PMIX_REGEX), PMIX_SUCCESS);
    EXPECT_EQ(text, nullptr);
    EXPECT_STREQ(v.v.data.bo.bytes, "pmix[a]");
    EXPECT_EQ(v.v.data.bo.size, 8u);
}

TEST(Kval, CopyCompareDestruct) {
    Element kv(PMIX_KVAL, 3);
    void* out = nullptr;
    ASSERT_EQ(copy(&out, kv.get(), PMIX_KVAL), PMIX_SUCCESS);
    auto* k = static_cast<kval_t*>(out);
    EXPECT_STREQ(k->key, "kval-3");
    ASSERT_NE(k->value, nullptr);
    EXPECT_EQ(k->value->data.integer, 3);
    EXPECT_EQ(compare_element(out, kv.get(), PMIX_KVAL), PMIX_EQUAL);
    destruct_element(out, PMIX_KVAL);
    std::free(out);
}

TEST(DataCopy, BadInput) {
    int n = 1;
    void* out = nullptr;
    EXPECT_EQ(copy(nullptr, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(copy(&out, nullptr, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(copy(&out, &n, 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(copy(&out, &n, PMIX_UNDEF), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(out, nullptr);
}

TEST(DataCopy, PointerCopiesTheStoredAddress) {
    int target = 0;
    void* ptr = &target;
    void* out = nullptr;
    ASSERT_EQ(copy(&out, &ptr, PMIX_POINTER), PMIX_SUCCESS);
    EXPECT_EQ(*static_cast<void**>(out), &target);
    std::free(out);
}

TEST(ElementOps, BadInput) {
    int n = 0;
    EXPECT_EQ(copy_element(nullptr, &n, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(copy_element(&n, nullptr, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(copy_element(&n, &n, 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    destruct_element(nullptr, PMIX_STRING);
    destruct_element(&n, 999);  // unknown: untouched
    n = 5;
    destruct_element(&n, 999);
    EXPECT_EQ(n, 5);
}

}  // namespace
}  // namespace pmix::data::test
