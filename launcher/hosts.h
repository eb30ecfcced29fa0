// launcher/hosts.h - which nodes a job runs on (--host, --hostfile) and where each rank goes, in
// the launcher's parser library (no PMIx header).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pmix::launcher {

constexpr int kMaxSlots = 4096;  // per node, as for -n

// One node of the job and how many ranks it runs.
struct NodeSlot {
    std::string name;
    int slots = 1;
};

// Where every rank of the main job runs; one node (this host) for single-node pmixrun.
struct Layout {
    std::vector<NodeSlot> nodes;
    std::vector<uint32_t> first_rank, rank_count;  // per node
    size_t here = 0;                               // this process's node
    // Block mapping of `nprocs` ranks over the nodes' slots (node 0 gets ranks 0..slots0-1, ...);
    // false if they do not fit.
    bool map(uint32_t nprocs);
    size_t node_of(uint32_t rank) const;  // nodes.size() if out of range
};

// Parses "a:2,b,c:4" (a name without a count has 1 slot) and appends the nodes to `out`. False
// with `error` set on a malformed entry, a slot count outside 1..4096, a node named twice (also
// against what `out` already holds) or an empty list.
bool parse_host_list(const std::string& list, std::vector<NodeSlot>& out, std::string& error);

// A hostfile: one node per line, "name slots=N", "name:N" or "name"; '#' starts a comment; blank
// lines are skipped. Errors name the file (`source`) and the line: "hosts:2: unexpected 'x'".
bool parse_hostfile_text(const std::string& text, const std::string& source,
                         std::vector<NodeSlot>& out, std::string& error);
bool parse_hostfile(const std::string& path, std::vector<NodeSlot>& out, std::string& error);

}  // namespace pmix::launcher
