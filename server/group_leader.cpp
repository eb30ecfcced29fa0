// server/group_leader.cpp - a new leader after PMIX_GROUP_LEADER_FAILED (groups.h).
//
// The Standard (groups chapter): the leader's failure reaches the participants as
// PMIX_GROUP_LEADER_FAILED "so they can optionally declare a new leader"; a process declares
// itself by returning PMIX_GROUP_LEADER in the results of its event handler, and once the
// participants' handlers completed, PMIX_GROUP_LEADER_SELECTED identifies the new leader(s) to all
// participants, or tells them that none was selected. (OpenPMIx 4.2.2 raises neither event.)
// Here the server that raised LEADER_FAILED (for a construct under PMIX_GROUP_FT_COLLECTIVE, or a
// group with PMIX_GROUP_NOTIFY_TERMINATION) holds a vote among the local members it told that
// registered for it: each client's library answers once its handler chain for that event ended,
// with the chain's final results (client/events.cpp; proto::kGroupLeaderVote). When every voter
// answered or died, or after kVoteWindow, the group's members (the new leader too) get
// PMIX_GROUP_LEADER_SELECTED from this server with PMIX_GROUP_ID and PMIX_GROUP_LEADER: true,
// with PMIX_EVENT_AFFECTED_PROCS listing every process that declared itself (in the order the
// votes came; the first is the group's leader from then on), or false when nobody did.
#include "server/groups.h"

#include "server/state.h"

#include "data/value.h"
#include "wire/proto/protocol.h"

#include <cstring>

namespace pmix::server {

namespace {

// A voter whose handler never completes does not hold the others longer than this.
constexpr std::chrono::seconds kVoteWindow{5};

// Who hears the result: the construct's members while it runs, else the group's, else the voters.
std::vector<pmix_proc_t> audience(State& s, const std::string& grp, const LeaderVote& vote) {
    for (auto& [id, g] : s.groups.ops) {
        if (g.grp == grp && g.op == PMIX_GROUP_CONSTRUCT && g.failed == PMIX_SUCCESS) {
            return g.procs;
        }
    }
    if (auto rec = s.groups.known.find(grp); rec != s.groups.known.end()) {
        return rec->second.members;
    }
    return vote.told;
}

void take_leader(State& s, const std::string& grp, const pmix_proc_t& leader) {
    for (auto& [id, g] : s.groups.ops) {
        if (g.grp == grp && g.op == PMIX_GROUP_CONSTRUCT) g.leader = leader;
    }
    if (auto rec = s.groups.known.find(grp); rec != s.groups.known.end()) {
        rec->second.leader = leader;
    }
}

void announce(State& s, const std::string& grp) {
    auto it = s.groups.votes.find(grp);
    if (it == s.groups.votes.end()) return;
    LeaderVote vote = std::move(it->second);
    s.groups.votes.erase(it);
    if (vote.timer != exec::kInvalidTimer) s.ex->cancel(vote.timer);
    const std::vector<pmix_proc_t> targets = audience(s, grp, vote);
    const bool selected = !vote.candidates.empty();
    data::InfoArray info;
    info.append(PMIX_GROUP_LEADER, &selected, PMIX_BOOL);
    // From this server, so that the new leader hears it too (an event skips its source).
    pmix_proc_t source{};
    std::strncpy(source.nspace, s.nspace.c_str(), PMIX_MAX_NSLEN);
    source.rank = s.rank;
    if (selected) {
        take_leader(s, grp, vote.candidates.front());
        pmix_data_array_t leaders{PMIX_PROC, vote.candidates.size(), vote.candidates.data()};
        info.append(PMIX_EVENT_AFFECTED_PROCS, &leaders, PMIX_DATA_ARRAY);
    }
    notify_members(s, PMIX_GROUP_LEADER_SELECTED, source, targets, grp, info.data(), info.size());
}

void answered(State& s, const std::string& grp, const ProcKey& who, bool declared) {
    auto it = s.groups.votes.find(grp);
    if (it == s.groups.votes.end() || it->second.waiting.erase(who) == 0) return;
    if (declared) it->second.candidates.push_back(group_proc_of(who));
    if (it->second.waiting.empty()) announce(s, grp);
}

}  // namespace

void leader_vote_open(State& s, const std::string& grp, const std::vector<pmix_proc_t>& told) {
    LeaderVote& vote = s.groups.votes[grp];
    for (const auto& p : told) {
        const ProcKey k{group_ns(p), p.rank};
        auto c = s.clients.find(k);
        if (c == s.clients.end() || c->second.lost || c->second.finalized ||
            !s.events.wants(k, PMIX_GROUP_LEADER_FAILED)) {
            continue;
        }
        vote.waiting.insert(k);
        vote.told.push_back(p);
    }
    if (vote.waiting.empty()) {  // nobody to choose: said at once
        announce(s, grp);
        return;
    }
    if (vote.timer != exec::kInvalidTimer) return;  // a second failure joins the open vote
    vote.serial = s.groups.next_vote++;
    vote.timer = s.ex->run_after(kVoteWindow, [&s, grp, serial = vote.serial] {
        auto live = s.groups.votes.find(grp);
        if (live == s.groups.votes.end() || live->second.serial != serial) return;
        live->second.timer = exec::kInvalidTimer;
        announce(s, grp);
    });
}

bool leader_vote_request(State& s, const ProcKey& who, const pmix_info_t* info, std::size_t ninfo) {
    const pmix_info_t* vote = data::find_info(info, ninfo, proto::kGroupLeaderVote);
    const pmix_info_t* id = data::find_info(info, ninfo, PMIX_GROUP_ID);
    if (vote == nullptr) return false;
    if (id != nullptr && id->value.type == PMIX_STRING && id->value.data.string != nullptr) {
        answered(s, id->value.data.string, who,
                 vote->value.type == PMIX_BOOL && vote->value.data.flag);
    }
    return true;
}

void leader_vote_lost(State& s, const ProcKey& who) {
    std::vector<std::string> grps;
    for (const auto& [grp, vote] : s.groups.votes) {
        if (vote.waiting.count(who) != 0) grps.push_back(grp);
    }
    for (const auto& grp : grps) answered(s, grp, who, false);
}

}  // namespace pmix::server
