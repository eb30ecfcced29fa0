// tests/tools/test_connect.cpp - PMIx_tool_init's connection chain and the rendezvous files,
// against real tool_host servers (separate processes); this test process is the tool.
#include "host_process.h"

#include <pmix_tool.h>

#include <gtest/gtest.h>

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

using tooltest::host_name;
using tooltest::HostProcess;
using tooltest::Infos;
using tooltest::init_as;
using tooltest::other_user;
using tooltest::read_file;
using tooltest::ScratchDir;

std::string ns_of(const pmix_proc_t& p) {
    return std::string(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN));
}

class ToolConnect : public ::testing::Test {
protected:
    void TearDown() override {
        if (inited) {
            EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
        }
    }
    pmix_status_t init(Infos& i) {
        pmix_status_t rc = PMIx_tool_init(&me, i.data(), i.size());
        inited = rc == PMIX_SUCCESS;
        return rc;
    }
    std::vector<pmix_proc_t> servers() {
        pmix_proc_t* s = nullptr;
        size_t n = 0;
        EXPECT_EQ(PMIx_tool_get_servers(&s, &n), PMIX_SUCCESS);
        std::vector<pmix_proc_t> out(s, s + n);
        if (s != nullptr) PMIX_PROC_FREE(s, n);
        return out;
    }
    ScratchDir dir;
    pmix_proc_t me{};
    bool inited = false;
};

TEST_F(ToolConnect, RendezvousFilesHaveTheStandardNamesOwnerOnlyModeAndGoAtFinalize) {
    HostProcess host({"--tmpdir", dir.path(), "--session"});
    ASSERT_TRUE(host.wait_ready());
    const std::string h = host_name();
    const std::string by_pid = dir.path() + "/pmix." + h + ".tool." + std::to_string(host.pid());
    const std::string by_ns = dir.path() + "/pmix." + h + ".tool." + host.nspace();
    const std::string session = dir.path() + "/pmix." + h + ".tool";
    for (const auto& f : {by_pid, by_ns, session}) {
        struct stat sb {};
        ASSERT_EQ(stat(f.c_str(), &sb), 0) << f;
        EXPECT_EQ(sb.st_mode & 0777, 0600u) << f;
        EXPECT_EQ(sb.st_uid, geteuid());
        const std::string text = read_file(f);
        EXPECT_EQ(text.rfind(host.nspace() + ".0;unix:/", 0), 0u) << text;
        EXPECT_NE(text.find("\n" + std::to_string(host.pid()) + "\n"), std::string::npos) << text;
        EXPECT_NE(
            text.find("\n" + std::to_string(geteuid()) + ":" + std::to_string(getegid()) + "\n"),
            std::string::npos)
            << text;
    }
    EXPECT_EQ(host.stop(), 0);
    for (const auto& f : {by_pid, by_ns, session}) EXPECT_NE(access(f.c_str(), F_OK), 0) << f;
    EXPECT_TRUE(dir.entries().empty()) << "left behind: " << dir.entries().front();
}

TEST_F(ToolConnect, DefaultSearchFindsTheServerAndTheHostAssignsTheIdentity) {
    HostProcess host({"--tmpdir", dir.path()});
    ASSERT_TRUE(host.wait_ready());
    Infos i;
    i.str(PMIX_SERVER_TMPDIR, dir.path());
    ASSERT_EQ(init(i), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(me), host.nspace() + ".tool.1");
    EXPECT_EQ(me.rank, 0u);
    auto told = host.wait_line("TOOL ");
    EXPECT_EQ(told, "TOOL " + host.nspace() + ".tool.1:0 pid=" + std::to_string(getpid()) +
                        " uid=" + std::to_string(geteuid()));
    auto s = servers();
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(ns_of(s[0]), host.nspace());
    EXPECT_EQ(s[0].rank, 0u);
    // The server may finalize while a tool is attached: it exits cleanly and leaves nothing (it
    // once crashed here, tearing down the tool's entry while walking its clients).
    const std::string segments = "/dev/shm/pmixgds-" + std::to_string(host.pid()) + "-0";
    EXPECT_EQ(host.stop(), 0);
    EXPECT_NE(access(segments.c_str(), F_OK), 0) << segments << " left behind";
    EXPECT_TRUE(dir.entries().empty()) << "left behind: " << dir.entries().front();
}

