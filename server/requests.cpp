// server/requests.cpp - accepting clients and serving their requests (protocol.h), except the
// fence (fence.cpp). Runs on the server's progress thread.
//
// Get, read from the store (publish.h): the proc's own keys and modex data (the newest value
// wins), then job level (rank WILDCARD = job level; key NULL = every key of the proc). A key of a
// local client that has not committed yet waits for its commit (then the value or NOT_FOUND;
// PMIX_TIMEOUT honoured; NOT_FOUND if it finalizes or dies). A key missing for a proc that is not
// local goes to the host's direct_modex (reply when it answers, PMIX_TIMEOUT honoured) unless
// PMIX_OPTIONAL or PMIX_IMMEDIATE; otherwise PMIX_ERR_NOT_FOUND at once.
#include "server/publish.h"
#include "server/board.h"
#include "server/api.h"
#include "server/state.h"
#include "server/stale.h"

#include "data/value.h"
#include "gds/proc_segment.h"
#include "exec/log.h"
#include "wire/proto/message.h"

#include <cstring>
#include <memory>
#include <optional>

namespace pmix::server {

using proto::Op;

void reply_status(wire::Connection& conn, const wire::Frame& req, pmix_status_t status) {
    proto::Writer w;
    w.status(status);
    conn.reply(req, w.take());
}

void reply_status(const ReplyTo& to, pmix_status_t status) {
    if (auto c = to.conn.lock()) {
        reply_status(*c, to.request, status);
    }
}

namespace {

// For upcalls whose outcome we do not wait for: some hosts call the callback unconditionally.
void ignore_op(pmix_status_t, void*) {}

}  // namespace

// ---- connections -----------------------------------------------------------------------------

wire::Verdict State::accept(const std::shared_ptr<wire::Connection>& conn, const wire::Peer& peer) {
    if (finalizing) {
        return {PMIX_ERR_INIT, "server is shutting down"};
    }
    if (peer.hello.role == wire::Role::tool) {
        return accept_tool(conn, peer);
    }
    if (peer.hello.role != wire::Role::client) {
        return {PMIX_ERR_NOT_SUPPORTED, "only clients and tools are served"};
    }
    ProcKey key{peer.hello.nspace, peer.hello.rank};
    auto it = clients.find(key);
    if (it == clients.end()) {
        return {PMIX_ERR_NOT_FOUND, "client " + key.first + ":" + std::to_string(key.second) +
                                        " is not registered with this server"};
    }
    Client& c = it->second;
    if (c.uid != peer.cred.uid || c.gid != peer.cred.gid) {
        std::string why = "client " + key.first + ":" + std::to_string(key.second) + " (pid " +
                          std::to_string(peer.cred.pid) + ") runs as uid " +
                          std::to_string(peer.cred.uid) + " gid " + std::to_string(peer.cred.gid) +
                          ", registered as uid " + std::to_string(c.uid) + " gid " +
                          std::to_string(c.gid);
        slog(exec::LogLevel::warn, "refused " + why);
        return {PMIX_ERR_INVALID_CRED, why};
    }
    if (c.conn && !c.conn->closed()) {
        return {PMIX_ERR_BAD_PARAM, "client is already connected"};
    }
    c.conn = conn;
    c.pid = peer.cred.pid;
    c.finalized = false;
    c.lost = false;
    if (c.pid > 0) {
        std::lock_guard lock(unfinished_mu);
        unfinished[c.pid] = c.uid;
    }
    conn->on_message(
        [this, key](wire::Connection& cn, wire::Frame&& f) { on_message(key, cn, std::move(f)); });
    std::weak_ptr<wire::Connection> weak = conn;
    conn->on_closed([this, key, weak](const wire::CloseReason&) {
        auto it2 = clients.find(key);
        if (it2 != clients.end() && it2->second.conn == weak.lock()) {
            on_closed(key);
        }
    });
    if (module.client_connected2 != nullptr || module.client_connected != nullptr) {
        pmix_proc_t proc = c.proc;
        void* obj = c.server_object;
        auto m = module;
        ex->post([m, proc, obj] {
            // OpenMPI's host returns SUCCESS and never calls back: treat SUCCESS as done.
            if (m.client_connected2 != nullptr) {
                m.client_connected2(&proc, obj, nullptr, 0, ignore_op, nullptr);
            } else {
                m.client_connected(&proc, obj, ignore_op, nullptr);
            }
        });
    }
    return {};
}

void State::on_closed(const ProcKey& who) {
    auto it = clients.find(who);
    if (it == clients.end()) {
        return;
    }
    Client& c = it->second;
    c.conn.reset();
    c.lost = !c.finalized;
    if (c.lost) disable_board(*this, who.first, nullptr);  // its fences fail at the server
    run_cleanups(c);
    // A client that died keeps no shared memory: objects named after its pid go (its own modex
    // segment is a memfd, gone with it; the server stops reading it); peers keep their mappings.
    if (c.lost && c.pid > 0) {  // see forget_client_segment
        remove_client_segments(c.pid, c.uid);
        c.own_segment = false;
        own_segments.forget(who);
    }
    monitors_client_lost(who);
    fail_fences_of(who, PMIX_ERR_LOST_CONNECTION);
    connect_client_gone(*this, who);  // replies only: safe inside a host's call
    // Posted: the group code delivers events while it walks its tables, and a delivery can close
    // another dead client's connection, which lands here again; run synchronously, the inner
    // call erased records the outer loop still held (TSan: heap-use-after-free in record_lost).
    if (c.lost) ex->post([this, who] { groups_client_lost(*this, who); });
    answer_commit_waits(who);
    events_client_lost(who);
    iof_requester_gone(who);
    if (!c.finalized && !finalizing && module.client_finalized != nullptr) {
        // The client died without PMIx_Finalize: tell the host it is gone, as OpenPMIx does.
        // Posted: this may run inside a host's call (deregister_nspace closing connections).
        ex->post([fn = module.client_finalized, proc = c.proc, obj = c.server_object]() mutable {
            fn(&proc, obj, ignore_op, nullptr);
        });
    }
}

void State::shutdown_connections() {
    // Closing runs each connection's on_closed, and a tool's removes its entry from `clients`:
    // collect first, close after.
    std::vector<std::shared_ptr<wire::Connection>> open;
    for (auto& [key, c] : clients) {
        if (c.conn) open.push_back(c.conn);
    }
    for (auto& conn : open) {
        conn->close("server finalizing");
    }
    for (auto& [id, f] : fences) {
        if (f.timer != exec::kInvalidTimer) ex->cancel(f.timer);
        for (auto& [p, to] : f.arrived) reply_status(to, PMIX_ERR_LOST_CONNECTION);
    }
    fences.clear();
    for (auto& [id, w] : pending.dmodex) {
        if (w.timer != exec::kInvalidTimer) ex->cancel(w.timer);
    }
    pending.dmodex.clear();
    pending.commits.for_each([this](CommitWait& w) {
        if (w.timer != exec::kInvalidTimer) ex->cancel(w.timer);
    });
    pending.commits.clear();
}

bool State::committed_here(const std::string& nspace, pmix_rank_t rank) const {
    auto c = clients.find({nspace, rank});
    return c != clients.end() && c->second.committed;
}

bool State::is_local(const pmix_proc_t& p) const {
    if (clients.count({ns_of(p), p.rank}) != 0) {
        return true;
    }
    return namespaces.is_local(ns_of(p), p.rank);
}

// ---- requests --------------------------------------------------------------------------------

namespace {

// A client's own modex segment (gds/proc_segment.h), announced in its first commit: checked, then
// named in the store for its peers. Refused (false): the client commits synchronously as before.
bool accept_segment(State& s, const ProcKey& who, const std::string& locator) {
    auto c = s.clients.find(who);
    if (c == s.clients.end() || c->second.pid <= 0 || c->second.own_segment) return false;
    const pmix_status_t rc =
        gds::check_announced(locator, who.first, who.second, c->second.pid, c->second.uid);
    pmix_value_t v{};
    v.type = PMIX_STRING;
    v.data.string = const_cast<char*>(locator.c_str());
    if (rc != PMIX_SUCCESS ||
        publish_value(*s.store, who.first, who.second, gds::kSegmentKey, v) != PMIX_SUCCESS) {
        slog(exec::LogLevel::debug, "segment " + locator + " of " + who.first + ":" +
                                        std::to_string(who.second) + " refused (status " +
                                        std::to_string(rc) + ")");
        return false;
    }
    c->second.own_segment = true;
    s.own_segments.announced(who, locator);
    return true;
}

// A client that finalizes closes its own segment after this goodbye (client/lifecycle.cpp):
// peers that read it go on reading it until the store names none (this) or a new one (the
// process initialised again and announced another); without this, a process initialised again
// that commits synchronously would leave them on its old data.
void forget_announced_segment(State& s, const ProcKey& who) {
    auto c = s.clients.find(who);
    if (c == s.clients.end() || !c->second.own_segment) return;
    pmix_value_t none{};
    none.type = PMIX_STRING;
    none.data.string = const_cast<char*>("");
    publish_value(*s.store, who.first, who.second, gds::kSegmentKey, none);
    c->second.own_segment = false;
    s.own_segments.forget(who);
}

// A Get of one key of a local client: its own segment first (own_segments.h).
bool read_fresh(State& s, const ProcKey& target, const std::string& key, Value& out) {
    gds::StoreReader* seg = fresh_segment_of(s, target);
    if (seg == nullptr || key.empty() || key.size() > PMIX_MAX_KEYLEN) return false;
    const pmix_status_t rc = seg->get(target.first, gds::Entity::proc(target.second), key,
                                      out.reset());
    if (rc == gds::kErrCorrupt) s.own_segments.distrust(target);
    return rc == PMIX_SUCCESS;
}

void handle_commit(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                   const wire::Frame& f) {
    std::size_t n = 0;
    r.size(&n);
    std::vector<std::pair<pmix_scope_t, std::unique_ptr<pmix_info_t, void (*)(pmix_info_t*)>>> kvs;
    for (std::size_t i = 0; i < n && r.status_code() == PMIX_SUCCESS && i < proto::kMaxArray; ++i) {
        pmix_scope_t scope = PMIX_SCOPE_UNDEF;
        auto* info = static_cast<pmix_info_t*>(std::calloc(1, sizeof(pmix_info_t)));
        kvs.emplace_back(scope, std::unique_ptr<pmix_info_t, void (*)(pmix_info_t*)>(
                                    info, [](pmix_info_t* p) { data::free_infos(p, 1); }));
        r.scope(&kvs.back().first);
        r.raw(info, 1, PMIX_INFO);
    }
    std::string announced;  // the client's own modex segment, in its first commit only
    if (r.status_code() == PMIX_SUCCESS && !r.at_end()) r.string(&announced);
    if (r.finish() != PMIX_SUCCESS) {
        conn.close("undecodable commit", wire::CloseKind::bad_frame);
        return;
    }
    s.namespaces.touch(who.first);
    std::vector<ModexItem> items;
    items.reserve(kvs.size());
    for (auto& [scope, info] : kvs) {
        // No scope reads as GLOBAL for every reader; stored as GLOBAL, it is told apart from
        // registration data (which has none) when a fence ships this process's modex.
        const pmix_scope_t stored = scope == PMIX_SCOPE_UNDEF ? pmix_scope_t{PMIX_GLOBAL} : scope;
        items.push_back({stored, info.get()});
    }
    // A commit that did not land in the store (a full /dev/shm: PMIX_ERR_OUT_OF_RESOURCE,
    // logged with the reason) is the committer's error; nobody could read its data.
    const pmix_status_t rc = publish_modex(*s.store, who.first, who.second, items);
    proto::Writer reply;
    reply.status(rc);
    if (!announced.empty()) {
        reply.size(rc == PMIX_SUCCESS && accept_segment(s, who, announced) ? 1 : 0);
    }
    conn.reply(f, reply.take());
    if (rc != PMIX_SUCCESS) return;
    if (auto c = s.clients.find(who); c != s.clients.end()) {
        c->second.committed = true;
    }
    s.answer_commit_waits(who);
}

void handle_get(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                const wire::Frame& f) {
    pmix_proc_t proc{};
    std::string key;
    bool all = false;
    data::InfoArray info;
    r.proc(&proc);
    r.string(&key, &all);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        conn.close("undecodable get", wire::CloseKind::bad_frame);
        return;
    }
    proto::Writer w;
    const std::string nspace = ns_of(proc);
    Value v;
    gds::Qualifiers q;
    if (const pmix_status_t rc = gds::parse_qualifiers(info.data(), info.size(), q);
        rc != PMIX_SUCCESS) {
        reply_status(conn, f, rc);
        return;
    }
    pmix_proc_t requester{};
    PMIX_LOAD_PROCID(&requester, who.first.c_str(), who.second);
    const bool plain = q.kind == gds::Qualifier::none && proc.rank < PMIX_RANK_VALID;
    const bool found =
        !all && ((plain && read_fresh(s, {nspace, proc.rank}, key, v)) ||
                 read_qualified(*s.reader, nspace, proc.rank, key, q, requester, v) == PMIX_SUCCESS);
    // A qualified Get of node, app, job or session data is answered from what is registered:
    // nothing more will come for it.
    const bool settled = q.kind != gds::Qualifier::none && proc.rank >= PMIX_RANK_VALID;
    if (all && q.kind != gds::Qualifier::none && proc.rank >= PMIX_RANK_VALID) {
        // Every key of the node, app, job or session the qualifiers name (OpenPMIx 4.2.2 refuses
        // a NULL key for a non-process rank with PMIX_ERR_BAD_PARAM whatever the qualifiers; we
        // give what its keyed Gets would read, one place: the named array).
        auto kv = read_all_qualified(*s.reader, nspace, proc.rank, requester, q);
        if (kv.empty()) {
            w.status(PMIX_ERR_NOT_FOUND);
        } else {
            w.status(PMIX_SUCCESS).infos(kv.data(), kv.size());
        }
    } else if (all) {
        auto kv = read_all(*s.reader, nspace, proc.rank, gds::kAllScopes,
                           plain ? fresh_segment_of(s, {nspace, proc.rank}) : nullptr);
        if (kv.empty() && !s.namespaces.contains(nspace)) {
            w.status(PMIX_ERR_NOT_FOUND);
        } else {
            w.status(PMIX_SUCCESS).infos(kv.data(), kv.size());
        }
    } else if (found) {
        w.status(PMIX_SUCCESS).value(v.get());
    } else if (settled) {
        w.status(PMIX_ERR_NOT_FOUND);
    } else if (auto cl = s.clients.find({ns_of(proc), proc.rank});
               cl != s.clients.end() && cl->first != who && !cl->second.committed &&
               !cl->second.lost && !info.flag(PMIX_OPTIONAL) && !info.flag(PMIX_IMMEDIATE)) {
        // A local client that has not committed yet: its data may still come.
        CommitWait wait;
        wait.to = ReplyTo::of(conn, f);
        wait.key = key;
        const pmix_info_t* t = info.find(PMIX_TIMEOUT);
        s.wait_for_commit(cl->first, std::move(wait),
                          t != nullptr && t->value.type == PMIX_INT ? t->value.data.integer : 0);
        return;
    } else if (!info.flag(PMIX_OPTIONAL) && !info.flag(PMIX_IMMEDIATE) && !s.is_local(proc) &&
               s.module.direct_modex != nullptr) {
        // A remote proc's data we do not hold: the host fetches it from the owning server.
        int timeout = 0;
        if (const pmix_info_t* t = info.find(PMIX_TIMEOUT);
            t != nullptr && t->value.type == PMIX_INT) {
            timeout = t->value.data.integer;
        }
        DmodexWait wait;
        wait.to = ReplyTo::of(conn, f);
        wait.proc = proc;
        wait.key = key;
        wait.info = std::move(info);
        s.start_direct_modex(std::move(wait), timeout);
        return;
    } else {
        w.status(PMIX_ERR_NOT_FOUND);
    }
    conn.reply(f, w.take());
}

// The host's direct-modex answer (any thread).
void dmodex_answer(pmix_status_t status, const char* data, size_t ndata, void* cbdata,
                   pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    forward_modex_answer(&State::direct_modex_done, status, data, ndata, cbdata, release_fn,
                         release_cbdata);
}

}  // namespace

