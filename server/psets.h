// server/psets.h - process sets the host defines (PMIx_server_define_process_set /
// PMIx_server_delete_process_set), kept by the server as OpenPMIx 4.2.2 keeps them.
//
// Contract: the server's loop thread only. Defining a set records it, writes each member's
// PMIX_PSET_NAMES (an array of the names of every set it belongs to, PMIX_STRING) into the store
// for members of namespaces this server knows, and notifies local clients with
// PMIX_PROCESS_SET_DEFINE (PMIX_EVENT_NON_DEFAULT, PMIX_PSET_NAME, PMIX_PSET_MEMBERS; range
// PMIX_RANGE_LOCAL, source the server), exactly the infos OpenPMIx sends. Deleting one removes it,
// rewrites its members' PMIX_PSET_NAMES (an empty array when none is left: the store cannot drop
// a key) and notifies PMIX_PROCESS_SET_DELETE (PMIX_EVENT_NON_DEFAULT, PMIX_PSET_NAME).
// A member with rank PMIX_RANK_WILDCARD stands for every rank of its namespace.
#pragma once

#include <pmix_common.h>

#include <string>
#include <utility>
#include <vector>

namespace pmix::server {

class State;

struct ProcessSet {
    std::string name;
    std::vector<pmix_proc_t> members;
};

// In definition order (the order PMIX_QUERY_PSET_NAMES lists them).
struct ProcessSets {
    std::vector<ProcessSet> sets;
    const ProcessSet* find(const std::string& name) const;
};

// PMIX_OPERATION_SUCCEEDED (as OpenPMIx returns) or PMIX_ERR_EXISTS for a name already defined.
pmix_status_t define_set(State& s, const std::string& name, std::vector<pmix_proc_t> members);
// PMIX_OPERATION_SUCCEEDED or PMIX_ERR_NOT_FOUND for a name not defined.
pmix_status_t delete_set(State& s, const std::string& name);

// The names of the sets `proc` belongs to (a WILDCARD member covers every rank of its namespace).
std::vector<std::string> sets_of(const ProcessSets& sets, const pmix_proc_t& proc);

}  // namespace pmix::server
