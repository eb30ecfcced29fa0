// server/groups.cpp - PMIx_Group_construct / destruct / leave at the server (groups.h), and the
// host's `group` upcall.
//
// Construct is a collective of the listed members, like a fence: the local members' requests are
// collected in a GroupOp (one per group id and operation); when every local member is in, the
// host's group upcall is called once with the membership (a group id given as a namespace stands
// for that group's members, as OpenPMIx 4.2 expands it), the first arrival's directives and
// PMIX_GROUP_ENDPT_DATA's contributions; its answer (PMIX_GROUP_CONTEXT_ID, ...) plus
// PMIX_GROUP_MEMBERSHIP is every local member's result. A host without the upcall: a group of
// local members that asks no context id completes here (so does PMIX_GROUP_LOCAL_ONLY, as with
// OpenPMIx); anything else answers PMIX_ERR_NOT_SUPPORTED. Destruct is the same collective over
// the recorded members (an unknown group: PMIX_ERR_NOT_FOUND, as OpenPMIx). Leave removes the
// caller from the record here and tells the other members PMIX_GROUP_LEFT and
// PMIX_GROUP_MEMBERSHIP_UPDATE. A construct whose result has a context id tells the members
// PMIX_GROUP_CONTEXT_ID_ASSIGNED too.
// PMIX_TIMEOUT ends an op with PMIX_ERR_TIMEOUT; a required directive we do not know answers
// PMIX_ERR_NOT_SUPPORTED. Members dying mid-operation: group_members.cpp.
#include "server/groups.h"

#include "server/api.h"
#include "server/state.h"

#include "data/value.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace pmix::server {

namespace {

using proto::Op;

// Directives a group request may carry that the library acts on or passes to the host.
bool known_directive(const pmix_info_t& in) {
    static const char* const kKnown[] = {PMIX_GROUP_ID,
                                         PMIX_GROUP_LEADER,
                                         PMIX_GROUP_OPTIONAL,
                                         PMIX_GROUP_FT_COLLECTIVE,
                                         PMIX_GROUP_NOTIFY_TERMINATION,
                                         PMIX_GROUP_ASSIGN_CONTEXT_ID,
                                         PMIX_GROUP_LOCAL_ONLY,
                                         PMIX_GROUP_ENDPT_DATA,
                                         PMIX_GROUP_INFO,
                                         PMIX_TIMEOUT,
                                         PMIX_EMBED_BARRIER};
    for (const char* k : kKnown) {
        if (std::strncmp(in.key, k, PMIX_MAX_KEYLEN) == 0) return true;
    }
    return false;
}

bool unknown_required(const data::InfoArray& info) {
    for (std::size_t i = 0; i < info.size(); ++i) {
        const pmix_info_t& in = info.data()[i];
        if (PMIX_INFO_IS_REQUIRED(&in) && !known_directive(in)) return true;
    }
    return false;
}

void add_unique(std::vector<pmix_proc_t>& out, const pmix_proc_t& p) {
    for (const auto& q : out) {
        if (same_member(q, p)) return;
    }
    out.push_back(p);
}

// The membership: a known group's id as the namespace stands for its members (rank WILDCARD:
// all, else the member of that index); a namespace whose ranks are all here is listed rank by
// rank, so that a member that dies can be taken out of it.
// A WILDCARD of a name that is neither a group nor a namespace this server knows: nothing to
// expand it into here (a group without members on this node), so the construct would not agree
// with the other nodes' and could only wait for a timeout; such a request is refused
// (PMIX_ERR_NOT_FOUND, see unresolvable) instead.
std::vector<pmix_proc_t> expand_members(const State& s, const GroupTable& groups,
                                        const std::vector<pmix_proc_t>& procs) {
    std::vector<pmix_proc_t> out;
    for (const auto& p : procs) {
        auto g = groups.known.find(group_ns(p));
        if (g != groups.known.end()) {
            if (p.rank == PMIX_RANK_WILDCARD) {
                for (const auto& m : g->second.members) add_unique(out, m);
            } else if (p.rank < g->second.members.size()) {
                add_unique(out, g->second.members[p.rank]);
            }
            continue;
        }
        const Namespace* ns = s.namespaces.find(group_ns(p));
        if (p.rank == PMIX_RANK_WILDCARD && s.all_local({p}) && ns != nullptr) {
            for (pmix_rank_t r : ns->local_ranks) {
                pmix_proc_t one = p;
                one.rank = r;
                add_unique(out, one);
            }
            continue;
        }
        add_unique(out, p);
    }
    return out;
}

bool unresolvable(const State& s, const GroupTable& groups, const std::vector<pmix_proc_t>& procs) {
    for (const auto& p : procs) {
        if (p.rank == PMIX_RANK_WILDCARD && groups.known.count(group_ns(p)) == 0 &&
            !s.namespaces.contains(group_ns(p))) {
            return true;
        }
    }
    return false;
}

std::set<ProcKey> local_members(const State& s, const std::vector<pmix_proc_t>& procs) {
    std::set<ProcKey> out;
    for (const auto& p : procs) {
        for (const auto& [key, c] : s.clients) {
            if (c.tool || key.first != group_ns(p)) continue;
            if (p.rank == PMIX_RANK_WILDCARD || p.rank == key.second) out.insert(key);
        }
        const Namespace* ns = s.namespaces.find(group_ns(p));
        if (p.rank == PMIX_RANK_WILDCARD && ns != nullptr && ns->registered) {
            for (pmix_rank_t r : ns->local_ranks) out.insert({ns->name, r});
        }
    }
    return out;
}

}  // namespace

