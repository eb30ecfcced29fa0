// tests/tools/test_remote.cpp - remote tools over TCP (PMIX_SERVER_REMOTE_CONNECTIONS,
// PMIX_TCP_URI): the secret in the owner-only rendezvous file is the only way in. Each tool
// runs in a forked child (its own library state; for the "another host" case, its own UTS
// namespace), which also checks that its connection really is TCP (/proc/net/tcp).
#include "host_process.h"

#include <pmix_tool.h>

#include <gtest/gtest.h>

#include <dirent.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

namespace {

using tooltest::host_name;
using tooltest::HostProcess;
using tooltest::Infos;
using tooltest::read_file;
using tooltest::ScratchDir;

// The value of a "name:value" line of a rendezvous file ("" when absent).
std::string field(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(name + ":", 0) == 0) return line.substr(name.size() + 1);
    }
    return {};
}

// "ns.0;tcp4://1.2.3.4:5" -> "tcp4://1.2.3.4:5"; its port.
std::string tcp_part(const std::string& uri) { return uri.substr(uri.find(';') + 1); }
unsigned port_of(const std::string& tcp) {
    return static_cast<unsigned>(std::stoul(tcp.substr(tcp.rfind(':') + 1)));
}

// True when this process holds an established TCP connection to `port` (/proc/net/tcp lists
// sockets by inode; /proc/self/fd says which inodes are ours).
bool tcp_connected_to(unsigned port) {
    std::set<std::string> mine;
    if (DIR* d = opendir("/proc/self/fd")) {
        while (dirent* e = readdir(d)) {
            char target[128] = {};
            const std::string link = std::string("/proc/self/fd/") + e->d_name;
            if (readlink(link.c_str(), target, sizeof target - 1) > 0 &&
                std::strncmp(target, "socket:[", 8) == 0) {
                mine.insert(std::string(target + 8, std::strlen(target) - 9));
            }
        }
        closedir(d);
    }
    std::ifstream tcp("/proc/net/tcp");
    std::string line;
    std::getline(tcp, line);  // header
    while (std::getline(tcp, line)) {
        std::istringstream f(line);
        std::string sl, local, remote, state, queues, timer, retr, uid, timeout, inode;
        f >> sl >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >> inode;
        const unsigned rport =
            static_cast<unsigned>(std::stoul(remote.substr(remote.find(':') + 1), nullptr, 16));
        if (state == "01" && rport == port && mine.count(inode) != 0) return true;
    }
    return false;
}

