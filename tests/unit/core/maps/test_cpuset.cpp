// Unit tests for core/maps/cpuset: the "hwloc:<list>" form, binding and release.
#include "maps/cpuset.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace pmix::maps {
namespace {

std::string list_of(hwloc_const_bitmap_t bitmap) {
    char* text = nullptr;
    EXPECT_GE(hwloc_bitmap_list_asprintf(&text, bitmap), 0);
    std::string out = text != nullptr ? text : "";
    std::free(text);
    return out;
}

TEST(Cpuset, ParsesHwlocLists) {
    auto set = parse_cpu_list("0-3,8");
    ASSERT_TRUE(set.ok()) << set.error;
    EXPECT_EQ(hwloc_bitmap_weight(set.value.get()), 5);
    EXPECT_TRUE(hwloc_bitmap_isset(set.value.get(), 8));
    EXPECT_FALSE(hwloc_bitmap_isset(set.value.get(), 4));

    auto empty = parse_cpu_list("");
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(hwloc_bitmap_iszero(empty.value.get()));

    auto open = parse_cpu_list("4-");
    ASSERT_TRUE(open.ok());
    EXPECT_EQ(hwloc_bitmap_weight(open.value.get()), -1);  // infinite
    EXPECT_EQ(list_of(open.value.get()), "4-");
}

TEST(Cpuset, StringFormRequiresTheHwlocPrefix) {
    auto ok = parse_cpuset_string("hwloc:0-1,5");
    ASSERT_TRUE(ok.ok()) << ok.error;
    EXPECT_EQ(list_of(ok.value.get()), "0-1,5");
    EXPECT_TRUE(parse_cpuset_string("HWLOC:3").ok());  // OpenPMIx compares case-insensitively
    EXPECT_TRUE(parse_cpuset_string("hwloc:").ok());

    EXPECT_EQ(parse_cpuset_string("0-1").status, PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(parse_cpuset_string("").status, PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(parse_cpuset_string("junk:0").status, PMIX_ERR_NOT_SUPPORTED);
    EXPECT_EQ(parse_cpuset_string(":0").status, PMIX_ERR_NOT_SUPPORTED);
}

TEST(Cpuset, MalformedListsAreErrors) {
    for (const char* bad : {"hwloc:abc", "hwloc:0x3", "hwloc:5-3", "hwloc:1,,2", "hwloc:-1",
                            "hwloc:2000000", "hwloc:0-4000000000", "hwloc: 1"}) {
        auto result = parse_cpuset_string(bad);
        EXPECT_EQ(result.status, PMIX_ERR_BAD_PARAM) << bad;
        EXPECT_FALSE(result.error.empty()) << bad;
        EXPECT_FALSE(result.value) << bad;
    }
}

TEST(Cpuset, StringRoundTrip) {
    for (const char* text : {"hwloc:0", "hwloc:0-3,8", "hwloc:1,3,5,7", "hwloc:", "hwloc:2-"}) {
        auto parsed = parse_cpuset_string(text);
        ASSERT_TRUE(parsed.ok()) << text;
        pmix_cpuset_t cpuset{const_cast<char*>("hwloc"), parsed.value.get()};
        auto back = cpuset_string(cpuset);
        ASSERT_TRUE(back.ok()) << back.error;
        EXPECT_EQ(back.value, text);
    }
}

TEST(Cpuset, StringOfForeignOrMissingBitmap) {
    Bitmap bitmap(hwloc_bitmap_alloc());
    pmix_cpuset_t foreign{const_cast<char*>("other"), bitmap.get()};
    EXPECT_EQ(cpuset_string(foreign).status, PMIX_ERR_NOT_SUPPORTED);
    pmix_cpuset_t none{const_cast<char*>("hwloc"), nullptr};
    EXPECT_EQ(cpuset_string(none).status, PMIX_ERR_BAD_PARAM);
    pmix_cpuset_t unnamed{nullptr, bitmap.get()};  // a bitmap can only be hwloc's
    EXPECT_TRUE(cpuset_string(unnamed).ok());
}

TEST(Cpuset, CurrentBindingIsNotEmpty) {
    for (auto envelope : {PMIX_CPUBIND_PROCESS, PMIX_CPUBIND_THREAD}) {
        auto binding = current_binding(envelope);
        ASSERT_TRUE(binding.ok()) << binding.error;
        EXPECT_FALSE(hwloc_bitmap_iszero(binding.value.get()));
    }
    auto bad = current_binding(static_cast<pmix_bind_envelope_t>(7));
    EXPECT_EQ(bad.status, PMIX_ERR_BAD_PARAM);
}

TEST(Cpuset, DestructReleasesAndClears) {
    pmix_cpuset_t cpuset{::strdup("hwloc"), hwloc_bitmap_alloc()};
    destruct_cpuset(cpuset);  // ASan reports a leak if either pointer survives
    EXPECT_EQ(cpuset.source, nullptr);
    EXPECT_EQ(cpuset.bitmap, nullptr);
    destruct_cpuset(cpuset);  // idempotent

    // A foreign bitmap is not ours to free; only the source string is released.
    int foreign_payload = 0;
    pmix_cpuset_t foreign{::strdup("other"), &foreign_payload};
    destruct_cpuset(foreign);
    EXPECT_EQ(foreign.source, nullptr);
    EXPECT_EQ(foreign.bitmap, nullptr);
}

}  // namespace
}  // namespace pmix::maps
