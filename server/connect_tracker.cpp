// server/connect_tracker.cpp - PMIx_Connect / PMIx_Disconnect: the local participants'
// requests collected into one host upcall (rules in connect_tracker.h).
#include "server/connect_tracker.h"

#include "server/api.h"
#include "server/state.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace pmix::server {

namespace {

std::string ns_name(const pmix_proc_t& p) {
    return std::string(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN));
}

bool proc_less(const pmix_proc_t& a, const pmix_proc_t& b) {
    const int by_nspace = std::strncmp(a.nspace, b.nspace, PMIX_MAX_NSLEN);
    return by_nspace != 0 ? by_nspace < 0 : a.rank < b.rank;
}

bool same_procs(const std::vector<pmix_proc_t>& a, const std::vector<pmix_proc_t>& b) {
    return std::equal(
        a.begin(), a.end(), b.begin(), b.end(), [](const pmix_proc_t& x, const pmix_proc_t& y) {
            return x.rank == y.rank && std::strncmp(x.nspace, y.nspace, PMIX_MAX_NSLEN) == 0;
        });
}

// The participants on this node: a wildcard's namespace's local ranks (and its connected
// clients), a single rank when it is here.
std::set<ProcKey> local_participants(const State& s, const std::vector<pmix_proc_t>& procs) {
    std::set<ProcKey> out;
    for (const pmix_proc_t& p : procs) {
        const std::string ns = ns_name(p);
        if (p.rank != PMIX_RANK_WILDCARD) {
            if (s.is_local(p)) out.insert({ns, p.rank});
            continue;
        }
        if (const Namespace* n = s.namespaces.find(ns); n != nullptr) {
            for (pmix_rank_t r : n->local_ranks) out.insert({ns, r});
        }
        for (auto it = s.clients.lower_bound({ns, 0});
             it != s.clients.end() && it->first.first == ns; ++it) {
            out.insert(it->first);
        }
    }
    return out;
}

// A participant that can no longer join: its connection closed (it died or finalized).
bool gone(const State& s, const ProcKey& who) {
    auto c = s.clients.find(who);
    return c != s.clients.end() && (c->second.lost || c->second.finalized);
}

// Every caller gets `status`; the record goes unless the host still holds pointers into it.
void answer_all(State& s, std::uint64_t id, ConnectOp& op, pmix_status_t status) {
    if (op.timer != exec::kInvalidTimer) s.ex->cancel(op.timer);
    op.timer = exec::kInvalidTimer;
    if (!op.answered) {
        for (const auto& [who, to] : op.arrived) reply_status(to, status);
    }
    op.answered = true;
    op.arrived.clear();
    if (!op.host_called) s.connects.ops.erase(id);
}

void fail(State& s, std::uint64_t id, ConnectOp& op, pmix_status_t status, const std::string& why) {
    slog(exec::LogLevel::warn, std::string(op.connect ? "PMIx_Connect" : "PMIx_Disconnect") +
                                   " failed at this server: " + why);
    answer_all(s, id, op, status);
}

// The host's answer: any thread, possibly inside its upcall; continued on the loop.
void host_done(pmix_status_t status, void* cbdata) {
    const auto id = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(cbdata));
    const pmix_status_t rc = post([id, status] {
        auto st = current();
        if (!st) return;
        ConnectOp* op = st->connects.ops.find(id);
        if (op == nullptr) return;
        op->host_called = false;  // the host is done with it: answer_all may erase it
        answer_all(*st, id, *op, status);
    });
    (void)rc;  // server gone: nobody to answer
}

// The callers' directives, one value per key (the first caller's wins).
void merge_directives(ConnectOp& op) {
    std::vector<pmix_info_t> unique;
    for (const data::InfoArray& each : op.directives) {
        for (std::size_t i = 0; i < each.size(); ++i) {
            const pmix_info_t& in = each.data()[i];
            const bool seen = std::any_of(unique.begin(), unique.end(), [&](const pmix_info_t& u) {
                return std::strncmp(u.key, in.key, PMIX_MAX_KEYLEN) == 0;
            });
            if (!seen) unique.push_back(in);
        }
    }
    if (op.merged.assign_copy(unique.data(), unique.size()) != PMIX_SUCCESS) op.merged = {};
    // What OpenPMIx 4.2 adds for the host: the array is sorted, every local participant is in.
    const bool yes = true;
    const pmix_status_t local_status = PMIX_SUCCESS;
    if (op.merged.find(PMIX_SORTED_PROC_ARRAY) == nullptr) {
        op.merged.append(PMIX_SORTED_PROC_ARRAY, &yes, PMIX_BOOL);
    }
    if (op.merged.find(PMIX_LOCAL_COLLECTIVE_STATUS) == nullptr) {
        op.merged.append(PMIX_LOCAL_COLLECTIVE_STATUS, &local_status, PMIX_STATUS);
    }
}

