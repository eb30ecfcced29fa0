// client/tool.cpp - PMIx_tool_init / finalize and the tool's server connections.
//
// A tool finds a server through the Standard's chain ("Tools" chapter), in this order:
//   1. PMIX_TOOL_ATTACHMENT_FILE   a rendezvous file at a given path
//   2. PMIX_SERVER_URI / PMIX_TCP_URI (not both; "file:<path>" allowed)
//   3. PMIX_SERVER_PIDINFO         pmix.<host>.tool.<pid> in the server tmpdir
//   4. PMIX_SERVER_NSPACE          pmix.<host>.tool.<nspace>
//   5. PMIX_CONNECT_TO_SYSTEM      pmix.sys.<host> in the system tmpdir
//   6. PMIX_CONNECT_SYSTEM_FIRST   the system server if there is one, else step 7
//   7. every pmix.<host>.tool* file in the server tmpdir until one admits us
// Steps 1-5 name one server and fail if it cannot be reached (after PMIX_CONNECT_MAX_RETRIES
// waits of PMIX_CONNECT_RETRY_DELAY seconds: the server may not be up yet); step 7 never
// retries. Servers already attached are skipped. Each attempt is a Role::tool Hello on the
// server's socket followed by kToolAttach, which the server's host answers with our identity.
#include "client/client.h"
#include "client/state.h"
#include "client/tool_chain.h"

#include "base/env_names.h"

#include "data/directives.h"
#include "data/value.h"

#include "exec/completion.h"
#include "exec/log.h"
#include "wire/dial.h"
#include "wire/tcp_socket.h"
#include "wire/rendezvous.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace pmix::client {

