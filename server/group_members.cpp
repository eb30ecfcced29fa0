// server/group_members.cpp - the members' side of groups (groups.h): invitations and joins, and
// members that die.
//
// Invite (the Standard's bootstrap method, events as OpenPMIx 4.2 sends them): the leader's
// PMIx_Group_invite opens a construct whose members are the leader and the invitees, and the
// invitees get PMIX_GROUP_INVITED from the leader. Each answers with PMIx_Group_join: ACCEPT
// makes it an arrival of that construct and sends the leader PMIX_GROUP_INVITE_ACCEPTED; DECLINE
// takes it out of the membership, sends the leader PMIX_GROUP_INVITE_DECLINED and returns at
// once. An invitee that dies before answering is taken out and the leader gets
// PMIX_GROUP_INVITE_FAILED. When every remaining member is in, the construct goes to the host as
// any other; the leader and the members that joined get its result, and the members
// PMIX_GROUP_CONSTRUCT_COMPLETE. A join that comes before its invite waits for it.
// Across nodes the host carries the events (its notify_event reaches every node's server before
// the local clients, group_event_elsewhere): PMIX_GROUP_INVITED holds the membership, from which
// each invitee's server opens the same construct; every answer (ACCEPTED, DECLINED,
// INVITE_FAILED) goes to every server, and each calls its host once its local invitees joined and
// every other invitee answered, so that all call it with the same membership. Invitees given as
// a namespace on other nodes by WILDCARD are refused (PMIX_ERR_NOT_SUPPORTED): which ranks are to
// answer is not known here.
//
// A member that dies during a construct: with PMIX_GROUP_FT_COLLECTIVE (or PMIX_GROUP_OPTIONAL)
// the construct completes without it and the members already in get PMIX_GROUP_MEMBER_FAILED
// (PMIX_GROUP_LEADER_FAILED when it was the leader); without, the construct fails for every
// member with PMIX_ERR_LOST_CONNECTION, as a fence does, and those in get
// PMIX_GROUP_CONSTRUCT_ABORT. A destruct goes on without it. A constructed group loses it from
// its membership, and with PMIX_GROUP_NOTIFY_TERMINATION its other members get
// PMIX_GROUP_MEMBER_FAILED (or PMIX_GROUP_LEADER_FAILED). Whenever a constructed group loses a
// member (it left or died), the others get PMIX_GROUP_MEMBERSHIP_UPDATE with the revised
// membership (PMIX_GROUP_MEMBERSHIP), from the server of the one that went: once, through the
// host when members are elsewhere.
#include "server/groups.h"

#include "server/state.h"

#include "data/value.h"

#include <algorithm>
#include <cstring>