// Runs `body` in a child; returns its exit code (or -1 if it did not exit normally).
int in_child(const std::function<int()>& body) {
    const pid_t child = fork();
    if (child == 0) _exit(body());
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// PMIx_tool_init with `info`; then checks the connection is TCP to `port` and asks for the
// host's job size. Exit codes: 0 all good, -status (low byte) when init fails, 201 not TCP,
// 202 the Get failed.
int tool_over_tcp(Infos& info, unsigned port, const std::string& job) {
    pmix_proc_t me;
    const pmix_status_t rc = PMIx_tool_init(&me, info.data(), info.size());
    if (rc != PMIX_SUCCESS) return static_cast<unsigned char>(-rc);
    int code = tcp_connected_to(port) ? 0 : 201;
    pmix_proc_t wildcard;
    PMIX_LOAD_PROCID(&wildcard, job.c_str(), PMIX_RANK_WILDCARD);
    pmix_value_t* v = nullptr;
    if (code == 0 &&
        (PMIx_Get(&wildcard, PMIX_JOB_SIZE, nullptr, 0, &v) != PMIX_SUCCESS || v->data.uint32 != 2))
        code = 202;
    if (v != nullptr) PMIX_VALUE_RELEASE(v);
    PMIx_tool_finalize();
    return code;
}

class RemoteTools : public ::testing::Test {
protected:
    void start(std::vector<std::string> extra = {"--remote"}) {
        std::vector<std::string> args = {"--tmpdir", dir.path()};
        args.insert(args.end(), extra.begin(), extra.end());
        host = std::make_unique<HostProcess>(args);
        ASSERT_TRUE(host->wait_ready());
        file = dir.path() + "/pmix." + host_name() + ".tool." + std::to_string(host->pid());
        text = read_file(file);
    }
    std::string job() const { return host->nspace() + ".job"; }
    ScratchDir dir;
    std::unique_ptr<HostProcess> host;
    std::string file, text;
};

TEST_F(RemoteTools, TheRendezvousFileCarriesTheTcpUriAndSecretOwnerOnly) {
    start();
    const std::string tcp = field(text, "tcp"), secret = field(text, "secret");
    EXPECT_EQ(tcp.rfind(host->nspace() + ".0;tcp4://", 0), 0u) << text;
    EXPECT_EQ(secret.size(), 32u) << text;
    EXPECT_EQ(secret.find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_EQ(field(text, "host"), host_name());
    struct stat st {};
    ASSERT_EQ(stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    // Every file of this server says the same; a second server gets another secret.
    const std::string by_ns =
        read_file(dir.path() + "/pmix." + host_name() + ".tool." + host->nspace());
    EXPECT_EQ(field(by_ns, "secret"), secret);
    ScratchDir other_dir;
    HostProcess other({"--tmpdir", other_dir.path(), "--remote"});
    ASSERT_TRUE(other.wait_ready());
    const std::string other_file =
        other_dir.path() + "/pmix." + host_name() + ".tool." + std::to_string(other.pid());
    EXPECT_NE(field(read_file(other_file), "secret"), secret);
}

TEST_F(RemoteTools, ATcpUriWithTheSecretFromAFileHereGetsIn) {
    start();
    const std::string tcp = tcp_part(field(text, "tcp"));
    Infos info;
    info.str(PMIX_TCP_URI, tcp).str(PMIX_SERVER_TMPDIR, dir.path());
    EXPECT_EQ(in_child([&] { return tool_over_tcp(info, port_of(tcp), job()); }), 0);
    const std::string admitted = host->wait_line("TOOL ");
    EXPECT_NE(admitted.find(" uid=" + std::to_string(geteuid())), std::string::npos) << admitted;
    // The same URI where no rendezvous file holds the secret: refused before dialling.
    ScratchDir empty;
    Infos blind;
    blind.str(PMIX_TCP_URI, tcp)
        .str(PMIX_SERVER_TMPDIR, empty.path())
        .str(PMIX_SYSTEM_TMPDIR, empty.path());
    EXPECT_EQ(in_child([&] { return tool_over_tcp(blind, port_of(tcp), job()); }),
              static_cast<unsigned char>(-PMIX_ERR_NO_PERMISSIONS));
}

TEST_F(RemoteTools, AnotherHostsFileIsReachedOverTcpNotTheUnixSocket) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root for a UTS namespace (another host name)";
    start();
    const std::string tcp = tcp_part(field(text, "tcp"));
    Infos info;
    info.str(PMIX_TOOL_ATTACHMENT_FILE, file);
    const int code = in_child([&] {
        if (unshare(CLONE_NEWUTS) != 0 || sethostname("elsewhere", 9) != 0) return 250;
        return tool_over_tcp(info, port_of(tcp), job());
    });
    if (code == 250) GTEST_SKIP() << "cannot make a UTS namespace here";
    EXPECT_EQ(code, 0);
    EXPECT_FALSE(host->wait_line("TOOL ").empty());
    // On this host the same file leads to the Unix socket.
    EXPECT_EQ(in_child([&] { return tool_over_tcp(info, port_of(tcp), job()); }), 201);
}

TEST_F(RemoteTools, WithoutRemoteConnectionsThereIsNoTcpListenerNorSecret) {
    start({});
    EXPECT_EQ(field(text, "tcp"), "");
    EXPECT_EQ(field(text, "secret"), "");
    EXPECT_EQ(text.find("tcp4://"), std::string::npos);
}

TEST_F(RemoteTools, ToolsOfAnotherUserCannotGetTheSecret) {
    uid_t uid = 0;
    gid_t gid = 0;
    if (!tooltest::other_user(&uid, &gid) || geteuid() != 0) {
        GTEST_SKIP() << "needs root to create and become a second user";
    }
    chmod(dir.path().c_str(), 0755);  // the directory is open; the files are not
    start();
    Infos info;
    info.str(PMIX_TCP_URI, tcp_part(field(text, "tcp"))).str(PMIX_SERVER_TMPDIR, dir.path());
    EXPECT_EQ(tooltest::init_as(uid, gid, info), PMIX_ERR_NO_PERMISSIONS);
    EXPECT_TRUE(host->wait_line("TOOL ", std::chrono::seconds(1)).empty())
        << "the host admitted another user's tool";
}

}  // namespace
