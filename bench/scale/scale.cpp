// bench/scale/scale.cpp - registration at scale, simulated: one server registers a job of
// P processes spread over H nodes (default 1,000,000 over 10,000) into the shared-memory store,
// exactly the keys our server publishes at PMIx_server_register_nspace (job level, one record
// per node with its host name alias, and per process PMIX_RANK, GLOBAL_RANK, LOCAL_RANK,
// NODE_RANK, NODEID, HOSTNAME, APPNUM). Prints registration time, shared-memory bytes per process
// and Get latency on that store (a reader in this process, mapping the segments read-only as a
// client would). Every value read is checked. Usage: bench-scale [procs] [nodes]
#include "gds/store.h"

#include <pmix_common.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using pmix::gds::Entity;
using Clock = std::chrono::steady_clock;
constexpr const char* kNs = "bench.scale";

pmix_value_t scalar(pmix_data_type_t type, std::uint64_t x) {
    pmix_value_t v{};
    v.type = type;
    switch (type) {
        case PMIX_UINT16:
            v.data.uint16 = static_cast<std::uint16_t>(x);
            break;
        case PMIX_PROC_RANK:
            v.data.rank = static_cast<pmix_rank_t>(x);
            break;
        default:
            v.data.uint32 = static_cast<std::uint32_t>(x);
            break;
    }
    return v;
}

pmix_value_t text(const std::string& s) {
    pmix_value_t v{};
    v.type = PMIX_STRING;
    v.data.string = const_cast<char*>(s.c_str());
    return v;
}

int fail(const char* what, pmix_status_t rc) {
    std::fprintf(stderr, "bench-scale: %s failed (status %d)\n", what, rc);
    return 1;
}

// Stages the registration; returns the first failure.
pmix_status_t stage(pmix::gds::StoreWriter& w, std::uint32_t procs, std::uint32_t nodes,
                    const std::vector<std::string>& hosts) {
    const std::uint32_t ppn = procs / nodes;
    pmix_status_t rc = w.begin_namespace(kNs);
    pmix_value_t v = scalar(PMIX_UINT32, procs);
    for (const char* key : {PMIX_JOB_SIZE, PMIX_MAX_PROCS, PMIX_UNIV_SIZE}) {
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::job(), key, v);
    }
    v = scalar(PMIX_UINT32, nodes);
    if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::job(), PMIX_NUM_NODES, v);
    for (std::uint32_t n = 0; n < nodes && rc == PMIX_SUCCESS; ++n) {
        pmix_value_t h = text(hosts[n]);
        pmix_value_t id = scalar(PMIX_UINT32, n);
        pmix_value_t sz = scalar(PMIX_UINT32, ppn);
        rc = w.put(kNs, Entity::node(n), PMIX_HOSTNAME, h);
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::node(n), PMIX_NODEID, id);
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::node(n), PMIX_LOCAL_SIZE, sz);
        if (rc == PMIX_SUCCESS) rc = w.alias_node(kNs, hosts[n], n);
    }
    for (std::uint32_t r = 0; r < procs && rc == PMIX_SUCCESS; ++r) {
        const std::uint32_t node = r / ppn;
        pmix_value_t rank = scalar(PMIX_PROC_RANK, r);
        pmix_value_t local = scalar(PMIX_UINT16, r % ppn);
        pmix_value_t nodeid = scalar(PMIX_UINT32, node);
        pmix_value_t app = scalar(PMIX_UINT32, 0);
        pmix_value_t host = text(hosts[node]);
        rc = w.put(kNs, Entity::proc(r), PMIX_RANK, rank);
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::proc(r), PMIX_GLOBAL_RANK, rank);
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::proc(r), PMIX_LOCAL_RANK, local);
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::proc(r), PMIX_NODE_RANK, local);
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::proc(r), PMIX_NODEID, nodeid);
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::proc(r), PMIX_HOSTNAME, host);
        if (rc == PMIX_SUCCESS) rc = w.put(kNs, Entity::proc(r), PMIX_APPNUM, app);
    }
    return rc;
}

// Mean Get latency over `calls` random ranks (PMIX_NODEID and PMIX_HOSTNAME alternately).
double get_latency_ns(pmix::gds::StoreReader& reader, std::uint32_t procs, std::uint32_t ppn,
                      const std::vector<std::string>& hosts, int calls, bool* ok) {
    std::mt19937 rng(42);
    std::vector<std::uint32_t> ranks(4096);
    for (auto& r : ranks) r = rng() % procs;
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) {
        const std::uint32_t r = ranks[static_cast<std::size_t>(i) & 4095];
        pmix_value_t v{};
        const bool host = (i & 1) != 0;
        if (reader.get(kNs, Entity::proc(r), host ? PMIX_HOSTNAME : PMIX_NODEID, &v) !=
            PMIX_SUCCESS) {
            *ok = false;
            return 0;
        }
        if (host) {
            *ok = *ok && std::strcmp(v.data.string, hosts[r / ppn].c_str()) == 0;
            std::free(v.data.string);
        } else {
            *ok = *ok && v.data.uint32 == r / ppn;
        }
    }
    return std::chrono::duration<double, std::nano>(Clock::now() - t0).count() / calls;
}

}  // namespace

int main(int argc, char** argv) {
    const std::uint32_t procs = argc > 1 ? static_cast<std::uint32_t>(std::atol(argv[1])) : 1000000;
    const std::uint32_t nodes = argc > 2 ? static_cast<std::uint32_t>(std::atol(argv[2])) : 10000;
    if (procs == 0 || nodes == 0 || procs % nodes != 0) {
        std::fprintf(stderr, "usage: bench-scale [procs] [nodes]  (procs a multiple of nodes)\n");
        return 2;
    }
    std::vector<std::string> hosts(nodes);
    for (std::uint32_t n = 0; n < nodes; ++n) hosts[n] = "nid" + std::to_string(100000 + n);
    pmix_status_t rc = PMIX_SUCCESS;
    auto writer = pmix::gds::make_shm_store({}, &rc);
    if (writer == nullptr) return fail("creating the shared-memory store", rc);
    std::fprintf(stderr, "bench-scale: registering %u processes over %u nodes ...\n", procs, nodes);
    const auto t0 = Clock::now();
    rc = stage(*writer, procs, nodes, hosts);
    if (rc == PMIX_SUCCESS) rc = writer->commit();
    const double reg_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (rc != PMIX_SUCCESS) return fail("registration", rc);
    pmix::gds::NamespaceStats stats;
    if ((rc = writer->stats(kNs, stats)) != PMIX_SUCCESS) return fail("stats", rc);
    auto reader = pmix::gds::open_shm_reader(writer->locator(), &rc);
    if (reader == nullptr) return fail("opening a reader", rc);
    bool ok = true;
    get_latency_ns(*reader, procs, procs / nodes, hosts, 20000, &ok);  // warm up (map, fault in)
    const double get_ns = get_latency_ns(*reader, procs, procs / nodes, hosts, 400000, &ok);
    if (!ok) return fail("reading back (wrong or missing value)", PMIX_ERROR);
    std::printf(
        "SCALE procs=%u nodes=%u register_ms=%.1f bytes_used=%zu bytes_per_proc=%.1f "
        "segments=%zu get_ns=%.1f\n",
        procs, nodes, reg_ms, stats.bytes_used, static_cast<double>(stats.bytes_used) / procs,
        stats.segments, get_ns);
    return 0;
}
