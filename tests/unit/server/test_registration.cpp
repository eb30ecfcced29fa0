// tests/unit/server/test_registration.cpp - what register_nspace's info becomes in the store:
// Open MPI 4.1.4's exact key set (contract.md 2b), maps-only registrations and bad input. Each
// registration is parsed, written into a heap store and read back as the server reads it.
#include "server/publish.h"
#include "server/registration.h"

#include "gds/store.h"

#include <gtest/gtest.h>

#include <pmix_common.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

// A registration, the store it was written into and the values read back (kept for the test).
struct Namespace {
    pmix::server::Registration reg;
    int& nlocalprocs = reg.nlocalprocs;
    std::set<pmix_rank_t>& local_ranks = reg.local_ranks;
    std::unique_ptr<pmix::gds::StoreWriter> store = pmix::gds::make_heap_store();
    std::unique_ptr<pmix::gds::StoreReader> reader;
    std::vector<std::unique_ptr<pmix::server::Value>> held;
};

pmix_status_t parse(Namespace& ns, const pmix_info_t* info, std::size_t ninfo, const char* host) {
    ns.reg.name = "test.registration";
    ns.reg.hostname = host;
    pmix_status_t rc = pmix::server::parse_registration(ns.reg, info, ninfo);
    if (rc == PMIX_SUCCESS) rc = pmix::server::publish_registration(*ns.store, ns.reg);
    ns.reader = ns.store->make_reader();
    return ns.reader == nullptr ? PMIX_ERR_NOMEM : rc;
}

// The value the server would answer a Get with, or nullptr.
const pmix_value_t* lookup(Namespace& ns, pmix_rank_t rank, const char* key) {
    auto v = std::make_unique<pmix::server::Value>();
    if (pmix::server::read_value(*ns.reader, ns.reg.name, rank, key, *v) != PMIX_SUCCESS) {
        return nullptr;
    }
    ns.held.push_back(std::move(v));
    return &ns.held.back()->get();
}

// Owns an info vector and releases its values.
struct Infos {
    std::vector<pmix_info_t> v;
    ~Infos() {
        for (auto& i : v) PMIX_INFO_DESTRUCT(&i);
    }
    void add(const char* key, const void* data, pmix_data_type_t type) {
        v.emplace_back();
        PMIX_INFO_LOAD(&v.back(), key, data, type);
    }
    template <class T>
    void num(const char* key, T x, pmix_data_type_t type) {
        add(key, &x, type);
    }
};

// One pmix.pdata entry as ORTE builds it: rank first, hostname last.
void add_pdata(Infos& job, pmix_rank_t rank, std::uint16_t lrank, const char* host, bool local) {
    std::vector<pmix_info_t> e(local ? 6 : 5);
    std::size_t k = 0;
    PMIX_INFO_LOAD(&e[k++], PMIX_RANK, &rank, PMIX_PROC_RANK);
    if (local)
        PMIX_INFO_LOAD(&e[k++], PMIX_LOCALITY_STRING, "SK0:L30:L20:L10:CR0:HT0-1", PMIX_STRING);
    PMIX_INFO_LOAD(&e[k++], PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK);
    PMIX_INFO_LOAD(&e[k++], PMIX_LOCAL_RANK, &lrank, PMIX_UINT16);
    PMIX_INFO_LOAD(&e[k++], PMIX_NODE_RANK, &lrank, PMIX_UINT16);
    PMIX_INFO_LOAD(&e[k++], PMIX_HOSTNAME, host, PMIX_STRING);
    pmix_data_array_t arr;
    arr.type = PMIX_INFO;
    arr.size = k;
    arr.array = e.data();
    job.add(PMIX_PROC_DATA, &arr, PMIX_DATA_ARRAY);  // deep-copied by the load
    for (std::size_t i = 0; i < k; ++i) PMIX_INFO_DESTRUCT(&e[i]);
}