pmix_proc_t group_proc_of(const ProcKey& k) {
    pmix_proc_t p{};
    std::strncpy(p.nspace, k.first.c_str(), PMIX_MAX_NSLEN);
    p.rank = k.second;
    return p;
}

namespace {

// The directives of one arrival that shape the op: leader, fault tolerance, timeout.
void take_directives(State& s, GroupOp& g, const ProcKey& who, const data::InfoArray& info) {
    if (info.flag(PMIX_GROUP_LEADER)) g.leader = group_proc_of(who);
    if (info.flag(PMIX_GROUP_FT_COLLECTIVE) || info.flag(PMIX_GROUP_OPTIONAL)) g.ft = true;
    if (info.flag(PMIX_GROUP_NOTIFY_TERMINATION)) g.notify_termination = true;
    const int seconds = info.integer(PMIX_TIMEOUT);
    if (g.timer == exec::kInvalidTimer && seconds > 0) {
        g.timer = s.ex->run_after(std::chrono::seconds(seconds), [&s, id = g.id] {
            if (GroupOp* live = s.groups.ops.find(id); live != nullptr) {
                live->timer = exec::kInvalidTimer;
                group_fail(s, *live, PMIX_ERR_TIMEOUT);
            }
        });
    }
}

}  // namespace

GroupOp* group_find_op(State& s, const std::string& grp, pmix_group_operation_t op, bool invite,
                       const ProcKey& who) {
    for (auto& [id, g] : s.groups.ops) {
        if (g.grp != grp || g.op != op || g.invite != invite || g.arrived.count(who) != 0) {
            continue;
        }
        if (g.failed != PMIX_SUCCESS ? g.expected.count(who) != 0 : !g.host_called && !g.queued)
            return &g;
    }
    return nullptr;
}

GroupOp& group_open_op(State& s, const std::string& grp, pmix_group_operation_t op, bool invite) {
    auto added = s.groups.ops.add(GroupOp{});
    GroupOp& g = added.second;
    g.id = added.first;
    g.grp = grp;
    g.op = op;
    g.invite = invite;
    return g;
}

// An arrival for `g`: answered at once when the op failed already, else recorded.
void group_arrive(State& s, GroupOp& g, const ProcKey& who, wire::Connection& conn,
                  const wire::Frame& frame, data::InfoArray info) {
    if (g.failed != PMIX_SUCCESS) {
        group_reply(ReplyTo::of(conn, frame), g.failed, nullptr, 0);
        g.expected.erase(who);
        if (g.expected.empty() && (!g.host_called || g.host_answered)) s.groups.ops.erase(g.id);
        return;
    }
    take_directives(s, g, who, info);
    if (g.info.size() == 0 && info.size() > 0) g.info = std::move(info);
    g.expected.insert(who);
    g.arrived[who] = ReplyTo::of(conn, frame);
    group_try_complete(s, g);
}

