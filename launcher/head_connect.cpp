// The head's side of PMIx_Connect / PMIx_Disconnect across nodes (remote_connect.h).
#include "remote_connect.h"

#include <algorithm>
#include <cstdlib>
#include <set>

namespace pmix::launcher {
namespace {

constexpr size_t kProcsAt = 3;  // connect: id, connect?, timeout, then (nspace, rank) pairs

}  // namespace

size_t HeadConnector::members(const std::vector<std::string>& f) const {
    std::set<std::pair<std::string, pmix_rank_t>> set;
    for (size_t i = kProcsAt; i + 1 < f.size(); i += 2) {
        size_t job_size = 0;
        for (const Proc& process : view_.procs) job_size += process.nspace == f[i] ? 1 : 0;
        const auto rank = static_cast<pmix_rank_t>(std::strtoul(f[i + 1].c_str(), nullptr, 10));
        if (job_size == 0 || (rank != PMIX_RANK_WILDCARD && rank >= job_size)) return 0;
        if (rank != PMIX_RANK_WILDCARD) {
            set.emplace(f[i], rank);
            continue;
        }
        for (pmix_rank_t r = 0; r < job_size; ++r) set.emplace(f[i], r);
    }
    return set.size();
}

bool HeadConnector::take(size_t node, const Message& message) {
    if (message.kind != MessageKind::connect) return false;
    const std::vector<std::string>& f = message.fields;
    if (f.empty()) return true;
    const size_t expected = f.size() > kProcsAt && (f.size() - kProcsAt) % 2 == 0 ? members(f) : 0;
    if (expected == 0) {
        send_(node, {f[0], std::to_string(PMIX_ERR_NOT_FOUND)});
        return true;
    }
    // The set as a key: the operation, then its (nspace, rank) pairs sorted.
    std::vector<std::string> pairs;
    for (size_t i = kProcsAt; i + 1 < f.size(); i += 2) pairs.push_back(f[i] + ":" + f[i + 1]);
    std::sort(pairs.begin(), pairs.end());
    std::string key = f[1];
    for (const std::string& pair : pairs) key += "|" + pair;
    Operation& operation = operations_[key];
    operation.expected = expected;
    operation.callers.push_back({node, f[0]});
    if (const long seconds = std::atol(f[2].c_str()); seconds > 0) {
        const Clock::time_point deadline = Clock::now() + std::chrono::seconds(seconds);
        // The earliest caller's limit ends the operation for all.
        if (!operation.has_deadline || deadline < operation.deadline) operation.deadline = deadline;
        operation.has_deadline = true;
    }
    if (operation.callers.size() >= operation.expected) {
        answer(operation, PMIX_SUCCESS);
        operations_.erase(key);
    }
    return true;
}

void HeadConnector::tick(Clock::time_point now) {
    std::erase_if(operations_, [&](const auto& item) {
        if (!item.second.has_deadline || now < item.second.deadline) return false;
        answer(item.second, PMIX_ERR_TIMEOUT);
        return true;
    });
}

void HeadConnector::node_lost(size_t node) {
    std::erase_if(operations_, [&](const auto& item) {
        const std::vector<Caller>& callers = item.second.callers;
        if (std::none_of(callers.begin(), callers.end(),
                         [&](const Caller& caller) { return caller.node == node; }))
            return false;
        answer(item.second, PMIX_ERR_LOST_CONNECTION);
        return true;
    });
}

void HeadConnector::answer(const Operation& operation, pmix_status_t status) {
    for (const Caller& caller : operation.callers)
        send_(caller.node, {caller.id, std::to_string(status)});
}

}  // namespace pmix::launcher