// A task of its own on the loop (the last arrival may come inside a host's call): one upcall.
void to_host(State& s, std::uint64_t id) {
    ConnectOp* op = s.connects.ops.find(id);
    if (op == nullptr || op->answered) return;
    if (s.all_local(op->procs)) {  // every participant is here and in: nothing for the host
        answer_all(s, id, *op, PMIX_SUCCESS);
        return;
    }
    auto fn = op->connect ? s.module.connect : s.module.disconnect;
    if (fn == nullptr) {
        answer_all(s, id, *op, PMIX_ERR_NOT_SUPPORTED);
        return;
    }
    merge_directives(*op);
    op->host_called = true;
    const pmix_status_t rc =
        fn(op->procs.data(), op->procs.size(), op->merged.data(), op->merged.size(), host_done,
           reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
    if (rc == PMIX_SUCCESS) return;  // host_done comes
    op = s.connects.ops.find(id);
    if (op == nullptr) return;
    op->host_called = false;
    answer_all(s, id, *op, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
}

void start_timer(State& s, std::uint64_t id, ConnectOp& op, int seconds) {
    if (seconds <= 0 || op.timer != exec::kInvalidTimer) return;
    op.timer = s.ex->run_after(std::chrono::seconds(seconds), [&s, id] {
        ConnectOp* live = s.connects.ops.find(id);
        if (live == nullptr || live->answered) return;
        live->timer = exec::kInvalidTimer;
        fail(s, id, *live, PMIX_ERR_TIMEOUT, "PMIX_TIMEOUT passed");
    });
}

// The open op over `procs` that `who` may join (none of it sent to the host yet).
std::uint64_t find_open(State& s, bool connect, const std::vector<pmix_proc_t>& procs,
                        const ProcKey& who) {
    for (auto& [id, op] : s.connects.ops) {
        if (op.connect == connect && !op.queued && !op.answered && op.arrived.count(who) == 0 &&
            same_procs(op.procs, procs)) {
            return id;
        }
    }
    return 0;
}

// The first local participant that can no longer join, if any.
const ProcKey* first_gone(const State& s, const ConnectOp& op) {
    for (const ProcKey& k : op.expected) {
        if (op.arrived.count(k) == 0 && gone(s, k)) return &k;
    }
    return nullptr;
}

std::string name_of(const ProcKey& k) { return k.first + ":" + std::to_string(k.second); }

}  // namespace

pmix_status_t connect_request(State& s, Client& c, proto::Reader& r, wire::Connection& conn,
                              const wire::Frame& frame, bool connect) {
    std::vector<pmix_proc_t> procs;
    data::InfoArray info;
    r.procs(&procs);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (procs.empty()) return PMIX_ERR_BAD_PARAM;
    std::sort(procs.begin(), procs.end(), proc_less);
    const ProcKey who{ns_name(c.proc), c.proc.rank};
    std::uint64_t id = find_open(s, connect, procs, who);
    if (id == 0) {
        ConnectOp fresh;
        fresh.connect = connect;
        fresh.procs = procs;
        fresh.expected = local_participants(s, procs);
        id = s.connects.ops.add(std::move(fresh)).first;
    }
    ConnectOp& op = *s.connects.ops.find(id);
    op.expected.insert(who);
    op.arrived[who] = ReplyTo::of(conn, frame);
    start_timer(s, id, op, info.integer(PMIX_TIMEOUT));
    op.directives.push_back(std::move(info));
    if (const ProcKey* lost = first_gone(s, op); lost != nullptr) {
        fail(s, id, op, PMIX_ERR_LOST_CONNECTION, "participant " + name_of(*lost) + " is gone");
        return PMIX_SUCCESS;
    }
    if (op.arrived.size() < op.expected.size()) return PMIX_SUCCESS;
    op.queued = true;  // complete: no later arrival joins it
    s.ex->post([&s, id] { to_host(s, id); });
    return PMIX_SUCCESS;
}

void connect_client_gone(State& s, const ProcKey& who) {
    std::vector<std::uint64_t> failing;
    for (auto& [id, op] : s.connects.ops) {
        if (!op.queued && !op.answered && op.expected.count(who) != 0 &&
            op.arrived.count(who) == 0) {
            failing.push_back(id);
        }
    }
    for (std::uint64_t id : failing) {
        if (ConnectOp* op = s.connects.ops.find(id); op != nullptr) {
            fail(s, id, *op, PMIX_ERR_LOST_CONNECTION,
                 "participant " + name_of(who) + " is gone before it joined");
        }
    }
}

}  // namespace pmix::server