void forward_modex_answer(ModexContinuation then, pmix_status_t status, const char* data,
                          size_t ndata, void* cbdata, pmix_release_cbfunc_t release_fn,
                          void* release_cbdata) {
    const auto id = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(cbdata));
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(data);
    const std::size_t n = data != nullptr ? ndata : 0;
    // The host keeps `data` until we call release_fn; without one, only during this call.
    std::vector<std::uint8_t> copy;
    if (release_fn == nullptr && n > 0) copy.assign(bytes, bytes + n);
    // The host may call this from inside its upcall, holding the lock its release_fn takes:
    // both the continuation and release_fn run later, as a task of their own (OpenPMIx
    // thread-shifts every host callback the same way).
    call_host_later(
        [then, id, status, bytes, n, copy = std::move(copy), release_fn, release_cbdata] {
            if (auto st = current(); st != nullptr && st->ex->on_loop_thread()) {
                (st.get()->*then)(id, status, copy.empty() ? bytes : copy.data(), n);
            }
            if (release_fn != nullptr) release_fn(release_cbdata);
        });
}

void State::wait_for_commit(const ProcKey& target, CommitWait wait, int timeout_seconds) {
    auto added = pending.commits.add(target, std::move(wait));
    const std::uint64_t id = added.first;
    if (timeout_seconds > 0) {
        added.second.timer =
            ex->run_after(std::chrono::seconds(timeout_seconds), [this, target, id] {
                if (auto w = pending.commits.take(target, id))
                    reply_status(w->to, PMIX_ERR_TIMEOUT);
            });
    }
}