namespace pmix::server {

namespace {

pmix_info_t affected_info(const pmix_proc_t& p) {
    pmix_info_t in;
    std::memset(&in, 0, sizeof in);
    std::strncpy(in.key, PMIX_EVENT_AFFECTED_PROC, PMIX_MAX_KEYLEN);
    data::value_load(&in.value, &p, PMIX_PROC);
    return in;
}

// An invitee's answer: to the leader, and through the host to every node's server when the
// invite spans nodes (each waits for every invitee's answer before its host call).
void tell_leader(State& s, const GroupOp& g, pmix_status_t code, const pmix_proc_t& who) {
    if (!g.leader) return;
    pmix_info_t affected = affected_info(who);
    std::vector<pmix_proc_t> all = g.procs;
    all.push_back(who);
    notify_members(s, code, who, {*g.leader}, g.grp, &affected, 1, !s.all_local(all));
    data::info_destruct(&affected);
}

void decline(State& s, GroupOp& g, const ProcKey& who) {
    const pmix_proc_t p = group_proc_of(who);
    g.expected.erase(who);
    g.arrived.erase(who);
    group_remove_member(g.procs, p);
    if (!g.members_known) g.declined.push_back(p);
    tell_leader(s, g, PMIX_GROUP_INVITE_DECLINED, p);
    group_try_complete(s, g);
}

}  // namespace

// A member of op `g` died (the op is not with the host).
void group_member_gone(State& s, GroupOp& g, const ProcKey& who) {
    const pmix_proc_t dead = group_proc_of(who);
    const bool was_leader = g.leader && same_member(*g.leader, dead);
    if (g.op == PMIX_GROUP_DESTRUCT || (g.invite && !was_leader) || g.ft) {
        g.expected.erase(who);
        g.arrived.erase(who);
        group_remove_member(g.procs, dead);
        if (g.op == PMIX_GROUP_CONSTRUCT && g.invite && !was_leader) {
            tell_leader(s, g, PMIX_GROUP_INVITE_FAILED, dead);
        } else if (g.op == PMIX_GROUP_CONSTRUCT) {
            g.lost.push_back(dead);
            if (was_leader) g.leader.reset();
            std::vector<pmix_proc_t> in;
            for (const auto& [k, to] : g.arrived) in.push_back(group_proc_of(k));
            pmix_info_t affected = affected_info(dead);
            notify_members(s, was_leader ? PMIX_GROUP_LEADER_FAILED : PMIX_GROUP_MEMBER_FAILED,
                           dead, in, g.grp, &affected, 1);
            data::info_destruct(&affected);
            if (was_leader) leader_vote_open(s, g.grp, in);
        }
        group_try_complete(s, g);
        return;
    }
    g.expected.erase(who);
    g.arrived.erase(who);
    group_fail(s, g, PMIX_ERR_LOST_CONNECTION);
}

namespace {

void record_lost(State& s, const std::string& id, GroupRecord& rec, const pmix_proc_t& dead) {
    const std::size_t before = rec.members.size();
    group_remove_member(rec.members, dead);
    if (rec.members.size() == before) return;
    membership_update(s, id, dead, rec.members);
    if (!rec.notify_termination) return;
    const bool was_leader = rec.leader && same_member(*rec.leader, dead);
    if (was_leader) rec.leader.reset();
    pmix_info_t affected = affected_info(dead);
    notify_members(s, was_leader ? PMIX_GROUP_LEADER_FAILED : PMIX_GROUP_MEMBER_FAILED, dead,
                   rec.members, id, &affected, 1);
    data::info_destruct(&affected);
    if (was_leader) leader_vote_open(s, id, rec.members);
}

// Members on other nodes: the host's notify_event carries the event to every node (its own
// delivery reaches the local members too). A task of its own: this may run inside a host's call.
void tell_host_later(State& s, pmix_status_t code, const pmix_proc_t& source,
                     const std::vector<pmix_info_t>& info) {
    auto* notice = new HostNotice{source, {}};
    if (notice->info.assign_copy(info.data(), info.size()) != PMIX_SUCCESS) {
        delete notice;
        return;
    }
    s.ex->post([&s, code, notice] {
        const pmix_status_t rc =
            s.module.notify_event(code, &notice->source, PMIX_RANGE_CUSTOM, notice->info.data(),
                                  notice->info.size(), host_notice_done, notice);
        if (rc != PMIX_SUCCESS) delete notice;  // no callback comes for a refused call
    });
}

}  // namespace

void membership_update(State& s, const std::string& grp, const pmix_proc_t& source,
                       const std::vector<pmix_proc_t>& members) {
    if (members.empty()) return;
    pmix_info_t revised;
    std::memset(&revised, 0, sizeof revised);
    std::strncpy(revised.key, PMIX_GROUP_MEMBERSHIP, PMIX_MAX_KEYLEN);
    pmix_data_array_t array{PMIX_PROC, members.size(), const_cast<pmix_proc_t*>(members.data())};
    data::value_load(&revised.value, &array, PMIX_DATA_ARRAY);
    notify_members(s, PMIX_GROUP_MEMBERSHIP_UPDATE, source, members, grp, &revised, 1);
    data::info_destruct(&revised);
}

void group_remove_member(std::vector<pmix_proc_t>& members, const pmix_proc_t& p) {
    members.erase(std::remove_if(members.begin(), members.end(),
                                 [&](const pmix_proc_t& m) { return same_member(m, p); }),
                  members.end());
}

void notify_members(State& s, pmix_status_t code, const pmix_proc_t& source,
                    const std::vector<pmix_proc_t>& targets, const std::string& grp,
                    const pmix_info_t* extra, std::size_t nextra, bool everywhere) {
    if (targets.empty()) return;
    data::InfoArray info;
    pmix_data_array_t range{PMIX_PROC, targets.size(), const_cast<pmix_proc_t*>(targets.data())};
    data::InfoArray more;
    if (info.append(PMIX_EVENT_CUSTOM_RANGE, &range, PMIX_DATA_ARRAY) != PMIX_SUCCESS ||
        info.append(PMIX_GROUP_ID, grp.c_str(), PMIX_STRING) != PMIX_SUCCESS ||
        more.assign_copy(extra, nextra) != PMIX_SUCCESS) {
        return;
    }
    // One flat array for the frame (shallow: `info` and `more` own the values).
    std::vector<pmix_info_t> all(info.data(), info.data() + info.size());
    for (std::size_t i = 0; i < more.size(); ++i) {
        if (std::strncmp(more.data()[i].key, PMIX_GROUP_ID, PMIX_MAX_KEYLEN) != 0) {
            all.push_back(more.data()[i]);
        }
    }
    const bool beyond = everywhere || std::any_of(targets.begin(), targets.end(),
                                                  [&](const auto& p) { return !s.is_local(p); });
    if (beyond && s.module.notify_event != nullptr) {
        tell_host_later(s, code, source, all);
        return;
    }
    Event ev;
    ev.code = code;
    ev.source = source;
    ev.range = PMIX_RANGE_CUSTOM;
    ev.info = all.data();
    ev.ninfo = all.size();
    s.deliver_event(ev);
}

void group_invite_sent(State& s, GroupOp& g, const pmix_proc_t& leader, bool send_invites) {
    const pmix_proc_t me = leader;
    g.leader = me;
    for (const auto& p : g.declined) {
        group_remove_member(g.procs, p);
        g.expected.erase({group_ns(p), p.rank});
        tell_leader(s, g, PMIX_GROUP_INVITE_DECLINED, p);
    }
    g.declined.clear();
    std::vector<pmix_proc_t> invitees;
    for (const auto& p : g.procs) {
        if (same_member(p, me)) continue;
        const ProcKey k{group_ns(p), p.rank};
        if (g.arrived.count(k) != 0) {
            tell_leader(s, g, PMIX_GROUP_INVITE_ACCEPTED, p);  // joined before the invite came
        } else {
            invitees.push_back(p);
        }
    }
    if (!send_invites) return;
    // The membership (and the leader's PMIX_GROUP_ASSIGN_CONTEXT_ID) go with the invitation: the
    // invitees' servers on other nodes open the same construct from it (group_event_elsewhere).
    pmix_data_array_t array{PMIX_PROC, g.procs.size(), g.procs.data()};
    data::InfoArray extra;
    const bool yes = true;
    if (extra.append(PMIX_GROUP_MEMBERSHIP, &array, PMIX_DATA_ARRAY) != PMIX_SUCCESS ||
        (g.assign_context_id &&
         extra.append(PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL) != PMIX_SUCCESS)) {
        return;
    }
    notify_members(s, PMIX_GROUP_INVITED, me, invitees, g.grp, extra.data(), extra.size());
}

void group_join_request(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                        const wire::Frame& frame) {
    std::string grp;
    pmix_proc_t leader{};
    std::size_t accept = 0;
    data::InfoArray info;
    r.string(&grp);
    r.proc(&leader);
    r.size(&accept);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        conn.close("undecodable group join", wire::CloseKind::bad_frame);
        return;
    }
    GroupOp* g = group_find_op(s, grp, PMIX_GROUP_CONSTRUCT, true, who);
    if (g == nullptr) {
        g = &group_open_op(s, grp, PMIX_GROUP_CONSTRUCT, true);
        g->members_known = false;  // the invite has not come yet
    }
    if (accept == 0) {
        group_reply(ReplyTo::of(conn, frame), PMIX_SUCCESS, nullptr, 0);
        decline(s, *g, who);
        return;
    }
    if (g->members_known) tell_leader(s, *g, PMIX_GROUP_INVITE_ACCEPTED, group_proc_of(who));
    group_arrive(s, *g, who, conn, frame, std::move(info));
}