namespace {

// Every step of an attach is bounded; the server's host answers tool_connected at once in
// every host we know of.
constexpr std::chrono::milliseconds kAttachTimeout{std::chrono::seconds(10)};

void drop_server(const std::weak_ptr<wire::Connection>& weak) {
    State& s = state();
    bool primary = false;
    {
        std::lock_guard lock(s.mu);
        auto conn = weak.lock();
        primary = conn != nullptr && conn == s.conn;
    }
    if (primary) raise_lost_connection();
}

struct Attached {
    pmix_status_t status = PMIX_ERROR;
    std::string error;
    pmix_proc_t me{};
    std::shared_ptr<wire::Connection> conn;
};

Attached decode_attach(pmix_status_t st, const wire::Frame& f) {
    Attached a;
    a.status = st;
    if (st != PMIX_SUCCESS) return a;
    proto::Reader r(f.payload);
    pmix_status_t answer = PMIX_ERROR;
    r.status(&answer);
    r.proc(&a.me);
    a.status = r.finish() != PMIX_SUCCESS ? PMIX_ERR_UNPACK_FAILURE : answer;
    return a;
}

Attached attach_one(exec::Executor& ex, const wire::Rendezvous& server, const Identity& want,
                    const pmix_info_t* info, std::size_t ninfo) {
    wire::DialOptions opts;
    opts.timeout = kAttachTimeout;
    opts.on_message = [](wire::Connection&, wire::Frame&& f) { deliver_event_frame(f); };
    auto weak_slot = std::make_shared<std::weak_ptr<wire::Connection>>();
    opts.on_closed = [weak_slot](const wire::CloseReason& why) {
        if (why.kind != wire::CloseKind::local) {
            exec::log_warn("pmix tool", "lost a server connection: " + why.detail);
            drop_server(*weak_slot);
        }
    };
    auto hello = wire::Hello::for_this_process(want.nspace, want.rank, wire::Role::tool);
    if (wire::is_tcp_uri(server.socket)) hello.secret = server.secret;  // a remote server
    wire::Dialed d = wire::dial(ex, server.socket, std::move(hello), std::move(opts));
    Attached out;
    if (d.status != PMIX_SUCCESS) {
        out.status = d.status;
        out.error = d.error;
        return out;
    }
    *weak_slot = d.connection;
    proto::Writer w;
    w.infos(info, ninfo);
    exec::Completion<Attached> done;
    pmix_status_t rc = d.connection->request(
        static_cast<std::uint32_t>(proto::Op::kToolAttach), w.take(), kAttachTimeout,
        [done](pmix_status_t st, wire::Frame&& f) { done.complete(decode_attach(st, f)); });
    if (rc == PMIX_SUCCESS) {
        auto waited = done.wait(kAttachTimeout + kWaitMargin);
        out = waited.status == PMIX_SUCCESS ? *waited.value : Attached{waited.status, {}, {}, {}};
    } else {
        out.status = rc;
    }
    if (out.status != PMIX_SUCCESS) {
        out.error = "the server refused the tool (status " + std::to_string(out.status) + ")";
        d.connection->close("tool attach failed");
        return out;
    }
    out.conn = std::move(d.connection);
    return out;
}

bool already_attached(const State& s, const wire::Rendezvous& r) {
    for (const auto& l : s.servers) {
        if (l.uri == r.uri && l.conn && !l.conn->closed()) return true;
    }
    return false;
}

// Tries the plan's targets in order; the first server that admits us is added (primary when
// `make_primary` or when there is none). PMIX_ERR_EXISTS: every reachable target is attached.
pmix_status_t attach_by_plan(const Plan& plan, const pmix_info_t* info, std::size_t ninfo,
                             bool make_primary, pmix_proc_t* server_out) {
    State& s = state();
    exec::Executor* ex = nullptr;
    Identity want;
    {
        std::lock_guard lock(s.mu);
        ex = s.ex.get();
        if (s.me.nspace[0] != '\0') {
            want.nspace.assign(s.me.nspace, strnlen(s.me.nspace, PMIX_MAX_NSLEN));
            want.rank = s.me.rank;
        } else {
            want = plan.identity;
        }
    }
    pmix_status_t last = PMIX_ERR_UNREACH;
    for (unsigned attempt = 0;; ++attempt) {
        bool skipped = false;
        for (const auto& target : expand_targets(plan.targets)) {
            auto found = resolve_target(target);
            if (!found.ok()) {
                last = found.status;
                exec::log_info("pmix tool", found.error);
                continue;
            }
            pmix_proc_t server{};
            std::strncpy(server.nspace, found.value.nspace.c_str(), PMIX_MAX_NSLEN);
            server.rank = found.value.rank;
            {
                std::lock_guard lock(s.mu);
                if (already_attached(s, found.value)) {
                    skipped = true;
                    if (server_out != nullptr) *server_out = server;
                    continue;
                }
            }
            Attached a = attach_one(*ex, found.value, want, info, ninfo);
            if (a.status != PMIX_SUCCESS) {
                last = a.status;
                exec::log_info("pmix tool", "cannot attach to " + found.value.uri + ": " + a.error);
                continue;
            }
            ServerLink link{server, found.value.uri, a.conn};
            std::lock_guard lock(s.mu);
            s.me = a.me;
            if (make_primary || !s.conn || s.conn->closed()) {
                s.conn = a.conn;
                s.servers.insert(s.servers.begin(), std::move(link));
            } else {
                s.servers.push_back(std::move(link));
            }
            if (server_out != nullptr) *server_out = server;
            return PMIX_SUCCESS;
        }
        if (skipped) return PMIX_ERR_EXISTS;
        if (!plan.retry || attempt >= plan.max_retries) return last;
        std::this_thread::sleep_for(plan.retry_delay);
    }
}

}  // namespace

namespace {

// PMIx_tool_init's last call took the client's path (started_as_client): finalize as a client.
std::atomic<bool> g_client_tool{false};

// A tool its server started as one of its registered processes (setup_fork put PMIX_NAMESPACE and
// PMIX_RANK in its environment: a debugger daemon, as prte's example daemon starts) connects as
// that client, as OpenPMIx's tool_init does then: it gets the identity and job info it was
// registered with (PMIX_DEBUG_TARGET...). Not when the caller names a server, asks for none, or
// is a launcher.
bool started_as_client(const pmix_info_t* info, std::size_t ninfo) {
    if (std::getenv(env::kNamespace) == nullptr || std::getenv(env::kRank) == nullptr) return false;
    for (const char* key : {PMIX_LAUNCHER, PMIX_TOOL_ATTACHMENT_FILE, PMIX_SERVER_URI, PMIX_TCP_URI,
                            PMIX_SERVER_PIDINFO, PMIX_SERVER_NSPACE, PMIX_CONNECT_TO_SYSTEM,
                            PMIX_CONNECT_SYSTEM_FIRST, PMIX_TOOL_DO_NOT_CONNECT, PMIX_TOOL_NSPACE})
        for (std::size_t i = 0; i < ninfo; ++i)
            if (PMIX_CHECK_KEY(&info[i], key)) return false;
    return true;
}

}  // namespace

