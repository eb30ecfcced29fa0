// Unit tests for core/maps/node_regex: generation, round trips and the OpenPMIx forms we accept.
#include "maps/node_regex.h"

#include "maps/ranges.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace pmix::maps {
namespace {

std::vector<std::string> names_of(const std::string& list) {
    std::vector<std::string> names;
    if (!list.empty()) {
        for (auto piece : split(list, ',')) {
            names.emplace_back(piece);
        }
    }
    return names;
}

std::string join(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
        out += (i > 0 ? "," : "") + names[i];
    }
    return out;
}

void expect_round_trip(const std::string& list) {
    auto regex = generate_regex(list);
    ASSERT_TRUE(regex.ok()) << list << ": " << regex.error;
    EXPECT_TRUE(regex.value.starts_with("pmix[") && regex.value.ends_with("]")) << regex.value;
    auto parsed = parse_nodes(regex.value);
    ASSERT_TRUE(parsed.ok()) << regex.value << ": " << parsed.error;
    EXPECT_EQ(parsed.value, names_of(list)) << "via " << regex.value;
}

TEST(NodeRegex, CompressesRunsLikeOpenPMIx) {
    // The OpenPMIx syntax: prefix[width:ranges]suffix, plain names verbatim.
    EXPECT_EQ(generate_regex("node01,node02,node03,node10").value, "pmix[node[2:1-3,10]]");
    EXPECT_EQ(generate_regex("a,b,c").value, "pmix[a,b,c]");
    EXPECT_EQ(generate_regex("001,002").value, "pmix[[3:1-2]]");
    EXPECT_EQ(generate_regex("c1n1,c2n1,c3n1").value, "pmix[c[1:1-3]n1]");  // suffix kept
    EXPECT_EQ(generate_regex("c0n1,c0n2").value, "pmix[c0n1,c0n2]");        // suffixes differ
    EXPECT_EQ(generate_regex("n1,n2,n3,m1.ex,m2.ex").value, "pmix[n[1:1-3],m1.ex,m2.ex]");
}

TEST(NodeRegex, SingleNamesStayPlain) {
    // Open MPI's mpirun asks for the regex of its one node, "vm" in its traces.
    EXPECT_EQ(generate_regex("vm").value, "pmix[vm]");
    EXPECT_EQ(generate_regex("node7").value, "pmix[node7]");
    EXPECT_EQ(generate_regex("odin001,odin002,thor5").value, "pmix[odin[3:1-2],thor5]");
}

TEST(NodeRegex, EmptyListIsAnEmptyMap) {
    auto regex = generate_regex("");
    ASSERT_TRUE(regex.ok());
    EXPECT_EQ(regex.value, "pmix[]");
    auto parsed = parse_nodes(regex.value);
    ASSERT_TRUE(parsed.ok());
    EXPECT_TRUE(parsed.value.empty());
}

TEST(NodeRegex, RoundTripsKeepOrderAndDuplicates) {
    for (const char* list : {
             "node01,node02,node03,node10",
             "n9,n10,n11,n12",        // width changes: separate groups
             "n1,001,n2",             // OpenPMIx reorders this one; we must not
             "a28n01,a99n02,a28n02",  // ... nor this one
             "n3,n2,n1",              // descending
             "node1,node1,node1",     // duplicates survive
             "host-1,host-2,host.example.com,HOST3",
             "x000,x001,x999",
             "rack1node01,rack1node02,rack2node01",
             "123456789012345678,123456789012345679",      // 18 digits: still compressed
             "n1234567890123456789,n1234567890123456790",  // 19 digits: kept plain
             "a",
             "A1,a1,A2",
         }) {
        SCOPED_TRACE(list);
        expect_round_trip(list);
    }
}

TEST(NodeRegex, RandomListsRoundTrip) {
    std::mt19937 rng(20240607);  // fixed seed: reproducible
    const std::vector<std::string> prefixes = {"n", "node", "cn", "", "gpu", "login"};
    const std::vector<std::string> suffixes = {"", "", "", "a", "ib0"};
    for (int iteration = 0; iteration < 200; ++iteration) {
        std::vector<std::string> names;
        const int count = 1 + static_cast<int>(rng() % 60);
        for (int i = 0; i < count; ++i) {
            const auto& prefix = prefixes[rng() % prefixes.size()];
            const auto& suffix = suffixes[rng() % suffixes.size()];
            const int width = 1 + static_cast<int>(rng() % 4);
            const unsigned number = rng() % 1000;
            char digits[32];
            std::snprintf(digits, sizeof(digits), "%0*u", width, number);
            names.push_back(prefix + digits + suffix);
            if (rng() % 7 == 0) {
                names.push_back(prefix + "-plain" + std::to_string(i));
            }
        }
        SCOPED_TRACE(join(names));
        expect_round_trip(join(names));
    }
}

TEST(NodeRegex, LargeSequentialListsCompressWell) {
    std::vector<std::string> names;
    for (int i = 1; i <= 10000; ++i) {
        char name[32];
        std::snprintf(name, sizeof(name), "nid%05d", i);
        names.push_back(name);
    }
    const auto list = join(names);
    auto regex = generate_regex(list);
    ASSERT_TRUE(regex.ok());
    EXPECT_EQ(regex.value, "pmix[nid[5:1-10000]]");
    auto parsed = parse_nodes(regex.value);
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(parsed.value, names);
}

