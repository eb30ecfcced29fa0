// test_types.cpp - the type table: which types exist and how big one element is.
#include <gtest/gtest.h>

#include <sys/time.h>

#include "data/scalar_width.h"
#include "data/value.h"
#include "samples.h"

namespace pmix::data::test {
namespace {

TEST(DataTypes, EveryHeaderTypeIsKnown) {
    EXPECT_EQ(all_types().size(), 66u);  // PMIX_BOOL..PMIX_STOR_ACCESS_TYPE minus three holes
    for (pmix_data_type_t type : all_types()) {
        EXPECT_TRUE(is_known_type(type)) << type;
        EXPECT_GT(element_size(type), 0u) << type;
    }
}

TEST(DataTypes, HolesUndefAndOutOfRangeAreUnknown) {
    for (pmix_data_type_t type :
         {pmix_data_type_t{PMIX_UNDEF}, pmix_data_type_t{26}, pmix_data_type_t{29},
          pmix_data_type_t{44}, pmix_data_type_t{PMIX_STOR_ACCESS_TYPE + 1},
          pmix_data_type_t{PMIX_DATA_TYPE_MAX}, pmix_data_type_t{65535}}) {
        EXPECT_FALSE(is_known_type(type)) << type;
        EXPECT_EQ(element_size(type), 0u) << type;
    }
}

// The one scalar-width table (data/scalar_width.h) is what the element sizes, the codec's raw
// coders and the store's inline scalars are built from.
TEST(DataTypes, ScalarWidthIsTheElementSizeOfEveryScalar) {
    int scalars = 0;
    for (pmix_data_type_t type : all_types()) {
        const std::size_t width = scalar_width(type);
        if (width != 0) {
            EXPECT_EQ(width, element_size(type)) << type;
            EXPECT_LE(width, 8u) << type;
            EXPECT_FALSE(value_holds_pointer(type)) << type;
            ++scalars;
        }
    }
    EXPECT_EQ(scalars, 37);                     // every type in scalar_width.h's switch
    EXPECT_EQ(scalar_width(PMIX_TIMEVAL), 0u);  // a struct, though stored inline
    EXPECT_EQ(scalar_width(PMIX_STRING), 0u);
    EXPECT_EQ(scalar_width(PMIX_UNDEF), 0u);
}

TEST(DataTypes, ElementSizesMatchTheCTypes) {
    EXPECT_EQ(element_size(PMIX_BOOL), sizeof(bool));
    EXPECT_EQ(element_size(PMIX_STRING), sizeof(char*));
    EXPECT_EQ(element_size(PMIX_SIZE), sizeof(size_t));
    EXPECT_EQ(element_size(PMIX_PID), sizeof(pid_t));
    EXPECT_EQ(element_size(PMIX_INT), sizeof(int));
    EXPECT_EQ(element_size(PMIX_UINT64), sizeof(uint64_t));
    EXPECT_EQ(element_size(PMIX_TIMEVAL), sizeof(struct timeval));
    EXPECT_EQ(element_size(PMIX_TIME), sizeof(time_t));
    EXPECT_EQ(element_size(PMIX_VALUE), sizeof(pmix_value_t));
    EXPECT_EQ(element_size(PMIX_INFO), sizeof(pmix_info_t));
    EXPECT_EQ(element_size(PMIX_PDATA), sizeof(pmix_pdata_t));
    EXPECT_EQ(element_size(PMIX_APP), sizeof(pmix_app_t));
    EXPECT_EQ(element_size(PMIX_PROC), sizeof(pmix_proc_t));
    EXPECT_EQ(element_size(PMIX_BYTE_OBJECT), sizeof(pmix_byte_object_t));
    EXPECT_EQ(element_size(PMIX_DATA_ARRAY), sizeof(pmix_data_array_t));
    EXPECT_EQ(element_size(PMIX_QUERY), sizeof(pmix_query_t));
    EXPECT_EQ(element_size(PMIX_POINTER), sizeof(void*));
    EXPECT_EQ(element_size(PMIX_PROC_RANK), sizeof(pmix_rank_t));
    EXPECT_EQ(element_size(PMIX_INFO_DIRECTIVES), sizeof(pmix_info_directives_t));
    EXPECT_EQ(element_size(PMIX_DATA_TYPE), sizeof(pmix_data_type_t));
    EXPECT_EQ(element_size(PMIX_IOF_CHANNEL), sizeof(pmix_iof_channel_t));
    EXPECT_EQ(element_size(PMIX_LOCTYPE), sizeof(pmix_locality_t));
    EXPECT_EQ(element_size(PMIX_DEVTYPE), sizeof(pmix_device_type_t));
    EXPECT_EQ(element_size(PMIX_PROC_NSPACE), sizeof(pmix_nspace_t));
    EXPECT_EQ(element_size(PMIX_PROC_CPUSET), sizeof(pmix_cpuset_t));
    EXPECT_EQ(element_size(PMIX_TOPO), sizeof(pmix_topology_t));
    EXPECT_EQ(element_size(PMIX_NODE_STATS), sizeof(pmix_node_stats_t));
    EXPECT_EQ(element_size(PMIX_DATA_BUFFER), sizeof(pmix_data_buffer_t));
    EXPECT_EQ(element_size(PMIX_STOR_MEDIUM), sizeof(pmix_storage_medium_t));
    EXPECT_EQ(element_size(PMIX_STOR_ACCESS_TYPE), sizeof(pmix_storage_access_type_t));
    EXPECT_EQ(element_size(PMIX_KVAL), sizeof(kval_t));
}

TEST(DataTypes, BoxedTypesAreTheOnesWithPointerMembers) {
    for (pmix_data_type_t type :
         {PMIX_PROC, PMIX_PROC_INFO, PMIX_DATA_ARRAY, PMIX_COORD, PMIX_TOPO, PMIX_PROC_CPUSET,
          PMIX_GEOMETRY, PMIX_DEVICE_DIST, PMIX_ENDPOINT, PMIX_REGATTR, PMIX_PROC_NSPACE,
          PMIX_DATA_BUFFER, PMIX_PROC_STATS, PMIX_DISK_STATS, PMIX_NET_STATS, PMIX_NODE_STATS,
          PMIX_VALUE, PMIX_INFO, PMIX_APP}) {
        EXPECT_TRUE(value_holds_pointer(type)) << type;
    }
    for (pmix_data_type_t type : {PMIX_BOOL, PMIX_STRING, PMIX_INT64, PMIX_BYTE_OBJECT, PMIX_ENVAR,
                                  PMIX_POINTER, PMIX_REGEX, PMIX_STOR_MEDIUM}) {
        EXPECT_FALSE(value_holds_pointer(type)) << type;
    }
    EXPECT_FALSE(value_holds_pointer(PMIX_UNDEF));
}

}  // namespace
}  // namespace pmix::data::test
