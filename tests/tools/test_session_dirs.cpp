// tests/tools/test_session_dirs.cpp - the session-directory rules: the server makes only the
// missing levels of its tmpdir and removes only those (and only while nothing else lives in
// them); it creates nothing for clients; the directory keys
// are readable with PMIx_Get, the host's values winning over the library's.
#include "host_process.h"

#include <pmix_tool.h>

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace {

using tooltest::HostProcess;
using tooltest::ScratchDir;

bool is_dir(const std::string& p) {
    struct stat sb {};
    return stat(p.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode);
}

TEST(SessionDirs, MissingLevelsAreMadeAndRemovedExistingOnesKept) {
    ScratchDir dir;
    const std::string deep = dir.path() + "/a/b/c";
    HostProcess host({"--tmpdir", deep});
    ASSERT_TRUE(host.wait_ready());
    EXPECT_TRUE(is_dir(deep));
    EXPECT_EQ(host.stop(), 0);
    EXPECT_FALSE(is_dir(dir.path() + "/a")) << "levels the server made must go";
    EXPECT_TRUE(is_dir(dir.path())) << "the level that existed must stay";

    // Something else put into a level we made keeps that level (and what is in it).
    HostProcess second({"--tmpdir", deep});
    ASSERT_TRUE(second.wait_ready());
    std::ofstream(dir.path() + "/a/b/someone-else") << "x";
    EXPECT_EQ(second.stop(), 0);
    EXPECT_FALSE(is_dir(deep));
    EXPECT_EQ(access((dir.path() + "/a/b/someone-else").c_str(), F_OK), 0);
}

std::string get_string(const pmix_proc_t& job, const char* key) {
    pmix_value_t* v = nullptr;
    if (PMIx_Get(&job, key, nullptr, 0, &v) != PMIX_SUCCESS || v == nullptr) return "(none)";
    std::string out = v->type == PMIX_STRING ? v->data.string : "(not a string)";
    PMIX_VALUE_RELEASE(v);
    return out;
}

TEST(SessionDirs, KeysAreReadableHostValuesWinAndNothingIsCreatedForClients) {
    ScratchDir dir, sys;
    const std::string nsdir = dir.path() + "/job-dir";  // named by the host, not created by anyone
    HostProcess host({"--tmpdir", dir.path(), "--systmp", sys.path(), "--nsdir", nsdir});
    ASSERT_TRUE(host.wait_ready());
    pmix_info_t where;
    PMIX_INFO_LOAD(&where, PMIX_SERVER_TMPDIR, dir.path().c_str(), PMIX_STRING);
    pmix_proc_t me, job;
    ASSERT_EQ(PMIx_tool_init(&me, &where, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&where);
    const std::string job_ns = host.nspace() + ".job";
    PMIX_LOAD_PROCID(&job, job_ns.c_str(), PMIX_RANK_WILDCARD);
    EXPECT_EQ(get_string(job, PMIX_SERVER_TMPDIR), dir.path());
    EXPECT_EQ(get_string(job, PMIX_TMPDIR), dir.path());
    EXPECT_EQ(get_string(job, PMIX_SYSTEM_TMPDIR), sys.path());
    EXPECT_EQ(get_string(job, PMIX_NSDIR), nsdir);
    pmix_value_t* clean = nullptr;
    ASSERT_EQ(PMIx_Get(&job, PMIX_TDIR_RMCLEAN, nullptr, 0, &clean), PMIX_SUCCESS);
    EXPECT_EQ(clean->type, PMIX_BOOL);
    EXPECT_TRUE(clean->data.flag);
    PMIX_VALUE_RELEASE(clean);
    EXPECT_FALSE(is_dir(nsdir)) << "the library creates no directory for clients";
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
}

}  // namespace
