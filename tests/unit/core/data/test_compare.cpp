// test_compare.cpp - PMIx_Value_compare verdicts.
#include <gtest/gtest.h>

#include <cstdint>

#include "data/value.h"
#include "samples.h"

namespace pmix::data::test {
namespace {

template <typename T>
pmix_value_cmp_t compare_numbers(T a, T b, pmix_data_type_t type) {
    Value va;
    Value vb;
    value_load(&va.v, &a, type);
    value_load(&vb.v, &b, type);
    return value_compare(&va.v, &vb.v);
}

TEST(ValueCompare, NumbersCompareByValue) {
    // OpenPMIx compares the bytes with memcmp, which orders 5 after 256 on little-endian hosts
    // and -3 after 5; the numeric order is what a caller means.
    EXPECT_EQ(compare_numbers<int>(5, 256, PMIX_INT), PMIX_VALUE2_GREATER);
    EXPECT_EQ(compare_numbers<int>(5, -3, PMIX_INT), PMIX_VALUE1_GREATER);
    EXPECT_EQ(compare_numbers<int>(7, 7, PMIX_INT), PMIX_EQUAL);
    EXPECT_EQ(compare_numbers<std::uint64_t>(1, UINT64_MAX, PMIX_UINT64), PMIX_VALUE2_GREATER);
    EXPECT_EQ(compare_numbers<std::int16_t>(-1, 1, PMIX_INT16), PMIX_VALUE2_GREATER);
    EXPECT_EQ(compare_numbers<double>(1.5, 1.25, PMIX_DOUBLE), PMIX_VALUE1_GREATER);
    EXPECT_EQ(compare_numbers<pmix_rank_t>(2, PMIX_RANK_WILDCARD, PMIX_PROC_RANK),
              PMIX_VALUE2_GREATER);
    EXPECT_EQ(compare_numbers<bool>(true, false, PMIX_BOOL), PMIX_VALUE1_GREATER);
}

TEST(ValueCompare, DifferentTypes) {
    Value a;
    Value b;
    int n = 1;
    std::uint32_t u = 1;
    value_load(&a.v, &n, PMIX_INT);
    value_load(&b.v, &u, PMIX_UINT32);
    EXPECT_EQ(value_compare(&a.v, &b.v), PMIX_VALUE_TYPE_DIFFERENT);
}

TEST(ValueCompare, StringsAndNull) {
    Value a;
    Value b;
    Value none;
    value_load(&a.v, "abc", PMIX_STRING);
    value_load(&b.v, "abd", PMIX_STRING);
    value_load(&none.v, nullptr, PMIX_STRING);
    EXPECT_EQ(value_compare(&a.v, &b.v), PMIX_VALUE2_GREATER);
    EXPECT_EQ(value_compare(&b.v, &a.v), PMIX_VALUE1_GREATER);
    EXPECT_EQ(value_compare(&none.v, &a.v), PMIX_VALUE2_GREATER);
    EXPECT_EQ(value_compare(&none.v, &none.v), PMIX_EQUAL);
}

TEST(ValueCompare, IncompatibleObjects) {
    Element c1(PMIX_COORD, 1);
    Element c2(PMIX_COORD, 1);
    static_cast<pmix_coord_t*>(c2.get())->view = PMIX_COORD_PHYSICAL_VIEW;
    EXPECT_EQ(compare_element(c1.get(), c2.get(), PMIX_COORD), PMIX_VALUE_INCOMPATIBLE_OBJECTS);

    Element d1(PMIX_DEVICE_DIST, 1);
    Element d2(PMIX_DEVICE_DIST, 1);
    static_cast<pmix_device_distance_t*>(d2.get())->type = PMIX_DEVTYPE_NETWORK;
    EXPECT_EQ(compare_element(d1.get(), d2.get(), PMIX_DEVICE_DIST),
              PMIX_VALUE_INCOMPATIBLE_OBJECTS);

    Element g1(PMIX_GEOMETRY, 1);
    Element g2(PMIX_GEOMETRY, 2);
    EXPECT_EQ(compare_element(g1.get(), g2.get(), PMIX_GEOMETRY), PMIX_VALUE_INCOMPATIBLE_OBJECTS);
}

TEST(ValueCompare, ArraysOfDifferentElementTypes) {
    pmix_data_array_t a;
    pmix_data_array_t b;
    ASSERT_EQ(data_array_init(&a, 2, PMIX_INT), PMIX_SUCCESS);
    ASSERT_EQ(data_array_init(&b, 2, PMIX_UINT32), PMIX_SUCCESS);
    EXPECT_EQ(compare_element(&a, &b, PMIX_DATA_ARRAY), PMIX_VALUE_TYPE_DIFFERENT);
    pmix_data_array_t c;
    ASSERT_EQ(data_array_init(&c, 3, PMIX_INT), PMIX_SUCCESS);
    EXPECT_EQ(compare_element(&a, &c, PMIX_DATA_ARRAY), PMIX_VALUE2_GREATER);  // shorter
    data_array_destruct(&a);
    data_array_destruct(&b);
    data_array_destruct(&c);
}

TEST(ValueCompare, ForeignCpusetsAreNotComparable) {
    int x = 0;
    char hw[] = "hwloc";
    char other[] = "other";
    pmix_cpuset_t a{other, &x};
    pmix_cpuset_t b{other, &x};
    EXPECT_EQ(compare_element(&a, &b, PMIX_PROC_CPUSET), PMIX_VALUE_COMPARISON_NOT_AVAIL);
    pmix_cpuset_t c{hw, nullptr};
    EXPECT_EQ(compare_element(&a, &c, PMIX_PROC_CPUSET), PMIX_VALUE_INCOMPATIBLE_OBJECTS);
}

TEST(ValueCompare, NullArgumentsAndUnknownTypes) {
    Value a;
    int n = 1;
    value_load(&a.v, &n, PMIX_INT);
    EXPECT_EQ(value_compare(nullptr, &a.v), PMIX_VALUE_COMPARISON_NOT_AVAIL);
    EXPECT_EQ(value_compare(&a.v, nullptr), PMIX_VALUE_COMPARISON_NOT_AVAIL);
    pmix_value_t odd{};
    odd.type = 999;
    EXPECT_EQ(value_compare(&odd, &odd), PMIX_VALUE_COMPARISON_NOT_AVAIL);
    Value u1;
    Value u2;
    EXPECT_EQ(value_compare(&u1.v, &u2.v), PMIX_EQUAL);  // two empty values
    EXPECT_EQ(compare_element(nullptr, &n, PMIX_INT), PMIX_VALUE_COMPARISON_NOT_AVAIL);
}

TEST(ValueCompare, BoxedNullSortsFirst) {
    Value none;
    Value some;
    Element p(PMIX_PROC, 1);
    value_load(&none.v, nullptr, PMIX_PROC);
    value_load(&some.v, p.get(), PMIX_PROC);
    EXPECT_EQ(value_compare(&none.v, &some.v), PMIX_VALUE2_GREATER);
    EXPECT_EQ(value_compare(&some.v, &none.v), PMIX_VALUE1_GREATER);
}

}  // namespace
}  // namespace pmix::data::test
