// server/psets.cpp - see psets.h.
#include "server/psets.h"

#include "server/publish.h"
#include "server/state.h"

#include "data/value.h"

#include <algorithm>
#include <cstring>
#include <set>

namespace pmix::server {

namespace {


bool covers(const pmix_proc_t& member, const pmix_proc_t& proc) {
    return ns_of(member) == ns_of(proc) &&
           (member.rank == PMIX_RANK_WILDCARD || member.rank == proc.rank);
}

// Every rank of a namespace this server knows (registration and local clients).
std::set<pmix_rank_t> known_ranks(const Namespace& ns) {
    std::set<pmix_rank_t> out(ns.local_ranks.begin(), ns.local_ranks.end());
    for (const auto& [first, last] : ns.ranks) {
        for (pmix_rank_t r = first;; ++r) {
            out.insert(r);
            if (r == last) break;
        }
    }
    return out;
}

// The processes of known namespaces that `members` name, each once.
std::vector<pmix_proc_t> stored_members(const State& s, const std::vector<pmix_proc_t>& members) {
    std::set<std::pair<std::string, pmix_rank_t>> seen;
    std::vector<pmix_proc_t> out;
    for (const pmix_proc_t& m : members) {
        const Namespace* ns = s.namespaces.find(ns_of(m));
        if (ns == nullptr) continue;
        std::set<pmix_rank_t> ranks;
        if (m.rank == PMIX_RANK_WILDCARD) {
            ranks = known_ranks(*ns);
        } else if (m.rank < PMIX_RANK_VALID) {
            ranks.insert(m.rank);
        }
        for (pmix_rank_t r : ranks) {
            if (!seen.insert({ns->name, r}).second) continue;
            pmix_proc_t p{};
            std::strncpy(p.nspace, ns->name.c_str(), PMIX_MAX_NSLEN);
            p.rank = r;
            out.push_back(p);
        }
    }
    return out;
}

// Rewrites PMIX_PSET_NAMES of each stored member from the sets as they now are.
void publish_names(State& s, const std::vector<pmix_proc_t>& members) {
    for (const pmix_proc_t& p : stored_members(s, members)) {
        std::vector<std::string> names = sets_of(s.psets, p);
        std::vector<char*> ptrs;
        for (auto& n : names) ptrs.push_back(n.data());
        pmix_data_array_t darray{PMIX_STRING, ptrs.size(), ptrs.empty() ? nullptr : ptrs.data()};
        pmix_value_t v{};
        v.type = PMIX_DATA_ARRAY;
        v.data.darray = &darray;
        const pmix_status_t rc = publish_value(*s.store, ns_of(p), p.rank, PMIX_PSET_NAMES, v);
        if (rc != PMIX_SUCCESS) {
            slog(exec::LogLevel::error, "could not store PMIX_PSET_NAMES of " + ns_of(p) + "." +
                                            std::to_string(p.rank) + ": status " +
                                            std::to_string(rc));
        }
    }
}

void notify(State& s, pmix_status_t code, const ProcessSet& set, bool with_members) {
    data::InfoArray info;
    const bool yes = true;
    info.append(PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    info.append(PMIX_PSET_NAME, set.name.c_str(), PMIX_STRING);
    if (with_members) {
        pmix_data_array_t darray{PMIX_PROC, set.members.size(),
                                 const_cast<pmix_proc_t*>(set.members.data())};
        info.append(PMIX_PSET_MEMBERS, &darray, PMIX_DATA_ARRAY);
    }
    Event ev;
    ev.code = code;
    std::strncpy(ev.source.nspace, s.nspace.c_str(), PMIX_MAX_NSLEN);
    ev.source.rank = s.rank;
    ev.range = PMIX_RANGE_LOCAL;
    ev.info = info.data();
    ev.ninfo = info.size();
    s.deliver_event(ev);
}

}  // namespace

const ProcessSet* ProcessSets::find(const std::string& name) const {
    auto it =
        std::find_if(sets.begin(), sets.end(), [&](const ProcessSet& p) { return p.name == name; });
    return it == sets.end() ? nullptr : &*it;
}

std::vector<std::string> sets_of(const ProcessSets& sets, const pmix_proc_t& proc) {
    std::vector<std::string> out;
    for (const ProcessSet& set : sets.sets) {
        if (std::any_of(set.members.begin(), set.members.end(),
                        [&](const pmix_proc_t& m) { return covers(m, proc); })) {
            out.push_back(set.name);
        }
    }
    return out;
}

pmix_status_t define_set(State& s, const std::string& name, std::vector<pmix_proc_t> members) {
    if (s.psets.find(name) != nullptr) return PMIX_ERR_EXISTS;
    s.psets.sets.push_back(ProcessSet{name, std::move(members)});
    const ProcessSet& set = s.psets.sets.back();
    publish_names(s, set.members);
    notify(s, PMIX_PROCESS_SET_DEFINE, set, true);
    return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t delete_set(State& s, const std::string& name) {
    auto it = std::find_if(s.psets.sets.begin(), s.psets.sets.end(),
                           [&](const ProcessSet& p) { return p.name == name; });
    if (it == s.psets.sets.end()) return PMIX_ERR_NOT_FOUND;
    ProcessSet gone = std::move(*it);
    s.psets.sets.erase(it);
    publish_names(s, gone.members);
    notify(s, PMIX_PROCESS_SET_DELETE, gone, false);
    return PMIX_OPERATION_SUCCEEDED;
}

}  // namespace pmix::server
