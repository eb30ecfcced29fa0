// server/groups.h - PMIx groups at this server (groups.cpp, group_members.cpp).
//
// Contract: the server's loop thread only. A GroupOp is one construct, destruct or invite in
// progress: opened by the first local member's request (or, for an invite, by the leader's invite
// or an invitee's early join), it collects the local members' arrivals, then makes ONE call of
// the host's `group` upcall (PMIX_GROUP_CONSTRUCT / PMIX_GROUP_DESTRUCT) and answers every local
// member with the host's result. Its id is the upcall's cbdata. A GroupRecord is a group this
// server saw constructed and not yet destructed: what destruct, leave, groups of groups (a group
// id used as a namespace) and PMIX_GROUP_NOTIFY_TERMINATION need.
#pragma once

#include "exec/executor.h"
#include "server/clients.h"
#include "server/id_table.h"
#include "server/pending.h"
#include "wire/proto/message.h"

#include <pmix_server.h>

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pmix::server {

class State;

struct GroupRecord {
    std::vector<pmix_proc_t> members;
    std::optional<pmix_proc_t> leader;
    bool notify_termination = false;
};

struct GroupOp {
    std::uint64_t id = 0;
    pmix_group_operation_t op = PMIX_GROUP_CONSTRUCT;
    bool invite = false;        // PMIx_Group_invite: the invitees join
    bool members_known = true;  // false while an invite op holds only early joins
    std::string grp;
    std::vector<pmix_proc_t> procs;  // the membership (group references expanded)
    std::set<ProcKey> expected;      // local members still part of the operation
    std::map<ProcKey, ReplyTo> arrived;
    std::vector<pmix_proc_t> lost;  // members that died during the operation (FT)
    data::InfoArray info;           // the first arrival's directives, passed to the host
    std::optional<pmix_proc_t> leader;
    bool ft = false;  // PMIX_GROUP_FT_COLLECTIVE or PMIX_GROUP_OPTIONAL
    bool notify_termination = false;
    std::vector<pmix_proc_t> declined;  // invitees that declined before the invite came
    // Invite: the invitees on other nodes that have not answered yet (their servers' ACCEPTED,
    // DECLINED or INVITE_FAILED come through the host); the host is called once none is left.
    std::set<ProcKey> unanswered;
    bool assign_context_id = false;  // the leader's PMIX_GROUP_ASSIGN_CONTEXT_ID (invite)
    bool queued = false;             // every local member is in; the host call is posted
    bool host_called = false;
    bool host_answered = false;
    bool sent_endpoints = false;  // PMIX_GROUP_ENDPT_DATA: our members' modex went to the host
    pmix_status_t failed = PMIX_SUCCESS;  // once set, arrivals are answered with it
    exec::TimerId timer = exec::kInvalidTimer;
};

// The choice of a new leader after PMIX_GROUP_LEADER_FAILED (group_leader.cpp).
struct LeaderVote {
    std::uint64_t serial = 0;             // which vote its timer belongs to
    std::set<ProcKey> waiting;            // local members told, not answered yet
    std::vector<pmix_proc_t> candidates;  // those that declared themselves
    std::vector<pmix_proc_t> told;
    exec::TimerId timer = exec::kInvalidTimer;
};

struct GroupTable {
    IdTable<GroupOp> ops;
    std::map<std::string, GroupRecord> known;
    std::map<std::string, LeaderVote> votes;  // by group id
    std::uint64_t next_vote = 1;
};

// kGroupConstruct / kGroupDestruct / kGroupInvite / kGroupJoin / kGroupLeave from a client.
void group_request(State& s, const ProcKey& who, wire::Connection& conn, const wire::Frame& frame);
// A client's connection closed before it finalized (or it finalized): it leaves every group
// operation in progress and every group it belongs to (group_members.cpp).
void groups_client_lost(State& s, const ProcKey& who);

// A group event from another node, which the host relays (PMIx_Notify_event in the host), before
// it goes to the local clients (group_members.cpp): PMIX_GROUP_LEFT takes that member out of
// this server's record of the group; PMIX_GROUP_INVITED opens the invite here for the local
// invitees; PMIX_GROUP_INVITE_ACCEPTED / DECLINED / FAILED answer for an invitee elsewhere.
void group_event_elsewhere(State& s, pmix_status_t code, const pmix_proc_t& source,
                           const pmix_info_t* info, std::size_t ninfo);

// PMIX_GROUP_LEADER_FAILED was sent to `told` (group_leader.cpp): a vote opens among the local
// ones that registered for it. A client's vote (a kNotify of PMIX_GROUP_LEADER_SELECTED with
// proto::kGroupLeaderVote): true when taken. A voter died: it counts as no.
void leader_vote_open(State& s, const std::string& grp, const std::vector<pmix_proc_t>& told);
bool leader_vote_request(State& s, const ProcKey& who, const pmix_info_t* info, std::size_t ninfo);
void leader_vote_lost(State& s, const ProcKey& who);

// Shared by groups.cpp and group_members.cpp.
// The open op of `grp` that `who` may join (or a failed one still expecting it), else nullptr.
GroupOp* group_find_op(State& s, const std::string& grp, pmix_group_operation_t op, bool invite,
                       const ProcKey& who);
GroupOp& group_open_op(State& s, const std::string& grp, pmix_group_operation_t op, bool invite);
// Records `who`'s request in `g` (answered at once when `g` failed already).
void group_arrive(State& s, GroupOp& g, const ProcKey& who, wire::Connection& conn,
                  const wire::Frame& frame, data::InfoArray info);
// The leader's invite is in `g`: PMIX_GROUP_INVITED to the invitees (when `send_invites`: at the
// leader's server); early answers to the leader.
void group_invite_sent(State& s, GroupOp& g, const pmix_proc_t& leader, bool send_invites);
void group_join_request(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                        const wire::Frame& frame);
pmix_proc_t group_proc_of(const ProcKey& k);
// A member of `g` is gone (died, or was gone already when `g` opened): by the rules of
// group_members.cpp, `g` goes on without it or fails.
void group_member_gone(State& s, GroupOp& g, const ProcKey& who);
void group_remove_member(std::vector<pmix_proc_t>& members, const pmix_proc_t& p);
std::string group_ns(const pmix_proc_t& p);
bool same_member(const pmix_proc_t& a, const pmix_proc_t& b);
// Sends `code` from `source` to the clients among `targets` that registered for it, with
// PMIX_GROUP_ID and `extra`: through the host when a target is elsewhere or `everywhere` (every
// node's server must see it: the answers to an invite that spans nodes).
void notify_members(State& s, pmix_status_t code, const pmix_proc_t& source,
                    const std::vector<pmix_proc_t>& targets, const std::string& grp,
                    const pmix_info_t* extra = nullptr, std::size_t nextra = 0,
                    bool everywhere = false);
// PMIX_GROUP_MEMBERSHIP_UPDATE from `source` (who left or died) to the group's remaining
// `members`, with the revised membership (PMIX_GROUP_MEMBERSHIP), as the Standard defines it.
void membership_update(State& s, const std::string& grp, const pmix_proc_t& source,
                       const std::vector<pmix_proc_t>& members);
// Every arrival answered when the op is complete: the host's call, or local completion.
void group_try_complete(State& s, GroupOp& g);
// Ends the op for everyone with `status` (and PMIX_GROUP_CONSTRUCT_ABORT for a construct).
void group_fail(State& s, GroupOp& g, pmix_status_t status);
void group_reply(const ReplyTo& to, pmix_status_t status, const pmix_info_t* info,
                 std::size_t ninfo);

}  // namespace pmix::server
