// tests/unit/server/test_live.cpp - a real server (PMIx_server_* from libpmix) with raw client
// processes (raw_client.cpp) started from PMIx_server_setup_fork's environment: the LiveServer
// fixture (live_server.h) and its tests.
#include "live_server.h"

#include "wire/proto/message.h"

#include <gtest/gtest.h>

#include <pmix_server.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace live;

TEST_F(LiveServer, InitCreatesPrivateSessionDirAndFinalizeRemovesIt) {
    start();
    auto dirs = session_dirs();
    ASSERT_EQ(dirs.size(), 1u);
    struct stat sb {};
    ASSERT_EQ(stat(dirs[0].c_str(), &sb), 0);
    EXPECT_EQ(sb.st_mode & 0777, 0700u);
    EXPECT_EQ(PMIx_server_finalize(), PMIX_SUCCESS);
    up_ = false;
    EXPECT_TRUE(session_dirs().empty());
    EXPECT_EQ(PMIx_server_finalize(), PMIX_ERR_INIT);
}

TEST_F(LiveServer, SetupForkEnvironment) {
    start();
    char** env = nullptr;
    env_append(&env, "PMIX_RANK=999");
    env_append(&env, "KEEP=me");
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "jobX", 3);
    ASSERT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    auto get = [&](const char* name) -> std::string {
        const std::size_t n = std::strlen(name);
        int found = 0;
        std::string val;
        for (char** e = env; *e != nullptr; ++e) {
            if (std::strncmp(*e, name, n) == 0 && (*e)[n] == '=') {
                ++found;
                val = *e + n + 1;
            }
        }
        EXPECT_LE(found, 1) << name << " must not be duplicated";
        return val;
    };
    EXPECT_EQ(get("PMIX_NAMESPACE"), "jobX");
    EXPECT_EQ(get("PMIX_RANK"), "3");
    EXPECT_EQ(get("KEEP"), "me");
    const std::string sock = get("PMIX_CPP_SERVER_SOCKET");
    struct stat sb {};
    ASSERT_EQ(stat(sock.c_str(), &sb), 0);
    EXPECT_TRUE(S_ISSOCK(sb.st_mode));
    const std::string uri = get("PMIX_SERVER_URI");
    EXPECT_NE(uri.find(";unix:" + sock), std::string::npos) << uri;
    // The server's tmpdir (its tool rendezvous files' directory), as OpenPMIx exports it; the
    // session directory holding the socket is below it.
    EXPECT_EQ(get("PMIX_SERVER_TMPDIR"), tmp_);
    EXPECT_EQ(session_dirs().at(0).parent_path().string(), tmp_);
    EXPECT_FALSE(get("PMIX_VERSION").empty());
    env_free(env);
    EXPECT_EQ(PMIx_server_setup_fork(nullptr, &env), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_setup_fork(&p, nullptr), PMIX_ERR_BAD_PARAM);
}

TEST_F(LiveServer, CommitFenceGetWithoutHostFence) {
    start();
    register_job("job-a", 4);
    run_exchange("job-a", 4);
    EXPECT_EQ(g_connected.load(), 4);
    EXPECT_EQ(g_finalized.load(), 4);
}

TEST_F(LiveServer, CommitFenceGetThroughHostFence) {
    module_.fence_nb = host_fence;
    start();
    register_job("job-b", 3);
    run_exchange("job-b", 3, {"TEST_REMOTE=1"});
    EXPECT_EQ(g_fence_calls.load(), 1);
    // Our blob is [PROC, SIZE, INFO[]] per local proc, GLOBAL data only.
    std::vector<std::uint8_t> blob;
    {
        std::lock_guard lock(g_fence_mutex);
        blob = g_fence_blob;
    }
    pmix::proto::Reader r(blob);
    int procs = 0;
    while (!r.at_end()) {
        pmix_proc_t p;
        pmix::data::InfoArray infos;
        ASSERT_EQ(r.proc(&p), PMIX_SUCCESS);
        ASSERT_EQ(r.infos(&infos), PMIX_SUCCESS);
        EXPECT_NE(infos.find("test.g"), nullptr);
        EXPECT_EQ(infos.find("test.l"), nullptr) << "LOCAL data must not leave the node";
        ++procs;
    }
    EXPECT_EQ(procs, 3);
}