std::uint32_t u32(Namespace& ns, pmix_rank_t r, const char* key) {
    const pmix_value_t* v = lookup(ns, r, key);
    EXPECT_NE(v, nullptr) << key;
    if (v == nullptr) return 0xFFFFFFFF;
    EXPECT_EQ(v->type, PMIX_UINT32) << key;
    return v->data.uint32;
}

std::string str(Namespace& ns, pmix_rank_t r, const char* key) {
    const pmix_value_t* v = lookup(ns, r, key);
    EXPECT_NE(v, nullptr) << key;
    if (v == nullptr || v->type != PMIX_STRING || v->data.string == nullptr) return "<none>";
    return v->data.string;
}

std::uint16_t u16(Namespace& ns, pmix_rank_t r, const char* key) {
    const pmix_value_t* v = lookup(ns, r, key);
    EXPECT_NE(v, nullptr) << key;
    if (v == nullptr) return 0xFFFF;
    EXPECT_EQ(v->type, PMIX_UINT16) << key;
    return v->data.uint16;
}

}  // namespace

TEST(Registration, OpenMpiKeySet) {
    Infos job;
    job.add(PMIX_SERVER_NSPACE, "[5544,0]", PMIX_STRING);
    job.num(PMIX_SERVER_RANK, std::uint32_t{0}, PMIX_UINT32);
    job.add(PMIX_JOBID, "[5544,1]", PMIX_STRING);
    job.num(PMIX_NPROC_OFFSET, std::uint32_t{0}, PMIX_UINT32);
    job.add(PMIX_NODE_MAP, "pmix[nodeA,nodeB]", PMIX_STRING);
    job.add(PMIX_PROC_MAP, "pmix[0,1;2,3]", PMIX_STRING);
    job.num(PMIX_NODEID, std::uint32_t{0}, PMIX_UINT32);
    job.num(PMIX_NODE_SIZE, std::uint32_t{2}, PMIX_UINT32);
    job.num(PMIX_NUM_NODES, std::uint32_t{2}, PMIX_UINT32);
    job.num(PMIX_UNIV_SIZE, std::uint32_t{4}, PMIX_UINT32);
    job.num(PMIX_JOB_SIZE, std::uint32_t{4}, PMIX_UINT32);
    job.num(PMIX_JOB_NUM_APPS, std::uint32_t{1}, PMIX_UINT32);
    job.num(PMIX_LOCAL_SIZE, std::uint32_t{2}, PMIX_UINT32);
    job.num(PMIX_MAX_PROCS, std::uint32_t{4}, PMIX_UINT32);
    job.add(PMIX_TOPOLOGY_SIGNATURE, "2N:2S:2L3:4L2:4L1:4C:8H:x86_64:le", PMIX_STRING);
    job.num(PMIX_AVAIL_PHYS_MEMORY, std::uint64_t{1} << 34, PMIX_UINT64);
    job.add(PMIX_MAPBY, "BYNUMA:OVERSUBSCRIBE", PMIX_STRING);
    job.add(PMIX_RANKBY, "SLOT", PMIX_STRING);
    job.add(PMIX_BINDTO, "NONE:IF-SUPPORTED", PMIX_STRING);
    job.add(PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
    job.num(PMIX_LOCALLDR, pmix_rank_t{0}, PMIX_PROC_RANK);
    add_pdata(job, 0, 0, "nodeA", true);
    add_pdata(job, 1, 1, "nodeA", true);
    add_pdata(job, 2, 0, "nodeB", false);
    add_pdata(job, 3, 1, "nodeB", false);

    Namespace ns;
    ASSERT_EQ(parse(ns, job.v.data(), job.v.size(), "nodeA"), PMIX_SUCCESS);
    EXPECT_EQ(u32(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE), 4u);
    EXPECT_EQ(u32(ns, PMIX_RANK_WILDCARD, PMIX_MAX_PROCS), 4u);
    EXPECT_EQ(u32(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE), 2u);
    EXPECT_EQ(str(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS), "0,1");
    EXPECT_EQ(str(ns, PMIX_RANK_WILDCARD, PMIX_MAPBY), "BYNUMA:OVERSUBSCRIBE");
    for (pmix_rank_t r = 0; r < 4; ++r) {
        EXPECT_EQ(u16(ns, r, PMIX_LOCAL_RANK), r % 2);
        EXPECT_EQ(u16(ns, r, PMIX_NODE_RANK), r % 2);
        EXPECT_EQ(str(ns, r, PMIX_HOSTNAME), r < 2 ? "nodeA" : "nodeB");
        EXPECT_EQ(u32(ns, r, PMIX_NODEID), r < 2 ? 0u : 1u);
        EXPECT_EQ(u32(ns, r, PMIX_APPNUM), 0u);  // not registered: synthesised
    }
    EXPECT_EQ(str(ns, 0, PMIX_LOCALITY_STRING), "SK0:L30:L20:L10:CR0:HT0-1");
    EXPECT_EQ(lookup(ns, 2, PMIX_LOCALITY_STRING), nullptr);  // remote proc
    EXPECT_EQ(ns.local_ranks, (std::set<pmix_rank_t>{0, 1}));
    // Job-level keys answer a proc-level question too (fallback).
    EXPECT_EQ(u32(ns, 3, PMIX_UNIV_SIZE), 4u);
    // Key NULL: every key of a proc.
    auto all = pmix::server::read_all(*ns.reader, ns.reg.name, 0, pmix::gds::kAllScopes);
    EXPECT_GE(all.size(), 6u);
}

TEST(Registration, MapsOnlyDerivesPerProcKeys) {
    Infos job;
    job.add(PMIX_NODE_MAP, "pmix[n1,n2]", PMIX_STRING);
    job.add(PMIX_PROC_MAP, "pmix[0,2,4;1,3]", PMIX_STRING);
    job.num(PMIX_NPROC_OFFSET, std::uint32_t{10}, PMIX_UINT32);
    Namespace ns;
    ASSERT_EQ(parse(ns, job.v.data(), job.v.size(), "n2"), PMIX_SUCCESS);
    EXPECT_EQ(u32(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE), 5u);
    EXPECT_EQ(u32(ns, PMIX_RANK_WILDCARD, PMIX_NUM_NODES), 2u);
    EXPECT_EQ(u32(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE), 2u);
    EXPECT_EQ(str(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS), "1,3");
    EXPECT_EQ(u16(ns, 4, PMIX_LOCAL_RANK), 2);
    EXPECT_EQ(u16(ns, 3, PMIX_NODE_RANK), 1);
    EXPECT_EQ(str(ns, 3, PMIX_HOSTNAME), "n2");
    EXPECT_EQ(u32(ns, 0, PMIX_NODEID), 0u);
    const pmix_value_t* g = lookup(ns, 3, PMIX_GLOBAL_RANK);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->data.rank, 13u);
    EXPECT_EQ(ns.local_ranks, (std::set<pmix_rank_t>{1, 3}));
}

