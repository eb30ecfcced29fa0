// test_print.cpp - PMIx_Data_print / PMIx_Value_string shapes. The expected texts are what
// Debian's OpenPMIx 4.2.2 prints for the same input (recorded with a probe program), except where
// a comment names a deliberate difference.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "data/value.h"
#include "samples.h"

namespace pmix::data::test {
namespace {

std::string printed(const void* src, pmix_data_type_t type, const char* prefix = nullptr) {
    std::string out;
    EXPECT_EQ(print(out, prefix, src, type), PMIX_SUCCESS);
    return out;
}

TEST(Print, Scalars) {
    int i = -5;
    EXPECT_EQ(printed(&i, PMIX_INT), " Data type: PMIX_INT\tValue: -5");
    double d = 1.5;
    EXPECT_EQ(printed(&d, PMIX_DOUBLE), " Data type: PMIX_DOUBLE\tValue: 1.500000");
    std::uint8_t b = 0xab;
    EXPECT_EQ(printed(&b, PMIX_BYTE), " Data type: PMIX_BYTE\tValue: ab");
    bool t = true;
    EXPECT_EQ(printed(&t, PMIX_BOOL), " Data type: PMIX_BOOL\tValue: TRUE");
    std::size_t s = 42;
    EXPECT_EQ(printed(&s, PMIX_SIZE), " Data type: PMIX_SIZE\tValue: 42");
    struct timeval tv {
        12, 34
    };
    EXPECT_EQ(printed(&tv, PMIX_TIMEVAL), " Data type: PMIX_TIMEVAL\tValue: 12.000034");
    pmix_status_t st = PMIX_ERR_NOT_FOUND;
    EXPECT_EQ(printed(&st, PMIX_STATUS), " Data type: PMIX_STATUS\tValue: NOT-FOUND");
    pmix_rank_t r = PMIX_RANK_UNDEF;
    EXPECT_EQ(printed(&r, PMIX_PROC_RANK), " Data type: PMIX_PROC_RANK\tValue: PMIX_RANK_UNDEF");
    r = 7;
    EXPECT_EQ(printed(&r, PMIX_PROC_RANK), " Data type: PMIX_PROC_RANK\tValue: 7");
}

TEST(Print, StringTakesTheCharPointerAndThePrefix) {
    EXPECT_EQ(printed("hello", PMIX_STRING), " Data type: PMIX_STRING\tValue: hello");
    EXPECT_EQ(printed("hello", PMIX_STRING, "PFX>"), "PFX>Data type: PMIX_STRING\tValue: hello");
    EXPECT_EQ(printed("pmix[x]", PMIX_REGEX), " Data type: PMIX_REGEX\tName: pmix[x]");
}

TEST(Print, EnumsUseTheirWords) {
    pmix_scope_t sc = PMIX_GLOBAL;
    EXPECT_EQ(printed(&sc, PMIX_SCOPE), " Data type: PMIX_SCOPE\tValue: SHARE ACROSS ALL NODES");
    pmix_proc_state_t ps = PMIX_PROC_STATE_RUNNING;
    EXPECT_EQ(printed(&ps, PMIX_PROC_STATE), " Data type: PMIX_PROC_STATE\tValue: PROC EXECUTING");
    pmix_data_type_t dt = PMIX_INT;
    EXPECT_EQ(printed(&dt, PMIX_DATA_TYPE), " Data type: PMIX_DATA_TYPE\tValue: PMIX_INT");
    pmix_info_directives_t dir = PMIX_INFO_REQD | PMIX_INFO_ARRAY_END;
    EXPECT_EQ(printed(&dir, PMIX_INFO_DIRECTIVES),
              " Data type: PMIX_INFO_DIRECTIVES\tValue: REQUIRED:END");
    pmix_iof_channel_t ch = PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL;
    EXPECT_EQ(printed(&ch, PMIX_IOF_CHANNEL),
              " Data type: PMIX_IOF_CHANNEL\tValue: STDOUT STDERR ");
    pmix_locality_t lo = PMIX_LOCALITY_SHARE_CORE | PMIX_LOCALITY_SHARE_NODE;
    EXPECT_EQ(printed(&lo, PMIX_LOCTYPE), " Data type: PMIX_LOCALITY\tValue: CORE:NODE");
    pmix_link_state_t ls = PMIX_LINK_UP;
    EXPECT_EQ(printed(&ls, PMIX_LINK_STATE), " Data type: PMIX_LINK_STATE\tValue: ACTIVE");
    pmix_alloc_directive_t ad = PMIX_ALLOC_NEW;
    EXPECT_EQ(printed(&ad, PMIX_ALLOC_DIRECTIVE), " Data type: PMIX_ALLOC_DIRECTIVE\tValue: NEW");
    // OpenPMIx prints a data range through its pointer printer and a device type as the address
    // of the variable; we print the values.
    pmix_data_range_t dr = PMIX_RANGE_LOCAL;
    EXPECT_EQ(printed(&dr, PMIX_DATA_RANGE),
              " Data type: PMIX_DATA_RANGE\tValue: AVAIL ON LOCAL NODE ONLY");
    pmix_device_type_t dv = PMIX_DEVTYPE_GPU;
    EXPECT_EQ(printed(&dv, PMIX_DEVTYPE), " Data type: PMIX_DEVICE_TYPE\tValue: 0x2");
}

TEST(Print, Structs) {
    pmix_proc_t p;
    std::memset(&p, 0, sizeof(p));
    std::strcpy(p.nspace, "ns1");
    p.rank = 3;
    EXPECT_EQ(printed(&p, PMIX_PROC), " PROC: ns1:3");
    p.rank = PMIX_RANK_WILDCARD;
    EXPECT_EQ(printed(&p, PMIX_PROC), " PROC: ns1:PMIX_RANK_WILDCARD");
    pmix_byte_object_t bo{const_cast<char*>("abc"), 3};
    EXPECT_EQ(printed(&bo, PMIX_BYTE_OBJECT), " Data type: PMIX_BYTE_OBJECT\tSize: 3");
    EXPECT_EQ(printed(&bo, PMIX_COMPRESSED_BYTE_OBJECT),
              " Data type: PMIX_COMPRESSED_BYTE_OBJECT\tSize: 3");
    pmix_envar_t ev{const_cast<char*>("PATH"), const_cast<char*>("/bin"), ':'};
    EXPECT_EQ(printed(&ev, PMIX_ENVAR),
              " Data type: PMIX_ENVAR\tName: PATH\tValue: /bin\tSeparator: :");
    std::uint32_t cc[2] = {1, 2};
    pmix_coord_t c{PMIX_COORD_LOGICAL_VIEW, cc, 2};
    EXPECT_EQ(printed(&c, PMIX_COORD), " Data type: PMIX_COORD\tView: LOGICAL\tDims: 2");
    pmix_proc_info_t pi;
    std::memset(&pi, 0, sizeof(pi));
    std::strcpy(pi.proc.nspace, "ns");
    pi.proc.rank = 1;
    pi.hostname = const_cast<char*>("h");
    pi.executable_name = const_cast<char*>("e");
    pi.pid = 9;
    EXPECT_EQ(printed(&pi, PMIX_PROC_INFO),
              " Data type: PMIX_PROC_INFO\tValue:\n \tPROC: ns:1\n \tHostname: h\tExecutable: e\n"
              " \tPid: 9\tExit code: 0\tState: UNDEFINED");
    pmix_device_distance_t dd{const_cast<char*>("u"), const_cast<char*>("os"), PMIX_DEVTYPE_GPU, 1,
                              5};
    EXPECT_EQ(printed(&dd, PMIX_DEVICE_DIST),
              " Data type: PMIX_DEVICE_DIST\tValue: UUID: u OSName: os Type: GPU Min: 1 Max: 5");
}

TEST(Print, ValueAndInfo) {
    Value v;
    value_load(&v.v, "x", PMIX_STRING);
    EXPECT_EQ(printed(&v.v, PMIX_VALUE), " PMIX_VALUE:  Data type: PMIX_STRING\tValue: x");
    pmix_info_t info;
    ASSERT_EQ(info_load(&info, "pmix.hname", "node1", PMIX_STRING), PMIX_SUCCESS);
    EXPECT_EQ(printed(&info, PMIX_INFO),
              " KEY: PMIX_HOSTNAME\n \t Data type: PMIX_INFO_DIRECTIVES\tValue: OPTIONAL\n"
              " \t PMIX_VALUE:  Data type: PMIX_STRING\tValue: node1");
    info_destruct(&info);
    ASSERT_EQ(info_load(&info, "my.key", "node1", PMIX_STRING), PMIX_SUCCESS);
    info.flags = PMIX_INFO_REQD;
    EXPECT_EQ(printed(&info, PMIX_INFO),
              " KEY: my.key\n \t Data type: PMIX_INFO_DIRECTIVES\tValue: REQUIRED\n"
              " \t PMIX_VALUE:  Data type: PMIX_STRING\tValue: node1");
    info_destruct(&info);
}

TEST(Print, ValueEdgeCases) {
    Value empty;
    EXPECT_EQ(printed(&empty.v, PMIX_VALUE), " PMIX_VALUE:  Data type: PMIX_UNDEF");
    pmix_value_t odd{};
    odd.type = 999;
    EXPECT_EQ(printed(&odd, PMIX_VALUE),
              " PMIX_VALUE:  Data type: UNKNOWN(999)\tValue: UNPRINTABLE");
    Value nullstr;
    value_load(&nullstr.v, nullptr, PMIX_STRING);
    EXPECT_EQ(printed(&nullstr.v, PMIX_VALUE),
              " PMIX_VALUE:  Data type: PMIX_STRING\tValue: NULL pointer");
    Value nullproc;
    value_load(&nullproc.v, nullptr, PMIX_PROC);
    EXPECT_EQ(printed(&nullproc.v, PMIX_VALUE),
              " PMIX_VALUE:  Data type: PMIX_PROC\tValue: NULL pointer");
}

TEST(Print, DataArrays) {
    int arr[3] = {1, 2, 3};
    pmix_data_array_t da{PMIX_INT, 3, arr};
    EXPECT_EQ(printed(&da, PMIX_DATA_ARRAY),
              " Data type: PMIX_DATA_ARRAY\tType: PMIX_INT\tSize: 3\n"
              "  Data type: PMIX_INT\tValue: 1\n  Data type: PMIX_INT\tValue: 2\n"
              "  Data type: PMIX_INT\tValue: 3");
    pmix_info_t infos[2];
    int n = -5;
    info_load(&infos[0], "a.b", "s", PMIX_STRING);
    info_load(&infos[1], "pmix.rank", &n, PMIX_INT);
    pmix_data_array_t di{PMIX_INFO, 2, infos};
    EXPECT_EQ(printed(&di, PMIX_DATA_ARRAY),
              " Data type: PMIX_DATA_ARRAY\tType: PMIX_INFO\tSize: 2\n"
              "  KEY: a.b\n \t Data type: PMIX_INFO_DIRECTIVES\tValue: OPTIONAL\n"
              " \t PMIX_VALUE:  Data type: PMIX_STRING\tValue: s\n"
              "  KEY: PMIX_RANK\n \t Data type: PMIX_INFO_DIRECTIVES\tValue: OPTIONAL\n"
              " \t PMIX_VALUE:  Data type: PMIX_INT\tValue: -5");
    info_destruct(&infos[0]);
    info_destruct(&infos[1]);
    pmix_data_array_t none{PMIX_STRING, 0, nullptr};
    EXPECT_EQ(printed(&none, PMIX_DATA_ARRAY),
              " Data type: PMIX_DATA_ARRAY\tType: PMIX_STRING\tSize: 0\n NULL");
}

TEST(Print, PointerPrintsTheAddressItself) {
    int x = 0;
    std::string out = printed(&x, PMIX_POINTER);
    EXPECT_EQ(out.rfind(" Data type: PMIX_POINTER\tAddress: 0x", 0), 0u) << out;
    char expect[64];
    std::snprintf(expect, sizeof(expect), "%p", static_cast<void*>(&x));
    EXPECT_NE(out.find(expect), std::string::npos);
}

TEST(Print, TopologyAndCpusetRenderThroughHwloc) {
    Element topo(PMIX_TOPO, 2);
    std::string t = printed(topo.get(), PMIX_TOPO);
    EXPECT_EQ(t.rfind(" Data type: PMIX_TOPO\tValue: Type: Machine", 0), 0u) << t;
    EXPECT_NE(t.find("Core"), std::string::npos) << t;
    Element cs(PMIX_PROC_CPUSET, 3);
    EXPECT_EQ(printed(cs.get(), PMIX_PROC_CPUSET), " Data type: PMIX_CPUSET\tValue: 0-3");
}

TEST(Print, BadInputLeavesTheOutputAlone) {
    std::string out = "unchanged";
    int n = 1;
    EXPECT_EQ(print(out, nullptr, nullptr, PMIX_INT), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(print(out, nullptr, &n, 999), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(print(out, nullptr, &n, PMIX_UNDEF), PMIX_ERR_UNKNOWN_DATA_TYPE);
    int opaque = 0;
    char source[] = "other";
    pmix_cpuset_t foreign{source, &opaque};
    EXPECT_EQ(print(out, nullptr, &foreign, PMIX_PROC_CPUSET), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_EQ(out, "unchanged");
}

}  // namespace
}  // namespace pmix::data::test
