// The head's publish/lookup directory for a job across nodes (directory.h has the rules).
#include "directory.h"

#include <algorithm>
#include <cstdlib>

namespace pmix::launcher {
namespace {

long long number(const std::string& text) { return std::atoll(text.c_str()); }

// Fields 0..2 of every request: id, nspace, rank.
constexpr size_t kCallerFields = 3;

bool within(pmix_data_range_t range, const Directory::Caller& a, const Directory::Caller& b) {
    switch (range) {
        case PMIX_RANGE_PROC_LOCAL:
            return a.nspace == b.nspace && a.rank == b.rank;
        case PMIX_RANGE_LOCAL:
            return a.node == b.node;
        case PMIX_RANGE_NAMESPACE:
            return a.nspace == b.nspace;
        default:  // session, global, custom, RM, undefined: the whole job
            return true;
    }
}

}  // namespace

bool Directory::take(size_t node, const Message& message) {
    if (!message.kind) return false;
    const MessageKind kind = *message.kind;
    if (kind != MessageKind::publish && kind != MessageKind::lookup &&
        kind != MessageKind::unpublish)
        return false;
    if (message.fields.size() < kCallerFields + 1) {
        if (!message.fields.empty()) reply(node, message.fields[0], PMIX_ERR_BAD_PARAM);
        return true;
    }
    const Caller caller{message.fields[1], static_cast<pmix_rank_t>(number(message.fields[2])),
                        node};
    if (kind == MessageKind::publish) publish(caller, message);
    else if (kind == MessageKind::lookup) lookup(caller, message);
    else unpublish(caller, message);
    return true;
}

// id, nspace, rank, range, persistence, then (key, packed info) pairs.
void Directory::publish(const Caller& caller, const Message& message) {
    const std::vector<std::string>& f = message.fields;
    if (f.size() < 5 || (f.size() - 5) % 2 != 0) {
        reply(caller.node, f[0], PMIX_ERR_BAD_PARAM);
        return;
    }
    for (size_t i = 5; i < f.size(); i += 2) {
        // Refused whole: a publish either lands or leaves the directory as it was.
        if (entries_.count(f[i]) != 0) {
            reply(caller.node, f[0], PMIX_ERR_DUPLICATE_KEY);
            return;
        }
    }
    for (size_t i = 5; i < f.size(); i += 2) {
        Entry& entry = entries_[f[i]];
        entry.owner = caller;
        entry.range = static_cast<pmix_data_range_t>(number(f[3]));
        entry.persistence = static_cast<pmix_persistence_t>(number(f[4]));
        entry.packed = f[i + 1];
    }
    reply(caller.node, f[0], PMIX_SUCCESS);
    retry_waiting();
}

// id, nspace, rank, range, wait, timeout seconds, keys...
void Directory::lookup(const Caller& caller, const Message& message) {
    const std::vector<std::string>& f = message.fields;
    if (f.size() < 7) {
        reply(caller.node, f[0], PMIX_ERR_BAD_PARAM);
        return;
    }
    Waiting request;
    request.id = f[0];
    request.caller = caller;
    request.range = static_cast<pmix_data_range_t>(number(f[3]));
    for (size_t i = 6; i < f.size(); ++i)  // a key asked twice is answered (and erased) once
        if (std::find(request.keys.begin(), request.keys.end(), f[i]) == request.keys.end())
            request.keys.push_back(f[i]);
    const bool wait = f[4] == "1";
    if (const long long seconds = number(f[5]); seconds > 0) {
        request.has_deadline = true;
        request.deadline = Clock::now() + std::chrono::seconds(seconds);
    }
    if (!try_answer(request, wait)) waiting_.push_back(std::move(request));
}

// id, nspace, rank, range, keys...
void Directory::unpublish(const Caller& caller, const Message& message) {
    const std::vector<std::string>& f = message.fields;
    const auto range = static_cast<pmix_data_range_t>(number(f[3]));
    const auto mine = [&](const Entry& entry) {
        return entry.owner.nspace == caller.nspace && entry.owner.rank == caller.rank;
    };
    pmix_status_t status = PMIX_SUCCESS;
    if (f.size() == 4) {  // no keys: everything the caller published (in that range)
        std::erase_if(entries_, [&](const auto& item) {
            return mine(item.second) && visible(item.second, caller, range);
        });
    }
    for (size_t i = 4; i < f.size(); ++i) {
        auto found = entries_.find(f[i]);
        if (found == entries_.end() || !mine(found->second) ||
            !visible(found->second, caller, range)) {
            status = PMIX_ERR_NOT_FOUND;
            continue;
        }
        entries_.erase(found);
    }
    reply(caller.node, f[0], status);
}

bool Directory::visible(const Entry& entry, const Caller& looker, pmix_data_range_t range) const {
    return within(entry.range, entry.owner, looker) && within(range, entry.owner, looker);
}

bool Directory::try_answer(const Waiting& lookup, bool wait) {
    std::vector<std::map<std::string, Entry>::iterator> found;
    for (const std::string& key : lookup.keys) {
        auto entry = entries_.find(key);
        if (entry != entries_.end() && visible(entry->second, lookup.caller, lookup.range))
            found.push_back(entry);
    }
    if (wait && found.size() < lookup.keys.size()) return false;
    if (found.empty()) {
        reply(lookup.caller.node, lookup.id, PMIX_ERR_NOT_FOUND);
        return true;
    }
    std::vector<std::string> values;
    for (auto entry : found) {
        const Entry& e = entry->second;
        values.insert(values.end(),
                      {entry->first, e.owner.nspace, std::to_string(e.owner.rank), e.packed});
    }
    for (auto entry : found)
        if (entry->second.persistence == PMIX_PERSIST_FIRST_READ) entries_.erase(entry);
    reply(lookup.caller.node, lookup.id, PMIX_SUCCESS, std::move(values));
    return true;
}

void Directory::retry_waiting() {
    for (size_t i = 0; i < waiting_.size();) {
        if (try_answer(waiting_[i], true)) waiting_.erase(waiting_.begin() + static_cast<long>(i));
        else ++i;
    }
}

void Directory::tick(Clock::time_point now) {
    std::erase_if(waiting_, [&](const Waiting& lookup) {
        if (!lookup.has_deadline || now < lookup.deadline) return false;
        reply(lookup.caller.node, lookup.id, PMIX_ERR_TIMEOUT);
        return true;
    });
}

void Directory::proc_ended(const std::string& nspace, pmix_rank_t rank) {
    std::erase_if(entries_, [&](const auto& item) {
        const Entry& entry = item.second;
        return entry.persistence == PMIX_PERSIST_PROC && entry.owner.nspace == nspace &&
               entry.owner.rank == rank;
    });
    std::erase_if(waiting_, [&](const Waiting& lookup) {
        if (lookup.caller.nspace != nspace || lookup.caller.rank != rank) return false;
        reply(lookup.caller.node, lookup.id, PMIX_ERR_LOST_CONNECTION);
        return true;
    });
}

void Directory::node_lost(size_t node) {
    std::erase_if(waiting_, [&](const Waiting& lookup) { return lookup.caller.node == node; });
}

void Directory::reply(size_t node, const std::string& id, pmix_status_t status,
                      std::vector<std::string> values) {
    values.insert(values.begin(), {id, std::to_string(status)});
    send_(node, values);
}

}  // namespace pmix::launcher