// The answer of a PMIx_server_dmodex_request: whether it came, its status and blob.
struct DmodexAnswer {
    std::mutex m;
    bool done = false;
    pmix_status_t status = PMIX_ERROR;
    std::vector<std::uint8_t> data;

    pmix_status_t request(const char* ns, pmix_rank_t rank) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, ns, rank);
        return PMIx_server_dmodex_request(
            &p,
            [](pmix_status_t s, char* bytes, size_t n, void* cb) {
                auto* a = static_cast<DmodexAnswer*>(cb);
                std::lock_guard lock(a->m);
                a->status = s;
                a->data.assign(bytes, bytes + n);
                a->done = true;
            },
            this);
    }
    bool arrived_within(std::chrono::milliseconds limit) {
        const auto end = std::chrono::steady_clock::now() + limit;
        for (;;) {
            {
                std::lock_guard lock(m);
                if (done) return true;
            }
            if (std::chrono::steady_clock::now() >= end) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }
    // The blob holds `rank`'s "test.g" (17, committed by the "exchange" scenario).
    void expect_committed_value(pmix_rank_t rank) {
        std::lock_guard lock(m);
        ASSERT_EQ(status, PMIX_SUCCESS);
        pmix::proto::Reader r(data);
        pmix_proc_t who;
        pmix::data::InfoArray infos;
        ASSERT_EQ(r.proc(&who), PMIX_SUCCESS);
        ASSERT_EQ(r.infos(&infos), PMIX_SUCCESS);
        EXPECT_EQ(who.rank, rank);
        const pmix_info_t* g = infos.find("test.g");
        ASSERT_NE(g, nullptr);
        EXPECT_EQ(g->value.data.uint32, 17u);
    }
};

TEST_F(LiveServer, DirectModexRequestReturnsTheBlob) {
    start();
    register_job("job-d", 2);
    run_exchange("job-d", 2);
    DmodexAnswer got;
    ASSERT_EQ(got.request("job-d", 1), PMIX_SUCCESS);
    ASSERT_TRUE(got.arrived_within(std::chrono::seconds(10)));
    got.expect_committed_value(1);
}

// A peer's server may ask before the client has even started (under Slurm on two nodes it did):
// the answer waits for the client's commit, as with OpenPMIx, instead of an empty blob.
TEST_F(LiveServer, DirectModexRequestWaitsForTheClientsCommit) {
    start();
    register_job("job-e", 2);
    DmodexAnswer got;
    ASSERT_EQ(got.request("job-e", 1), PMIX_SUCCESS);
    EXPECT_FALSE(got.arrived_within(std::chrono::milliseconds(300)))
        << "answered before the client committed";
    run_exchange("job-e", 2);
    ASSERT_TRUE(got.arrived_within(std::chrono::seconds(10)));
    got.expect_committed_value(1);
}

TEST_F(LiveServer, GetOfRemoteDataUsesHostDirectModex) {
    g_dmodex_calls = 0;
    module_.direct_modex = host_direct_modex;
    start();
    register_job("job-h", 1);
    const pid_t kid = spawn("job-h", 0, "remote-get");
    EXPECT_EQ(wait_child(kid), 0);
    EXPECT_EQ(g_dmodex_calls.load(), 2) << "fk and slow; the optional get must not go up";
}

TEST_F(LiveServer, RequestsReachTheHostModule) {
    g_published = 0;
    g_logged = 0;
    g_aborted = 0;
    module_.publish = host_publish;
    module_.log = host_log;
    module_.abort = host_abort;
    start();
    register_job("job-i", 1);
    EXPECT_EQ(wait_child(spawn("job-i", 0, "host-ops")), 0);
    EXPECT_EQ(g_published.load(), 1);
    EXPECT_EQ(g_logged.load(), 1);
    EXPECT_EQ(g_aborted.load(), 1);
}

TEST_F(LiveServer, GetWaitsForALocalPeersCommit) {
    start();
    register_job("job-k", 2);
    const pid_t r1 = spawn("job-k", 1, "wait-peer");
    const pid_t r0 = spawn("job-k", 0, "wait-peer");
    EXPECT_EQ(wait_child(r0), 0);
    EXPECT_EQ(wait_child(r1), 0);
}