TEST_F(ToolConnect, EachNamedWayReachesTheRightServer) {
    HostProcess a({"--tmpdir", dir.path()}), b({"--tmpdir", dir.path()});
    ASSERT_TRUE(a.wait_ready());
    ASSERT_TRUE(b.wait_ready());
    const std::string file_b =
        dir.path() + "/pmix." + host_name() + ".tool." + std::to_string(b.pid());
    const std::string uri_b = read_file(file_b).substr(0, read_file(file_b).find('\n'));
    std::vector<std::pair<std::string, std::function<void(Infos&)>>> ways = {
        {"pidinfo", [&](Infos& i) { i.pid(b.pid()); }},
        {"nspace", [&](Infos& i) { i.str(PMIX_SERVER_NSPACE, b.nspace()); }},
        {"uri", [&](Infos& i) { i.str(PMIX_SERVER_URI, uri_b); }},
        {"tcp uri as file:", [&](Infos& i) { i.str(PMIX_TCP_URI, "file:" + file_b); }},
        {"attachment file", [&](Infos& i) { i.str(PMIX_TOOL_ATTACHMENT_FILE, file_b); }},
    };
    for (auto& [what, add] : ways) {
        Infos i;
        i.str(PMIX_SERVER_TMPDIR, dir.path());
        add(i);
        ASSERT_EQ(init(i), PMIX_SUCCESS) << what;
        auto s = servers();
        ASSERT_EQ(s.size(), 1u) << what;
        EXPECT_EQ(ns_of(s[0]), b.nspace()) << what;
        EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
        inited = false;
    }
}