pmix_status_t tool_init(pmix_proc_t* proc, const pmix_info_t* info, std::size_t ninfo) {
    if (info == nullptr && ninfo > 0) return PMIX_ERR_BAD_PARAM;
    if (started_as_client(info, ninfo)) {
        const pmix_status_t rc = init(proc, info, ninfo);
        if (rc == PMIX_SUCCESS) g_client_tool = true;
        return rc;
    }
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    std::lock_guard life(lifecycle_mutex());
    State& s = state();
    {
        std::lock_guard lock(s.mu);
        if (s.refs > 0) {  // reference counted, whatever role initialised us first
            ++s.refs;
            if (proc != nullptr) *proc = s.me;
            return PMIX_SUCCESS;
        }
    }
    auto plan = plan_connection(info, ninfo);
    if (!plan.ok()) {
        exec::log_info("pmix tool", plan.error);
        return plan.status;
    }
    auto ex = std::make_unique<exec::Executor>("pmix-tool");
    if (pmix_status_t rc = ex->start(); rc != PMIX_SUCCESS) return rc;
    {
        std::lock_guard lock(s.mu);
        s.ex = std::move(ex);
        s.refs = 1;
        s.tool = true;
        s.me = pmix_proc_t{};
    }
    pmix_status_t rc = PMIX_SUCCESS;
    if (!plan.value.do_not_connect) {
        rc = attach_by_plan(plan.value, info, ninfo, true, nullptr);
        if (rc != PMIX_SUCCESS && plan.value.optional) rc = PMIX_SUCCESS;
    }
    if (rc != PMIX_SUCCESS) {
        teardown();
        return rc;
    }
    std::lock_guard lock(s.mu);
    if (s.me.nspace[0] == '\0') {  // not connected: "<host>:<pid>", rank 0, as OpenPMIx
        std::strncpy(s.me.nspace, plan.value.self_nspace.c_str(), PMIX_MAX_NSLEN);
        s.me.rank = plan.value.identity.rank == PMIX_RANK_UNDEF ? 0 : plan.value.identity.rank;
    }
    if (proc != nullptr) *proc = s.me;
    return PMIX_SUCCESS;
}

pmix_status_t tool_finalize() {
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    if (g_client_tool) {
        const pmix_status_t rc = finalize(nullptr, 0);
        if (!initialized()) g_client_tool = false;
        return rc;
    }
    std::lock_guard life(lifecycle_mutex());
    State& s = state();
    std::vector<ServerLink> links;
    {
        std::lock_guard lock(s.mu);
        if (s.refs == 0) return PMIX_ERR_INIT;
        if (s.refs > 1) {
            --s.refs;
            return PMIX_SUCCESS;
        }
        links = s.servers;
    }
    for (auto& l : links) {  // say goodbye, so the host does not see a tool that died
        if (!l.conn || l.conn->closed()) continue;
        exec::Completion<pmix_status_t> done;
        if (l.conn->request(static_cast<std::uint32_t>(proto::Op::kFinalize), {}, kShortTimeout,
                            [done](pmix_status_t st, wire::Frame&&) { done.complete(st); }) ==
            PMIX_SUCCESS) {
            (void)done.wait(kShortTimeout + kWaitMargin);
        }
        l.conn->close("tool finalized");
    }
    links.clear();
    teardown();
    return PMIX_SUCCESS;
}

bool unattached_tool() {
    State& s = state();
    std::lock_guard lock(s.mu);
    return s.refs > 0 && s.tool && !s.conn && s.servers.empty();
}

pmix_status_t tool_attach_to_server(pmix_proc_t* myproc, pmix_proc_t* server,
                                    const pmix_info_t* info, std::size_t ninfo) {
    if (info == nullptr && ninfo > 0) return PMIX_ERR_BAD_PARAM;
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    if (!initialized()) return PMIX_ERR_INIT;
    auto plan = plan_connection(info, ninfo);
    if (!plan.ok()) return plan.status;
    const bool primary = data::info_true(info, ninfo, PMIX_PRIMARY_SERVER);
    std::lock_guard life(lifecycle_mutex());
    pmix_proc_t found{};
    pmix_status_t rc = attach_by_plan(plan.value, info, ninfo, primary, &found);
    if (rc == PMIX_ERR_EXISTS) rc = PMIX_SUCCESS;  // already attached to it: the Standard's SUCCESS
    if (rc != PMIX_SUCCESS) return rc;
    if (server != nullptr) *server = found;
    if (myproc != nullptr) own_proc(myproc);
    return PMIX_SUCCESS;
}

