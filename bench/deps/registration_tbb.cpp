// bench/deps/registration_tbb.cpp - does a TBB parallel algorithm help registering 1,000,000
// processes? Times each step our server takes at PMIx_server_register_nspace when the host gives
// PMIX_NODE_MAP / PMIX_PROC_MAP, serially and with tbb::parallel_for where the step splits:
//   parse    maps::parse_nodes + maps::parse_ppn of the two regexes (one string each: serial)
//   derive   per-proc node id, local rank, node rank, host (from the parsed maps; per node)
//   peers    each node's PMIX_LOCAL_PEERS string ("0,1,...") - the per-node blob (per node)
//   store    staging every value in gds::StoreWriter and commit (one writer thread per store)
//   fabric   the ofi-tcp plugin (serial only: its result is one std::map): setup_application's
//            blob on the launcher, then setup_local on one node, which builds every process's
//            PMIX_FABRIC_ENDPT
// Median of R reps in ms. Usage: bench-deps-tbb [procs] [nodes] [reps]
#include "fabric/plugins/plugin.h"
#include "gds/store.h"
#include "maps/node_regex.h"

#include <pmix_common.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using pmix::gds::Entity;

struct Maps {
    std::vector<std::string> hosts;
    std::vector<std::vector<pmix_rank_t>> ranks;  // per node
};

struct PerProc {
    std::vector<std::uint32_t> node;
    std::vector<std::uint16_t> local;
};

double ms_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The host's side: the two regexes for procs over nodes (block mapping), built once.
bool make_regexes(std::uint32_t procs, std::uint32_t nodes, std::string& nm, std::string& pm) {
    std::string list, ranks;
    const std::uint32_t ppn = procs / nodes;
    for (std::uint32_t n = 0; n < nodes; ++n) {
        if (n != 0) {
            list += ',';
            ranks += ';';
        }
        list += "nid";
        list += std::to_string(100000 + n);
        ranks += std::to_string(n * ppn);
        ranks += '-';
        ranks += std::to_string(n * ppn + ppn - 1);
    }
    auto a = pmix::maps::generate_regex(list);
    auto b = pmix::maps::generate_ppn(ranks);
    nm = a.value;
    pm = b.value;
    return a.ok() && b.ok();
}

void derive_node(const Maps& m, std::size_t n, PerProc& out) {
    const auto& ranks = m.ranks[n];
    for (std::size_t l = 0; l < ranks.size(); ++l) {
        out.node[ranks[l]] = static_cast<std::uint32_t>(n);
        out.local[ranks[l]] = static_cast<std::uint16_t>(l);
    }
}

std::string join_ranks(const std::vector<pmix_rank_t>& ranks) {
    std::string s;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        if (i) s += ',';
        s += std::to_string(ranks[i]);
    }
    return s;
}

template <class F>
void per_node(bool parallel, std::size_t nodes, F&& f) {
    if (!parallel) {
        for (std::size_t n = 0; n < nodes; ++n) f(n);
        return;
    }
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodes),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t n = r.begin(); n != r.end(); ++n) f(n);
                      });
}

pmix_value_t scalar(pmix_data_type_t type, std::uint32_t x) {
    pmix_value_t v{};
    v.type = type;
    if (type == PMIX_UINT16) {
        v.data.uint16 = static_cast<std::uint16_t>(x);
    } else {
        v.data.uint32 = x;  // PMIX_PROC_RANK and PMIX_UINT32 share the 32-bit member's bytes
    }
    return v;
}

pmix_status_t store(const Maps& m, const PerProc& p, const std::vector<std::string>& peers) {
    pmix_status_t rc = PMIX_SUCCESS;
    auto w = pmix::gds::make_shm_store({}, &rc);
    if (w == nullptr) return rc;
    const char* ns = "bench.deps";
    rc = w->begin_namespace(ns);
    for (std::uint32_t n = 0; n < m.hosts.size() && rc == PMIX_SUCCESS; ++n) {
        pmix_value_t h{};
        h.type = PMIX_STRING;
        h.data.string = const_cast<char*>(m.hosts[n].c_str());
        pmix_value_t lp = h;
        lp.data.string = const_cast<char*>(peers[n].c_str());
        rc = w->put(ns, Entity::node(n), PMIX_HOSTNAME, h);
        if (rc == PMIX_SUCCESS) rc = w->put(ns, Entity::node(n), PMIX_LOCAL_PEERS, lp);
        if (rc == PMIX_SUCCESS) rc = w->alias_node(ns, m.hosts[n], n);
    }
    for (std::uint32_t r = 0; r < p.node.size() && rc == PMIX_SUCCESS; ++r) {
        pmix_value_t host{};
        host.type = PMIX_STRING;
        host.data.string = const_cast<char*>(m.hosts[p.node[r]].c_str());
        rc = w->put(ns, Entity::proc(r), PMIX_RANK, scalar(PMIX_PROC_RANK, r));
        if (rc == PMIX_SUCCESS) rc = w->put(ns, Entity::proc(r), PMIX_HOSTNAME, host);
        if (rc == PMIX_SUCCESS) {
            rc = w->put(ns, Entity::proc(r), PMIX_NODEID, scalar(PMIX_UINT32, p.node[r]));
        }
        if (rc == PMIX_SUCCESS) {
            rc = w->put(ns, Entity::proc(r), PMIX_LOCAL_RANK, scalar(PMIX_UINT16, p.local[r]));
        }
        if (rc == PMIX_SUCCESS) {
            rc = w->put(ns, Entity::proc(r), PMIX_NODE_RANK, scalar(PMIX_UINT16, p.local[r]));
        }
    }
    return rc == PMIX_SUCCESS ? w->commit() : rc;
}

