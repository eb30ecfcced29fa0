// --host lists, hostfiles and the block mapping of ranks over nodes (launcher/hosts.h).
#include "hosts.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace pmix::launcher {
namespace {

struct Parsed {
    bool ok = false;
    std::vector<NodeSlot> nodes;
    std::string error;
};

Parsed host_list(const std::string& list) {
    Parsed parsed;
    parsed.ok = parse_host_list(list, parsed.nodes, parsed.error);
    return parsed;
}

Parsed hostfile_text(const std::string& text) {
    Parsed parsed;
    parsed.ok = parse_hostfile_text(text, "hosts", parsed.nodes, parsed.error);
    return parsed;
}

void expect_nodes(const Parsed& parsed, const std::vector<std::pair<std::string, int>>& expected) {
    ASSERT_TRUE(parsed.ok) << parsed.error;
    ASSERT_EQ(parsed.nodes.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(parsed.nodes[i].name, expected[i].first) << i;
        EXPECT_EQ(parsed.nodes[i].slots, expected[i].second) << i;
    }
}

TEST(HostList, NamesAndSlotCounts) {
    expect_nodes(host_list("a:2,b,c:4"), {{"a", 2}, {"b", 1}, {"c", 4}});
    expect_nodes(host_list("simn0:4,simn1:4"), {{"simn0", 4}, {"simn1", 4}});
    expect_nodes(host_list("node-1.example.org:4096"), {{"node-1.example.org", 4096}});
    expect_nodes(host_list("10.0.0.1"), {{"10.0.0.1", 1}});
}

TEST(HostList, MalformedEntries) {
    EXPECT_EQ(host_list("a:0").error, "bad slot count in 'a:0' (1..4096)");
    EXPECT_EQ(host_list("a:4097").error, "bad slot count in 'a:4097' (1..4096)");
    EXPECT_EQ(host_list("a:-1").error, "bad slot count in 'a:-1' (1..4096)");
    EXPECT_EQ(host_list("a:").error, "bad slot count in 'a:' (1..4096)");
    EXPECT_EQ(host_list("a:2x").error, "bad slot count in 'a:2x' (1..4096)");
    EXPECT_EQ(host_list("a:1:2").error, "bad slot count in 'a:1:2' (1..4096)");
    EXPECT_EQ(host_list(":2").error, "bad node name in ':2'");
    EXPECT_EQ(host_list("a,,b").error, "bad node name in ''");
    EXPECT_EQ(host_list("a b").error, "bad node name in 'a b'");
    EXPECT_EQ(host_list("a=b").error, "bad node name in 'a=b'");
    EXPECT_EQ(host_list(std::string(256, 'n')).error,
              "bad node name in '" + std::string(256, 'n') + "'");
    EXPECT_EQ(host_list("").error, "no node given");
    EXPECT_FALSE(host_list("a:0").ok);
}

TEST(HostList, Duplicates) {
    const Parsed twice = host_list("a,b,a");
    EXPECT_FALSE(twice.ok);
    EXPECT_EQ(twice.error, "node 'a' given twice");
    EXPECT_EQ(host_list("a:2,a:3").error, "node 'a' given twice");
    // Appending to the hostfile's nodes: a name already there is a duplicate too.
    std::vector<NodeSlot> nodes{{"a", 2}};
    std::string error;
    EXPECT_FALSE(parse_host_list("b,a", nodes, error));
    EXPECT_EQ(error, "node 'a' given twice");
}

TEST(Hostfile, EveryLineForm) {
    expect_nodes(hostfile_text("a slots=2\nb:3\nc\n"), {{"a", 2}, {"b", 3}, {"c", 1}});
    expect_nodes(hostfile_text("a slots=2"), {{"a", 2}});  // no final newline
    expect_nodes(hostfile_text("  \ta   slots=5  \n"), {{"a", 5}});
}

TEST(Hostfile, CommentsAndBlankLines) {
    expect_nodes(hostfile_text("# the nodes\n\na slots=2  # the first\n   \n\t\n#b\nc # last\n"),
                 {{"a", 2}, {"c", 1}});
}

TEST(Hostfile, MalformedLinesNameTheLine) {
    EXPECT_EQ(hostfile_text("a\nb bogus\n").error, "hosts:2: unexpected 'bogus'");
    EXPECT_EQ(hostfile_text("a:2 slots=3\n").error, "hosts:1: unexpected 'slots=3'");
    EXPECT_EQ(hostfile_text("a slots=2 slots=3\n").error, "hosts:1: unexpected 'slots=3'");
    EXPECT_EQ(hostfile_text("a slots=0\n").error, "hosts:1: bad slot count in 'a:0' (1..4096)");
    EXPECT_EQ(hostfile_text("a slots=\n").error, "hosts:1: bad slot count in 'a:' (1..4096)");
    EXPECT_EQ(hostfile_text("a\n# c\nb\na\n").error, "hosts:4: node 'a' given twice");
    EXPECT_EQ(hostfile_text("a,b\n").error, "hosts:1: bad node name in 'a,b'");
    EXPECT_EQ(hostfile_text("").error, "hostfile 'hosts' names no node");
    EXPECT_EQ(hostfile_text("# nothing\n\n").error, "hostfile 'hosts' names no node");
}

TEST(Hostfile, ReadsAFile) {
    char path[] = "/tmp/test_launcher_hostfile.XXXXXX";
    const int fd = ::mkstemp(path);
    ASSERT_GE(fd, 0);
    ::close(fd);
    {
        std::ofstream out(path);
        out << "# two nodes\nn0 slots=2\nn1:2\n";
    }
    std::vector<NodeSlot> nodes;
    std::string error;
    EXPECT_TRUE(parse_hostfile(path, nodes, error)) << error;
    EXPECT_EQ(nodes.size(), 2u);
    {
        std::ofstream out(path);
        out << "n0\nn0\n";
    }
    nodes.clear();
    EXPECT_FALSE(parse_hostfile(path, nodes, error));
    EXPECT_EQ(error, std::string(path) + ":2: node 'n0' given twice");
    std::remove(path);
    nodes.clear();
    EXPECT_FALSE(parse_hostfile(path, nodes, error));
    EXPECT_EQ(error, "cannot read hostfile '" + std::string(path) + "'");
}

TEST(Layout, BlockMapping) {
    Layout layout;
    layout.nodes = {{"a", 2}, {"b", 3}, {"c", 4}};
    ASSERT_TRUE(layout.map(6));
    EXPECT_EQ(layout.first_rank, (std::vector<uint32_t>{0, 2, 5}));
    EXPECT_EQ(layout.rank_count, (std::vector<uint32_t>{2, 3, 1}));
    EXPECT_EQ(layout.node_of(0), 0u);
    EXPECT_EQ(layout.node_of(1), 0u);
    EXPECT_EQ(layout.node_of(2), 1u);
    EXPECT_EQ(layout.node_of(4), 1u);
    EXPECT_EQ(layout.node_of(5), 2u);
    EXPECT_EQ(layout.node_of(6), 3u);  // out of range: nodes.size()
}

TEST(Layout, FewerRanksThanNodesLeavesNodesEmpty) {
    Layout layout;
    layout.nodes = {{"a", 1}, {"b", 1}, {"c", 1}};
    ASSERT_TRUE(layout.map(2));
    EXPECT_EQ(layout.rank_count, (std::vector<uint32_t>{1, 1, 0}));
    EXPECT_EQ(layout.node_of(2), 3u);
}

TEST(Layout, TooManyRanksDoNotFit) {
    Layout layout;
    layout.nodes = {{"a", 1}, {"b", 1}};
    EXPECT_FALSE(layout.map(3));
    EXPECT_TRUE(layout.map(2));
}

}  // namespace
}  // namespace pmix::launcher
