// Unit tests for core/maps/locality: locality strings on synthetic topologies (deterministic on
// any machine) and relative locality.
#include "maps/locality.h"

#include "maps/cpuset.h"

#include <gtest/gtest.h>

#include <memory>

namespace pmix::maps {
namespace {

struct TopologyFree {
    void operator()(hwloc_topology_t t) const noexcept { hwloc_topology_destroy(t); }
};
using Topology = std::unique_ptr<hwloc_topology, TopologyFree>;

Topology synthetic(const char* description) {
    hwloc_topology_t raw = nullptr;
    EXPECT_EQ(hwloc_topology_init(&raw), 0);
    Topology topology(raw);
    EXPECT_EQ(hwloc_topology_set_synthetic(raw, description), 0) << description;
    EXPECT_EQ(hwloc_topology_load(raw), 0);
    return topology;
}

// Two packages, each: one NUMA node, one L3, two L2 (one L1 and one core each), two PUs per core.
// PU os indices equal logical indices in a synthetic topology.
constexpr const char* kTwoSockets = "pack:2 numa:1 l3:1 l2:2 l1d:1 core:1 pu:2";

std::optional<std::string> locality_of(hwloc_topology_t topology, const char* cpus) {
    auto set = parse_cpu_list(cpus);
    EXPECT_TRUE(set.ok()) << cpus;
    auto text = locality_string(topology, set.value.get());
    EXPECT_TRUE(text.ok()) << text.error;
    return text.value;
}

TEST(Locality, StringListsEveryLevelTopDownNumaLast) {
    auto topology = synthetic(kTwoSockets);
    EXPECT_EQ(locality_of(topology.get(), "0"), "SK0:L30:L20:L10:CR0:HT0:NM0");
    EXPECT_EQ(locality_of(topology.get(), "2"), "SK0:L30:L21:L11:CR1:HT2:NM0");
    EXPECT_EQ(locality_of(topology.get(), "5"), "SK1:L31:L22:L12:CR2:HT5:NM1");
    EXPECT_EQ(locality_of(topology.get(), "0-1"), "SK0:L30:L20:L10:CR0:HT0-1:NM0");
    EXPECT_EQ(locality_of(topology.get(), "0,4"), "SK0-1:L30-1:L20,2:L10,2:CR0,2:HT0,4:NM0-1");
    EXPECT_EQ(locality_of(topology.get(), "0-7"), "SK0-1:L30-1:L20-3:L10-3:CR0-3:HT0-7:NM0-1");
}

TEST(Locality, LevelsMissingFromTheTopologyAreOmitted) {
    auto topology = synthetic("pack:1 core:4 pu:1");
    EXPECT_EQ(locality_of(topology.get(), "3"), "SK0:CR3:HT3:NM0");
}

TEST(Locality, UnboundOrEmptyHasNoString) {
    auto topology = synthetic(kTwoSockets);
    EXPECT_EQ(locality_of(topology.get(), "0-"), std::nullopt);   // full: not bound
    EXPECT_EQ(locality_of(topology.get(), ""), std::nullopt);     // empty set
    EXPECT_EQ(locality_of(topology.get(), "100"), std::nullopt);  // outside the machine
    auto none = locality_string(topology.get(), nullptr);
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(none.value, std::nullopt);
    EXPECT_EQ(locality_string(nullptr, nullptr).status, PMIX_ERR_BAD_PARAM);
}

constexpr pmix_locality_t kEverything = PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_NUMA |
                                        PMIX_LOCALITY_SHARE_PACKAGE | PMIX_LOCALITY_SHARE_L3CACHE |
                                        PMIX_LOCALITY_SHARE_L2CACHE | PMIX_LOCALITY_SHARE_L1CACHE |
                                        PMIX_LOCALITY_SHARE_CORE | PMIX_LOCALITY_SHARE_HWTHREAD;

TEST(Locality, RelativeLocalityOfGeneratedStrings) {
    auto topology = synthetic(kTwoSockets);
    auto rel = [&](const char* a, const char* b) {
        auto result =
            relative_locality(*locality_of(topology.get(), a), *locality_of(topology.get(), b));
        EXPECT_TRUE(result.ok()) << result.error;
        return result.value;
    };
    EXPECT_EQ(rel("0", "0"), kEverything);
    // Same core, different hardware threads.
    EXPECT_EQ(rel("0", "1"), kEverything & ~PMIX_LOCALITY_SHARE_HWTHREAD);
    // Same package and L3, different cores.
    EXPECT_EQ(rel("0", "2"), PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_NUMA |
                                 PMIX_LOCALITY_SHARE_PACKAGE | PMIX_LOCALITY_SHARE_L3CACHE);
    // Different packages: only the node.
    EXPECT_EQ(rel("0", "4"), PMIX_LOCALITY_SHARE_NODE);
    // A process spread over both packages shares each level it overlaps.
    EXPECT_EQ(rel("0,4", "5"), kEverything & ~PMIX_LOCALITY_SHARE_HWTHREAD);
}

TEST(Locality, RelativeLocalityMatchesOpenPMIxBits) {
    // Debian's OpenPMIx 4.2.2 computes these bits (it reports them with a stray
    // PMIX_ERR_TAKE_NEXT_OPTION, see locality.h).
    auto same =
        relative_locality("hwloc:NM0:SK0:L30:L20:L10:CR0:HT0", "hwloc:NM0:SK0:L30:L20:L10:CR0:HT0");
    ASSERT_TRUE(same.ok());
    EXPECT_EQ(same.value, 0x407f);
    auto cores =
        relative_locality("hwloc:NM0:SK0:L30:L20:L10:CR0:HT0", "hwloc:NM0:SK0:L30:L21:L11:CR1:HT1");
    EXPECT_EQ(cores.value, 0x4070);
    EXPECT_EQ(relative_locality("hwloc:NM0:SK0", "hwloc:NM1:SK1").value, 0x4000);
    EXPECT_EQ(relative_locality("hwloc:NM0-1:SK0", "hwloc:NM1:SK1").value, 0x4040);
}

TEST(Locality, PrefixIsOptionalOnEitherSide) {
    const char* plain = "SK0:L30:L20:L10:CR0:HT0:NM0";
    const char* prefixed = "hwloc:SK0:L30:L20:L10:CR0:HT0:NM0";
    EXPECT_EQ(relative_locality(plain, plain).value, kEverything);
    EXPECT_EQ(relative_locality(plain, prefixed).value, kEverything);
    EXPECT_EQ(relative_locality("HWLOC:CR1", "CR1").value,
              PMIX_LOCALITY_SHARE_NODE | PMIX_LOCALITY_SHARE_CORE);
}

TEST(Locality, MissingLevelsShareNothingBeyondTheNode) {
    EXPECT_EQ(relative_locality("", "").value, PMIX_LOCALITY_SHARE_NODE);
    EXPECT_EQ(relative_locality("hwloc:", "SK0").value, PMIX_LOCALITY_SHARE_NODE);
    EXPECT_EQ(relative_locality("HT0", "SK0").value, PMIX_LOCALITY_SHARE_NODE);
    EXPECT_EQ(relative_locality("CR", "CR0").value, PMIX_LOCALITY_SHARE_NODE);
}

TEST(Locality, MalformedStringsAreErrors) {
    for (const char* bad : {"XX0", "SK0:XX0", "SK0::CR0", "SKx", "CR1-0", "CR0,,1", ":", "S",
                            "hwloc:SK0:", "junk:SK0"}) {
        auto result = relative_locality(bad, "SK0");
        EXPECT_EQ(result.status, PMIX_ERR_BAD_PARAM) << bad;
        EXPECT_FALSE(result.error.empty()) << bad;
        EXPECT_EQ(relative_locality("SK0", bad).status, PMIX_ERR_BAD_PARAM) << bad;
    }
}

}  // namespace
}  // namespace pmix::maps
