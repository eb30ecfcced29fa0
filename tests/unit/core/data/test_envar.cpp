// core/data/envar: reading the environment directives and applying them to an environment
// (separators, duplicates, unset of a missing name, bad input).
#include "data/envar.h"
#include "data/value.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pmix::data {
namespace {

pmix_info_t envar_info(const char* key, const char* name, const char* value, char sep) {
    pmix_info_t i;
    PMIX_INFO_CONSTRUCT(&i);
    pmix_envar_t e{const_cast<char*>(name), const_cast<char*>(value), sep};
    (void)info_load(&i, key, &e, PMIX_ENVAR);
    return i;
}

EnvarDirective d(EnvarOp op, const char* name, const char* value = "", char sep = ':') {
    return EnvarDirective{op, name, value, sep};
}

std::vector<std::string> applied(std::vector<std::string> env,
                                 const std::vector<EnvarDirective>& ds) {
    for (const auto& x : ds) apply_envar(x, env);
    return env;
}

TEST(Envar, SetOverwritesAddKeeps) {
    const auto env = applied({"A=1", "B=2"}, {d(EnvarOp::set, "A", "x"), d(EnvarOp::add, "B", "y"),
                                              d(EnvarOp::add, "C", "z")});
    EXPECT_EQ(env, (std::vector<std::string>{"A=x", "B=2", "C=z"}));
}

TEST(Envar, UnsetRemovesAndMissingIsNoOp) {
    const auto env =
        applied({"A=1", "AB=2", "A=dup"}, {d(EnvarOp::unset, "A"), d(EnvarOp::unset, "NOT_THERE")});
    EXPECT_EQ(env, (std::vector<std::string>{"AB=2"}));  // every entry of A, not AB
}

TEST(Envar, PrependAppendJoinWithSeparatorAndCreate) {
    const auto env =
        applied({"P=/b"}, {d(EnvarOp::prepend, "P", "/a", ':'), d(EnvarOp::append, "P", "/c", ':'),
                           d(EnvarOp::append, "L", "x", ','), d(EnvarOp::prepend, "M", "y", ';')});
    EXPECT_EQ(env, (std::vector<std::string>{"P=/a:/b:/c", "L=x", "M=y"}));
}

TEST(Envar, PrependAndAppendKeepDuplicatesAsPrrteDoes) {
    const auto env =
        applied({"P=/a:/b"}, {d(EnvarOp::prepend, "P", "/b"), d(EnvarOp::append, "P", "/a")});
    EXPECT_EQ(env, (std::vector<std::string>{"P=/b:/a:/b:/a"}));
}

TEST(Envar, FirstMovesToFrontWithoutDuplicating) {
    EXPECT_EQ(applied({"P=/a:/b:/c:/b"}, {d(EnvarOp::first, "P", "/b")}),
              (std::vector<std::string>{"P=/b:/a:/c"}));
    EXPECT_EQ(applied({"P=/b:/a"}, {d(EnvarOp::first, "P", "/b")}),
              (std::vector<std::string>{"P=/b:/a"}));
    EXPECT_EQ(applied({}, {d(EnvarOp::first, "P", "/b")}), (std::vector<std::string>{"P=/b"}));
    EXPECT_EQ(applied({"P="}, {d(EnvarOp::first, "P", "/b")}), (std::vector<std::string>{"P=/b"}));
}

TEST(Envar, OrderMatters) {
    EXPECT_EQ(applied({}, {d(EnvarOp::set, "V", "1"), d(EnvarOp::unset, "V"),
                           d(EnvarOp::add, "V", "2"), d(EnvarOp::append, "V", "3", '+')}),
              (std::vector<std::string>{"V=2+3"}));
}

TEST(Envar, ReadsEveryKindAndSkipsOtherKeys) {
    pmix_info_t info[4];
    info[0] = envar_info(PMIX_PREPEND_ENVAR, "PATH", "/opt/bin", ':');
    (void)info_load(&info[1], PMIX_JOBID, "job", PMIX_STRING);
    (void)info_load(&info[2], PMIX_UNSET_ENVAR, "GONE", PMIX_STRING);
    info[3] = envar_info(PMIX_FIRST_ENVAR, "LD_LIBRARY_PATH", "/l", ':');
    std::vector<EnvarDirective> out;
    std::string why;
    ASSERT_EQ(read_envar_directives(info, 4, out, why), PMIX_SUCCESS) << why;
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0].op, EnvarOp::prepend);
    EXPECT_EQ(out[0].name, "PATH");
    EXPECT_EQ(out[0].value, "/opt/bin");
    EXPECT_EQ(out[0].separator, ':');
    EXPECT_EQ(out[1].op, EnvarOp::unset);
    EXPECT_EQ(out[1].name, "GONE");
    EXPECT_EQ(out[2].op, EnvarOp::first);
    for (auto& i : info) info_destruct(&i);
}

