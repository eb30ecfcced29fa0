// server/tools.cpp - tool support: rendezvous files (wire/rendezvous.h) and tool connections.
//
// A tool dials the same socket as clients with a Role::tool Hello (its pid/uid/gid checked
// against SO_PEERCRED by the listener), then sends kToolAttach with its init info. With
// PMIX_SERVER_REMOTE_CONNECTIONS a TCP listener serves tools of other hosts too: they prove
// themselves with the secret from the rendezvous file, and count as the server's own user. The
// host's tool_connected hook sees that info plus the kernel-checked PMIX_USERID / PMIX_GRPID /
// PMIX_PROC_PID and decides: it assigns the tool's namespace and rank or refuses. A host
// without the hook gets no tools at all (the Standard's rule). An admitted tool is served like a
// client (same ops, same events) under the identity the host gave it; ids are unique among the
// server's peers, a second tool with a live id is refused.
#include "server/state.h"
#include "server/tools.h"

#include "base/env_names.h"
#include "data/directives.h"
#include "data/value.h"
#include "wire/rendezvous.h"
#include "wire/tcp_socket.h"

#include <unistd.h>

#include <cstring>
#include <optional>

namespace pmix::server {

namespace {

using data::info_true;

using data::string_of;

pmix_status_t write_one(State& st, const std::string& path, const wire::Rendezvous& r) {
    auto w = wire::write_rendezvous(path, r, &st.tools.created_dirs);
    if (!w.ok()) {
        slog(exec::LogLevel::info, "cannot write rendezvous file: " + w.error);
        return w.status;
    }
    st.tools.files.push_back(path);
    return PMIX_SUCCESS;
}

// PMIX_LAUNCHER_RENDEZVOUS_FILE as an attribute, else either spelling of the environment
// variable (the Standard's PMIX_LAUNCHER_RNDZ_FILE; OpenPMIx reads PMIX_LAUNCHER_RENDEZVOUS_FILE).
std::string launcher_file(const pmix_info_t* info, size_t ninfo) {
    if (const char* f = string_of(info, ninfo, PMIX_LAUNCHER_RENDEZVOUS_FILE); f && *f) return f;
    for (const char* env : {env::kLauncherRndzFile, env::kLauncherRendezvousFile}) {
        if (const char* v = std::getenv(env); v != nullptr && *v != '\0') return v;
    }
    return {};
}

// How long a tool may take between its Hello and its attach request.
constexpr std::chrono::seconds kAttachDeadline{10};

// Not in the Standard nor in OpenPMIx 4.2.2's headers (OpenPMIx 6.0 defines it); accepted by its
// string.
constexpr char kServerSysController[] = "pmix.srv.ctrlr";

// PMIX_TCP_IPV4_PORT, else any free port.
std::uint16_t tcp_port(const pmix_info_t* info, size_t ninfo) {
    const pmix_info_t* p = data::find_info(info, ninfo, PMIX_TCP_IPV4_PORT);
    if (p == nullptr) return 0;
    long v = -1;
    if (p->value.type == PMIX_INT) v = p->value.data.integer;
    if (p->value.type == PMIX_UINT16) v = p->value.data.uint16;
    if (p->value.type == PMIX_UINT32) v = p->value.data.uint32;
    return v > 0 && v < 65536 ? static_cast<std::uint16_t>(v) : 0;
}

// Opens the TCP listener for remote tools; fills the rendezvous record's TCP URI and secret.
pmix_status_t open_remote_listener(State& st, const pmix_info_t* info, size_t ninfo,
                                   wire::Rendezvous& r) {
    st.tools.secret = wire::make_secret();
    if (st.tools.secret.empty()) {
        slog(exec::LogLevel::info, "no random secret for remote tools (getrandom failed)");
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    State* s = &st;
    auto l = wire::Listener::open_tcp(*st.ex, "0.0.0.0", tcp_port(info, ninfo), st.tools.secret,
                                      [s](const std::shared_ptr<wire::Connection>& c,
                                          const wire::Peer& p) { return s->accept(c, p); });
    if (!l.ok()) {
        slog(exec::LogLevel::info, "cannot listen for remote tools: " + l.error);
        return l.status;
    }
    st.tools.tcp = std::move(l.value);
    r.tcp_uri = st.nspace + "." + std::to_string(st.rank) + ";" + st.tools.tcp->path();
    r.secret = st.tools.secret;
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t start_tool_support(State& st, const pmix_info_t* info, size_t ninfo) {
    const bool system = info_true(info, ninfo, PMIX_SERVER_SYSTEM_SUPPORT);
    const bool session = info_true(info, ninfo, PMIX_SERVER_SESSION_SUPPORT);
    const bool sched = info_true(info, ninfo, PMIX_SERVER_SCHEDULER);
    const bool ctrlr = info_true(info, ninfo, kServerSysController);
    st.tools.enabled =
        system || session || sched || ctrlr || info_true(info, ninfo, PMIX_SERVER_TOOL_SUPPORT);
    if (!st.tools.enabled) return PMIX_SUCCESS;
    st.tools.server_tmpdir = st.tmpdir;
    st.tools.system_tmpdir =
        wire::pick_tmpdir(string_of(info, ninfo, PMIX_SYSTEM_TMPDIR), env::kSystemTmpdir);
    wire::Rendezvous r;
    r.uri = wire::make_uri(st.nspace, st.rank, st.socket_path);
    r.pid = static_cast<std::int32_t>(::getpid());
    r.uid = static_cast<std::uint32_t>(::geteuid());
    r.gid = static_cast<std::uint32_t>(::getegid());
    r.host = st.hostname;
    if (info_true(info, ninfo, PMIX_SERVER_REMOTE_CONNECTIONS)) {
        if (pmix_status_t rc = open_remote_listener(st, info, ninfo, r); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    const std::string& dir = st.tools.server_tmpdir;
    const std::string& sys = st.tools.system_tmpdir;
    std::vector<std::string> paths = {wire::tool_file_by_pid(dir, st.hostname, r.pid),
                                      wire::tool_file_by_nspace(dir, st.hostname, st.nspace)};
    if (session) paths.push_back(wire::session_file(dir, st.hostname));
    if (system) paths.push_back(wire::system_file(sys, st.hostname));
    if (sched) paths.push_back(wire::scheduler_file(sys, st.hostname));
    if (ctrlr) paths.push_back(wire::controller_file(sys, st.hostname));
    if (std::string l = launcher_file(info, ninfo); !l.empty()) paths.push_back(l);
    for (const auto& p : paths) {
        if (pmix_status_t rc = write_one(st, p, r); rc != PMIX_SUCCESS) {
            stop_tool_support(st);
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

void stop_tool_support(State& st) {
    if (st.tools.tcp) st.tools.tcp->close();  // any thread; the object goes after the loop stops
    for (const auto& f : st.tools.files) wire::remove_rendezvous(f);
    st.tools.files.clear();
    // Innermost first; a directory somebody else filled in the meantime stays.
    for (auto it = st.tools.created_dirs.rbegin(); it != st.tools.created_dirs.rend(); ++it) {
        ::rmdir(it->c_str());
    }
    st.tools.created_dirs.clear();
}

wire::Verdict State::accept_tool(const std::shared_ptr<wire::Connection>& conn,
                                 const wire::Peer& peer) {
    if (!tools.enabled) {
        return {PMIX_ERR_NOT_SUPPORTED, "this server does not serve tools"};
    }
    auto added = tools.asks.add(ToolAsk{});
    const std::uint64_t id = added.first;
    ToolAsk& ask = added.second;
    ask.conn = conn;
    ask.cred = peer.cred;
    if (!peer.hello.nspace.empty()) {  // the tool named itself (PMIX_TOOL_NSPACE/RANK)
        ask.info.append(PMIX_TOOL_NSPACE, peer.hello.nspace.c_str(), PMIX_STRING);
        ask.info.append(PMIX_TOOL_RANK, &peer.hello.rank, PMIX_PROC_RANK);
    }
    conn->on_message(
        [this, id](wire::Connection& c, wire::Frame&& f) { tool_attach(id, c, std::move(f)); });
    // A tool that never asks is not kept: the Hello alone admits nobody.
    std::weak_ptr<wire::Connection> weak = conn;
    ex->run_after(kAttachDeadline, [this, id, weak] {
        const ToolAsk* waiting = tools.asks.find(id);
        if (waiting == nullptr || waiting->asked) return;
        tools.asks.erase(id);
        if (auto c = weak.lock())
            c->close("no tool attach request in time", wire::CloseKind::timeout);
    });
    conn->on_closed([this, id](const wire::CloseReason&) {
        const ToolAsk* waiting = tools.asks.find(id);
        if (waiting != nullptr && !waiting->asked) tools.asks.erase(id);
    });
    return {};
}

namespace {

void tool_answer(pmix_status_t status, pmix_proc_t* proc, void* cbdata) {
    const auto id = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(cbdata));
    pmix_proc_t copy{};
    if (proc != nullptr) copy = *proc;
    if (auto st = current()) {
        State* s = st.get();
        s->ex->post([s, id, status, copy] { s->tool_admitted(id, status, copy); });
    }
}

void refuse_tool(wire::Connection& conn, const wire::Frame& req, pmix_status_t status,
                 const std::string& why) {
    slog(exec::LogLevel::info, "refused a tool: " + why);
    proto::Writer w;
    pmix_proc_t none{};
    none.rank = PMIX_RANK_UNDEF;
    w.status(status).proc(none);
    conn.reply(req, w.take());
    conn.close_after_flush(wire::CloseReason{wire::CloseKind::refused, status, why},
                           std::chrono::milliseconds(500));
}

}  // namespace

void State::tool_attach(std::uint64_t id, wire::Connection& conn, wire::Frame&& frame) {
    ToolAsk* found = tools.asks.find(id);
    if (found == nullptr || found->asked ||
        frame.op != static_cast<std::uint32_t>(proto::Op::kToolAttach)) {
        // Forget it first: close() runs the on_closed handler, which looks the ask up too.
        if (found != nullptr && !found->asked) tools.asks.erase(id);
        conn.close("a tool must send one attach request before anything else",
                   wire::CloseKind::bad_frame);
        return;
    }
    ToolAsk& ask = *found;
    data::InfoArray given;
    proto::Reader r(frame.payload);
    r.infos(&given);
    if (r.finish() != PMIX_SUCCESS) {
        tools.asks.erase(id);
        conn.close("undecodable tool attach request", wire::CloseKind::bad_frame);
        return;
    }
    ask.asked = true;
    ask.request.op = frame.op;
    ask.request.tag = frame.tag;
    if (module.tool_connected == nullptr) {
        tools.asks.erase(id);
        refuse_tool(conn, frame, PMIX_ERR_NOT_SUPPORTED, "the host does not admit tools");
        return;
    }
    for (std::size_t i = 0; i < given.size(); ++i) {
        const pmix_info_t& g = given.data()[i];
        if (ask.info.find(g.key) != nullptr) continue;  // the Hello's identity wins
        ask.info.append(g.key, &g.value, PMIX_VALUE);
    }
    const std::uint32_t uid = ask.cred.uid, gid = ask.cred.gid;
    const pid_t pid = ask.cred.pid;
    ask.info.append(PMIX_USERID, &uid, PMIX_UINT32);
    ask.info.append(PMIX_GRPID, &gid, PMIX_UINT32);
    ask.info.append(PMIX_PROC_PID, &pid, PMIX_PID);
    module.tool_connected(ask.info.data(), ask.info.size(), tool_answer,
                          reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
}

void State::tool_admitted(std::uint64_t id, pmix_status_t status, const pmix_proc_t& proc) {
    std::optional<ToolAsk> taken = tools.asks.take(id);
    if (!taken) return;
    ToolAsk ask = std::move(*taken);
    auto conn = ask.conn.lock();
    if (!conn || conn->closed() || finalizing) return;
    const ProcKey key{ns_of(proc), proc.rank};
    if (status != PMIX_SUCCESS) {
        return refuse_tool(*conn, ask.request, status, "the host refused it");
    }
    if (key.first.empty() || proc.rank > PMIX_RANK_VALID) {
        return refuse_tool(*conn, ask.request, PMIX_ERR_BAD_PARAM,
                           "the host admitted it without a valid namespace and rank");
    }
    // A holder that finalized gives its name back even before its socket's hang-up is seen.
    if (auto c = clients.find(key);
        c != clients.end() && c->second.conn && !c->second.conn->closed() && !c->second.finalized) {
        return refuse_tool(*conn, ask.request, PMIX_ERR_EXISTS,
                           key.first + ":" + std::to_string(key.second) + " is already connected");
    }
    Client& c = clients[key];
    c = Client{};
    c.proc = proc;
    c.uid = ask.cred.uid;
    c.gid = ask.cred.gid;
    c.conn = conn;
    c.pid = ask.cred.pid;
    c.tool = true;
    conn->on_message(
        [this, key](wire::Connection& cn, wire::Frame&& f) { on_message(key, cn, std::move(f)); });
    std::weak_ptr<wire::Connection> weak = conn;
    conn->on_closed([this, key, weak](const wire::CloseReason&) {
        auto c2 = clients.find(key);
        if (c2 != clients.end() && c2->second.conn == weak.lock()) tool_gone(key);
    });
    proto::Writer w;
    w.status(PMIX_SUCCESS).proc(proc);
    conn->reply(ask.request, w.take());
}

void State::tool_gone(const ProcKey& who) {
    auto it = clients.find(who);
    if (it == clients.end()) return;
    it->second.finalized = true;  // tools leave when they like: no "died" upcall to the host
    on_closed(who);
    clients.erase(who);
}

}  // namespace pmix::server