TEST_F(LiveServer, FinalizeWithAClientMidFenceDoesNotHang) {
    start();
    register_job("job-l", 2);  // rank 0 never comes, so rank 1's fence cannot complete
    const pid_t kid = spawn("job-l", 1, "fence-expect-lost");
    for (int i = 0; i < 4000 && g_connected.load() == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(PMIx_server_finalize(), PMIX_SUCCESS);  // closes the client, whatever it is doing
    up_ = false;
    EXPECT_EQ(wait_child(kid), 0);
}

TEST_F(LiveServer, FenceTimesOut) {
    start();
    register_job("job-j", 2);  // rank 1 never comes
    EXPECT_EQ(wait_child(spawn("job-j", 0, "fence-timeout")), 0);
}

TEST_F(LiveServer, DeadParticipantFailsTheFence) {
    start();
    register_job("job-c", 2);
    const pid_t dead = spawn("job-c", 0, "die");
    const pid_t waiting = spawn("job-c", 1, "fence-expect-lost");
    EXPECT_EQ(wait_child(dead), 0);
    EXPECT_EQ(wait_child(waiting), 0);
}

// The host's fence_nb, holding its answer until the test releases it.
std::atomic<pmix_modex_cbfunc_t> g_held_cb{nullptr};
std::atomic<void*> g_held_cbdata{nullptr};

std::atomic<pmix_status_t> g_held_local_status{PMIX_SUCCESS};  // PMIX_LOCAL_COLLECTIVE_STATUS

pmix_status_t host_fence_held(const pmix_proc_t[], size_t, const pmix_info_t info[], size_t ninfo,
                              char* data, size_t, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
    std::free(data);
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strcmp(info[i].key, PMIX_LOCAL_COLLECTIVE_STATUS) == 0 &&
            info[i].value.type == PMIX_STATUS) {
            g_held_local_status = info[i].value.data.status;
        }
    }
    g_held_cbdata = cbdata;
    g_held_cb = cbfunc;
    ++g_fence_calls;
    return PMIX_SUCCESS;
}