// A job mapped onto one node whose name is not this host's: local when the host says it has
// local procs (a host naming its node differently from gethostname), not local when it says it
// has none. Open MPI registers a job spawned onto another node on every daemon that way; taking
// it for local made Gets of its ranks wait here instead of going to the host (direct modex).
TEST(Registration, OneNodeMapIsLocalOnlyWithLocalProcs) {
    Infos job;
    job.add(PMIX_NODE_MAP, "pmix[198.18.0.2]", PMIX_STRING);
    job.add(PMIX_PROC_MAP, "pmix[0,1]", PMIX_STRING);
    Namespace elsewhere;
    elsewhere.nlocalprocs = 0;
    ASSERT_EQ(parse(elsewhere, job.v.data(), job.v.size(), "node0"), PMIX_SUCCESS);
    EXPECT_TRUE(elsewhere.local_ranks.empty());
    EXPECT_EQ(lookup(elsewhere, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS), nullptr);
    EXPECT_EQ(str(elsewhere, 1, PMIX_HOSTNAME), "198.18.0.2");
    Namespace here;
    here.nlocalprocs = 2;
    ASSERT_EQ(parse(here, job.v.data(), job.v.size(), "node1"), PMIX_SUCCESS);
    EXPECT_EQ(here.local_ranks, (std::set<pmix_rank_t>{0, 1}));
    EXPECT_EQ(str(here, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS), "0,1");
}