void groups_client_lost(State& s, const ProcKey& who) {
    std::vector<std::uint64_t> ids;
    for (auto& [id, g] : s.groups.ops) {
        if (g.expected.count(who) != 0 || g.arrived.count(who) != 0) ids.push_back(id);
    }
    for (std::uint64_t id : ids) {
        GroupOp* g = s.groups.ops.find(id);
        if (g == nullptr) continue;
        if (g->failed != PMIX_SUCCESS) {
            g->expected.erase(who);
            if (g->expected.empty() && (!g->host_called || g->host_answered)) {
                s.groups.ops.erase(id);
            }
        } else if (!g->host_called && !g->queued) {
            group_member_gone(s, *g, who);
        }
        // Once the host has it, its answer decides (as for a fence).
    }
    leader_vote_lost(s, who);
    const pmix_proc_t dead = group_proc_of(who);
    for (auto it = s.groups.known.begin(); it != s.groups.known.end();) {
        record_lost(s, it->first, it->second, dead);
        it = it->second.members.empty() ? s.groups.known.erase(it) : std::next(it);
    }
}

namespace {

std::vector<pmix_proc_t> procs_of(const pmix_info_t* in) {
    if (in == nullptr || in->value.type != PMIX_DATA_ARRAY || in->value.data.darray == nullptr ||
        in->value.data.darray->type != PMIX_PROC) {
        return {};
    }
    const auto* p = static_cast<const pmix_proc_t*>(in->value.data.darray->array);
    return {p, p + in->value.data.darray->size};
}

// The open invite of `grp` here (its membership known or not), else nullptr.
GroupOp* open_invite(State& s, const std::string& grp) {
    for (auto& [id, g] : s.groups.ops) {
        if (g.grp == grp && g.invite && g.failed == PMIX_SUCCESS && !g.host_called) return &g;
    }
    return nullptr;
}

// The leader's PMIX_GROUP_INVITED reached this node: the construct opens here with the leader's
// membership, waiting for the local invitees' joins and the others' answers.
void invited_elsewhere(State& s, const pmix_proc_t& leader, const std::string& grp,
                       const std::vector<pmix_proc_t>& members, bool assign_context_id) {
    if (s.is_local(leader) || members.empty() ||
        std::none_of(members.begin(), members.end(),
                     [&](const pmix_proc_t& p) { return s.is_local(p); })) {
        return;  // the leader's own server, or no invitee here
    }
    GroupOp* g = open_invite(s, grp);
    if (g != nullptr && g->members_known) return;  // told twice
    if (g == nullptr) g = &group_open_op(s, grp, PMIX_GROUP_CONSTRUCT, true);
    g->procs = members;
    g->assign_context_id = assign_context_id;
    for (const auto& p : members) {
        const ProcKey k{group_ns(p), p.rank};
        if (s.is_local(p)) {
            g->expected.insert(k);
        } else if (!same_member(p, leader)) {
            g->unanswered.insert(k);
        }
    }
    g->members_known = true;
    const std::uint64_t id = g->id;
    group_invite_sent(s, *g, leader, false);
    if (GroupOp* live = s.groups.ops.find(id); live != nullptr) group_try_complete(s, *live);
}

// An invitee on another node answered (or died): this server stops waiting for it.
void answered_elsewhere(State& s, pmix_status_t code, const pmix_proc_t& who,
                        const std::string& grp) {
    GroupOp* g = open_invite(s, grp);
    if (g == nullptr || !g->members_known || s.is_local(who)) return;
    g->unanswered.erase({group_ns(who), who.rank});
    if (code != PMIX_GROUP_INVITE_ACCEPTED) group_remove_member(g->procs, who);
    group_try_complete(s, *g);
}

}  // namespace

