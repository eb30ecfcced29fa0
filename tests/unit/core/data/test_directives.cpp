// test_directives.cpp - the one directive reader (data/directives.h) and InfoArray
// (data/info_array.h): flags read as OpenPMIx's PMIX_INFO_TRUE reads them, the PMIX_INFO_REQD
// rule, and the owning info array.
#include <gtest/gtest.h>

#include "data/directives.h"
#include "data/info_array.h"
#include "data/value.h"

#include <string>
#include <vector>

namespace pmix::data::test {
namespace {

// One info per case; destructed at the end of each test.
struct Infos {
    std::vector<pmix_info_t> v;
    explicit Infos(std::size_t n) : v(n) {}
    ~Infos() {
        for (auto& i : v) info_destruct(&i);
    }
    pmix_info_t& operator[](std::size_t i) { return v[i]; }
};

pmix_info_t make_string(const char* key, const char* s) {
    pmix_info_t i;
    EXPECT_EQ(info_load(&i, key, s, PMIX_STRING), PMIX_SUCCESS);
    return i;
}

// Before this reader, five copies in client/ and server/ took every non-bool value as true, so
// a directive passed as the string "false" (or "0", "no") switched the behaviour on. OpenPMIx
// reads such strings by their meaning.
TEST(Directives, StringFlagsReadAsOpenPmixReadsThem) {
    const std::vector<std::pair<const char*, bool>> cases = {
        {"true", true},   {"TRUE", true}, {"yes", true},    {"1", true},      {"42", true},
        {"  true", true}, {"", true},     {"false", false}, {"False", false}, {"no", false},
        {"0", false},     {" 0", false},  {"maybe", false}};
    for (const auto& [text, expected] : cases) {
        pmix_info_t i = make_string("pmix.flag", text);
        EXPECT_EQ(flag_true(i), expected) << "\"" << text << "\"";
        EXPECT_EQ(flag_true(i), PMIX_INFO_TRUE(&i)) << "\"" << text << "\"";
        info_destruct(&i);
    }
}

TEST(Directives, BoolUndefAndOtherTypes) {
    Infos in(4);
    bool yes = true, no = false;
    int one = 1;
    ASSERT_EQ(info_load(&in[0], "pmix.yes", &yes, PMIX_BOOL), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&in[1], "pmix.no", &no, PMIX_BOOL), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&in[2], "pmix.bare", nullptr, PMIX_UNDEF), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&in[3], "pmix.int", &one, PMIX_INT), PMIX_SUCCESS);
    EXPECT_TRUE(flag_true(in[0]));
    EXPECT_FALSE(flag_true(in[1]));
    EXPECT_TRUE(flag_true(in[2])) << "a flag given without a value is set";
    // Not a boolean of any form: not true (the five older copies said true).
    EXPECT_FALSE(flag_true(in[3]));
    EXPECT_TRUE(info_true(in.v.data(), 4, "pmix.bare"));
    EXPECT_FALSE(info_true(in.v.data(), 4, "pmix.absent"));
    EXPECT_FALSE(info_true(nullptr, 4, "pmix.yes"));
}

TEST(Directives, KeyIsComparesAsPmixKeys) {
    pmix_info_t i = make_string(PMIX_TIMEOUT, "x");
    EXPECT_TRUE(key_is(i, PMIX_TIMEOUT));
    EXPECT_FALSE(key_is(i, PMIX_TIMEOUT "x"));
    EXPECT_FALSE(key_is(i, nullptr));
    EXPECT_TRUE(key_is("pmix.a", "pmix.a"));
    EXPECT_FALSE(key_is(nullptr, "pmix.a"));
    const std::string longer(PMIX_MAX_KEYLEN, 'k');
    EXPECT_TRUE(key_is(longer.c_str(), (longer + "tail").c_str()))
        << "only the first PMIX_MAX_KEYLEN characters count";
    info_destruct(&i);
}