TEST(Registration, LocalPeersWithoutMaps) {
    Infos job;
    job.add(PMIX_LOCAL_PEERS, "4,7", PMIX_STRING);
    Namespace ns;
    ASSERT_EQ(parse(ns, job.v.data(), job.v.size(), "h"), PMIX_SUCCESS);
    EXPECT_EQ(u16(ns, 7, PMIX_LOCAL_RANK), 1);
    EXPECT_EQ(str(ns, 4, PMIX_HOSTNAME), "h");
    EXPECT_EQ(u32(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE), 2u);
}

TEST(Registration, BadInputIsRefused) {
    {
        Infos job;  // pdata whose first element is not the rank
        std::vector<pmix_info_t> e(1);
        PMIX_INFO_LOAD(&e[0], PMIX_HOSTNAME, "x", PMIX_STRING);
        pmix_data_array_t arr{PMIX_INFO, 1, e.data()};
        job.add(PMIX_PROC_DATA, &arr, PMIX_DATA_ARRAY);
        PMIX_INFO_DESTRUCT(&e[0]);
        Namespace ns;
        EXPECT_EQ(parse(ns, job.v.data(), job.v.size(), "x"), PMIX_ERR_BAD_PARAM);
    }
    {
        Infos job;  // pdata that is not an array
        job.add(PMIX_PROC_DATA, "nope", PMIX_STRING);
        Namespace ns;
        EXPECT_EQ(parse(ns, job.v.data(), job.v.size(), "x"), PMIX_ERR_BAD_PARAM);
    }
    {
        Infos job;  // maps that disagree on the node count
        job.add(PMIX_NODE_MAP, "pmix[a,b,c]", PMIX_STRING);
        job.add(PMIX_PROC_MAP, "pmix[0;1]", PMIX_STRING);
        Namespace ns;
        EXPECT_EQ(parse(ns, job.v.data(), job.v.size(), "a"), PMIX_ERR_BAD_PARAM);
    }
    Namespace empty;
    EXPECT_EQ(parse(empty, nullptr, 0, "a"), PMIX_SUCCESS);
    EXPECT_EQ(lookup(empty, 0, PMIX_JOB_SIZE), nullptr);
}

// An info array (PMIX_NODE_INFO_ARRAY, ...) holding `entries`, added to `job` under `key`.
void add_array(Infos& job, const char* key, Infos& entries) {
    pmix_data_array_t arr;
    arr.type = PMIX_INFO;
    arr.size = entries.v.size();
    arr.array = entries.v.data();
    job.add(key, &arr, PMIX_DATA_ARRAY);
}

// What a qualified Get (rank WILDCARD, from rank 0) answers, or nullptr.
const pmix_value_t* qualified(Namespace& ns, const char* key, const pmix_info_t* q, std::size_t n) {
    pmix::gds::Qualifiers quals;
    if (pmix::gds::parse_qualifiers(q, n, quals) != PMIX_SUCCESS) return nullptr;
    pmix_proc_t me;
    PMIX_LOAD_PROCID(&me, ns.reg.name.c_str(), 0);
    auto v = std::make_unique<pmix::server::Value>();
    if (pmix::server::read_qualified(*ns.reader, ns.reg.name, PMIX_RANK_WILDCARD, key, quals, me,
                                     *v) != PMIX_SUCCESS) {
        return nullptr;
    }
    ns.held.push_back(std::move(v));
    return &ns.held.back()->get();
}