namespace {

// Members that died before the op opened never arrive: the op goes on without them or fails,
// as if they died now (after the arrival, so that the FT rules see the directives).
void leave_out_the_gone(State& s, std::uint64_t id) {
    GroupOp* g = s.groups.ops.find(id);
    if (g == nullptr || g->failed != PMIX_SUCCESS || g->host_called || g->queued) return;
    std::vector<ProcKey> gone;
    for (const auto& k : g->expected) {
        auto c = s.clients.find(k);
        if (c != s.clients.end() && c->second.lost) gone.push_back(k);
    }
    for (const auto& k : gone) {
        g = s.groups.ops.find(id);
        if (g == nullptr || g->failed != PMIX_SUCCESS || g->host_called || g->queued) return;
        group_member_gone(s, *g, k);
    }
}

void construct_request(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                       const wire::Frame& frame, bool invite) {
    std::string grp;
    std::vector<pmix_proc_t> procs;
    data::InfoArray info;
    r.string(&grp);
    r.procs(&procs);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        conn.close("undecodable group request", wire::CloseKind::bad_frame);
        return;
    }
    if (grp.empty() || grp.size() > PMIX_MAX_NSLEN || procs.empty()) {
        group_reply(ReplyTo::of(conn, frame), PMIX_ERR_BAD_PARAM, nullptr, 0);
        return;
    }
    if (unknown_required(info)) {
        group_reply(ReplyTo::of(conn, frame), PMIX_ERR_NOT_SUPPORTED, nullptr, 0);
        return;
    }
    if (unresolvable(s, s.groups, procs)) {
        group_reply(ReplyTo::of(conn, frame), PMIX_ERR_NOT_FOUND, nullptr, 0);
        return;
    }
    if (invite && std::any_of(procs.begin(), procs.end(), [&](const pmix_proc_t& p) {
            return p.rank == PMIX_RANK_WILDCARD && !s.all_local({p}) &&
                   s.groups.known.count(group_ns(p)) == 0;
        })) {
        // A namespace on other nodes by WILDCARD: this server cannot tell which ranks are to
        // answer the invitation, so it could only wait; refused instead.
        group_reply(ReplyTo::of(conn, frame), PMIX_ERR_NOT_SUPPORTED, nullptr, 0);
        return;
    }
    GroupOp* g = group_find_op(s, grp, PMIX_GROUP_CONSTRUCT, invite, who);
    if (g == nullptr) {
        g = &group_open_op(s, grp, PMIX_GROUP_CONSTRUCT, invite);
        g->members_known = false;
    }
    if (!g->members_known) {
        std::vector<pmix_proc_t> all = procs;
        if (invite) all.insert(all.begin(), group_proc_of(who));  // the leader is a member
        g->procs = expand_members(s, s.groups, all);
        for (const auto& k : local_members(s, g->procs)) g->expected.insert(k);
        if (invite) {
            for (const auto& p : g->procs) {
                if (!s.is_local(p)) g->unanswered.insert({group_ns(p), p.rank});
            }
        }
        g->members_known = true;
    }
    if (invite) {
        g->assign_context_id = info.flag(PMIX_GROUP_ASSIGN_CONTEXT_ID);
        group_invite_sent(s, *g, group_proc_of(who), true);
    }
    const std::uint64_t id = g->id;
    group_arrive(s, *g, who, conn, frame, std::move(info));
    leave_out_the_gone(s, id);
}

void destruct_request(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                      const wire::Frame& frame) {
    std::string grp;
    data::InfoArray info;
    r.string(&grp);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        conn.close("undecodable group request", wire::CloseKind::bad_frame);
        return;
    }
    auto rec = s.groups.known.find(grp);
    if (rec == s.groups.known.end()) {
        group_reply(ReplyTo::of(conn, frame), PMIX_ERR_NOT_FOUND, nullptr, 0);
        return;
    }
    GroupOp* g = group_find_op(s, grp, PMIX_GROUP_DESTRUCT, false, who);
    if (g == nullptr) {
        g = &group_open_op(s, grp, PMIX_GROUP_DESTRUCT, false);
        g->procs = rec->second.members;
        g->expected = local_members(s, g->procs);
    }
    group_arrive(s, *g, who, conn, frame, std::move(info));
}

void leave_request(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                   const wire::Frame& frame) {
    std::string grp;
    data::InfoArray info;
    r.string(&grp);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        conn.close("undecodable group request", wire::CloseKind::bad_frame);
        return;
    }
    auto rec = s.groups.known.find(grp);
    const pmix_proc_t me = group_proc_of(who);
    if (rec == s.groups.known.end()) {
        group_reply(ReplyTo::of(conn, frame), PMIX_ERR_NOT_FOUND, nullptr, 0);
        return;
    }
    auto& members = rec->second.members;
    const auto gone = std::remove_if(members.begin(), members.end(),
                                     [&](const pmix_proc_t& m) { return same_member(m, me); });
    if (gone == members.end()) {
        group_reply(ReplyTo::of(conn, frame), PMIX_ERR_NOT_FOUND, nullptr, 0);
        return;
    }
    members.erase(gone, members.end());
    notify_members(s, PMIX_GROUP_LEFT, me, members, grp);
    membership_update(s, grp, me, members);
    if (members.empty()) s.groups.known.erase(rec);
    group_reply(ReplyTo::of(conn, frame), PMIX_SUCCESS, nullptr, 0);
}