TEST(Envar, BadInputGivesClearErrors) {
    std::string why;
    EnvarDirective out;
    pmix_info_t null_name = envar_info(PMIX_SET_ENVAR, nullptr, "v", ':');
    EXPECT_EQ(read_envar_directive(null_name, out, why), PMIX_ERR_BAD_PARAM);
    EXPECT_NE(why.find("NULL or empty"), std::string::npos) << why;
    pmix_info_t with_equals = envar_info(PMIX_SET_ENVAR, "A=B", "v", ':');
    EXPECT_EQ(read_envar_directive(with_equals, out, why), PMIX_ERR_BAD_PARAM);
    const std::string huge(kMaxEnvarLength, 'x');
    pmix_info_t too_long = envar_info(PMIX_SET_ENVAR, "BIG", huge.c_str(), ':');
    EXPECT_EQ(read_envar_directive(too_long, out, why), PMIX_ERR_BAD_PARAM);
    EXPECT_NE(why.find("longer than"), std::string::npos) << why;
    pmix_info_t no_sep = envar_info(PMIX_APPEND_ENVAR, "P", "/x", '\0');
    EXPECT_EQ(read_envar_directive(no_sep, out, why), PMIX_ERR_BAD_PARAM);
    pmix_info_t set_ok_without_sep = envar_info(PMIX_SET_ENVAR, "P", "/x", '\0');
    EXPECT_EQ(read_envar_directive(set_ok_without_sep, out, why), PMIX_SUCCESS);
    pmix_info_t wrong_type;
    (void)info_load(&wrong_type, PMIX_SET_ENVAR, "A=1", PMIX_STRING);
    EXPECT_EQ(read_envar_directive(wrong_type, out, why), PMIX_ERR_TYPE_MISMATCH);
    EXPECT_NE(why.find("PMIX_ENVAR"), std::string::npos) << why;
    pmix_info_t unset_wrong = envar_info(PMIX_UNSET_ENVAR, "A", "", ':');
    EXPECT_EQ(read_envar_directive(unset_wrong, out, why), PMIX_ERR_TYPE_MISMATCH);
    pmix_info_t unset_null;
    PMIX_INFO_CONSTRUCT(&unset_null);
    PMIX_LOAD_KEY(unset_null.key, PMIX_UNSET_ENVAR);
    unset_null.value.type = PMIX_STRING;  // a NULL string
    EXPECT_EQ(read_envar_directive(unset_null, out, why), PMIX_ERR_BAD_PARAM);
    std::vector<EnvarDirective> many;
    pmix_info_t mixed[2] = {envar_info(PMIX_SET_ENVAR, "OK", "1", ':'), wrong_type};
    EXPECT_EQ(read_envar_directives(mixed, 2, many, why), PMIX_ERR_TYPE_MISMATCH);
    for (pmix_info_t* i : {&null_name, &with_equals, &too_long, &no_sep, &set_ok_without_sep,
                           &wrong_type, &unset_wrong, &mixed[0]})
        info_destruct(i);
}

}  // namespace
}  // namespace pmix::data
