// server/clients.h - the processes connected to (or registered with) this server.
//
// Contract: the server's loop thread only. A Client is created by register_client (or a tool's
// admission, tools.cpp) and owns its connection; it is erased by deregister_client, by the
// deregistration of its namespace, or at finalize. `committed` is set by its first commit and
// never cleared: from then on its data is in the store (publish.h) and Gets of it do not wait.
#pragma once

#include "wire/connection.h"

#include <pmix_common.h>

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace pmix::server {

using ProcKey = std::pair<std::string, pmix_rank_t>;

// Paths a client asked the server to remove when it ends (cleanup.cpp).
struct CleanupRequest {
    std::vector<std::string> files, dirs, ignore;
    bool recursive = false, empty_only = false, leave_topdir = false;
};

struct Client {
    pmix_proc_t proc{};
    uid_t uid = 0;
    gid_t gid = 0;
    pid_t pid = 0;  // from SO_PEERCRED, once connected
    void* server_object = nullptr;
    std::shared_ptr<wire::Connection> conn;
    bool finalized = false;
    bool lost = false;       // its connection closed before it finalized
    bool committed = false;  // has sent at least one commit
    bool own_segment = false;  // its own modex segment is named in the store (gds/proc_segment.h)
    bool tool = false;       // a tool admitted by the host's tool_connected (tools.cpp)
    std::vector<CleanupRequest> cleanups;
};

// Clients by (namespace, rank), in that order: a namespace's clients are one range.
using ClientTable = std::map<ProcKey, Client>;

}  // namespace pmix::server