// ---- completion ---------------------------------------------------------------------------------

// The construct's embedded barrier (as OpenPMIx 4.2 does unless PMIX_EMBED_BARRIER is false):
// the local members' committed modex goes to the host as PMIX_GROUP_ENDPT_DATA (the fence blob,
// server/fence.cpp), the host hands back the other nodes' and it is stored before anyone is
// released, so that members read each other's data without a direct modex. Only when the group
// spans nodes (on one node the store has it all) and the caller gave no PMIX_GROUP_ENDPT_DATA.
void attach_endpoints(State& s, GroupOp& g) {
    const pmix_info_t* barrier = g.info.find(PMIX_EMBED_BARRIER);
    if (g.op != PMIX_GROUP_CONSTRUCT || g.info.find(PMIX_GROUP_ENDPT_DATA) != nullptr ||
        (barrier != nullptr && !g.info.flag(PMIX_EMBED_BARRIER)) || s.all_local(g.procs)) {
        return;
    }
    std::vector<ProcKey> members;
    for (const auto& [who, to] : g.arrived) members.push_back(who);
    std::vector<std::uint8_t> blob = s.modex_blob(members);
    pmix_byte_object_t bo{reinterpret_cast<char*>(blob.data()), blob.size()};
    g.sent_endpoints = g.info.append(PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT) == PMIX_SUCCESS;
}

// The host's answer without PMIX_GROUP_ENDPT_DATA, which is stored instead (attach_endpoints).
void store_endpoints(State& s, const GroupOp& g, const pmix_info_t* info, std::size_t ninfo,
                     data::InfoArray& results) {
    std::vector<pmix_info_t> rest;
    for (std::size_t i = 0; i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        if (!g.sent_endpoints ||
            std::strncmp(in.key, PMIX_GROUP_ENDPT_DATA, PMIX_MAX_KEYLEN) != 0) {
            rest.push_back(in);
            continue;
        }
        if (in.value.type == PMIX_BYTE_OBJECT && in.value.data.bo.size > 0 &&
            s.store_blob(reinterpret_cast<const std::uint8_t*>(in.value.data.bo.bytes),
                         in.value.data.bo.size) != PMIX_SUCCESS) {
            slog(exec::LogLevel::warn, "the host's group endpoint data does not decode");
        }
    }
    results.assign_copy(rest.data(), rest.size());
}

void record_result(State& s, const GroupOp& g) {
    if (g.op == PMIX_GROUP_DESTRUCT) {
        s.groups.known.erase(g.grp);
        return;
    }
    GroupRecord rec;
    rec.members = g.procs;
    rec.leader = g.leader;
    rec.notify_termination = g.notify_termination;
    s.groups.known[g.grp] = std::move(rec);
}

// PMIX_GROUP_CONTEXT_ID_ASSIGNED (the Standard's event for a context id the host assigned) to
// the members here, with PMIX_GROUP_CONTEXT_ID: each server tells its own.
void context_id_assigned(State& s, const GroupOp& g, const data::InfoArray& results) {
    const pmix_info_t* id = results.find(PMIX_GROUP_CONTEXT_ID);
    if (g.op != PMIX_GROUP_CONSTRUCT || id == nullptr) return;
    std::vector<pmix_proc_t> here;
    for (const auto& [who, to] : g.arrived) here.push_back(group_proc_of(who));
    pmix_proc_t me{};
    std::strncpy(me.nspace, s.nspace.c_str(), PMIX_MAX_NSLEN);
    me.rank = s.rank;
    notify_members(s, PMIX_GROUP_CONTEXT_ID_ASSIGNED, me, here, g.grp, id, 1);
}