TEST(Directives, UnknownRequiredIsReportedUnknownOptionalIgnored) {
    Infos in(3);
    int five = 5;
    ASSERT_EQ(info_load(&in[0], PMIX_TIMEOUT, &five, PMIX_INT), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&in[1], "pmix.unknown.optional", nullptr, PMIX_UNDEF), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&in[2], "pmix.unknown.required", nullptr, PMIX_UNDEF), PMIX_SUCCESS);
    PMIX_INFO_REQUIRED(&in[0]);
    static constexpr const char* kKnown[] = {PMIX_TIMEOUT, PMIX_COLLECT_DATA};
    EXPECT_EQ(unknown_required(in.v.data(), 2, kKnown), nullptr)
        << "known required and unknown optional directives pass";
    PMIX_INFO_REQUIRED(&in[2]);
    EXPECT_EQ(unknown_required(in.v.data(), 3, kKnown), &in[2]);
    EXPECT_EQ(unknown_required(in.v.data(), 3, {}), &in[0]);
    EXPECT_EQ(unknown_required(nullptr, 3, kKnown), nullptr);
}

TEST(Directives, StringOfIsTheFirstMatchWhenItIsAString) {
    Infos in(3);
    int one = 1;
    ASSERT_EQ(info_load(&in[0], "pmix.n", &one, PMIX_INT), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&in[1], "pmix.s", "text", PMIX_STRING), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&in[2], "pmix.null", nullptr, PMIX_STRING), PMIX_SUCCESS);
    EXPECT_STREQ(string_of(in.v.data(), 3, "pmix.s"), "text");
    EXPECT_EQ(string_of(in.v.data(), 3, "pmix.n"), nullptr) << "not a string";
    EXPECT_EQ(string_of(in.v.data(), 3, "pmix.null"), nullptr);
    EXPECT_EQ(string_of(in.v.data(), 3, "pmix.absent"), nullptr);
    EXPECT_EQ(string_of(nullptr, 3, "pmix.s"), nullptr);
}

TEST(InfoArray, AppendFindFlagAndRelease) {
    InfoArray a;
    EXPECT_EQ(a.size(), 0u);
    EXPECT_EQ(a.find("pmix.a"), nullptr);
    ASSERT_EQ(a.append("pmix.a", "no", PMIX_STRING), PMIX_SUCCESS);
    ASSERT_EQ(a.append("pmix.b", nullptr, PMIX_UNDEF), PMIX_SUCCESS);
    ASSERT_EQ(a.size(), 2u);
    EXPECT_STREQ(a.find("pmix.a")->value.data.string, "no");
    EXPECT_FALSE(a.flag("pmix.a")) << "the string \"no\" is false";
    EXPECT_TRUE(a.flag("pmix.b"));
    EXPECT_FALSE(a.flag("pmix.c"));
    EXPECT_EQ(a.append(std::string(PMIX_MAX_KEYLEN + 1, 'x').c_str(), nullptr, PMIX_UNDEF),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(a.size(), 2u) << "a failed append leaves the array as it was";

    InfoArray moved(std::move(a));
    EXPECT_EQ(a.size(), 0u);
    ASSERT_EQ(moved.size(), 2u);
    pmix_info_t* given = moved.release();
    EXPECT_EQ(moved.data(), nullptr);
    free_infos(given, 2);  // the C way
}

TEST(InfoArray, AssignCopyIsDeep) {
    Infos src(2);
    ASSERT_EQ(info_load(&src[0], "pmix.s", "text", PMIX_STRING), PMIX_SUCCESS);
    ASSERT_EQ(info_load(&src[1], "pmix.f", nullptr, PMIX_UNDEF), PMIX_SUCCESS);
    InfoArray a;
    ASSERT_EQ(a.assign_copy(src.v.data(), 2), PMIX_SUCCESS);
    ASSERT_EQ(a.size(), 2u);
    EXPECT_NE(a.data()[0].value.data.string, src[0].value.data.string);
    EXPECT_STREQ(a.data()[0].value.data.string, "text");
    EXPECT_EQ(a.assign_copy(nullptr, 1), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(a.size(), 0u);
    EXPECT_EQ(a.assign_copy(nullptr, 0), PMIX_SUCCESS);
}

}  // namespace
}  // namespace pmix::data::test