void group_event_elsewhere(State& s, pmix_status_t code, const pmix_proc_t& source,
                           const pmix_info_t* info, std::size_t ninfo) {
    const pmix_info_t* id = data::find_info(info, ninfo, PMIX_GROUP_ID);
    if (id == nullptr || id->value.type != PMIX_STRING || id->value.data.string == nullptr) return;
    const std::string grp = id->value.data.string;
    if (code == PMIX_GROUP_INVITED) {
        const pmix_info_t* ctx = data::find_info(info, ninfo, PMIX_GROUP_ASSIGN_CONTEXT_ID);
        invited_elsewhere(s, source, grp,
                          procs_of(data::find_info(info, ninfo, PMIX_GROUP_MEMBERSHIP)),
                          ctx != nullptr && ctx->value.type == PMIX_BOOL && ctx->value.data.flag);
        return;
    }
    if (code == PMIX_GROUP_INVITE_ACCEPTED || code == PMIX_GROUP_INVITE_DECLINED ||
        code == PMIX_GROUP_INVITE_FAILED) {
        answered_elsewhere(s, code, source, grp);
        return;
    }
    if (code != PMIX_GROUP_LEFT) return;
    auto rec = s.groups.known.find(grp);
    if (rec == s.groups.known.end()) return;
    group_remove_member(rec->second.members, source);
    if (rec->second.members.empty()) s.groups.known.erase(rec);
}

}  // namespace pmix::server