TEST_F(ToolConnect, NamedServersThatAreNotThereFailWithoutSearching) {
    HostProcess host({"--tmpdir", dir.path()});
    ASSERT_TRUE(host.wait_ready());
    Infos by_pid, by_ns, by_file, both, tcp;
    by_pid.str(PMIX_SERVER_TMPDIR, dir.path()).pid(1);  // init's pid serves no PMIx
    by_ns.str(PMIX_SERVER_TMPDIR, dir.path()).str(PMIX_SERVER_NSPACE, "no-such-namespace");
    by_file.str(PMIX_TOOL_ATTACHMENT_FILE, dir.path() + "/absent");
    both.str(PMIX_SERVER_URI, "x.0;unix:/tmp/x").str(PMIX_TCP_URI, "tcp4://127.0.0.1:1");
    tcp.str(PMIX_TCP_URI, "tcp4://127.0.0.1:1");
    EXPECT_EQ(init(by_pid), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(init(by_ns), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(init(by_file), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(init(both), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(init(tcp), PMIX_ERR_NO_PERMISSIONS);  // no rendezvous file here holds its secret
    EXPECT_TRUE(host.wait_line("TOOL ", std::chrono::seconds(1)).empty())
        << "a tool reached the host";
}

TEST_F(ToolConnect, RetriesWaitForAServerThatStartsLate) {
    HostProcess host({"--tmpdir", dir.path(), "--delay", "2"});
    Infos i;
    i.str(PMIX_SERVER_TMPDIR, dir.path())
        .pid(host.pid())
        .u32(PMIX_CONNECT_MAX_RETRIES, 20)
        .u32(PMIX_CONNECT_RETRY_DELAY, 1);
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(init(i), PMIX_SUCCESS);
    EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::seconds(1));
    ASSERT_TRUE(host.wait_ready());
    EXPECT_EQ(ns_of(servers().at(0)), host.nspace());
}

TEST_F(ToolConnect, SystemServerDirectlyAndFirst) {
    ScratchDir sys;
    HostProcess system({"--tmpdir", dir.path(), "--systmp", sys.path(), "--system"});
    HostProcess session({"--tmpdir", dir.path(), "--session"});
    ASSERT_TRUE(system.wait_ready());
    ASSERT_TRUE(session.wait_ready());
    EXPECT_EQ(access((sys.path() + "/pmix.sys." + host_name()).c_str(), R_OK), 0);
    Infos direct, first;
    direct.str(PMIX_SERVER_TMPDIR, dir.path())
        .str(PMIX_SYSTEM_TMPDIR, sys.path())
        .flag(PMIX_CONNECT_TO_SYSTEM);
    ASSERT_EQ(init(direct), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(servers().at(0)), system.nspace());
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
    first.str(PMIX_SERVER_TMPDIR, dir.path())
        .str(PMIX_SYSTEM_TMPDIR, sys.path())
        .flag(PMIX_CONNECT_SYSTEM_FIRST);
    ASSERT_EQ(init(first), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(servers().at(0)), system.nspace());
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
    inited = false;
    EXPECT_EQ(system.stop(), 0);
    // No system server any more: SYSTEM_FIRST falls through to the search (the session server
    // comes first), CONNECT_TO_SYSTEM fails.
    ASSERT_EQ(init(first), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(servers().at(0)), session.nspace());
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
    inited = false;
    EXPECT_EQ(init(direct), PMIX_ERR_NOT_FOUND);
}

TEST_F(ToolConnect, StaleFilesOfDeadServersAreSkippedAndReplacedLiveOnesAreNot) {
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, nullptr, 0);
    const std::string h = host_name();
    const std::string stale = "gone.0;unix:/nonexistent/sock\n4.2.2\n" + std::to_string(dead) +
                              "\n" + std::to_string(geteuid()) + ":" + std::to_string(getegid()) +
                              "\n";
    std::ofstream(dir.path() + "/pmix." + h + ".tool") << stale;       // a dead session server
    std::ofstream(dir.path() + "/pmix." + h + ".tool.0000") << stale;  // sorts first in the search
    // Writers killed between writing and renaming: the dead one's is removed, a live one's kept.
    const std::string dead_temp = "pmix.sys." + h + ".tmp." + std::to_string(dead);
    const std::string live_temp = "pmix.sys." + h + ".tmp." + std::to_string(getpid());
    std::ofstream(dir.path() + "/" + dead_temp) << "half";
    std::ofstream(dir.path() + "/" + live_temp) << "half";
    HostProcess host({"--tmpdir", dir.path(), "--session"});
    ASSERT_TRUE(host.wait_ready()) << "a stale session file must not stop a new server";
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/" + dead_temp));
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/" + live_temp));
    std::filesystem::remove(dir.path() + "/" + live_temp);
    EXPECT_EQ(read_file(dir.path() + "/pmix." + h + ".tool").rfind(host.nspace(), 0), 0u);
    HostProcess second({"--tmpdir", dir.path(), "--session"});
    EXPECT_FALSE(second.wait_ready()) << "two live session servers on one node";
    EXPECT_NE(second.stop(), 0);
    Infos i;
    i.str(PMIX_SERVER_TMPDIR, dir.path());
    ASSERT_EQ(init(i), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(servers().at(0)), host.nspace());
}

TEST_F(ToolConnect, HostsWithoutTheHookOrWithoutToolSupportAdmitNoTool) {
    HostProcess no_hook({"--tmpdir", dir.path(), "--no-hook"});
    ASSERT_TRUE(no_hook.wait_ready());
    Infos i;
    i.str(PMIX_SERVER_TMPDIR, dir.path()).pid(no_hook.pid());
    EXPECT_EQ(init(i), PMIX_ERR_NOT_SUPPORTED);
    EXPECT_EQ(no_hook.stop(), 0);

    HostProcess no_support({"--tmpdir", dir.path(), "--no-tool-support"});
    ASSERT_TRUE(no_support.wait_ready());
    for (const auto& e : dir.entries())
        EXPECT_EQ(e.rfind("pmix." + host_name() + ".tool", 0), std::string::npos) << e;
    Infos search;
    search.str(PMIX_SERVER_TMPDIR, dir.path());
    EXPECT_EQ(init(search), PMIX_ERR_UNREACH);
}

// Tool identities are unique among a server's peers: a second live tool asking for the same
// namespace and rank is refused; once the first is gone, the name is free again.
TEST_F(ToolConnect, ADuplicateLiveToolIdentityIsRefused) {
    HostProcess host({"--tmpdir", dir.path()});
    ASSERT_TRUE(host.wait_ready());
    Infos named;
    named.str(PMIX_SERVER_TMPDIR, dir.path())
        .str(PMIX_TOOL_NSPACE, "dup-tool")
        .u32(PMIX_TOOL_RANK, 3);
    tooltest::HeldTool first(
        named, [](const pmix_proc_t& p) { return ns_of(p) == "dup-tool" && p.rank == 3; });
    ASSERT_TRUE(first.ready()) << "the first tool did not get its own name";
    EXPECT_EQ(tooltest::init_in_child(named), PMIX_ERR_EXISTS);
    EXPECT_EQ(first.release(), 0);
    EXPECT_EQ(tooltest::init_in_child(named), PMIX_SUCCESS)
        << "the name is free once its holder is gone";
}

// PMIX_LAUNCHER: a tool that is a launcher can itself be found and reached by other tools, under
// its own identity, until it finalizes.
TEST_F(ToolConnect, ALauncherToolIsReachableByOtherTools) {
    Infos as_launcher;
    as_launcher.flag(PMIX_LAUNCHER)
        .flag(PMIX_TOOL_DO_NOT_CONNECT)
        .str(PMIX_SERVER_TMPDIR, dir.path())
        .str(PMIX_TOOL_NSPACE, "my-launcher");
    tooltest::HeldTool launcher_tool(as_launcher);
    ASSERT_TRUE(launcher_tool.ready());
    const pid_t launcher = launcher_tool.pid();
    const std::string by_pid =
        dir.path() + "/pmix." + host_name() + ".tool." + std::to_string(launcher);
    const std::string by_ns = dir.path() + "/pmix." + host_name() + ".tool.my-launcher";
    EXPECT_EQ(read_file(by_pid).rfind("my-launcher.0;unix:", 0), 0u) << read_file(by_pid);
    EXPECT_FALSE(read_file(by_ns).empty());
    Infos to_launcher;
    to_launcher.str(PMIX_SERVER_TMPDIR, dir.path()).pid(launcher);
    ASSERT_EQ(init(to_launcher), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(me), "my-launcher.tool.1");
    ASSERT_EQ(servers().size(), 1u);
    EXPECT_EQ(ns_of(servers()[0]), "my-launcher");
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
    inited = false;
    EXPECT_EQ(launcher_tool.release(), 0);
    EXPECT_TRUE(dir.entries().empty()) << "the launcher's files outlived it";
}

TEST_F(ToolConnect, OptionalAndDoNotConnect) {
    Infos optional, alone;
    optional.str(PMIX_SERVER_TMPDIR, dir.path()).flag(PMIX_TOOL_CONNECT_OPTIONAL);
    ASSERT_EQ(init(optional), PMIX_SUCCESS);
    EXPECT_TRUE(servers().empty());
    EXPECT_EQ(ns_of(me), host_name() + ":" + std::to_string(getpid()));
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char* keys[] = {const_cast<char*>(PMIX_QUERY_NAMESPACES), nullptr};
    q.keys = keys;
    pmix_info_t* results = nullptr;
    size_t n = 0;
    EXPECT_EQ(PMIx_Query_info(&q, 1, &results, &n), PMIX_ERR_UNREACH);
    q.keys = nullptr;
    PMIX_QUERY_DESTRUCT(&q);
    EXPECT_EQ(PMIx_tool_finalize(), PMIX_SUCCESS);
    inited = false;

    // Unconnected under a name of our choosing, then attached later under that same name.
    HostProcess host({"--tmpdir", dir.path()});
    ASSERT_TRUE(host.wait_ready());
    alone.str(PMIX_SERVER_TMPDIR, dir.path())
        .flag(PMIX_TOOL_DO_NOT_CONNECT)
        .str(PMIX_TOOL_NSPACE, "my-tool")
        .u32(PMIX_TOOL_RANK, 3);
    ASSERT_EQ(init(alone), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(me), "my-tool");
    EXPECT_EQ(me.rank, 3u);
    EXPECT_TRUE(servers().empty());
    EXPECT_TRUE(host.wait_line("TOOL ", std::chrono::seconds(1)).empty());
    Infos attach;
    attach.str(PMIX_SERVER_TMPDIR, dir.path()).str(PMIX_SERVER_NSPACE, host.nspace());
    pmix_proc_t myself, server;
    ASSERT_EQ(PMIx_tool_attach_to_server(&myself, &server, attach.data(), attach.size()),
              PMIX_SUCCESS);
    EXPECT_EQ(ns_of(myself), "my-tool");
    EXPECT_EQ(myself.rank, 3u);
    EXPECT_EQ(ns_of(server), host.nspace());
    EXPECT_EQ(host.wait_line("TOOL "), "TOOL my-tool:3 pid=" + std::to_string(getpid()) +
                                           " uid=" + std::to_string(geteuid()));
}

TEST_F(ToolConnect, SeveralServersOnePrimarySwitchDisconnectReconnect) {
    HostProcess a({"--tmpdir", dir.path()}), b({"--tmpdir", dir.path()});
    ASSERT_TRUE(a.wait_ready());
    ASSERT_TRUE(b.wait_ready());
    Infos to_a, to_b;
    to_a.str(PMIX_SERVER_TMPDIR, dir.path()).str(PMIX_SERVER_NSPACE, a.nspace());
    to_b.str(PMIX_SERVER_TMPDIR, dir.path()).str(PMIX_SERVER_NSPACE, b.nspace());
    ASSERT_EQ(init(to_a), PMIX_SUCCESS);
    pmix_proc_t myself, server;
    ASSERT_EQ(PMIx_tool_attach_to_server(&myself, &server, to_b.data(), to_b.size()), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(server), b.nspace());
    auto s = servers();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(ns_of(s[0]), a.nspace()) << "the first server stays primary";
    EXPECT_EQ(ns_of(s[1]), b.nspace());
    // Attaching again to a server we have is a success that changes nothing.
    ASSERT_EQ(PMIx_tool_attach_to_server(&myself, &server, to_b.data(), to_b.size()), PMIX_SUCCESS);
    EXPECT_EQ(servers().size(), 2u);
    ASSERT_EQ(PMIx_tool_set_server(&s[1], nullptr, 0), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(servers().at(0)), b.nspace());
    // Dropping the primary leaves no primary: calls that need one are UNREACH.
    ASSERT_EQ(PMIx_tool_disconnect(&s[1]), PMIX_SUCCESS);
    EXPECT_EQ(servers().size(), 1u);
    EXPECT_EQ(PMIx_tool_disconnect(&s[1]), PMIX_ERR_NOT_FOUND);
    pmix_value_t* v = nullptr;
    pmix_proc_t job;
    const std::string job_ns =
        a.nspace() + ".job";  // the macro keeps the pointer past the full expression
    PMIX_LOAD_PROCID(&job, job_ns.c_str(), PMIX_RANK_WILDCARD);
    EXPECT_EQ(PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &v), PMIX_ERR_UNREACH);
    ASSERT_EQ(PMIx_tool_set_server(&s[0], nullptr, 0), PMIX_SUCCESS);
    ASSERT_EQ(PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &v), PMIX_SUCCESS);
    EXPECT_EQ(v->data.uint32, 2u);
    PMIX_VALUE_RELEASE(v);
    // Reconnect to b as the primary.
    to_b.flag(PMIX_PRIMARY_SERVER);
    ASSERT_EQ(PMIx_tool_attach_to_server(&myself, &server, to_b.data(), to_b.size()), PMIX_SUCCESS);
    EXPECT_EQ(ns_of(servers().at(0)), b.nspace());
}

