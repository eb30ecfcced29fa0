// tests/unit/server/test_connect.cpp - PMIx_Connect / PMIx_Disconnect at a real server
// (server/connect_tracker.h): the local callers' requests make one host upcall carrying the
// sorted proc array and every caller's directives; a job entirely on this node needs no upcall;
// PMIX_TIMEOUT and a participant that dies end the operation for the callers, no upcall made.
#include "live_server.h"

#include <gtest/gtest.h>

#include <pmix_server.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace live;

// What the host's connect / disconnect upcalls saw.
struct Seen {
    std::mutex m;
    int connects = 0;
    int disconnects = 0;
    std::vector<pmix_proc_t> procs;  // the last upcall's
    std::vector<std::string> keys;   // the last upcall's directives
};
Seen g_seen;

pmix_status_t record(bool connect, const pmix_proc_t procs[], size_t nprocs,
                     const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                     void* cbdata) {
    {
        std::lock_guard lock(g_seen.m);
        ++(connect ? g_seen.connects : g_seen.disconnects);
        g_seen.procs.assign(procs, procs + nprocs);
        g_seen.keys.clear();
        for (size_t i = 0; i < ninfo; ++i) g_seen.keys.emplace_back(info[i].key);
    }
    cbfunc(PMIX_SUCCESS, cbdata);  // inline, as Slurm's plugin answers: the library shifts it
    return PMIX_SUCCESS;
}

pmix_status_t host_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return record(true, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

pmix_status_t host_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return record(false, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

class ConnectServer : public LiveServer {
protected:
    void SetUp() override {
        LiveServer::SetUp();
        std::lock_guard lock(g_seen.m);
        g_seen.connects = g_seen.disconnects = 0;
        g_seen.procs.clear();
        g_seen.keys.clear();
        module_.connect = host_connect;
        module_.disconnect = host_disconnect;
    }

    // A job of `local + remote` ranks: 0..local-1 here, the rest on another node.
    void register_split_job(const char* ns, int local, int remote) {
        char host[256] = {};
        gethostname(host, sizeof host - 1);
        std::string here, there;
        for (int r = 0; r < local; ++r) here += (r ? "," : "") + std::to_string(r);
        for (int r = local; r < local + remote; ++r)
            there += (r > local ? "," : "") + std::to_string(r);
        char* nmap = nullptr;
        char* pmap = nullptr;
        const std::string nodes = std::string(host) + ",connect-test-elsewhere";
        ASSERT_EQ(PMIx_generate_regex(nodes.c_str(), &nmap), PMIX_SUCCESS);
        ASSERT_EQ(PMIx_generate_ppn((here + ";" + there).c_str(), &pmap), PMIX_SUCCESS);
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, nmap, PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, pmap, PMIX_STRING);
        std::free(nmap);
        std::free(pmap);
        for (int r = 0; r < local; ++r) register_client(ns, static_cast<pmix_rank_t>(r));
        ASSERT_EQ(PMIx_server_register_nspace(ns, local + remote, info, 2, nullptr, nullptr),
                  PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
    }

    void run_ranks(const char* ns, int local, int nprocs) {
        std::vector<pid_t> kids;
        for (int r = 0; r < local; ++r) {
            kids.push_back(spawn(ns, static_cast<pmix_rank_t>(r), "connect-ranks",
                                 {"TEST_CONNECT_N=" + std::to_string(nprocs)}));
        }
        for (int r = 0; r < local; ++r) EXPECT_EQ(wait_child(kids[r]), 0) << "rank " << r;
    }
};

bool has(const std::vector<std::string>& keys, const char* key) {
    for (const auto& k : keys)
        if (k == key) return true;
    return false;
}

// Three local callers over a set with a rank on another node, each listing it in another order:
// one connect and one disconnect upcall, each with the four procs sorted and all three callers'
// directives plus what OpenPMIx adds.
TEST_F(ConnectServer, LocalCallersMakeOneUpcallWithAllProcs) {
    start();
    register_split_job("job-cn", 3, 1);
    run_ranks("job-cn", 3, 4);
    std::lock_guard lock(g_seen.m);
    EXPECT_EQ(g_seen.connects, 1);
    EXPECT_EQ(g_seen.disconnects, 1);
    ASSERT_EQ(g_seen.procs.size(), 4u);
    for (pmix_rank_t r = 0; r < 4; ++r) {
        EXPECT_STREQ(g_seen.procs[r].nspace, "job-cn");
        EXPECT_EQ(g_seen.procs[r].rank, r);
    }
    for (const char* key : {"test.cnct.0", "test.cnct.1", "test.cnct.2", PMIX_TIMEOUT,
                            PMIX_SORTED_PROC_ARRAY, PMIX_LOCAL_COLLECTIVE_STATUS}) {
        EXPECT_TRUE(has(g_seen.keys, key)) << key;
    }
}

// Every participant on this node: the server completes it, the host is not asked (OpenPMIx 4.2).
TEST_F(ConnectServer, AllLocalCompletesWithoutTheHost) {
    start();
    register_job("job-cl", 3);
    run_ranks("job-cl", 3, 3);
    std::lock_guard lock(g_seen.m);
    EXPECT_EQ(g_seen.connects, 0);
    EXPECT_EQ(g_seen.disconnects, 0);
}

// A host without the upcalls: local sets still connect (nothing is needed from the host), as
// with OpenPMIx; one spanning nodes is PMIX_ERR_NOT_SUPPORTED (host-ops scenario, test_live.cpp).
TEST_F(ConnectServer, AllLocalNeedsNoHostUpcall) {
    module_.connect = nullptr;
    module_.disconnect = nullptr;
    start();
    register_job("job-cx", 2);
    run_ranks("job-cx", 2, 2);
}

TEST_F(ConnectServer, TimesOutWhenALocalParticipantNeverCalls) {
    start();
    register_job("job-ct", 2);  // rank 1 never comes
    EXPECT_EQ(wait_child(spawn("job-ct", 0, "connect-timeout")), 0);
    std::lock_guard lock(g_seen.m);
    EXPECT_EQ(g_seen.connects, 0);
}

// The host's connect callback, held until the test answers it.
std::atomic<pmix_op_cbfunc_t> g_held_connect_cb{nullptr};
std::atomic<void*> g_held_connect_cbdata{nullptr};

pmix_status_t host_connect_held(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                                pmix_op_cbfunc_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_seen.m);
        ++g_seen.connects;
    }
    g_held_connect_cbdata = cbdata;
    g_held_connect_cb = cbfunc;
    return PMIX_SUCCESS;
}

