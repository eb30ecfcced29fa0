// End to end: the real server (PMIx_server_* from libpmix, in this process, with a one-node
// host fence) and client processes started from PMIx_server_setup_fork's environment running
// the "exchange" scenario: Init, Put, Commit, collecting Fence, Get of every peer's key,
// Resolve_peers, Finalize. Every child runs under a deadline; the server is finalized and its
// directory removed at the end.
#include "e2e_harness.h"

#include <pmix.h>
#include <pmix_server.h>

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace clienttest {
namespace {

// The exchange scenario with 4 client processes. `child_env` is added to each child's
// environment; `expect_store` is what the children check about their read path.
void run_exchange(const std::vector<std::string>& child_env, bool expect_store) {
    g_fences = 0;
    Server server;
    constexpr int kProcs = 4;
    register_job("e2e.job", kProcs);
    std::vector<std::string> extra = child_env;
    extra.push_back(std::string("TEST_EXPECT_STORE=") + (expect_store ? "1" : "0"));
    std::vector<pid_t> kids;
    for (int r = 0; r < kProcs; ++r) {
        kids.push_back(
            start_client("e2e.job", static_cast<pmix_rank_t>(r), kProcs, extra, "exchange"));
    }
    expect_all_succeed(kids);
    // Every fence of this job is over the whole namespace and the job runs here: they all meet
    // on its fence board (server/board.cpp) and none reaches the host (test_board.cpp has the
    // cases that do).
    EXPECT_EQ(g_fences.load(), 0);
}

// A host that registers and forks its clients one at a time: the first ranks reach the fence
// before the last one is even registered. The whole-namespace fence still waits for every
// local rank of the job (CI once saw rank 3 left alone in the second fence).
TEST(ClientEndToEnd, FenceWaitsForRanksRegisteredAfterItOpened) {
    ShmPrefix shm;
    Server server;
    constexpr int kProcs = 4;
    register_job("late.job", kProcs);
    std::vector<pid_t> kids;
    for (pmix_rank_t r = 0; r + 1 < kProcs; ++r) {
        kids.push_back(start_client("late.job", r, kProcs, {"TEST_EXPECT_STORE=1"}, "exchange"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // ranks 0-2 are in the fence
    kids.push_back(
        start_client("late.job", kProcs - 1, kProcs, {"TEST_EXPECT_STORE=1"}, "exchange"));
    expect_all_succeed(kids);
}

TEST(ClientEndToEnd, ExchangeThroughTheRealServer) {
    ShmPrefix shm;
    run_exchange({}, true);
    EXPECT_EQ(segments_named(shm.name), 0) << "server finalize must unlink every segment";
}

TEST(ClientEndToEnd, HeapStoreSendsEveryGetToTheServer) {
    ShmPrefix shm;
    ::setenv("PMIX_GDS_MODULE", "hash", 1);  // OpenPMIx's name for its in-process store
    run_exchange({}, false);
    ::unsetenv("PMIX_GDS_MODULE");
    EXPECT_EQ(segments_named(shm.name), 0);
}

TEST(ClientEndToEnd, BogusStoreLocatorFallsBackToTheServer) {
    ShmPrefix shm;
    run_exchange({"PMIX_CPP_GDS_LOCATOR=/pmix-no-such-store-segment"}, false);
    EXPECT_EQ(segments_named(shm.name), 0);
}

// Directories created under /tmp by this process for sockets that did not fit sun_path.
int socket_dirs_of_this_process() {
    const std::string prefix = "pmix-cpp." + std::to_string(::getpid()) + ".";
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/tmp")) {
        n += e.path().filename().string().rfind(prefix, 0) == 0 ? 1 : 0;
    }
    return n;
}

// Open MPI nests session directories deeply (CI met a 130-byte socket path): a TMPDIR too
// long for a Unix socket path still serves clients, and nothing is left behind.
TEST(ClientEndToEnd, TmpdirTooLongForASocketPathStillServes) {
    ShmPrefix shm;
    {
        Server server("/" + std::string(60, 'd') + "/" + std::string(60, 'e'));
        EXPECT_EQ(socket_dirs_of_this_process(), 1);
        register_job("long.job", 2);
        std::vector<pid_t> kids;
        for (pmix_rank_t r = 0; r < 2; ++r) {
            kids.push_back(start_client("long.job", r, 2, {"TEST_EXPECT_STORE=1"}, "exchange"));
        }
        expect_all_succeed(kids);
    }
    EXPECT_EQ(socket_dirs_of_this_process(), 0);
    EXPECT_EQ(segments_named(shm.name), 0);
}

// Two namespaces of two processes each fence together (with and without data) and read each
// other's keys: the fence spans both jobs' participants on this server.
TEST(ClientEndToEnd, TwoNamespacesFenceTogether) {
    ShmPrefix shm;
    {
        Server server;
        const char* a = "two.job.a";
        const char* b = "two.job.b";
        register_job(a, 2);
        register_job(b, 2);
        std::vector<pid_t> kids;
        for (pmix_rank_t r = 0; r < 2; ++r) {
            kids.push_back(
                start_client(a, r, 2, {std::string("TEST_OTHER_NS=") + b}, "two_namespaces"));
            kids.push_back(
                start_client(b, r, 2, {std::string("TEST_OTHER_NS=") + a}, "two_namespaces"));
        }
        expect_all_succeed(kids);
    }
    EXPECT_EQ(segments_named(shm.name), 0);
}

// The event handler chain (ordering, affected-proc filter, default handlers, ACTION_COMPLETE).
TEST(ClientEndToEnd, EventHandlerChainFollowsTheStandard) {
    Server server;
    register_job("chain.job", 2);
    std::vector<pid_t> kids;
    for (pmix_rank_t r = 0; r < 2; ++r)
        kids.push_back(start_client("chain.job", r, 2, {}, "event_chain"));
    expect_all_succeed(kids);
}

// A client that dies without PMIx_Finalize: the server raises PMIX_ERR_LOST_CONNECTION for the
// other clients of its namespace that registered for it by name (rank 0), not for a peer with a
// default handler only (rank 2).
TEST(ClientEndToEnd, DeadClientRaisesLostConnectionForItsPeers) {
    Server server;
    register_job("lost.job", 3);
    std::vector<pid_t> kids;
    for (pmix_rank_t r = 0; r < 3; ++r)
        kids.push_back(start_client("lost.job", r, 3, {}, "lost_peer"));
    expect_all_succeed(kids);
}

TEST(ClientEndToEnd, RepeatedInitDeclaringAModelRaisesModelDeclared) {
    Server server;
    register_job("model.job", 1);
    std::vector<pid_t> kids{start_client("model.job", 0, 1, {}, "model_declared")};
    expect_all_succeed(kids);
}

// The host's own handlers (a server-only process registering, as mpirun/orted do): the
// registration callback comes, the host's PROC_LOCAL notifications reach them, and so do
// PMIX_ERR_LOST_CONNECTION (source = the client; after the 1 s caching window) when a client dies
// without finalizing and a client's own event of any range.
// A value a callback delivers, waited for with a timeout.
template <class T>
struct Waiter {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<T> value;
    void set(T v) {
        std::lock_guard lock(mu);
        value = std::move(v);
        cv.notify_all();
    }
    std::optional<T> wait() {
        std::unique_lock lock(mu);
        cv.wait_for(lock, std::chrono::seconds(10), [&] { return value.has_value(); });
        return value;
    }
};

std::mutex g_host_mu;
std::vector<std::pair<pmix_status_t, pmix_proc_t>> g_host_events;

void host_handler(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t[], size_t,
                  pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_host_mu);
        g_host_events.emplace_back(status, source != nullptr ? *source : pmix_proc_t{});
    }
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

bool host_saw(pmix_status_t code, const char* ns, pmix_rank_t rank, int tries = 500) {
    for (int i = 0; i < tries; ++i) {
        {
            std::lock_guard lock(g_host_mu);
            for (const auto& [st, src] : g_host_events) {
                if (st == code &&
                    (ns == nullptr || (std::strcmp(src.nspace, ns) == 0 && src.rank == rank))) {
                    return true;
                }
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
}

TEST(ClientEndToEnd, HostHandlersSeeTheirOwnEventsAndLostClients) {
    Server server;
    Waiter<std::pair<pmix_status_t, std::size_t>> registered;
    ASSERT_EQ(PMIx_Register_event_handler(
                  nullptr, 0, nullptr, 0, host_handler,
                  [](pmix_status_t st, size_t ref, void* cb) {
                      static_cast<decltype(registered)*>(cb)->set({st, ref});
                  },
                  &registered),
              PMIX_SUCCESS);
    auto reg = registered.wait();
    ASSERT_TRUE(reg.has_value()) << "registration callback never came";
    EXPECT_EQ(reg->first, PMIX_SUCCESS);
    const pmix_status_t own = PMIX_EXTERNAL_ERR_BASE - 21;
    ASSERT_EQ(PMIx_Notify_event(own, nullptr, PMIX_RANGE_PROC_LOCAL, nullptr, 0, nullptr, nullptr),
              PMIX_SUCCESS);
    EXPECT_TRUE(host_saw(own, nullptr, 0));
    register_job("hostlost.job", 2);
    std::vector<pid_t> kids;
    for (pmix_rank_t r = 0; r < 2; ++r) {
        kids.push_back(start_client("hostlost.job", r, 2, {}, "lost_peer"));
    }
    expect_all_succeed(kids);
    EXPECT_TRUE(host_saw(PMIX_ERR_LOST_CONNECTION, "hostlost.job", 1));
    EXPECT_FALSE(host_saw(PMIX_ERR_LOST_CONNECTION, "hostlost.job", 0, 1)) << "rank 0 finalized";
    // A client's PMIX_RANGE_NAMESPACE event reaches the host's handlers too (as with OpenPMIx;
    // Slurm's default handler acts on it). event_chain's rank 0 raises PMIX_EXTERNAL_ERR_BASE - 11.
    register_job("hostchain.job", 2);
    kids.clear();
    for (pmix_rank_t r = 0; r < 2; ++r) {
        kids.push_back(start_client("hostchain.job", r, 2, {}, "event_chain"));
    }
    expect_all_succeed(kids);
    EXPECT_TRUE(host_saw(PMIX_EXTERNAL_ERR_BASE - 11, "hostchain.job", 0));
    Waiter<pmix_status_t> gone;
    ASSERT_EQ(
        PMIx_Deregister_event_handler(
            reg->second,
            [](pmix_status_t st, void* cb) { static_cast<decltype(gone)*>(cb)->set(st); }, &gone),
        PMIX_SUCCESS);
    auto g = gone.wait();
    ASSERT_TRUE(g.has_value());
    EXPECT_EQ(*g, PMIX_SUCCESS);
    EXPECT_EQ(PMIx_Deregister_event_handler(reg->second, nullptr, nullptr), PMIX_ERR_NOT_FOUND);
}

// A host reads and stores its own data through the client API (Open MPI's mpirun stores its URI
// with PMIx_Store_internal and reads its keys back, key = NULL included).
TEST(ClientEndToEnd, HostGetsAndStoresThroughTheClientApi) {
    Server server;
    register_job("hostdata.job", 1);
    pmix_proc_t daemon;
    PMIX_LOAD_PROCID(&daemon, "hostdata.job", 0);
    pmix_value_t uri;
    PMIX_VALUE_LOAD(&uri, "tcp://10.0.0.1:1234", PMIX_STRING);
    ASSERT_EQ(PMIx_Store_internal(&daemon, "opal.puri", &uri), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&uri);
    EXPECT_EQ(PMIx_Store_internal(nullptr, "opal.puri", &uri), PMIX_ERR_BAD_PARAM);
    pmix_value_t* got = nullptr;
    ASSERT_EQ(PMIx_Get(&daemon, "opal.puri", nullptr, 0, &got), PMIX_SUCCESS);
    ASSERT_EQ(got->type, PMIX_STRING);
    EXPECT_STREQ(got->data.string, "tcp://10.0.0.1:1234");
    PMIX_VALUE_RELEASE(got);
    ASSERT_EQ(PMIx_Get(&daemon, nullptr, nullptr, 0, &got), PMIX_SUCCESS);  // every key of it
    ASSERT_EQ(got->type, PMIX_DATA_ARRAY);
    bool found = false;
    const auto* infos = static_cast<const pmix_info_t*>(got->data.darray->array);
    for (size_t i = 0; i < got->data.darray->size; ++i) {
        found = found || std::strcmp(infos[i].key, "opal.puri") == 0;
    }
    EXPECT_TRUE(found);
    PMIX_VALUE_RELEASE(got);
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, "hostdata.job", PMIX_RANK_WILDCARD);
    Waiter<std::uint32_t> size;
    ASSERT_EQ(PMIx_Get_nb(
                  &job, PMIX_JOB_SIZE, nullptr, 0,
                  [](pmix_status_t st, pmix_value_t* v, void* cb) {
                      static_cast<decltype(size)*>(cb)->set(
                          st == PMIX_SUCCESS && v->type == PMIX_UINT32 ? v->data.uint32 : 0);
                  },
                  &size),
              PMIX_SUCCESS);
    auto n = size.wait();
    ASSERT_TRUE(n.has_value());
    EXPECT_EQ(*n, 1u);
    EXPECT_EQ(PMIx_Get(&daemon, "no.such.key", nullptr, 0, &got), PMIX_ERR_NOT_FOUND);
}

// Job_control cleanup registrations are carried out by the server library when the client ends.
TEST(ClientEndToEnd, CleanupRegistrationsRemoveOnlyTheClientsOwnFiles) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a file to another user";
    Server server;
    TempDir scratch;
    ASSERT_FALSE(scratch.path().empty());
    register_job("cleanup.job", 1);
    std::vector<pid_t> kids{
        start_client("cleanup.job", 0, 1, {"TEST_CLEANUP_DIR=" + scratch.path()}, "cleanup")};
    expect_all_succeed(kids);
    namespace fs = std::filesystem;
    bool gone = false;
    for (int i = 0; i < 500 && !gone; ++i) {  // the server removes them when it sees the close
        gone = !fs::exists(scratch.path() + "/segment") && !fs::exists(scratch.path() + "/session");
        if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(gone) << "registered file and directory tree are removed";
    EXPECT_TRUE(fs::exists(scratch.path() + "/foreign")) << "another user's file is never removed";
}

}  // namespace
}  // namespace clienttest