TEST(Registration, NodeAppAndSessionArraysAreStoredAsSuch) {
    Infos job, node0, node1, app1, session;
    job.add(PMIX_HOSTNAME, "n0", PMIX_STRING);
    job.num(PMIX_JOB_SIZE, 4u, PMIX_UINT32);
    node0.add(PMIX_HOSTNAME, "n0", PMIX_STRING);
    node0.num(PMIX_NODEID, 0u, PMIX_UINT32);
    node0.num(PMIX_LOCAL_SIZE, 3u, PMIX_UINT32);
    node1.add(PMIX_HOSTNAME, "n1", PMIX_STRING);
    node1.num(PMIX_NODEID, 1u, PMIX_UINT32);
    node1.num(PMIX_LOCAL_SIZE, 1u, PMIX_UINT32);
    app1.num(PMIX_APPNUM, 1u, PMIX_UINT32);
    app1.num(PMIX_APP_SIZE, 2u, PMIX_UINT32);
    session.num(PMIX_SESSION_ID, 9u, PMIX_UINT32);
    session.num(PMIX_UNIV_SIZE, 64u, PMIX_UINT32);
    add_array(job, PMIX_NODE_INFO_ARRAY, node0);
    add_array(job, PMIX_NODE_INFO_ARRAY, node1);
    add_array(job, PMIX_APP_INFO_ARRAY, app1);
    add_array(job, PMIX_SESSION_INFO_ARRAY, session);
    Namespace ns;
    ASSERT_EQ(parse(ns, job.v.data(), job.v.size(), "n0"), PMIX_SUCCESS);

    Infos by_id, by_name, app, sess, sess_other;
    const bool yes = true;
    by_id.add(PMIX_NODE_INFO, &yes, PMIX_BOOL);
    by_id.num(PMIX_NODEID, 1u, PMIX_UINT32);
    by_name.add(PMIX_NODE_INFO, &yes, PMIX_BOOL);
    by_name.add(PMIX_HOSTNAME, "n1", PMIX_STRING);
    app.add(PMIX_APP_INFO, &yes, PMIX_BOOL);
    app.num(PMIX_APPNUM, 1u, PMIX_UINT32);
    sess.add(PMIX_SESSION_INFO, &yes, PMIX_BOOL);
    sess.num(PMIX_SESSION_ID, 9u, PMIX_UINT32);
    sess_other.add(PMIX_SESSION_INFO, &yes, PMIX_BOOL);
    sess_other.num(PMIX_SESSION_ID, 8u, PMIX_UINT32);

    const pmix_value_t* v = qualified(ns, PMIX_HOSTNAME, by_id.v.data(), 2);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(v->data.string, "n1");
    v = qualified(ns, PMIX_LOCAL_SIZE, by_name.v.data(), 2);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->data.uint32, 1u);
    v = qualified(ns, PMIX_APP_SIZE, app.v.data(), 2);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->data.uint32, 2u);
    v = qualified(ns, PMIX_UNIV_SIZE, sess.v.data(), 2);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->data.uint32, 64u);
    EXPECT_EQ(qualified(ns, PMIX_UNIV_SIZE, sess_other.v.data(), 2), nullptr);
    // The unqualified job level keeps answering as before, and knows nothing of the arrays' keys.
    v = lookup(ns, PMIX_RANK_WILDCARD, PMIX_HOSTNAME);
    ASSERT_NE(v, nullptr);
    EXPECT_STREQ(v->data.string, "n0");
    EXPECT_EQ(lookup(ns, PMIX_RANK_WILDCARD, PMIX_UNIV_SIZE), nullptr);
}

TEST(Registration, ASessionArrayWithoutItsIdIsRefused) {
    Infos job, session;
    session.num(PMIX_UNIV_SIZE, 64u, PMIX_UINT32);
    add_array(job, PMIX_SESSION_INFO_ARRAY, session);
    Namespace ns;
    EXPECT_EQ(parse(ns, job.v.data(), job.v.size(), "n0"), PMIX_ERR_BAD_PARAM);
}