void State::answer_commit_waits(const ProcKey& target) {
    auto waits = pending.commits.take_all(target);
    for (auto& [id, w] : waits) {
        if (w.timer != exec::kInvalidTimer) ex->cancel(w.timer);
        if (w.host_answer != nullptr) {
            // What the client committed (nothing if it left without): never inside a host's
            // call (deregister_client, finalize) into the library.
            auto blob = std::make_shared<std::vector<std::uint8_t>>(modex_blob({target}));
            call_host_later([fn = w.host_answer, cbdata = w.host_cbdata, blob] {
                fn(PMIX_SUCCESS, reinterpret_cast<char*>(blob->data()), blob->size(), cbdata);
            });
            continue;
        }
        auto conn = w.to.conn.lock();
        if (!conn) continue;
        Value v;
        proto::Writer out;
        if (read_value(*reader, target.first, target.second, w.key, v) == PMIX_SUCCESS) {
            out.status(PMIX_SUCCESS).value(v.get());
        } else {
            out.status(PMIX_ERR_NOT_FOUND);
        }
        conn->reply(w.to.request, out.take());
    }
}

void State::start_direct_modex(DmodexWait wait, int timeout_seconds) {
    auto added = pending.dmodex.add(std::move(wait));
    const std::uint64_t id = added.first;
    DmodexWait& w = added.second;
    if (timeout_seconds > 0) {
        w.timer = ex->run_after(std::chrono::seconds(timeout_seconds), [this, id] {
            direct_modex_done(id, PMIX_ERR_TIMEOUT, nullptr, 0);
        });
    }
    const pmix_status_t rc =
        module.direct_modex(&w.proc, w.info.data(), w.info.size(), dmodex_answer,
                            reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
    if (rc != PMIX_SUCCESS) {
        direct_modex_done(id, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_NOT_FOUND : rc, nullptr, 0);
    }
}

void State::direct_modex_done(std::uint64_t id, pmix_status_t status, const std::uint8_t* data,
                              std::size_t ndata) {
    std::optional<DmodexWait> taken = pending.dmodex.take(id);
    if (!taken) {
        return;  // answered already (timeout); a late host answer is dropped
    }
    DmodexWait& w = *taken;
    if (w.timer != exec::kInvalidTimer && status != PMIX_ERR_TIMEOUT) {
        ex->cancel(w.timer);
    }
    if (status == PMIX_SUCCESS && ndata > 0 && store_blob(data, ndata) != PMIX_SUCCESS) {
        status = PMIX_ERR_UNPACK_FAILURE;
    }
    auto conn = w.to.conn.lock();
    if (!conn) {
        return;
    }
    proto::Writer out;
    Value v;
    if (status == PMIX_SUCCESS &&
        read_value(*reader, ns_of(w.proc), w.proc.rank, w.key, v) == PMIX_SUCCESS) {
        out.status(PMIX_SUCCESS).value(v.get());
    } else {
        out.status(status == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND : status);
    }
    conn->reply(w.to.request, out.take());
}

void State::on_message(const ProcKey& who, wire::Connection& conn, wire::Frame&& frame) {
    auto cit = clients.find(who);
    if (cit == clients.end()) {
        conn.close("client no longer registered");
        return;
    }
    Client& c = cit->second;
    proto::Reader r(frame.payload);
    pmix_status_t outcome = PMIX_SUCCESS;
    switch (static_cast<Op>(frame.op)) {
        case Op::kCommit:
            handle_commit(*this, who, r, conn, frame);
            return;
        case Op::kGet:
            handle_get(*this, who, r, conn, frame);
            return;
        case Op::kFence:
            fence_request(who, conn, frame);
            return;
        case Op::kGroupConstruct:
        case Op::kGroupDestruct:
        case Op::kGroupInvite:
        case Op::kGroupJoin:
        case Op::kGroupLeave:
            group_request(*this, who, conn, frame);
            return;
        case Op::kRegisterEvents:
        case Op::kDeregisterEvents:
        case Op::kNotify:
            events_request(who, c, r, conn, frame);
            return;
        case Op::kGetCredential:
        case Op::kValidateCredential:
            outcome = credential_request(c, r, conn, frame);
            break;
        case Op::kMonitor:
        case Op::kHeartbeat:
            outcome = monitor_request(who, c, r, conn, frame);
            break;
        case Op::kIofPull:
        case Op::kIofDeregister:
        case Op::kIofPush:
            iof_request(who, r, conn, frame);
            return;
        case Op::kFinalize:
            if (r.finish() == PMIX_SUCCESS) {
                c.finalized = true;
                {  // nothing of its own left to remove at exit
                    std::lock_guard lock(unfinished_mu);
                    unfinished.erase(c.pid);
                }
                forget_announced_segment(*this, who);
                answer_commit_waits(who);
                if (c.tool) {  // the host admitted it as a tool; client_finalized is for clients
                    reply_status(conn, frame, PMIX_SUCCESS);
                    return;
                }
            }
            [[fallthrough]];
        default:
            outcome = forward_to_host(c, r, conn, frame);
            break;
    }
    if (outcome == PMIX_ERR_UNPACK_FAILURE) {
        slog(exec::LogLevel::error, "undecodable request (op " + std::to_string(frame.op) +
                                        ") from " + who.first + ":" + std::to_string(who.second) +
                                        "; closing that connection");
        conn.close("undecodable request", wire::CloseKind::bad_frame);
    } else if (outcome != PMIX_SUCCESS) {
        reply_status(conn, frame, outcome);
    }
}

}  // namespace pmix::server
