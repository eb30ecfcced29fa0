// server/state.h - the server's state and the methods that run on its progress thread.
//
// One State exists between PMIx_server_init and PMIx_server_finalize. It is composed of named
// parts, each in its own header with its contract: namespaces.h (bookkeeping; values live only
// in the store, publish.h), clients.h, fence_table.h, pending.h (commit and direct-modex waits),
// tool_registry.h, events.h, app_env.h and board.h (the two shared with the host's thread, each
// under its own lock). Everything except the identity (set in init, read-only after) and those
// two locked parts is touched only on the executor's thread: C API calls post work to it, host
// callbacks (any thread) post their results back to it. The methods below coordinate several
// parts (a commit answers waits, a fence reads the store, a lost client fails fences).
#pragma once

#include "exec/executor.h"
#include "exec/log.h"
#include "gds/store.h"
#include "server/app_env.h"
#include "server/board.h"
#include "server/clients.h"
#include "server/connect_tracker.h"
#include "server/credential.h"
#include "server/events.h"
#include "server/fence_table.h"
#include "server/groups.h"
#include "server/iof.h"
#include "server/job_access.h"
#include "server/modex_delta.h"
#include "server/monitor.h"
#include "server/namespaces.h"
#include "server/own_segments.h"
#include "server/pending.h"
#include "server/psets.h"
#include "server/registration.h"
#include "server/resources.h"
#include "server/tool_registry.h"
#include "wire/connection.h"
#include "wire/listener.h"
#include "wire/proto/message.h"

