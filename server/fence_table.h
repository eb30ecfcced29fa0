// server/fence_table.h - the fences in progress at this server (fence.cpp).
//
// Contract: the server's loop thread only. A Fence is opened by the first local participant's
// request, collects the others' arrivals, calls the host's fence_nb once every local
// participant is in (or completes locally) and is erased when it completes, fails or its last
// expected participant leaves. Its id is the cbdata of the host's fence_nb upcall.
#pragma once

#include "exec/executor.h"
#include "server/clients.h"
#include "server/id_table.h"
#include "server/pending.h"
#include "wire/proto/message.h"

#include <pmix_common.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace pmix::server {

struct Fence {
    std::uint64_t id = 0;
    std::string signature;           // sorted participant list
    std::vector<pmix_proc_t> procs;  // as the clients gave them
    std::set<ProcKey> expected;      // local participants
    std::map<ProcKey, ReplyTo> arrived;
    data::InfoArray info;  // the first arrival's directives, passed to the host
    bool collect = false;
    bool host_called = false;
    pmix_status_t failed = PMIX_SUCCESS;  // once set, arrivals are answered with it
    // PARTIAL_SUCCESS / LOST_CONNECTION once a participant died in a fence that spans nodes
    // (passed to the host as PMIX_LOCAL_COLLECTIVE_STATUS).
    pmix_status_t local_status = PMIX_SUCCESS;
    exec::TimerId timer = exec::kInvalidTimer;
    std::size_t fetching = 0;  // whole-data fetches still out after the host answered
};

using FenceTable = IdTable<Fence>;

}  // namespace pmix::server