TEST(NodeRegex, ParsesOpenPMIxOutput) {
    // Strings produced by Debian's OpenPMIx 4.2.2 PMIx_generate_regex for these inputs.
    struct Case {
        const char* regex;
        const char* names;
    };
    for (const auto& c : {
             Case{"pmix[node[2:1-3,10]]", "node01,node02,node03,node10"},
             Case{"pmix[odin[3:1-3,10],thor[1:5]]", "odin001,odin002,odin003,odin010,thor5"},
             Case{"pmix[n[1:1-3],m1.ex,m2.ex]", "n1,n2,n3,m1.ex,m2.ex"},
             Case{"pmix[c[1:0]n1,c[1:0]n2,c[1:1]n1]", "c0n1,c0n2,c1n1"},
             Case{"pmix[[3:1-2]]", "001,002"},
             Case{"pmix[node[1:1,1]]", "node1,node1"},
             Case{"pmix[x-1,x-2]", "x-1,x-2"},
             Case{"pmix[vm]", "vm"},
         }) {
        auto parsed = parse_nodes(c.regex);
        ASSERT_TRUE(parsed.ok()) << c.regex << ": " << parsed.error;
        EXPECT_EQ(parsed.value, names_of(c.names)) << c.regex;
    }
}

TEST(NodeRegex, ParsesRawAndPlainLists) {
    EXPECT_EQ(parse_nodes("raw:a,b,c").value, names_of("a,b,c"));
    EXPECT_EQ(parse_nodes("host1,host2").value, names_of("host1,host2"));
    EXPECT_TRUE(parse_nodes("").value.empty());
    EXPECT_TRUE(parse_nodes("raw:").value.empty());
}

TEST(ProcMap, CompressesEachNode) {
    EXPECT_EQ(generate_ppn("0,1,2;3,4,5").value, "pmix[0-2;3-5]");
    EXPECT_EQ(generate_ppn("0-3;4,7,9").value, "pmix[0-3;4,7,9]");
    EXPECT_EQ(generate_ppn("0,1,2-4,5").value, "pmix[0-5]");
    EXPECT_EQ(generate_ppn("5,4,3").value, "pmix[5,4,3]");
    EXPECT_EQ(generate_ppn("").value, "pmix[]");
}

TEST(ProcMap, RoundTrips) {
    using Lists = std::vector<std::vector<pmix_rank_t>>;
    struct Case {
        const char* input;
        Lists ranks;
    };
    for (const auto& c : {
             Case{"0,1,2;3,4,5", {{0, 1, 2}, {3, 4, 5}}},
             Case{"0,2,4,6;1,3,5,7", {{0, 2, 4, 6}, {1, 3, 5, 7}}},
             Case{"0-3;4,7,9", {{0, 1, 2, 3}, {4, 7, 9}}},
             Case{"7", {{7}}},
             Case{"0;;1", {{0}, {}, {1}}},  // a node without local ranks
             Case{"", {}},
             Case{"4294967245", {{PMIX_RANK_VALID}}},
         }) {
        SCOPED_TRACE(c.input);
        auto ppn = generate_ppn(c.input);
        ASSERT_TRUE(ppn.ok()) << ppn.error;
        auto parsed = parse_ppn(ppn.value);
        ASSERT_TRUE(parsed.ok()) << ppn.value << ": " << parsed.error;
        EXPECT_EQ(parsed.value, c.ranks) << "via " << ppn.value;
    }
}

TEST(ProcMap, ParsesOpenPMIxForms) {
    using Lists = std::vector<std::vector<pmix_rank_t>>;
    // OpenPMIx writes "raw:<input>" when compression would not pay (Open MPI's single node:
    // "raw:0,1,2,3") and "pmix[...]" otherwise.
    EXPECT_EQ(parse_ppn("raw:0,1,2,3").value, (Lists{{0, 1, 2, 3}}));
    EXPECT_EQ(parse_ppn("raw:0,1;2,3").value, (Lists{{0, 1}, {2, 3}}));
    EXPECT_EQ(parse_ppn("pmix[0-11;12-19]").value.size(), 2u);
    EXPECT_EQ(parse_ppn("pmix[0-11;12-19]").value[1].size(), 8u);
    EXPECT_EQ(parse_ppn("0,1;2,3").value, (Lists{{0, 1}, {2, 3}}));
}

TEST(ProcMap, LargeJobRoundTrip) {
    // 64 nodes x 128 ranks, block-mapped: one range per node.
    std::string input;
    for (int node = 0; node < 64; ++node) {
        input += node > 0 ? ";" : "";
        for (int r = 0; r < 128; ++r) {
            input += (r > 0 ? "," : "") + std::to_string(node * 128 + r);
        }
    }
    auto ppn = generate_ppn(input);
    ASSERT_TRUE(ppn.ok());
    EXPECT_LT(ppn.value.size(), 64u * 12u);
    auto parsed = parse_ppn(ppn.value);
    ASSERT_TRUE(parsed.ok());
    ASSERT_EQ(parsed.value.size(), 64u);
    EXPECT_EQ(parsed.value[63].front(), 63u * 128u);
    EXPECT_EQ(parsed.value[63].back(), 64u * 128u - 1u);
}

}  // namespace
}  // namespace pmix::maps
