// server/store.h - the in-process data store of the server (issue #3; gds/ replaces it in #4).
//
// Job-level, per-rank (registered by the host or derived from its maps) and modex data (what
// clients commit, or what a fence / direct modex brought in) for every namespace.
// Loop-thread state: only the server's progress thread touches it.
#pragma once

#include <pmix_common.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

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

private:
    pmix_value_t v_;
};

using KeyMap = std::map<std::string, Value>;

struct ModexEntry {
    pmix_scope_t scope = PMIX_GLOBAL;
    Value value;
};

struct Namespace {
    std::string name;
    int nlocalprocs = 0;
    bool registered = false;              // register_nspace seen (clients may come first)
    KeyMap job;                           // job-level keys
    std::map<pmix_rank_t, KeyMap> ranks;  // per-proc keys
    std::map<std::uint32_t, KeyMap> apps;
    std::vector<KeyMap> nodes;
    std::map<pmix_rank_t, std::map<std::string, ModexEntry>> modex;
    std::set<pmix_rank_t> local_ranks;  // from the host's info or registered clients
};

// Parses register_nspace's info into `ns` (and derives the per-proc keys a client expects).
// `hostname` is this node's name, used to find the local node in PMIX_NODE_MAP.
pmix_status_t parse_registration(Namespace& ns, const pmix_info_t* info, std::size_t ninfo,
                                 const std::string& hostname);

// Key lookup for a proc: rank keys, then modex, then (app, job). Rank WILDCARD: job level.
const pmix_value_t* lookup(const Namespace& ns, pmix_rank_t rank, const std::string& key);

// Every key of a proc (rank keys + modex), or the job level for WILDCARD, as info pairs.
std::vector<std::pair<std::string, Value>> all_keys(const Namespace& ns, pmix_rank_t rank);

}  // namespace pmix::server