namespace {

// Removes the members that died during op `g` (g.lost) from g.procs and from the
// PMIX_GROUP_MEMBERSHIP of `results`.
void drop_lost_members(GroupOp& g, data::InfoArray& results) {
    if (g.lost.empty()) return;
    for (const pmix_proc_t& dead : g.lost) group_remove_member(g.procs, dead);
    for (std::size_t i = 0; i < results.size(); ++i) {
        pmix_info_t& entry = results.data()[i];
        if (!PMIX_CHECK_KEY(&entry, PMIX_GROUP_MEMBERSHIP)) continue;
        data::value_destruct(&entry.value);
        pmix_data_array_t members{PMIX_PROC, g.procs.size(), g.procs.data()};
        data::value_load(&entry.value, &members, PMIX_DATA_ARRAY);
    }
}

}  // namespace

void group_complete(State& s, std::uint64_t id, pmix_status_t status, const pmix_info_t* info,
                    std::size_t ninfo) {
    GroupOp* found = s.groups.ops.find(id);
    if (found == nullptr) return;
    GroupOp& g = *found;
    g.host_answered = true;
    if (g.failed != PMIX_SUCCESS) {  // timed out or failed while the host had it
        if (g.expected.empty()) s.groups.ops.erase(id);
        return;
    }
    if (g.timer != exec::kInvalidTimer) s.ex->cancel(g.timer);
    data::InfoArray results;
    store_endpoints(s, g, info, ninfo, results);
    // The host's membership, when it gives one, is the record's (it lists the ranks a namespace
    // given as WILDCARD stands for on other nodes, so that one of them may leave).
    if (const pmix_info_t* m = results.find(PMIX_GROUP_MEMBERSHIP);
        m != nullptr && m->value.type == PMIX_DATA_ARRAY && m->value.data.darray != nullptr &&
        m->value.data.darray->type == PMIX_PROC && m->value.data.darray->size > 0) {
        const auto* procs = static_cast<const pmix_proc_t*>(m->value.data.darray->array);
        g.procs.assign(procs, procs + m->value.data.darray->size);
        // The host expands a namespace to its ranks without knowing which of them died here
        // under FT (pmixrun: whether it reaped the dead one yet); those are not members.
        drop_lost_members(g, results);
    }
    if (g.op == PMIX_GROUP_CONSTRUCT && results.find(PMIX_GROUP_MEMBERSHIP) == nullptr) {
        pmix_data_array_t members{PMIX_PROC, g.procs.size(), g.procs.data()};
        results.append(PMIX_GROUP_MEMBERSHIP, &members, PMIX_DATA_ARRAY);
    }
    const bool with_results = g.op == PMIX_GROUP_CONSTRUCT && status == PMIX_SUCCESS;
    for (auto& [who, to] : g.arrived) {
        group_reply(to, status, with_results ? results.data() : nullptr,
                    with_results ? results.size() : 0);
    }
    if (status == PMIX_SUCCESS) {
        record_result(s, g);
        context_id_assigned(s, g, results);
        if (g.invite && g.leader && s.is_local(*g.leader)) {  // once: from the leader's server
            notify_members(s, PMIX_GROUP_CONSTRUCT_COMPLETE, *g.leader, g.procs, g.grp,
                           results.data(), results.size());
        }
    }
    s.groups.ops.erase(id);
}

// The host's answer (any thread, possibly inside its upcall): continued on the server's loop as
// a task of its own, then the host's release_fn.
void group_host_done(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* cbdata,
                     pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    const auto id = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(cbdata));
    auto copy = std::make_shared<data::InfoArray>();
    const pmix_status_t rc = copy->assign_copy(info, ninfo);
    call_host_later([id, status, rc, copy, release_fn, release_cbdata] {
        if (auto st = current(); st != nullptr && st->ex->on_loop_thread()) {
            group_complete(*st, id, rc != PMIX_SUCCESS ? rc : status, copy->data(), copy->size());
        }
        if (release_fn != nullptr) release_fn(release_cbdata);
    });
}