// PMIX_TIMEOUT passes while the host holds the operation: the caller gets PMIX_ERR_TIMEOUT from
// the server; the host's late answer (its arguments still valid until then) is taken quietly.
TEST_F(ConnectServer, TimesOutWhileTheHostHoldsIt) {
    g_held_connect_cb = nullptr;
    module_.connect = host_connect_held;
    start();
    register_job("job-ch", 1);
    EXPECT_EQ(wait_child(spawn("job-ch", 0, "connect-held")), 0);
    {
        std::lock_guard lock(g_seen.m);
        EXPECT_EQ(g_seen.connects, 1);
    }
    ASSERT_NE(g_held_connect_cb.load(), nullptr);
    g_held_connect_cb.load()(PMIX_SUCCESS, g_held_connect_cbdata.load());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the late answer's task runs
}

// Rank 0 dies without finalizing, before or after rank 1's request opens the operation: rank 1
// gets PMIX_ERR_LOST_CONNECTION (not the PMIX_ERR_TIMEOUT its 20 s PMIX_TIMEOUT would bring).
TEST_F(ConnectServer, DeadParticipantFailsIt) {
    start();
    register_job("job-cd", 2);
    const pid_t waiting = spawn("job-cd", 1, "connect-expect-lost");
    const pid_t dead = spawn("job-cd", 0, "die");
    EXPECT_EQ(wait_child(dead), 0);
    EXPECT_EQ(wait_child(waiting), 0);
    std::lock_guard lock(g_seen.m);
    EXPECT_EQ(g_seen.connects, 0);
}

}  // namespace