// The ofi-tcp plugin's two steps for the whole job; returns the milliseconds of each, or false.
bool fabric_steps(const Maps& m, double& app_ms, double& local_ms) {
    pmix::fabric::Plugin* plugin = pmix::fabric::find_plugin("ofi-tcp");
    if (plugin == nullptr) return false;
    std::string addrs;  // one IPv4 address per node, so nothing is resolved by name
    for (std::size_t n = 0; n < m.hosts.size(); ++n) {
        if (n != 0) addrs += ',';
        addrs += "10." + std::to_string(n >> 8 & 255) + "." + std::to_string(n & 255) + ".1";
    }
    pmix_info_t info{};
    std::strncpy(info.key, "pmix.cpp.node.addrs", PMIX_MAX_KEYLEN);
    info.value.type = PMIX_STRING;
    info.value.data.string = addrs.data();
    pmix::fabric::JobMap map{"bench.deps", m.hosts, m.ranks};
    char* env[] = {nullptr};
    pmix::fabric::AppRequest app{map, &info, 1, false, true, env};
    pmix::fabric::Blob blob;
    std::string why;
    auto t0 = Clock::now();
    if (plugin->setup_application(app, blob, why) != PMIX_SUCCESS || blob.empty()) return false;
    app_ms = ms_since(t0);
    pmix::fabric::LocalRequest local{map, 0, blob};
    pmix::fabric::LocalResult out;
    t0 = Clock::now();
    if (plugin->setup_local(local, out, why) != PMIX_SUCCESS) return false;
    local_ms = ms_since(t0);
    return out.proc.size() == map.ranks.size() * map.ranks[0].size();
}

struct Times {
    double parse = 0, derive = 0, peers = 0, store = 0;
};

bool run_once(const std::string& nm, const std::string& pm, std::uint32_t procs, bool parallel,
              bool with_store, Times& t) {
    auto t0 = Clock::now();
    auto nodes = pmix::maps::parse_nodes(nm);
    auto ranks = pmix::maps::parse_ppn(pm);
    t.parse = ms_since(t0);
    if (!nodes.ok() || !ranks.ok() || nodes.value.size() != ranks.value.size()) return false;
    Maps m{std::move(nodes.value), std::move(ranks.value)};
    PerProc p{std::vector<std::uint32_t>(procs), std::vector<std::uint16_t>(procs)};
    t0 = Clock::now();
    per_node(parallel, m.hosts.size(), [&](std::size_t n) { derive_node(m, n, p); });
    t.derive = ms_since(t0);
    std::vector<std::string> peers(m.hosts.size());
    t0 = Clock::now();
    per_node(parallel, m.hosts.size(), [&](std::size_t n) { peers[n] = join_ranks(m.ranks[n]); });
    t.peers = ms_since(t0);
    // Checked, so neither variant can skip work: the last rank sits on the last node.
    if (p.node[procs - 1] != m.hosts.size() - 1 || peers.back().empty()) return false;
    if (with_store) {
        t0 = Clock::now();
        if (store(m, p, peers) != PMIX_SUCCESS) return false;
        t.store = ms_since(t0);
    }
    return true;
}

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    const std::uint32_t procs = argc > 1 ? static_cast<std::uint32_t>(std::atol(argv[1])) : 1000000;
    const std::uint32_t nodes = argc > 2 ? static_cast<std::uint32_t>(std::atol(argv[2])) : 10000;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 7;
    std::string nm, pm;
    if (procs == 0 || nodes == 0 || procs % nodes != 0 || reps <= 0 ||
        !make_regexes(procs, nodes, nm, pm)) {
        std::fprintf(stderr, "usage: bench-deps-tbb [procs] [nodes] [reps] (procs = k x nodes)\n");
        return 2;
    }
    std::printf("%u procs on %u nodes; node map %zu bytes, proc map %zu bytes; median of %d\n",
                procs, nodes, nm.size(), pm.size(), reps);
    std::printf("| variant | parse (ms) | derive (ms) | peers (ms) | store (ms) |\n");
    std::printf("|---|---|---|---|---|\n");
    std::vector<Times> serial, parallel;
    for (int i = 0; i < reps; ++i) {  // alternate the variants against drift
        Times a, b;
        if (!run_once(nm, pm, procs, false, true, a) || !run_once(nm, pm, procs, true, false, b)) {
            std::fprintf(stderr, "bench-deps-tbb: a step failed\n");
            return 1;
        }
        serial.push_back(a);
        parallel.push_back(b);
    }
    for (int v = 0; v < 2; ++v) {
        const auto& ts = v == 0 ? serial : parallel;
        std::vector<double> a, b, c, d;
        for (const auto& t : ts) {
            a.push_back(t.parse);
            b.push_back(t.derive);
            c.push_back(t.peers);
            d.push_back(t.store);
        }
        std::printf("| %s | %.1f | %.1f | %.1f | ",
                    v == 0 ? "serial" : "tbb::parallel_for (2 cores)", median(a), median(b),
                    median(c));
        if (v == 0) {
            std::printf("%.1f |\n", median(d));
        } else {
            std::printf("(one writer thread) |\n");
        }
    }
    std::vector<double> app, local;
    for (int i = 0; i < reps; ++i) {
        auto nodes = pmix::maps::parse_nodes(nm);
        auto ranks = pmix::maps::parse_ppn(pm);
        Maps m{std::move(nodes.value), std::move(ranks.value)};
        double a = 0, l = 0;
        if (!fabric_steps(m, a, l)) {
            std::fprintf(stderr, "bench-deps-tbb: the ofi-tcp plugin's steps failed\n");
            return 1;
        }
        app.push_back(a);
        local.push_back(l);
    }
    std::printf("ofi-tcp plugin (serial): setup_application %.1f ms, setup_local %.1f ms\n",
                median(app), median(local));
    return 0;
}