TEST_F(ToolConnect, ToolsOfAnotherUserCannotReadTheFilesNorReachTheSocket) {
    uid_t uid = 0;
    gid_t gid = 0;
    if (!other_user(&uid, &gid) || geteuid() != 0) {
        GTEST_SKIP() << "needs root to create and become a second user";
    }
    chmod(dir.path().c_str(), 0755);  // the directory is open; the files and the socket are not
    HostProcess host({"--tmpdir", dir.path()});
    ASSERT_TRUE(host.wait_ready());
    const std::string file =
        dir.path() + "/pmix." + host_name() + ".tool." + std::to_string(host.pid());
    Infos by_pid, by_uri;
    by_pid.str(PMIX_SERVER_TMPDIR, dir.path()).pid(host.pid());
    EXPECT_EQ(init_as(uid, gid, by_pid), PMIX_ERR_NO_PERMISSIONS) << "read a 0600 rendezvous file";
    // Even knowing the URI, the socket is in the server's 0700 session directory.
    by_uri.str(PMIX_SERVER_URI, read_file(file).substr(0, read_file(file).find('\n')));
    EXPECT_NE(init_as(uid, gid, by_uri), PMIX_SUCCESS) << "connected to another user's server";
    EXPECT_TRUE(host.wait_line("TOOL ", std::chrono::seconds(1)).empty())
        << "the host admitted another user's tool";
    // The owner still gets in.
    Infos mine;
    mine.str(PMIX_SERVER_TMPDIR, dir.path()).pid(host.pid());
    ASSERT_EQ(init(mine), PMIX_SUCCESS);
}

}  // namespace