// A participant that dies after the server handed the fence to the host does not fail it: the
// host's answer decides (on several nodes the fence may have completed elsewhere already).
TEST_F(LiveServer, ParticipantLostAfterTheHostHasTheFenceLeavesItToTheHost) {
    g_held_cb = nullptr;
    module_.fence_nb = host_fence_held;
    start();
    register_job("job-m", 2);
    const pid_t survivor = spawn("job-m", 1, "fence-expect-success");
    const pid_t victim = spawn("job-m", 0, "fence-until-killed");
    for (int i = 0; i < 4000 && g_fence_calls.load() == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(g_fence_calls.load(), 1) << "both ranks arrived, the host has the fence";
    kill(victim, SIGKILL);
    EXPECT_EQ(wait_child(victim), 128 + SIGKILL);
    // The server tells the host about the lost client after failing what it had to fail.
    for (int i = 0; i < 4000 && g_finalized.load() == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_GE(g_finalized.load(), 1) << "the server noticed rank 0 is gone";
    g_held_cb.load()(PMIX_SUCCESS, nullptr, 0, g_held_cbdata.load(), nullptr, nullptr);
    EXPECT_EQ(wait_child(survivor), 0) << "rank 1's fence succeeds with the host's answer";
}

// A job of 4 ranks on two nodes, ranks 0 and 1 here. Rank 0 dies (before or after rank 1 is in
// the fence): as OpenPMIx 4.2 does, rank 1 is not failed here; the host gets the node's
// contribution with PMIX_LOCAL_COLLECTIVE_STATUS = PARTIAL_SUCCESS, and its answer is rank 1's.
TEST_F(LiveServer, ParticipantLostInACrossNodeFenceLeavesItToTheHost) {
    g_held_cb = nullptr;
    g_held_local_status = PMIX_SUCCESS;
    module_.fence_nb = host_fence_held;
    start();
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const std::string nodes = std::string(host) + ",far-node";
    char* nmap = nullptr;
    char* pmap = nullptr;
    ASSERT_EQ(PMIx_generate_regex(nodes.c_str(), &nmap), PMIX_SUCCESS);
    ASSERT_EQ(PMIx_generate_ppn("0,1;2,3", &pmap), PMIX_SUCCESS);
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, pmap, PMIX_STRING);
    std::free(nmap);
    std::free(pmap);
    register_client("job-x", 0);
    register_client("job-x", 1);
    ASSERT_EQ(PMIx_server_register_nspace("job-x", 2, info, 2, nullptr, nullptr), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    const pid_t victim = spawn("job-x", 0, "wait-until-killed");
    const pid_t survivor = spawn("job-x", 1, "fence-expect-success");
    for (int i = 0; i < 4000 && g_connected.load() < 2; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(g_connected.load(), 2);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // rank 1 usually in by now
    kill(victim, SIGKILL);
    EXPECT_EQ(wait_child(victim), 128 + SIGKILL);
    for (int i = 0; i < 4000 && g_fence_calls.load() == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(g_fence_calls.load(), 1) << "the node's contribution went up without rank 0";
    EXPECT_EQ(g_held_local_status.load(), PMIX_ERR_PARTIAL_SUCCESS);
    g_held_cb.load()(PMIX_SUCCESS, nullptr, 0, g_held_cbdata.load(), nullptr, nullptr);
    EXPECT_EQ(wait_child(survivor), 0) << "rank 1's fence succeeds with the host's answer";
}

TEST_F(LiveServer, RogueClientIsClosedOthersCarryOn) {
    start();
    register_job("job-e", 2);
    register_client("rogue", 0);
    const pid_t rogue = spawn("rogue", 0, "garbage");
    run_exchange("job-e", 2);
    EXPECT_EQ(wait_child(rogue), 0);
}

// The tool side of the same rule: a tool that sends anything before its attach request, or an
// attach that does not decode, loses its connection; a proper tool next to them is admitted (the
// host's hook names it) and the clients' exchange is unaffected.
TEST_F(LiveServer, RogueToolsAreClosedOthersCarryOn) {
    module_.tool_connected = [](pmix_info_t*, size_t, pmix_tool_connection_cbfunc_t cbfunc,
                                void* cbdata) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, "tool-by-host", 7);
        cbfunc(PMIX_SUCCESS, &p, cbdata);
    };
    start(true);
    register_job("job-t", 2);
    register_client("tools", 0);
    register_client("tools", 1);
    register_client("tools", 2);
    register_client("tools", 3);
    const pid_t early = spawn("tools", 0, "tool-early-request");
    const pid_t bad = spawn("tools", 1, "tool-bad-attach");
    const pid_t good = spawn("tools", 2, "tool-attach");
    const pid_t silent = spawn("tools", 3, "tool-silent");
    run_exchange("job-t", 2);
    EXPECT_EQ(wait_child(early), 0);
    EXPECT_EQ(wait_child(bad), 0);
    EXPECT_EQ(wait_child(good), 0);
    EXPECT_EQ(wait_child(silent), 0)
        << "a tool that never asks to attach is closed at its deadline";
}

TEST_F(LiveServer, UnregisteredClientIsRefused) {
    start();
    register_job("job-f", 1);
    const pid_t stranger = spawn("job-f", 7, "exchange");
    EXPECT_EQ(wait_child(stranger), 4) << "dial must fail for an unregistered proc";
}

TEST_F(LiveServer, NullArgumentsAreBadParams) {
    start();
    struct Seen {
        std::atomic<int> calls{0};
        std::atomic<pmix_status_t> status{PMIX_SUCCESS};
    } seen;
    auto record = [](pmix_status_t s, void* cb) {
        auto* x = static_cast<Seen*>(cb);
        x->status = s;
        ++x->calls;
    };
    auto calls_reach = [&seen](int n) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (seen.calls.load() < n && std::chrono::steady_clock::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        return seen.calls.load();
    };
    EXPECT_EQ(PMIx_server_register_client(nullptr, 0, 0, nullptr, nullptr, nullptr),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_register_nspace("job", 1, nullptr, 3, nullptr, nullptr),
              PMIX_ERR_BAD_PARAM);
    // The void calls report a refusal through their callback: later, never inside the call.
    PMIx_server_deregister_client(nullptr, record, &seen);
    EXPECT_EQ(calls_reach(1), 1);
    EXPECT_EQ(seen.status.load(), PMIX_ERR_BAD_PARAM);
    PMIx_server_deregister_nspace(nullptr, record, &seen);
    EXPECT_EQ(calls_reach(2), 2);
    EXPECT_EQ(seen.status.load(), PMIX_ERR_BAD_PARAM);
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "job", 0);
    EXPECT_EQ(PMIx_server_dmodex_request(&p, nullptr, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_setup_application("job", nullptr, 0, nullptr, nullptr),
              PMIX_ERR_BAD_PARAM);
    // Deregistering what was never registered reports NOT_FOUND through the callback.
    PMIx_server_deregister_client(&p, nullptr, nullptr);
    EXPECT_EQ(PMIx_server_init(&module_, nullptr, 0), PMIX_SUCCESS);  // already up: harmless
}

TEST_F(LiveServer, ApplicationSetupAndBadParams) {
    start();
    EXPECT_EQ(PMIx_server_register_nspace(nullptr, 1, nullptr, 0, nullptr, nullptr),
              PMIX_ERR_BAD_PARAM);
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, "fab.key", "v", PMIX_STRING);
    std::atomic<bool> done{false};
    struct Ctx {
        std::atomic<bool>* done;
        bool ok = false;
    } ctx{&done};
    ASSERT_EQ(PMIx_server_setup_application(
                  "job-g", &info, 1,
                  [](pmix_status_t s, pmix_info_t in[], size_t n, void* cb, pmix_op_cbfunc_t rel,
                     void* relcb) {
                      auto* c = static_cast<Ctx*>(cb);
                      // No plugin has anything for a job without maps or envar patterns: the
                      // host's own directives are not echoed back (tests/instanton covers blobs).
                      c->ok = s == PMIX_SUCCESS && n == 0 && (n == 0 || in != nullptr);
                      if (rel != nullptr) rel(PMIX_SUCCESS, relcb);
                      c->done->store(true);
                  },
                  &ctx),
              PMIX_SUCCESS);
    for (int i = 0; i < 2000 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_TRUE(done.load());
    EXPECT_TRUE(ctx.ok);
    EXPECT_EQ(PMIx_server_setup_local_support("job-g", &info, 1, nullptr, nullptr), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
}

// PMIX_SOCKET_MODE (uint32_t, 9 bits): the socket gets that mode and its directory the x bits of
// the classes it lets in; anything but a number is refused and leaves nothing behind.
TEST_F(LiveServer, SocketModeIsHonoured) {
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmp_.c_str(), PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SOCKET_MODE, "0660", PMIX_STRING);
    EXPECT_EQ(PMIx_server_init(&module_, info, 2), PMIX_ERR_BAD_PARAM);
    EXPECT_TRUE(session_dirs().empty());
    PMIX_INFO_DESTRUCT(&info[1]);
    const uint32_t mode = 0660;
    PMIX_INFO_LOAD(&info[1], PMIX_SOCKET_MODE, &mode, PMIX_UINT32);
    ASSERT_EQ(PMIx_server_init(&module_, info, 2), PMIX_SUCCESS);
    up_ = true;
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    const auto dirs = session_dirs();
    ASSERT_EQ(dirs.size(), 1u);
    struct stat sb {};
    ASSERT_EQ(stat((dirs[0] / "server.sock").c_str(), &sb), 0);
    EXPECT_EQ(sb.st_mode & 0777, 0660u);
    ASSERT_EQ(stat(dirs[0].c_str(), &sb), 0);
    EXPECT_EQ(sb.st_mode & 0777, 0710u);
}

// A one-process namespace of this node, `extra` added to its info.
void register_one(const char* ns, std::vector<pmix_info_t>& extra) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    char* nmap = nullptr;
    char* pmap = nullptr;
    ASSERT_EQ(PMIx_generate_regex(host, &nmap), PMIX_SUCCESS);
    ASSERT_EQ(PMIx_generate_ppn("0", &pmap), PMIX_SUCCESS);
    const uint32_t size = 1;
    extra.resize(extra.size() + 3);
    PMIX_INFO_LOAD(&extra[extra.size() - 3], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&extra[extra.size() - 2], PMIX_PROC_MAP, pmap, PMIX_STRING);
    PMIX_INFO_LOAD(&extra[extra.size() - 1], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    std::free(nmap);
    std::free(pmap);
    ASSERT_EQ(PMIx_server_register_nspace(ns, 1, extra.data(), extra.size(), nullptr, nullptr),
              PMIX_SUCCESS);
    for (auto& i : extra) PMIX_INFO_DESTRUCT(&i);
}

// setup_fork of rank 0 of `ns` must name a socket of group `gid`'s own, server-owned and open
// to that group only, in a session directory that can be entered, not listed; its fence board
// goes to that group. Finalize removes all of it (TearDown).
void expect_group_socket(const std::vector<fs::path>& dirs, const char* ns, gid_t gid) {
    char** env = nullptr;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, 0);
    ASSERT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    std::string sock, board;
    for (char** e = env; *e != nullptr; ++e) {
        if (std::strncmp(*e, "PMIX_CPP_SERVER_SOCKET=", 23) == 0) sock = *e + 23;
        if (std::strncmp(*e, "PMIX_CPP_FENCE_BOARD=", 21) == 0) board = *e + 21;
    }
    env_free(env);
    ASSERT_EQ(dirs.size(), 1u);
    const fs::path group_dir = dirs[0] / ("group." + std::to_string(gid));
    EXPECT_EQ(sock, (group_dir / "server.sock").string());
    auto expect = [](const std::string& path, unsigned mode, gid_t group) {
        struct stat sb {};
        ASSERT_EQ(stat(path.c_str(), &sb), 0) << path;
        EXPECT_EQ(sb.st_mode & 0777, mode) << path;
        EXPECT_EQ(sb.st_gid, group) << path;
        EXPECT_EQ(sb.st_uid, 0u) << path;
    };
    expect(sock, 0660, gid);
    expect(group_dir, 0710, gid);
    expect(dirs[0], 0711, 0);
    expect(dirs[0] / "server.sock", 0600, 0);
    ASSERT_FALSE(board.empty());
    expect("/dev/shm" + board, 0660, gid);
}

constexpr uint32_t kNobody = 65534;  // Debian's nobody / nogroup

// Root only (the server hands files to a group it is not in). PMIX_USERID/PMIX_GRPID of
// register_nspace.
TEST_F(LiveServer, NamespaceOfAnotherUserGetsItsGroupsSocket) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to hand files to another group";
    start();
    std::vector<pmix_info_t> info(2);
    PMIX_INFO_LOAD(&info[0], PMIX_USERID, &kNobody, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_GRPID, &kNobody, PMIX_UINT32);
    register_one("job-other", info);
    expect_group_socket(session_dirs(), "job-other", kNobody);
    PMIx_server_deregister_nspace("job-other", nullptr, nullptr);
}

// As Slurm's slurmstepd does: PMIX_USERID at PMIx_server_init, a registration naming no user,
// then register_client with the job's uid/gid.
TEST_F(LiveServer, ServerInitUserAndClientRegistrationShareTheNamespace) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to hand files to another group";
    pmix_info_t init[2];
    PMIX_INFO_LOAD(&init[0], PMIX_SERVER_TMPDIR, tmp_.c_str(), PMIX_STRING);
    PMIX_INFO_LOAD(&init[1], PMIX_USERID, &kNobody, PMIX_UINT32);
    ASSERT_EQ(PMIx_server_init(&module_, init, 2), PMIX_SUCCESS);
    up_ = true;
    PMIX_INFO_DESTRUCT(&init[0]);
    PMIX_INFO_DESTRUCT(&init[1]);
    std::vector<pmix_info_t> none;
    register_one("job-slurm", none);
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "job-slurm", 0);
    ASSERT_EQ(PMIx_server_register_client(&p, kNobody, kNobody, nullptr, nullptr, nullptr),
              PMIX_SUCCESS);
    expect_group_socket(session_dirs(), "job-slurm", kNobody);
}

}  // namespace
