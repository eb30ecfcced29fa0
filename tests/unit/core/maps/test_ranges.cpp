// Unit tests for core/maps/ranges: the number and range grammar every map and locality string
// is built from. Strictness matters here: a host typo must be an error, never a different list.
#include "maps/ranges.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace pmix::maps {
namespace {

constexpr auto kMax64 = std::numeric_limits<std::uint64_t>::max();

TEST(Ranges, DecimalAcceptsDigitsOnly) {
    EXPECT_EQ(parse_decimal("0", 10), 0u);
    EXPECT_EQ(parse_decimal("007", 10), 7u);
    EXPECT_EQ(parse_decimal("18446744073709551615", kMax64), kMax64);
    for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1a", "0x10", "1.0"}) {
        EXPECT_FALSE(parse_decimal(bad, kMax64).has_value()) << bad;
    }
}

TEST(Ranges, DecimalRejectsOverflowAndValuesAboveTheLimit) {
    EXPECT_FALSE(parse_decimal("18446744073709551616", kMax64).has_value());
    EXPECT_FALSE(parse_decimal("99999999999999999999999", kMax64).has_value());
    EXPECT_EQ(parse_decimal("99", 99), 99u);
    EXPECT_FALSE(parse_decimal("100", 99).has_value());
}

TEST(Ranges, SingleValueAndClosedRange) {
    auto one = parse_range("3", 100);
    ASSERT_TRUE(one.has_value());
    EXPECT_EQ(one->first, 3u);
    EXPECT_EQ(one->last, 3u);
    EXPECT_EQ(one->count(), 1u);
    auto span = parse_range("2-5", 100);
    ASSERT_TRUE(span.has_value());
    EXPECT_EQ(span->first, 2u);
    EXPECT_EQ(span->last, 5u);
    EXPECT_EQ(span->count(), 4u);
    EXPECT_FALSE(span->open);
}

TEST(Ranges, MalformedRangesAreRejected) {
    for (const char* bad : {"5-2", "-3", "1-2-3", "1--2", "a-b", "1-", "", "-", "2-101"}) {
        EXPECT_FALSE(parse_range(bad, 100).has_value()) << bad;
    }
}

TEST(Ranges, OpenRangeOnlyWhenAllowed) {
    EXPECT_FALSE(parse_range("4-", 100, false).has_value());
    auto open = parse_range("4-", 100, true);
    ASSERT_TRUE(open.has_value());
    EXPECT_TRUE(open->open);
    EXPECT_EQ(open->first, 4u);
}

TEST(Ranges, ListParsesInOrder) {
    auto list = parse_range_list("0-3,7,9-10", 100, "test list");
    ASSERT_TRUE(list.ok()) << list.error;
    ASSERT_EQ(list.value.size(), 3u);
    EXPECT_EQ(list.value[0].last, 3u);
    EXPECT_EQ(list.value[1].first, 7u);
    EXPECT_EQ(list.value[2].first, 9u);
    EXPECT_EQ(list.value[2].last, 10u);
}

TEST(Ranges, EmptyListIsEmptyButEmptyItemsAreErrors) {
    auto empty = parse_range_list("", 100, "test list");
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty.value.empty());
    for (const char* bad : {",", "1,", ",1", "1,,2", "1;2"}) {
        auto result = parse_range_list(bad, 100, "test list");
        EXPECT_EQ(result.status, PMIX_ERR_BAD_PARAM) << bad;
        EXPECT_NE(result.error.find("test list"), std::string::npos) << result.error;
    }
}

TEST(Ranges, SplitKeepsEmptyPieces) {
    EXPECT_EQ(split("", ',').size(), 1u);
    auto pieces = split("a,,b,", ',');
    ASSERT_EQ(pieces.size(), 4u);
    EXPECT_EQ(pieces[0], "a");
    EXPECT_EQ(pieces[1], "");
    EXPECT_EQ(pieces[2], "b");
    EXPECT_EQ(pieces[3], "");
}

TEST(Ranges, Intersection) {
    auto list = [](const char* text) { return parse_range_list(text, 1000, "t", true).value; };
    EXPECT_TRUE(ranges_intersect(list("0-3"), list("3-5")));
    EXPECT_FALSE(ranges_intersect(list("0-3"), list("4-5")));
    EXPECT_TRUE(ranges_intersect(list("1,5,9"), list("2-4,9")));
    EXPECT_FALSE(ranges_intersect(list("1,5,9"), list("2-4,6-8")));
    EXPECT_TRUE(ranges_intersect(list("100-"), list("7,500")));
    EXPECT_FALSE(ranges_intersect(list("100-"), list("7,50")));
    EXPECT_FALSE(ranges_intersect(list(""), list("0-")));
}

TEST(Ranges, AppendRangeWritesTheListSyntax) {
    std::string out;
    append_range(out, Range{4, 4, false});
    out += ',';
    append_range(out, Range{6, 9, false});
    out += ',';
    append_range(out, Range{12, 0, true});
    EXPECT_EQ(out, "4,6-9,12-");
    auto back = parse_range_list(out, 100, "t", true);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back.value.size(), 3u);
}

}  // namespace
}  // namespace pmix::maps
