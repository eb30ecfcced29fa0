// tests/unit/server/test_tool_admission.cpp - the library's own tool admission rule
// (server/tool_admission.h): this user only; the tool's own name, or <nspace>.tool.<n>.
#include "server/tool_admission.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <string>

namespace {

struct Ask {
    pmix_info_t info[3];
    std::size_t n = 0;
    Ask() { std::memset(info, 0, sizeof info); }
    Ask& uid(std::uint32_t u) { return add(PMIX_USERID, &u, PMIX_UINT32); }
    Ask& nspace(const char* ns) { return add(PMIX_TOOL_NSPACE, ns, PMIX_STRING); }
    Ask& rank(pmix_rank_t r) { return add(PMIX_TOOL_RANK, &r, PMIX_PROC_RANK); }
    Ask& add(const char* key, const void* data, pmix_data_type_t type) {
        PMIX_INFO_LOAD(&info[n], key, data, type);
        ++n;
        return *this;
    }
    ~Ask() {
        for (std::size_t i = 0; i < n; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    }
};

std::string nspace_of(const pmix_proc_t& p) { return std::string(p.nspace); }

TEST(ToolAdmission, OnlyThisUser) {
    pmix_proc_t tool{};
    Ask none;
    EXPECT_EQ(pmix::server::admit_tool(none.info, none.n, "job", 1, &tool),
              PMIX_ERR_NO_PERMISSIONS);
    Ask other;
    other.uid(static_cast<std::uint32_t>(::geteuid()) + 1);
    EXPECT_EQ(pmix::server::admit_tool(other.info, other.n, "job", 1, &tool),
              PMIX_ERR_NO_PERMISSIONS);
    Ask wrong_type;
    const std::uint64_t mine = ::geteuid();
    wrong_type.add(PMIX_USERID, &mine, PMIX_UINT64);
    EXPECT_EQ(pmix::server::admit_tool(wrong_type.info, wrong_type.n, "job", 1, &tool),
              PMIX_ERR_NO_PERMISSIONS);
}

TEST(ToolAdmission, AssignsANameUnlessTheToolBroughtOne) {
    pmix_proc_t tool{};
    Ask plain;
    plain.uid(::geteuid());
    ASSERT_EQ(pmix::server::admit_tool(plain.info, plain.n, "pmixrun.42", 7, &tool), PMIX_SUCCESS);
    EXPECT_EQ(nspace_of(tool), "pmixrun.42.tool.7");
    EXPECT_EQ(tool.rank, 0u);

    Ask named;
    named.uid(::geteuid()).nspace("debugger").rank(3);
    ASSERT_EQ(pmix::server::admit_tool(named.info, named.n, "pmixrun.42", 8, &tool), PMIX_SUCCESS);
    EXPECT_EQ(nspace_of(tool), "debugger");
    EXPECT_EQ(tool.rank, 3u);

    Ask unranked;
    unranked.uid(::geteuid()).nspace("ps");
    ASSERT_EQ(pmix::server::admit_tool(unranked.info, unranked.n, "x", 9, &tool), PMIX_SUCCESS);
    EXPECT_EQ(nspace_of(tool), "ps");
    EXPECT_EQ(tool.rank, 0u);
}

TEST(ToolAdmission, ANameThatDoesNotFitIsRefused) {
    pmix_proc_t tool{};
    const std::string long_name(PMIX_MAX_NSLEN + 1, 'n');
    Ask named;
    named.uid(::geteuid()).nspace(long_name.c_str());
    EXPECT_EQ(pmix::server::admit_tool(named.info, named.n, "job", 1, &tool), PMIX_ERR_BAD_PARAM);
    Ask plain;
    plain.uid(::geteuid());
    const std::string long_server(PMIX_MAX_NSLEN - 3, 's');  // no room for ".tool.1"
    EXPECT_EQ(pmix::server::admit_tool(plain.info, plain.n, long_server, 1, &tool),
              PMIX_ERR_BAD_PARAM);
}

}  // namespace
