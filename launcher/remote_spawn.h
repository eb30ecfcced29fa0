// launcher/remote_spawn.h - PMIx_Spawn from a rank of a job across nodes.
//
// The rank's pmixd takes the upcall as pmixrun does (host.cpp spawn_fn builds the AppSpec) and
// hands it to the head (MessageKind::spawn). The head names the job "<main>.<k>", spreads its
// ranks over the nodes in blocks of equal size (the first nodes take one more when they do not
// divide), and sends every daemon its part (spawn_part: the whole layout). Each daemon registers
// the namespace with that layout (every node's rank counts: PMIX_NODE_MAP, PMIX_PROC_MAP, node
// arrays as for the main job), tells its fabric side the layout (fences and direct modex of the
// new job cross nodes as the main job's do), starts its ranks and reports (spawn_started). Once
// every node did, the head answers the requester's daemon (spawn_reply) with the namespace. The
// daemons report the new job's exits like the main job's; the head raises its lifecycle events
// (JOB_START, JOB_END, ...) for tools (PMIX_RANGE_SESSION). The debugger stops in its job info hold
// it on every node (debug_nodes.h head_debug_hold). Not across nodes: the requester's
// own PMIX_NOTIFY_* events and PMIX_FWD_STDIN (PMIX_ERR_NOT_SUPPORTED), PMIX_HOST placement.
#pragma once

#include "channel.h"
#include "launcher.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace pmix::launcher {

// An AppSpec as message fields (nprocs, pset, packed directives, wdir, fork agent, exec agent,
// argc, argv..., env...) and back; decode_app reads from `fields[at]` on and is false on a
// malformed list.
std::vector<std::string> encode_app(const AppSpec& app);
bool decode_app(const std::vector<std::string>& fields, size_t at, AppSpec& app);

// The head's side (head_spawn.cpp). `view` is the head's Launcher for tools: the new jobs'
// processes are added there (proc tables, lifecycle).
class HeadSpawner {
public:
    using Send =
        std::function<void(size_t node, MessageKind kind, const std::vector<std::string>& fields)>;
    HeadSpawner(Launcher& view, Send send) : view_(view), send_(std::move(send)) {}
    // A spawn request or a daemon's spawn_started; false for any other message.
    bool take(size_t node, const Message& message);
    // An `exited` report of a spawned job's process (rank, pid, code, nspace); false when it is
    // the main job's.
    bool exited(const Message& message);
    void node_lost(size_t node);  // spawns waiting for that node fail
    // True while node `node` has not reported its part of a spawn with ranks there: a `done` it
    // sent meanwhile was sent before the part arrived (the channel keeps order) and does not
    // count; it reports again once the new ranks ended (job.cpp run_loop).
    bool awaiting(size_t node) const;
    // The rank counts per node of the next request (the DVM's PMIX_HOST placement, dvm_head.h)
    // instead of equal blocks over every node; they must add up to its size.
    void place_next(std::vector<uint32_t> counts) { next_counts_ = std::move(counts); }
    // A spawn the head asks for itself (a tool attached to it: head_debug_spawn.cpp): `app` with
    // `counts` ranks per node (node order); `done` gets the namespace once every node started
    // its part, or the failure; its lifecycle events go to `parent` as `lifecycle` asks.
    using Done = std::function<void(pmix_status_t, const std::string& nspace)>;
    void spawn_here(const pmix_proc_t& parent, const AppSpec& app,
                    const std::vector<uint32_t>& counts, Done done);

private:
    struct Pending {
        size_t requester_node = 0;
        Done done;  // spawn_here's; else the requester's daemon gets spawn_reply
        std::string id;
        size_t waiting = 0;  // daemons yet to report their part
        pmix_status_t status = PMIX_SUCCESS;
        std::vector<bool> reported;
        std::vector<uint32_t> counts;  // ranks per node
    };
    void request(size_t node, const Message& message);
    // Sends every node its part of a new job of `counts` ranks per node; the Pending it waits in.
    Pending& launch(const pmix_proc_t& parent, const std::vector<uint32_t>& counts,
                    const std::vector<std::string>& app_fields,
                    const LifecycleRequest& lifecycle = {});
    void started(size_t node, const Message& message);
    void finish(const std::string& nspace, Pending& pending);
    // The job just launched asked for debugger stops: held on every node (debug_nodes.h).
    void hold(const pmix_proc_t& requester, const StopRequest& stops);

    Launcher& view_;
    Send send_;
    unsigned next_job_ = 1;
    std::map<std::string, Pending> pending_;  // by namespace
    std::vector<uint32_t> next_counts_;       // place_next's, for one request
};

// pmixd's side (remote_spawn.cpp): the requester's spawn goes to the head; the answer comes back
// in take_spawn_reply. Both on the launcher's loop.
void request_spawn(Channel* head, const pmix_proc_t& parent, const AppSpec& app,
                   pmix_spawn_cbfunc_t cbfunc, void* cbdata);
void take_spawn_reply(const Message& message);
// This node's part of a job the head placed: registered, started, reported (spawn_started).
// `add_layout` hands the job's layout to the fabric side before any rank starts.
void take_spawn_part(Launcher& launcher, Channel& head, const Message& message,
                     const std::function<void(const std::string&, const Layout&)>& add_layout);
void fail_spawn_requests(pmix_status_t status);  // the head is gone

}  // namespace pmix::launcher