void to_host(State& s, GroupOp& g) {
    const bool yes = true;  // the leader's request, whichever member's directives g.info holds
    if (g.assign_context_id && !g.info.flag(PMIX_GROUP_ASSIGN_CONTEXT_ID)) {
        g.info.append(PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
    }
    const bool local_only = g.info.flag(PMIX_GROUP_LOCAL_ONLY);
    const bool wants_id = g.info.flag(PMIX_GROUP_ASSIGN_CONTEXT_ID);
    if ((local_only && !wants_id) ||
        (s.module.group == nullptr && !wants_id && s.all_local(g.procs))) {
        group_complete(s, g.id, PMIX_SUCCESS, nullptr, 0);
        return;
    }
    if (s.module.group == nullptr) {
        group_complete(s, g.id, PMIX_ERR_NOT_SUPPORTED, nullptr, 0);
        return;
    }
    attach_endpoints(s, g);
    g.host_called = true;
    const std::uint64_t id = g.id;
    const pmix_status_t rc = s.module.group(
        g.op, g.grp.data(), g.procs.data(), g.procs.size(), g.info.data(), g.info.size(),
        group_host_done, reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
    if (rc != PMIX_SUCCESS) {
        group_complete(s, id, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, nullptr, 0);
    }
}

}  // namespace

std::string group_ns(const pmix_proc_t& p) {
    return std::string(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN));
}

bool same_member(const pmix_proc_t& a, const pmix_proc_t& b) {
    return a.rank == b.rank && std::strncmp(a.nspace, b.nspace, PMIX_MAX_NSLEN) == 0;
}

void group_reply(const ReplyTo& to, pmix_status_t status, const pmix_info_t* info,
                 std::size_t ninfo) {
    if (auto c = to.conn.lock()) {
        proto::Writer w;
        w.status(status).infos(info, ninfo);
        if (w.status_code() != PMIX_SUCCESS) {
            proto::Writer plain;
            plain.status(w.status_code()).infos(nullptr, 0);
            c->reply(to.request, plain.take());
            return;
        }
        c->reply(to.request, w.take());
    }
}

// Posted: this may run from a connection's close, inside a host's call into the library.
void group_try_complete(State& s, GroupOp& g) {
    if (!g.members_known || g.failed != PMIX_SUCCESS || g.host_called || g.queued) return;
    if (g.arrived.size() < g.expected.size() || !g.unanswered.empty()) return;
    if (g.expected.empty() && g.invite && g.leader && !s.is_local(*g.leader)) {
        if (g.timer != exec::kInvalidTimer) s.ex->cancel(g.timer);
        s.groups.ops.erase(g.id);  // every invitee here declined or died: no part in it
        return;
    }
    if (g.expected.empty()) {
        group_fail(s, g, PMIX_ERR_LOST_CONNECTION);
        return;
    }
    g.queued = true;  // no second arrival or loss may start it again
    s.ex->post([&s, id = g.id] {
        if (GroupOp* live = s.groups.ops.find(id);
            live != nullptr && live->failed == PMIX_SUCCESS) {
            live->queued = false;
            to_host(s, *live);
        }
    });
}

void group_fail(State& s, GroupOp& g, pmix_status_t status) {
    if (g.failed != PMIX_SUCCESS) return;
    if (g.timer != exec::kInvalidTimer) s.ex->cancel(g.timer);
    g.timer = exec::kInvalidTimer;
    g.failed = status;
    std::vector<pmix_proc_t> told;
    for (auto& [who, to] : g.arrived) {
        group_reply(to, status, nullptr, 0);
        g.expected.erase(who);
        told.push_back(group_proc_of(who));
    }
    g.arrived.clear();
    if (g.op == PMIX_GROUP_CONSTRUCT && !told.empty()) {
        pmix_proc_t me{};
        std::strncpy(me.nspace, s.nspace.c_str(), PMIX_MAX_NSLEN);
        me.rank = s.rank;
        notify_members(s, PMIX_GROUP_CONSTRUCT_ABORT, me, told, g.grp);
    }
    // Members still to come are answered on arrival; then the record goes (once the host, if
    // it has the op, answered: it holds pointers into it).
    if (g.expected.empty() && (!g.host_called || g.host_answered)) s.groups.ops.erase(g.id);
}

void group_request(State& s, const ProcKey& who, wire::Connection& conn, const wire::Frame& frame) {
    proto::Reader r(frame.payload);
    switch (static_cast<Op>(frame.op)) {
        case Op::kGroupConstruct:
            construct_request(s, who, r, conn, frame, false);
            return;
        case Op::kGroupInvite:
            construct_request(s, who, r, conn, frame, true);
            return;
        case Op::kGroupDestruct:
            destruct_request(s, who, r, conn, frame);
            return;
        case Op::kGroupLeave:
            leave_request(s, who, r, conn, frame);
            return;
        case Op::kGroupJoin:
            group_join_request(s, who, r, conn, frame);
            return;
        default:
            group_reply(ReplyTo::of(conn, frame), PMIX_ERR_NOT_SUPPORTED, nullptr, 0);
    }
}

}  // namespace pmix::server