pmix_status_t tool_get_servers(pmix_proc_t** servers, std::size_t* nservers) {
    if (servers == nullptr || nservers == nullptr) return PMIX_ERR_BAD_PARAM;
    State& s = state();
    std::lock_guard lock(s.mu);
    if (s.refs == 0) return PMIX_ERR_INIT;
    *servers = nullptr;
    *nservers = 0;
    std::vector<pmix_proc_t> live;
    for (const auto& l : s.servers) {
        if (l.conn && !l.conn->closed()) live.push_back(l.server);
    }
    if (live.empty()) return PMIX_SUCCESS;
    auto* out = static_cast<pmix_proc_t*>(std::calloc(live.size(), sizeof(pmix_proc_t)));
    if (out == nullptr) return PMIX_ERR_NOMEM;
    std::memcpy(out, live.data(), live.size() * sizeof(pmix_proc_t));
    *servers = out;
    *nservers = live.size();
    return PMIX_SUCCESS;
}

namespace {

// Index of `server` among the attached servers, or -1.
long find_link(const State& s, const pmix_proc_t& server) {
    for (std::size_t i = 0; i < s.servers.size(); ++i) {
        if (same_proc(s.servers[i].server, server)) return static_cast<long>(i);
    }
    return -1;
}

}  // namespace

pmix_status_t tool_set_server(const pmix_proc_t* server, const pmix_info_t* info,
                              std::size_t ninfo) {
    if (server == nullptr || (info == nullptr && ninfo > 0)) return PMIX_ERR_BAD_PARAM;
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    if (!initialized()) return PMIX_ERR_INIT;
    const bool wait = data::info_true(info, ninfo, PMIX_WAIT_FOR_CONNECTION);
    const std::chrono::milliseconds limit = timeout_from(info, ninfo, std::chrono::milliseconds(0));
    State& s = state();
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        {
            std::lock_guard lock(s.mu);
            const long i = find_link(s, *server);
            if (i >= 0 && s.servers[static_cast<std::size_t>(i)].conn &&
                !s.servers[static_cast<std::size_t>(i)].conn->closed()) {
                ServerLink link = std::move(s.servers[static_cast<std::size_t>(i)]);
                s.servers.erase(s.servers.begin() + i);
                s.conn = link.conn;
                s.servers.insert(s.servers.begin(), std::move(link));
                return PMIX_SUCCESS;
            }
        }
        if (!wait) return PMIX_ERR_UNREACH;
        // Not attached yet: try to find it by its namespace, as PMIx_tool_attach_to_server would.
        pmix_info_t by_ns;
        std::memset(&by_ns, 0, sizeof(by_ns));
        std::strncpy(by_ns.key, PMIX_SERVER_NSPACE, PMIX_MAX_KEYLEN);
        by_ns.value.type = PMIX_STRING;
        std::string ns(server->nspace, strnlen(server->nspace, PMIX_MAX_NSLEN));
        by_ns.value.data.string = ns.data();
        auto plan = plan_connection(&by_ns, 1);
        if (plan.ok()) {
            std::lock_guard life(lifecycle_mutex());
            (void)attach_by_plan(plan.value, &by_ns, 1, true, nullptr);
        }
        {
            std::lock_guard lock(s.mu);
            if (find_link(s, *server) == 0 && s.conn && !s.conn->closed()) return PMIX_SUCCESS;
        }
        if (limit.count() > 0 && std::chrono::steady_clock::now() >= deadline)
            return PMIX_ERR_TIMEOUT;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

pmix_status_t tool_disconnect(const pmix_proc_t* server) {
    if (server == nullptr) return PMIX_ERR_BAD_PARAM;
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    State& s = state();
    std::shared_ptr<wire::Connection> conn;
    {
        std::lock_guard lock(s.mu);
        if (s.refs == 0) return PMIX_ERR_INIT;
        const long i = find_link(s, *server);
        if (i < 0) return PMIX_ERR_NOT_FOUND;
        conn = s.servers[static_cast<std::size_t>(i)].conn;
        s.servers.erase(s.servers.begin() + i);
        if (s.conn == conn) s.conn.reset();  // calls answer PMIX_ERR_UNREACH until a new primary
    }
    if (conn && !conn->closed()) {
        exec::Completion<pmix_status_t> done;
        if (conn->request(static_cast<std::uint32_t>(proto::Op::kFinalize), {}, kShortTimeout,
                          [done](pmix_status_t st, wire::Frame&&) { done.complete(st); }) ==
            PMIX_SUCCESS) {
            (void)done.wait(kShortTimeout + kWaitMargin);
        }
        conn->close("tool disconnected");
    }
    return PMIX_SUCCESS;
}

}  // namespace pmix::client
