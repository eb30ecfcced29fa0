// launcher/remote_connect.h - PMIx_Connect / PMIx_Disconnect across nodes.
//
// Our server hands each client's call up as it comes (the upcall names the procs, not the
// caller), so each pmixd forwards every call to the head (MessageKind::connect) and the head
// counts: the operation completes when as many calls naming the same procs (the same set, in any
// order, a namespace's wildcard rank meaning each of its ranks) arrived as the set has processes,
// from whichever nodes; every caller is then answered (connect_reply), like a fence. A later call
// over the same set starts the next operation. PMIX_TIMEOUT (seconds) bounds the wait: every
// caller of an operation past its deadline gets PMIX_ERR_TIMEOUT. A namespace the head does not
// know (nor a rank beyond its size) is PMIX_ERR_NOT_FOUND. The connected namespaces' job
// information is already on every node: the main job is registered on each, and so is every job
// spawned across the nodes (remote_spawn.h), so nothing else is needed for their PMIx_Get.
#pragma once

#include "channel.h"
#include "launcher.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pmix::launcher {

// The head's side (head_connect.cpp). `view` is the head's Launcher for tools (job sizes).
class HeadConnector {
public:
    using Send = std::function<void(size_t node, const std::vector<std::string>& fields)>;
    HeadConnector(const Launcher& view, Send send) : view_(view), send_(std::move(send)) {}
    bool take(size_t node, const Message& message);  // false: not a connect message
    void tick(Clock::time_point now);                // operations past their PMIX_TIMEOUT
    void node_lost(size_t node);  // operations with a caller there fail (a member is gone)

private:
    struct Caller {
        size_t node = 0;
        std::string id;
    };
    struct Operation {
        size_t expected = 0;
        std::vector<Caller> callers;
        bool has_deadline = false;
        Clock::time_point deadline;
    };
    // The set's size, or 0 when it names a namespace or rank the job does not have.
    size_t members(const std::vector<std::string>& fields) const;
    void answer(const Operation& operation, pmix_status_t status);

    const Launcher& view_;
    Send send_;
    std::map<std::string, Operation> operations_;  // by connect/disconnect + sorted set
};

// pmixd's side (remote_connect.cpp): the connect/disconnect upcalls, the head's reply, and the
// calls still waiting when the head is gone.
void fill_remote_connect(pmix_server_module_t& module);
void take_connect_reply(const Message& message);
void fail_connect_requests(pmix_status_t status);

}  // namespace pmix::launcher
