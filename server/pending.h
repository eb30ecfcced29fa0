// server/pending.h - client requests waiting for something: another client's commit, or the
// host's direct modex.
//
// Contract: the server's loop thread only. Each wait owns where its reply goes (a weak
// reference: a client gone in between gets nothing) and its timer; whoever removes a wait
// (answer, timeout, the target leaving, finalize) cancels its timer and answers it exactly once.
#pragma once

#include "exec/executor.h"
#include "server/clients.h"
#include "server/id_table.h"
#include "wire/connection.h"
#include "wire/proto/message.h"

#include <pmix_common.h>
#include <pmix_server.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace pmix::server {

// Where to send the reply of a request that waits.
using ReplyTo = wire::ReplyTo;

// A Get for a local client's key that client has not committed yet, or (host_answer set) the
// host's PMIx_server_dmodex_request for such a client: a peer's server asked before the client
// had committed, as OpenPMIx it gets the client's data once committed, not an empty answer.
struct CommitWait {
    ReplyTo to;
    std::string key;
    exec::TimerId timer = exec::kInvalidTimer;
    pmix_dmodex_response_fn_t host_answer = nullptr;
    void* host_cbdata = nullptr;
};

// A Get waiting for the host's direct modex.
struct DmodexWait {
    ReplyTo to;
    pmix_proc_t proc{};
    std::string key;
    data::InfoArray info;  // handed to the host; valid until it answers
    exec::TimerId timer = exec::kInvalidTimer;
};

// Commit waits by the client they wait for; answered all at once at its next commit.
class CommitWaits {
public:
    using Waits = std::map<std::uint64_t, CommitWait>;

    std::pair<std::uint64_t, CommitWait&> add(const ProcKey& target, CommitWait wait) {
        const std::uint64_t id = next_++;
        return {id, by_target_[target].emplace(id, std::move(wait)).first->second};
    }
    // Removes and returns one wait (its timeout); nullptr-like empty optional when answered.
    std::optional<CommitWait> take(const ProcKey& target, std::uint64_t id) {
        auto t = by_target_.find(target);
        if (t == by_target_.end()) return std::nullopt;
        auto it = t->second.find(id);
        if (it == t->second.end()) return std::nullopt;
        std::optional<CommitWait> out(std::move(it->second));
        t->second.erase(it);
        if (t->second.empty()) by_target_.erase(t);
        return out;
    }
    // Removes and returns every wait for `target`.
    Waits take_all(const ProcKey& target) {
        auto t = by_target_.find(target);
        if (t == by_target_.end()) return {};
        Waits out = std::move(t->second);
        by_target_.erase(t);
        return out;
    }
    template <class F>
    void for_each(F&& f) {
        for (auto& [target, waits] : by_target_) {
            for (auto& [id, w] : waits) f(w);
        }
    }
    void clear() { by_target_.clear(); }

private:
    std::map<ProcKey, Waits> by_target_;
    std::uint64_t next_ = 1;
};

struct PendingRequests {
    CommitWaits commits;
    IdTable<DmodexWait> dmodex;  // the id is the cbdata of the host's direct_modex upcall
};

}  // namespace pmix::server
