// tests/api/test_tool_args.cpp - the tool shims (capi/tool.cpp) answer bad arguments with a
// status, through the public API only, in a process where nothing is initialised.
#include <pmix_server.h>
#include <pmix_tool.h>

#include <gtest/gtest.h>

#include <filesystem>

namespace {

TEST(ToolShims, BadArgumentsAreStatuses) {
    pmix_proc_t me{}, server{};
    pmix_proc_t* servers = nullptr;
    size_t nservers = 0;
    EXPECT_EQ(PMIx_tool_init(&me, nullptr, 2), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_tool_attach_to_server(&me, &server, nullptr, 1), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_tool_connect_to_server(&me, nullptr, 1), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_tool_get_servers(nullptr, &nservers), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_tool_get_servers(&servers, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_tool_set_server(nullptr, nullptr, 0), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_tool_set_server(&server, nullptr, 1), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_tool_disconnect(nullptr), PMIX_ERR_BAD_PARAM);
    // Nothing was initialised by any of them.
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_IOF_deregister(0, nullptr, 0, nullptr, nullptr), PMIX_ERR_INIT);
}

std::size_t entries(const char* dir) {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
    return n;
}

// PMIX_LAUNCHER: the tool gets a server side (its rendezvous files appear in its tmpdir), which
// its last PMIx_tool_finalize stops; when the tool part fails, no server side is left behind.
TEST(ToolShims, LauncherServerLivesFromInitToFinalize) {
    char dir[] = "/tmp/pmix-launcher.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    pmix_info_t info[3];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, dir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_LAUNCHER, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[2], PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    pmix_proc_t me{};
    // Without PMIX_TOOL_DO_NOT_CONNECT there is no server to find in the empty tmpdir.
    EXPECT_EQ(PMIx_tool_init(&me, info, 2), PMIX_ERR_UNREACH);
    EXPECT_EQ(PMIx_server_finalize(), PMIX_ERR_INIT);
    EXPECT_EQ(entries(dir), 0u);

    ASSERT_EQ(PMIx_tool_init(&me, info, 3), PMIX_SUCCESS);
    EXPECT_GT(entries(dir), 0u) << "no rendezvous file for the launcher's server";
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
    EXPECT_EQ(PMIx_server_finalize(), PMIX_ERR_INIT);  // stopped with the tool
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_ERR_INIT);
    for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
    std::filesystem::remove_all(dir);
}

}  // namespace
