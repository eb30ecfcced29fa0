// launcher/remote_connect.h - PMIx_Connect / PMIx_Disconnect across nodes.
//
// The server library collects a node's callers of one operation and makes ONE upcall per node
// with the whole proc array (server/connect_tracker.h; OpenPMIx does the same), and none when
// every participant is on that node. So each pmixd forwards its node's upcall to the head
// (MessageKind::connect) and the head counts NODES: the operation (connect or disconnect over the
// same set, in any order) completes once every node hosting a process the set names (a
// namespace's wildcard rank meaning each of its ranks), and every node that called, has called;
// every caller is then answered (connect_reply), like a fence. A later call over the same set
// starts the next operation. PMIX_TIMEOUT (seconds) bounds the wait: every caller of an
// operation past its earliest deadline gets PMIX_ERR_TIMEOUT; a named process that ended, or a
// node that is gone, fails it with PMIX_ERR_LOST_CONNECTION. A namespace the head does not know
// (nor a rank beyond its size) is PMIX_ERR_NOT_FOUND. The connected namespaces' job information
// is already on every node: the main job is registered on each, and so is every job spawned
// across the nodes (remote_spawn.h), so nothing else is needed for their PMIx_Get.
#pragma once

#include "channel.h"
#include "launcher.h"

#include <functional>
#include <map>
#include <set>
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
    void node_lost(size_t node);  // operations that need that node fail (a member is gone)

    using Named = std::vector<std::pair<std::string, pmix_rank_t>>;  // (nspace, rank or WILDCARD)

private:
    struct Caller {
        size_t node = 0;
        std::string id;
    };
    struct Operation {
        Named named;             // the set as given
        std::set<size_t> nodes;  // every node that must call: those hosting the set, the callers'
        std::vector<Caller> callers;
        bool has_deadline = false;
        Clock::time_point deadline;
    };
    // The set's processes' nodes and names into `operation`; false when it names a namespace or
    // rank the job does not have.
    bool participants(const std::vector<std::string>& fields, Operation& operation) const;
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
