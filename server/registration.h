// server/registration.h - register_nspace's info, parsed and then written into the store.
//
// The store (gds/, published by publish.h) is the server's only copy of job data: a
// Registration lives from parse_registration (on the host's thread, while its info is valid)
// to publish_registration (on the loop thread) and is then dropped. Per-process keys the host
// left out (PMIX_RANK, PMIX_LOCAL_RANK, PMIX_HOSTNAME, ... from PMIX_NODE_MAP/PMIX_PROC_MAP or
// PMIX_LOCAL_PEERS) are never held here: publish_registration derives them rank by rank while
// writing, so a 1,000,000-process registration from two regexes costs the server a few bytes
// per process of transient rank facts, not a map of values per process.
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace pmix::gds {
class StoreWriter;
}

namespace pmix::server {

// An owned deep copy of a pmix_value_t.
class Value {
public:
    Value() noexcept;
    explicit Value(const pmix_value_t& v);
    Value(const Value& o);
    Value& operator=(const Value& o);
    ~Value();
    const pmix_value_t& get() const noexcept { return v_; }
    // For filling by a function that writes a pmix_value_t (the previous value is released).
    pmix_value_t* reset() noexcept;

private:
    pmix_value_t v_;
};

using KeyMap = std::map<std::string, Value>;

// Ranks as sorted, disjoint closed intervals: the ranks a registration names, at 8 bytes per
// run of consecutive ranks instead of a node per rank.
using RankRuns = std::vector<std::pair<pmix_rank_t, pmix_rank_t>>;

// What one rank's derived keys come from (publish_registration).
struct RankFacts {
    static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
    pmix_rank_t rank = 0;
    std::uint32_t node = kNone;        // index in map_nodes, when the maps name the rank
    std::uint32_t map_local = 0;       // its position on that node
    std::uint32_t peer_local = kNone;  // its position in PMIX_LOCAL_PEERS
    bool given = false;                // the host gave PMIX_PROC_DATA for it
};

struct Registration {
    std::string name;
    int nlocalprocs = 0;
    std::string hostname;  // this node, for PMIX_HOSTNAME of local procs
    KeyMap job;            // the host's job-level keys and the derived ones
    std::map<std::uint32_t, KeyMap> apps;
    std::vector<KeyMap> nodes;
    std::map<std::uint32_t, KeyMap> sessions;  // PMIX_SESSION_INFO_ARRAY by PMIX_SESSION_ID
    std::map<pmix_rank_t, KeyMap> given;       // PMIX_PROC_DATA, as the host gave it
    std::vector<std::string> map_nodes;        // PMIX_NODE_MAP's host names
    std::vector<RankFacts> ranks;              // every rank named, sorted, each once
    std::set<pmix_rank_t> local_ranks;         // from the maps or PMIX_LOCAL_PEERS
};

// Parses register_nspace's info into `reg` (reg.name, nlocalprocs and hostname set by the
// caller). Copies what the host gave; derives the job-level keys it left out.
pmix_status_t parse_registration(Registration& reg, const pmix_info_t* info, std::size_t ninfo);

// Writes everything of `reg` into the store (job, apps, nodes, every rank's keys) and commits.
// A value the store cannot hold is skipped; other failures are returned.
pmix_status_t publish_registration(gds::StoreWriter& w, const Registration& reg);

// The ranks `reg` names, as runs.
RankRuns rank_runs(const Registration& reg);

}  // namespace pmix::server
