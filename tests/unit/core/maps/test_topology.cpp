// Unit tests for core/maps/topology: the shared topology, PMIx_Load_topology semantics and the
// rule that the shared topology survives PMIx_Topology_destruct.
#include "maps/topology.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace pmix::maps {
namespace {

TEST(Topology, DiscoveredOnceAndShared) {
    auto first = node_topology();
    ASSERT_TRUE(first.ok()) << first.error;
    ASSERT_NE(first.value.topology, nullptr);
    EXPECT_TRUE(first.value.source.starts_with("hwloc:")) << first.value.source;
    EXPECT_GE(hwloc_get_nbobjs_by_type(first.value.topology, HWLOC_OBJ_PU), 1);
    auto second = node_topology();
    ASSERT_TRUE(second.ok());
    EXPECT_EQ(second.value.topology, first.value.topology);
    EXPECT_TRUE(is_shared_topology(first.value.topology));
}

TEST(Topology, LoadFillsSourceWhenUnset) {
    pmix_topology_t topo{nullptr, nullptr};
    ASSERT_EQ(load_topology(topo), PMIX_SUCCESS);
    ASSERT_NE(topo.source, nullptr);
    EXPECT_EQ(std::strncmp(topo.source, "hwloc:", 6), 0) << topo.source;
    EXPECT_TRUE(is_shared_topology(topo.topology));
    destruct_topology(topo);
    EXPECT_EQ(topo.source, nullptr);
    EXPECT_EQ(topo.topology, nullptr);
    // The shared topology is still alive and usable after the caller "destroyed" it.
    auto again = node_topology();
    ASSERT_TRUE(again.ok());
    EXPECT_GE(hwloc_topology_get_depth(again.value.topology), 2);
}

TEST(Topology, RequestedSourceMustMatch) {
    char hwloc[] = "hwloc";
    pmix_topology_t any{hwloc, nullptr};
    EXPECT_EQ(load_topology(any), PMIX_SUCCESS);
    EXPECT_EQ(any.source, hwloc);  // the caller's string is kept
    EXPECT_NE(any.topology, nullptr);

    char upper[] = "HWLOC:";
    pmix_topology_t caseless{upper, nullptr};
    EXPECT_EQ(load_topology(caseless), PMIX_SUCCESS);

    char old_version[] = "hwloc:0.9";
    pmix_topology_t wrong_version{old_version, nullptr};
    EXPECT_EQ(load_topology(wrong_version), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_EQ(wrong_version.topology, nullptr);

    char other[] = "xml";
    pmix_topology_t foreign{other, nullptr};
    EXPECT_EQ(load_topology(foreign), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_EQ(foreign.topology, nullptr);
}

TEST(Topology, DestructDestroysPrivateCopies) {
    auto shared = node_topology();
    ASSERT_TRUE(shared.ok());
    hwloc_topology_t copy = nullptr;
    ASSERT_EQ(hwloc_topology_dup(&copy, shared.value.topology), 0);
    pmix_topology_t topo{::strdup("hwloc:copy"), copy};
    EXPECT_FALSE(is_shared_topology(copy));
    destruct_topology(topo);  // ASan/LSan report a leak if the copy survives
    EXPECT_EQ(topo.topology, nullptr);
    EXPECT_EQ(topo.source, nullptr);
    destruct_topology(topo);  // idempotent
}

TEST(Topology, AdoptRejectsBadArguments) {
    EXPECT_EQ(adopt_topology(nullptr, "hwloc"), PMIX_ERR_BAD_PARAM);
    auto shared = node_topology();
    ASSERT_TRUE(shared.ok());
    EXPECT_EQ(adopt_topology(shared.value.topology, "xml"), PMIX_ERR_BAD_PARAM);
}

// Adoption changes process-wide state, so it runs in a child process (gtest death-test fork).
TEST(Topology, AdoptedTopologyReplacesDiscovery) {
    EXPECT_EXIT(
        {
            auto before = node_topology();
            hwloc_topology_t host = nullptr;
            bool ok = before.ok() && hwloc_topology_init(&host) == 0 &&
                      hwloc_topology_set_synthetic(host, "pack:3 core:2 pu:1") == 0 &&
                      hwloc_topology_load(host) == 0 &&
                      adopt_topology(host, "hwloc:host") == PMIX_SUCCESS;
            auto after = node_topology();
            ok = ok && after.ok() && after.value.topology == host &&
                 after.value.source == "hwloc:host" && is_shared_topology(host) &&
                 is_shared_topology(before.value.topology) &&
                 hwloc_get_nbobjs_by_type(after.value.topology, HWLOC_OBJ_PACKAGE) == 3;
            std::exit(ok ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

TEST(Topology, HwlocSourceNames) {
    EXPECT_TRUE(is_hwloc_source("hwloc"));
    EXPECT_TRUE(is_hwloc_source("hwloc:2.9.0"));
    EXPECT_TRUE(is_hwloc_source("HWLOC"));
    EXPECT_FALSE(is_hwloc_source("hwlo"));
    EXPECT_FALSE(is_hwloc_source("xml"));
    EXPECT_FALSE(is_hwloc_source(nullptr));
}

}  // namespace
}  // namespace pmix::maps
