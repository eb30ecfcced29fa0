// The head's side of PMIx_Connect / PMIx_Disconnect across nodes (remote_connect.h).
#include "remote_connect.h"

#include <algorithm>
#include <cstdlib>

namespace pmix::launcher {
namespace {

constexpr size_t kProcsAt = 3;  // connect: id, connect?, timeout, then (nspace, rank) pairs

bool names(const HeadConnector::Named& named, const Proc& process) {
    return std::any_of(named.begin(), named.end(), [&](const auto& entry) {
        return entry.first == process.nspace &&
               (entry.second == PMIX_RANK_WILDCARD || entry.second == process.rank);
    });
}

}  // namespace

bool HeadConnector::participants(const std::vector<std::string>& f, Operation& operation) const {
    for (size_t i = kProcsAt; i + 1 < f.size(); i += 2) {
        const auto rank = static_cast<pmix_rank_t>(std::strtoul(f[i + 1].c_str(), nullptr, 10));
        bool found = false;
        for (const Proc& process : view_.procs) {
            if (process.nspace != f[i] || (rank != PMIX_RANK_WILDCARD && rank != process.rank))
                continue;
            operation.nodes.insert(process.node);
            found = true;
        }
        if (!found) return false;  // a namespace or rank the head does not know
        operation.named.emplace_back(f[i], rank);
    }
    return !operation.named.empty();
}

bool HeadConnector::take(size_t node, const Message& message) {
    if (message.kind != MessageKind::connect) return false;
    const std::vector<std::string>& f = message.fields;
    if (f.empty()) return true;
    Operation fresh;
    if (f.size() <= kProcsAt || (f.size() - kProcsAt) % 2 != 0 || !participants(f, fresh)) {
        send_(node, {f[0], std::to_string(PMIX_ERR_NOT_FOUND)});
        return true;
    }
    // The set as a key: the operation, then its (nspace, rank) pairs sorted.
    std::vector<std::string> pairs;
    for (size_t i = kProcsAt; i + 1 < f.size(); i += 2) pairs.push_back(f[i] + ":" + f[i + 1]);
    std::sort(pairs.begin(), pairs.end());
    std::string key = f[1];
    for (const std::string& pair : pairs) key += "|" + pair;
    auto [it, opened] = operations_.try_emplace(key, std::move(fresh));
    Operation& operation = it->second;
    operation.nodes.insert(node);  // its server's callers take part, named or not (a tool)
    operation.callers.push_back({node, f[0]});
    if (const long seconds = std::atol(f[2].c_str()); seconds > 0) {
        const Clock::time_point deadline = Clock::now() + std::chrono::seconds(seconds);
        // The earliest node's limit ends the operation for all.
        if (!operation.has_deadline || deadline < operation.deadline) operation.deadline = deadline;
        operation.has_deadline = true;
    }
    const bool every_node =
        std::all_of(operation.nodes.begin(), operation.nodes.end(), [&](size_t n) {
            return std::any_of(operation.callers.begin(), operation.callers.end(),
                               [&](const Caller& caller) { return caller.node == n; });
        });
    if (every_node) {
        answer(operation, PMIX_SUCCESS);
        operations_.erase(it);
    }
    return true;
}

void HeadConnector::tick(Clock::time_point now) {
    std::erase_if(operations_, [&](const auto& item) {
        const Operation& operation = item.second;
        // A participant that ended: its node's server can no longer join (it failed its own
        // callers), so the others would wait for nothing.
        const bool lost = std::any_of(view_.procs.begin(), view_.procs.end(), [&](const Proc& p) {
            return p.exited && names(operation.named, p);
        });
        const bool late = operation.has_deadline && now >= operation.deadline;
        if (!lost && !late) return false;
        answer(operation, lost ? PMIX_ERR_LOST_CONNECTION : PMIX_ERR_TIMEOUT);
        return true;
    });
}

void HeadConnector::node_lost(size_t node) {
    std::erase_if(operations_, [&](const auto& item) {
        if (item.second.nodes.count(node) == 0) return false;
        answer(item.second, PMIX_ERR_LOST_CONNECTION);
        return true;
    });
}

void HeadConnector::answer(const Operation& operation, pmix_status_t status) {
    for (const Caller& caller : operation.callers)
        send_(caller.node, {caller.id, std::to_string(status)});
}

}  // namespace pmix::launcher
