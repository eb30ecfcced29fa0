// server/state.h - the server's state and the methods that run on its progress thread.
//
// One State exists between PMIx_server_init and PMIx_server_finalize. Everything below except
// the immutable identity (set in init) is touched only on the executor's thread: C API calls
// post work to it, host callbacks (any thread) post their results back to it.
#pragma once

#include "exec/executor.h"
#include "exec/log.h"
#include "gds/board.h"
#include "gds/store.h"
#include "server/events.h"
#include "server/registration.h"
#include "wire/connection.h"
#include "wire/listener.h"
#include "wire/proto/message.h"

#include <pmix_server.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>
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

// What the server keeps about a namespace besides its values (those are only in the store).
struct Namespace {
    std::string name;
    int nlocalprocs = 0;
    bool registered = false;            // register_nspace seen (clients may come first)
    std::set<pmix_rank_t> local_ranks;  // from the host's info or registered clients
    RankRuns ranks;                     // every rank the registration names
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
    bool tool = false;       // a tool admitted by the host's tool_connected (tools.cpp)
    std::vector<CleanupRequest> cleanups;
};

// Where to send the reply of a request that waits for the host.
struct ReplyTo {
    std::weak_ptr<wire::Connection> conn;
    wire::Frame request;  // op and tag only
};

// A Get for a local client's key that client has not committed yet.
struct CommitWait {
    ReplyTo to;
    std::string key;
    exec::TimerId timer = exec::kInvalidTimer;
};

struct Fence {
    std::uint64_t id = 0;
    std::string signature;           // sorted participant list
    std::vector<pmix_proc_t> procs;  // as the clients gave them
    std::set<ProcKey> expected;      // local participants
    std::map<ProcKey, ReplyTo> arrived;
    proto::InfoArray info;  // the first arrival's directives, passed to the host
    bool collect = false;
    bool host_called = false;
    pmix_status_t failed = PMIX_SUCCESS;  // once set, arrivals are answered with it
    exec::TimerId timer = exec::kInvalidTimer;
};

// A Get waiting for the host's direct modex.
struct DmodexWait {
    ReplyTo to;
    pmix_proc_t proc{};
    std::string key;
    proto::InfoArray info;  // handed to the host; valid until it answers
    exec::TimerId timer = exec::kInvalidTimer;
};

// Tool support (tools.cpp): set at init from PMIX_SERVER_*_SUPPORT and friends.
struct ToolSupport {
    bool enabled = false;
    std::string server_tmpdir, system_tmpdir;
    std::vector<std::string> files;         // rendezvous files we wrote (removed at finalize)
    std::vector<std::string> created_dirs;  // directories we made for them, outermost first
    // PMIX_SERVER_REMOTE_CONNECTIONS: a TCP listener for remote tools, admitted by this secret
    // (written only into the owner-only rendezvous files).
    std::shared_ptr<wire::Listener> tcp;
    std::string secret;
};

// A tool connection between its Hello and the host's verdict.
struct ToolAsk {
    std::weak_ptr<wire::Connection> conn;
    wire::Frame request;  // op and tag only
    wire::PeerCred cred;
    proto::InfoArray info;  // handed to the host; valid until it answers
    bool asked = false;
};

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

    std::map<std::string, Namespace> namespaces;
    std::map<ProcKey, Client> clients;
    std::map<std::uint64_t, Fence> fences;
    std::uint64_t next_fence = 1;
    std::map<std::string, std::vector<std::pair<std::string, Value>>> local_support;
    // Environment the fabric plugins asked for, per namespace (setup_app.cpp). Read by setup_fork
    // on the host's thread, hence its own lock.
    std::mutex app_env_mu;
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> app_env;
    std::map<ProcKey, std::vector<std::pair<std::string, std::string>>> proc_env;  // one process's
    std::map<std::uint64_t, DmodexWait> dmodex_waits;
    std::uint64_t next_dmodex = 1;
    std::map<ProcKey, std::map<std::uint64_t, CommitWait>> commit_waits;
    std::uint64_t next_commit_wait = 1;
    EventRegistry events;
    ToolSupport tools;
    std::map<std::uint64_t, ToolAsk> tool_asks;
    std::uint64_t next_tool_ask = 1;
    // The clients' read path (publish.h): shared memory unless PMIX_GDS_MODULE says otherwise.
    std::unique_ptr<gds::StoreWriter> store;
    // The server's own reads of that store (publish.h); destroyed before it.
    std::unique_ptr<gds::StoreReader> reader;
    // Fence boards of entirely node-local namespaces (board.h). Created on the host's thread at
    // register_nspace and read by setup_fork there, hence their own lock.
    std::mutex boards_mu;
    std::map<std::string, std::shared_ptr<gds::FenceBoard>> boards;

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

    // Events (events.cpp): kRegisterEvents / kDeregisterEvents / kNotify from a client, and a
    // client whose connection was lost (before it finalized or not).
    void events_request(const ProcKey& who, Client& c, proto::Reader& r, wire::Connection& conn,
                        const wire::Frame& frame);
    void events_client_lost(const ProcKey& who);
    // Sends `ev` to every local client its range and their registrations select; returns how
    // many got it. Also the path of PMIx_Notify_event called in the server process.
    std::size_t deliver_event(const Event& ev);
    // Job_control cleanup registrations (cleanup.cpp): true when `info` held only cleanup
    // directives and was recorded; run_cleanups removes the paths when the client ends.
    bool take_cleanup_request(Client& c, const pmix_info_t* info, std::size_t ninfo);
    void run_cleanups(Client& c);

    // Fence (fence.cpp).
    void fence_request(const ProcKey& who, wire::Connection& conn, const wire::Frame& frame);
    Fence& find_or_create_fence(const ProcKey& who, const std::vector<pmix_proc_t>& procs,
                                proto::InfoArray& info);
    void fence_complete(std::uint64_t id, pmix_status_t status, const std::uint8_t* data,
                        std::size_t ndata);
    void fail_fences_of(const ProcKey& who, pmix_status_t status);
    // Blob of the REMOTE/GLOBAL modex of these procs: [PROC, SIZE n, INFO[n]]...
    std::vector<std::uint8_t> modex_blob(const std::vector<ProcKey>& procs);
    pmix_status_t store_blob(const std::uint8_t* data, std::size_t ndata);

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

inline void slog(const std::string& message) { exec::log_line("pmix-server", message); }

// A host's modex answer (fence_nb or direct_modex callback, any thread): copies the bytes,
// releases the host's buffer and runs (state.*then)(id, status, bytes) on the server's loop;
// `cbdata` carries the id. Dropped when the server is gone.
using ModexContinuation = void (State::*)(std::uint64_t, pmix_status_t, const std::uint8_t*,
                                          std::size_t);
void forward_modex_answer(ModexContinuation then, pmix_status_t status, const char* data,
                          size_t ndata, void* cbdata, pmix_release_cbfunc_t release_fn,
                          void* release_cbdata);

// The live state (nullptr when not initialised); shared so host callbacks arriving late can
// tell that the server is gone.
std::shared_ptr<State> current();

// Hands an event to the host process's own handlers, if it registered any (api.h).
void deliver_to_host(pmix_status_t code, const pmix_proc_t& source, const pmix_info_t* info,
                     size_t ninfo);

void reply_status(wire::Connection& conn, const wire::Frame& req, pmix_status_t status);
void reply_status(const ReplyTo& to, pmix_status_t status);

}  // namespace pmix::server
