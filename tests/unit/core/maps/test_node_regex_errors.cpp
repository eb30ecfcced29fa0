// Unit tests for core/maps/node_regex: malformed and hostile input. Each case must give a clear
// status and a message, never a crash, a partial list or an unbounded allocation.
#include "maps/node_regex.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace pmix::maps {
namespace {

TEST(NodeRegexErrors, GenerateRejectsUnusableNames) {
    for (const char* bad : {"a,,b", ",a", "a,", ",", "node[1-3]", "a]", "x,[y"}) {
        auto result = generate_regex(bad);
        EXPECT_EQ(result.status, PMIX_ERR_BAD_PARAM) << bad;
        EXPECT_FALSE(result.error.empty()) << bad;
        EXPECT_TRUE(result.value.empty()) << bad;
    }
}

TEST(NodeRegexErrors, ParseRejectsMalformedMaps) {
    for (const char* bad : {
             "pmix[a[2:1-3]",       // missing the closing bracket of the map
             "pmix[a[2:1-3]]]",     // one bracket too many
             "pmix[a[[2:1]]]",      // nested
             "pmix[a]b[2:1]]",      // ']' before '['
             "pmix[a[x:1]]",        // width not a number
             "pmix[a[0:1]]",        // width zero
             "pmix[a[19:1]]",       // width beyond 18 digits
             "pmix[a[2:100]]",      // number wider than its width
             "pmix[a[2:5-3]]",      // backwards range
             "pmix[a[2:]]",         // no numbers
             "pmix[a[2:1,,2]]",     // empty number
             "pmix[a[2-1]]",        // no width
             "pmix[a[2:1]b[2:1]]",  // two bracket groups in one name
             "pmix[a,,b]",          // empty name
             "pmix[,]",
             "a,,b",   // plain list with an empty name
             "a[2:1",  // plain list, unclosed bracket
         }) {
        auto result = parse_nodes(bad);
        EXPECT_EQ(result.status, PMIX_ERR_BAD_PARAM) << bad;
        EXPECT_FALSE(result.error.empty()) << bad;
        EXPECT_TRUE(result.value.empty()) << bad;
    }
}

TEST(NodeRegexErrors, CompressedBlobIsNotSupported) {
    auto result = parse_nodes("blob:\x78\x9c\x03\x00");
    EXPECT_EQ(result.status, PMIX_ERR_NOT_SUPPORTED);
    EXPECT_NE(result.error.find("blob"), std::string::npos);
    EXPECT_EQ(parse_ppn("blob:xyz").status, PMIX_ERR_NOT_SUPPORTED);
}

TEST(NodeRegexErrors, HugeExpansionFailsFastWithoutAllocating) {
    const auto start = std::chrono::steady_clock::now();
    auto nodes = parse_nodes("pmix[n[9:0-999999999]]");
    EXPECT_EQ(nodes.status, PMIX_ERR_BAD_PARAM);
    EXPECT_NE(nodes.error.find("more than"), std::string::npos) << nodes.error;
    // Many ranges that are small one by one but too many together.
    std::string many = "pmix[";
    for (int i = 0; i < 300; ++i) {
        many += (i > 0 ? "," : "") + std::string("r") + std::to_string(i) + "x[6:0-99999]";
    }
    many += "]";
    EXPECT_EQ(parse_nodes(many).status, PMIX_ERR_BAD_PARAM);
    auto ranks = parse_ppn("pmix[0-4294967000]");
    EXPECT_EQ(ranks.status, PMIX_ERR_BAD_PARAM);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

TEST(NodeRegexErrors, LongInputIsQuotedShortly) {
    std::string bad = "pmix[" + std::string(100000, 'a') + "[2:x]]";
    auto result = parse_nodes(bad);
    EXPECT_EQ(result.status, PMIX_ERR_BAD_PARAM);
    EXPECT_LT(result.error.size(), 400u) << "the message should not copy the whole input";
}

TEST(ProcMapErrors, GenerateRejectsBadRanks) {
    for (const char* bad : {"0,x", "0,,1", "1-0", "-1", "0;1,", "4294967246", "4294967295",
                            "99999999999999999999", "0 ,1", "0:1"}) {
        auto result = generate_ppn(bad);
        EXPECT_EQ(result.status, PMIX_ERR_BAD_PARAM) << bad;
        EXPECT_FALSE(result.error.empty()) << bad;
    }
}

TEST(ProcMapErrors, ParseRejectsBadRanks) {
    for (const char* bad : {"pmix[0,x]", "pmix[0-]", "pmix[3-1]", "pmix[0;1", "raw:0,,1",
                            "pmix[4294967295]", "0;a"}) {
        auto result = parse_ppn(bad);
        EXPECT_EQ(result.status, PMIX_ERR_BAD_PARAM) << bad;
        EXPECT_FALSE(result.error.empty()) << bad;
        EXPECT_TRUE(result.value.empty()) << bad;
    }
}

}  // namespace
}  // namespace pmix::maps