#include <pmix_server.h>

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pmix::server {

class State {
public:
    // Members are destroyed bottom-up: the executor (declared first) goes last, after every
    // connection that refers to it.
    std::unique_ptr<exec::Executor> ex;
    pmix_server_module_t module{};
    std::string hostname;
    std::string nspace;  // the server's own identity
    pmix_rank_t rank = 0;
    std::string session_dir;
    std::string socket_path;
    std::string socket_dir;  // set only when the socket could not fit below session_dir
    std::string tmpdir;      // parent of session_dir
    std::vector<std::string> created_tmpdirs;  // levels of tmpdir we had to make (removed if empty)
    std::shared_ptr<wire::Listener> listener;
    bool finalizing = false;
    // Connected clients that have not finalized, pid -> uid: whose own modex segments
    // (gds/proc_segment.h) the server removes when it finalizes, also when its thread is stuck in
    // the host and the client table cannot be read (server.cpp, abandon). Under its own mutex.
    std::mutex unfinished_mu;
    std::map<pid_t, uid_t> unfinished;

    // The parts, each with its contract in its header.
    NamespaceTable namespaces;  // namespaces.h: bookkeeping, no values
    ClientTable clients;        // clients.h
    FenceTable fences;          // fence_table.h
    GroupTable groups;          // groups.h: group operations and constructed groups
    ConnectTable connects;      // connect_tracker.h: PMIx_Connect / PMIx_Disconnect in progress
    PendingRequests pending;    // pending.h: commit waits, direct-modex waits
    EventRegistry events;       // events.h
    EventCache event_cache;     // events.h: lifecycle events for late registrations
    ToolRegistry tools;         // tool_registry.h
    AppEnvironment app_env;     // app_env.h: shared with the host's thread (setup_fork)
    FenceBoards boards;         // board.h: shared with the host's thread
    JobAccess access;           // job_access.h: jobs of other users; shared with the host's thread
    GlobalResources resources;  // resources.h: registered resources, delivered inventories
    CredentialAuthority credentials;  // credential.h: the library's own credentials
    MonitorTable monitors;            // monitor.h: heartbeat and file monitors
    ProcessSets psets;                // psets.h: the host's process sets
    IofTable iof;                     // iof.h: IO forwarding registrations and cache
    // modex_delta.h: what this server's blobs shipped, and what it holds of remote processes.
    ModexLog modex_log{new_modex_epoch(), delta_base_from_env()};
    ModexHeld modex_held;
    // setup_local_support's info per namespace, kept for the fabric plugins (setup_app.cpp).
    std::map<std::string, std::vector<std::pair<std::string, Value>>> local_support;
    // The one store of values (publish.h): written here, read by clients and by the server's
    // own reader. Shared memory unless PMIX_GDS_MODULE says otherwise.
    std::unique_ptr<gds::StoreWriter> store;
    std::unique_ptr<gds::StoreReader> reader;  // destroyed before `store`
    OwnSegments own_segments;                  // clients' own modex segments, read for Gets

    // Loop thread. Accepting and serving clients (requests.cpp).
    wire::Verdict accept(const std::shared_ptr<wire::Connection>& conn, const wire::Peer& peer);
    void on_message(const ProcKey& who, wire::Connection& conn, wire::Frame&& frame);
    void on_closed(const ProcKey& who);
    void shutdown_connections();
    // Tools (tools.cpp): a Role::tool Hello, its kToolAttach, the host's answer, its departure.
    wire::Verdict accept_tool(const std::shared_ptr<wire::Connection>& conn,
                              const wire::Peer& peer);
    void tool_attach(std::uint64_t ask, wire::Connection& conn, wire::Frame&& frame);
    void tool_admitted(std::uint64_t ask, pmix_status_t status, const pmix_proc_t& proc);
    void tool_gone(const ProcKey& who);
    // Ops answered by the host module (host_ops.cpp). PMIX_SUCCESS: the reply is taken care of;
    // PMIX_ERR_UNPACK_FAILURE: undecodable; else the status to reply with.
    pmix_status_t forward_to_host(Client& c, proto::Reader& r, wire::Connection& conn,
                                  const wire::Frame& frame);

    // Credentials (credential_ops.cpp): kGetCredential / kValidateCredential; the same returns
    // as forward_to_host.
    pmix_status_t credential_request(Client& c, proto::Reader& r, wire::Connection& conn,
                                     const wire::Frame& frame);
    // Process monitors (monitor.cpp): kMonitor / kHeartbeat (same returns), a beat, and the
    // monitors of a client whose connection closed (ended without an event).
    pmix_status_t monitor_request(const ProcKey& who, Client& c, proto::Reader& r,
                                  wire::Connection& conn, const wire::Frame& frame);
    void heartbeat_from(const ProcKey& who);
    void monitors_client_lost(const ProcKey& who);

    // Events (events.cpp): kRegisterEvents / kDeregisterEvents / kNotify from a client, and a
    // client whose connection was lost (before it finalized or not).
    void events_request(const ProcKey& who, Client& c, proto::Reader& r, wire::Connection& conn,
                        const wire::Frame& frame);
    void events_client_lost(const ProcKey& who);
    // Sends `ev` to every local client its range and their registrations select; returns how
    // many got it. Also the path of PMIx_Notify_event called in the server process.
    std::size_t deliver_event(const Event& ev);
    // The cached events of `codes` that reach `c`, sent to it for its handler `handler_id`.
    void replay_cached_events(const Client& c, const std::vector<pmix_status_t>& codes,
                              std::size_t handler_id);
    // Job_control cleanup registrations (cleanup.cpp): true when `info` held only cleanup
    // directives and was recorded; run_cleanups removes the paths when the client ends.
    bool take_cleanup_request(Client& c, const pmix_info_t* info, std::size_t ninfo);
    void run_cleanups(Client& c);

    // IO forwarding (iof.cpp): kIofPull / kIofDeregister from a client or tool, a chunk the
    // host delivers, a requester that went away.
    void iof_request(const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                     const wire::Frame& frame);
    void iof_deliver(IofChunk chunk);
    void iof_requester_gone(const ProcKey& who);
    // A spawn with PMIX_FWD_STD* succeeded: `requester` receives `channels` of `nspace` (iof.h).
    void iof_forward_spawned(const ProcKey& requester, std::weak_ptr<wire::Connection> conn,
                             const std::string& nspace, pmix_iof_channel_t channels);

    // Fence (fence.cpp).
    void fence_request(const ProcKey& who, wire::Connection& conn, const wire::Frame& frame);
    Fence& find_or_create_fence(const ProcKey& who, const std::vector<pmix_proc_t>& procs,
                                data::InfoArray& info);
    void fence_complete(std::uint64_t id, pmix_status_t status, const std::uint8_t* data,
                        std::size_t ndata);
    void fail_fences_of(const ProcKey& who, pmix_status_t status);
    void fence_to_host(Fence& f);
    bool all_local(const std::vector<pmix_proc_t>& procs) const;
    void leave_cross_node_fence(Fence& f, const ProcKey& who);
    // A fence's data held deltas for processes whose base this server lacks: their whole data
    // comes by direct modex before the fence's participants are released (modex_delta.h).
    void fetch_whole_modex(Fence& f, const std::vector<ProcKey>& stale);
    void fence_fetch_done(std::uint64_t id, pmix_status_t status, const std::uint8_t* data,
                          std::size_t ndata);
    void release_fence(Fence& f, pmix_status_t status);
    // Blob of the REMOTE/GLOBAL modex of these procs: [PROC, SIZE n, INFO[n]]... (a header
    // first in each INFO array, modex_delta.h). Whole data, or with a fence's `signature` and
    // `fence_id`, deltas against what the last successful fence over the same set shipped.
    std::vector<std::uint8_t> modex_blob(const std::vector<ProcKey>& procs,
                                         const std::string& signature = {},
                                         std::uint64_t fence_id = 0);
    // Stores a blob; a delta whose base is not held here is skipped and its process added to
    // `stale` (when given).
    pmix_status_t store_blob(const std::uint8_t* data, std::size_t ndata,
                             std::vector<ProcKey>* stale = nullptr);

    bool is_local(const pmix_proc_t& p) const;
    // A connected local client of ours that committed its data (it is in the store already).
    bool committed_here(const std::string& nspace, pmix_rank_t rank) const;

    // Gets waiting for a local client's commit (requests.cpp): answered at its next commit (the
    // value, or NOT_FOUND), on timeout, or NOT_FOUND when it goes away.
    void wait_for_commit(const ProcKey& target, CommitWait wait, int timeout_seconds);
    void answer_commit_waits(const ProcKey& target);

    // Get of a key we do not hold for a remote proc: ask the host (requests.cpp).
    void start_direct_modex(DmodexWait wait, int timeout_seconds);
    void direct_modex_done(std::uint64_t id, pmix_status_t status, const std::uint8_t* data,
                           std::size_t ndata);
};

// A server diagnostic at `level` (exec/log.h says which level fits).
inline void slog(exec::LogLevel level, const std::string& message) {
    exec::log_at(level, "pmix-server", message);
}

// A host's modex answer (fence_nb or direct_modex callback, any thread, possibly from inside the
// host's upcall): returns at once; a task of the server's loop then runs (state.*then)(id,
// status, bytes) and calls the host's release_fn (api.h call_host_later). `cbdata` carries the
// id. When the server is gone only release_fn runs.
using ModexContinuation = void (State::*)(std::uint64_t, pmix_status_t, const std::uint8_t*,
                                          std::size_t);
void forward_modex_answer(ModexContinuation then, pmix_status_t status, const char* data,
                          size_t ndata, void* cbdata, pmix_release_cbfunc_t release_fn,
                          void* release_cbdata);

// The live state (nullptr when not initialised); shared so host callbacks arriving late can
// tell that the server is gone.
std::shared_ptr<State> current();

// Hands an event to the host process's own handlers, if it registered any (api.h), from a task
// of its own on the server's loop (copies what it needs): the caller may be inside a host call.
// With a delay, from a timer on that loop (never, if the server finalizes first).
void deliver_to_host(State& s, pmix_status_t code, const pmix_proc_t& source,
                     const pmix_info_t* info, size_t ninfo,
                     std::chrono::milliseconds delay = std::chrono::milliseconds(0));

void reply_status(wire::Connection& conn, const wire::Frame& req, pmix_status_t status);
void reply_status(const ReplyTo& to, pmix_status_t status);

// A process's namespace as a string (pmix_proc_t.nspace need not be terminated at its full length).
inline std::string ns_of(const pmix_proc_t& p) {
    return std::string(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN));
}

}  // namespace pmix::server
