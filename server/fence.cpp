// server/fence.cpp - fence across the local participants, the host's fence_nb, and the modex
// blob format shared with PMIx_server_dmodex_request.
//
// Blob: a sequence of codec batches [PROC, SIZE n, INFO[n]] (INFO omitted when n == 0), one group
// per process. Self-delimiting and order-independent, so a host may concatenate the blobs of many
// servers in any order and hand the result back. LOCAL-scope data is not in it. Each INFO array
// starts with a header (modex_delta.h): a fence ships per process only the keys changed since
// what the last successful fence over the same participants shipped; a receiver that does not
// hold that base fetches the process's whole data by direct modex before it releases the fence.
//
// Participants are the request's procs (none = the caller's namespace; WILDCARD = every
// registered client of that namespace). When every local participant is in: with no fence_nb the
// fence completes here; else the host gets the blob (only with PMIX_COLLECT_DATA) and its answer
// is written into the store before anyone is released. PMIX_TIMEOUT ends it with
// PMIX_ERR_TIMEOUT. A participant lost before the fence went to the host fails it for everyone
// here with PMIX_ERR_LOST_CONNECTION when every participant is on this node (or there is no
// fence_nb); when the fence spans nodes the others go on and the host gets the node's
// contribution without the dead one, marked with PMIX_LOCAL_COLLECTIVE_STATUS
// (leave_cross_node_fence). Once the host has it, the host's answer decides (as with OpenPMIx:
// on several nodes the fence may already have completed elsewhere). Either way the host hears
// client_finalized for the dead client.
#include "server/api.h"
#include "server/board.h"
#include "server/publish.h"
#include "server/state.h"

#include "data/value.h"
#include "exec/log.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

namespace pmix::server {

namespace {

std::string signature(std::vector<pmix_proc_t> procs) {
    std::vector<std::string> parts;
    for (const auto& p : procs) {
        parts.push_back(ns_of(p) + ":" + std::to_string(p.rank));
    }
    std::sort(parts.begin(), parts.end());
    std::string s;
    for (const auto& p : parts) s += p + ";";
    return s;
}

// The host's answer to fence_nb (any thread).
void fence_modex_done(pmix_status_t status, const char* data, size_t ndata, void* cbdata,
                      pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    forward_modex_answer(&State::fence_complete, status, data, ndata, cbdata, release_fn,
                         release_cbdata);
}

}  // namespace

std::vector<std::uint8_t> State::modex_blob(const std::vector<ProcKey>& procs,
                                            const std::string& signature, std::uint64_t fence_id) {
    // Deltas only where a receiver that lacks their base can fetch the whole data (rule 4).
    const bool deltas = !signature.empty() && module.direct_modex != nullptr;
    proto::Writer w;
    for (const auto& key : procs) {
        pmix_proc_t p{};
        std::strncpy(p.nspace, key.first.c_str(), PMIX_MAX_NSLEN);
        p.rank = key.second;
        // Local-only data stays on this node; registration data has no scope and is not modex.
        // A direct modex (no signature) reads a local client's own segment first: its newest
        // commits may not have reached the store yet (own_segments.h). A fence's contributors
        // sent theirs before their fence request.
        const auto kv = read_all(*reader, key.first, key.second, modex_export_scopes(),
                                 signature.empty() ? fresh_segment_of(*this, key) : nullptr);
        const std::uint64_t base = deltas ? modex_log.base_for(signature, key) : 0;
        const std::uint64_t version =
            write_modex_group(w, modex_log, p, kv.data(), kv.size(), base);
        if (!signature.empty()) modex_log.shipping(fence_id, signature, key, version);
    }
    return w.take();
}

pmix_status_t State::store_blob(const std::uint8_t* data, std::size_t ndata,
                                std::vector<ProcKey>* stale) {
    proto::Reader r(data, ndata);
    while (!r.at_end() && r.status_code() == PMIX_SUCCESS) {
        pmix_proc_t p{};
        data::InfoArray infos;
        if (r.proc(&p) != PMIX_SUCCESS || r.infos(&infos) != PMIX_SUCCESS) {
            break;
        }
        const std::string nspace = ns_of(p);
        const ProcKey who{nspace, p.rank};
        namespaces.touch(nspace);
        const ModexGroup group = split_modex_group(infos);
        // Our own processes' data is in our store already; for others, a delta applies only
        // on top of the snapshot it was made against (modex_delta.h, rule 3).
        const bool remote = !is_local(p);
        if (remote && group.has_header && !modex_held.applies(who, group.header)) {
            if (stale != nullptr) stale->push_back(who);
            continue;
        }
        // Our own client's commit is in the store already, with its scope: keep it.
        const bool ours = committed_here(nspace, p.rank);
        std::vector<ModexItem> fresh;
        for (const pmix_info_t* in : group.values) {
            if (ours &&
                holds_proc_value(*reader, nspace, p.rank,
                                 std::string_view(in->key, strnlen(in->key, PMIX_MAX_KEYLEN)))) {
                continue;
            }
            fresh.push_back({PMIX_REMOTE, in});
        }
        if (!fresh.empty() && publish_modex(*store, nspace, p.rank, fresh) != PMIX_SUCCESS) {
            continue;  // logged; what is held stays what it was
        }
        if (remote && group.has_header) modex_held.stored(who, group.header);
    }
    return r.status_code();
}

// The fence this arrival joins: an open one over the same participants that `who` has not
// joined yet, or a new one (participants expanded, timeout armed, a lost participant noted).
Fence& State::find_or_create_fence(const ProcKey& who, const std::vector<pmix_proc_t>& procs,
                                   data::InfoArray& info) {
    const std::string sig = signature(procs);
    for (auto& [id, cand] : fences) {
        if (cand.signature == sig && !cand.host_called && cand.arrived.count(who) == 0) {
            return cand;
        }
    }
    {
        auto added = fences.add(Fence{});
        const std::uint64_t id = added.first;
        Fence* f = &added.second;
        f->id = id;
        f->signature = sig;
        f->procs = procs;
        f->collect = info.flag(PMIX_COLLECT_DATA);
        for (const auto& p : procs) {
            for (const auto& [key, c] : clients) {
                if (key.first == ns_of(p) &&
                    (p.rank == PMIX_RANK_WILDCARD || p.rank == key.second)) {
                    f->expected.insert(key);
                }
            }
            // A whole-namespace fence waits for every local rank the host registered, not only
            // those whose client registration came before the first arrival: a host that
            // registers and forks one client at a time would otherwise complete the fence
            // without its last ranks, which then wait forever in the next one (seen in CI).
            const Namespace* ns = namespaces.find(ns_of(p));
            if (p.rank == PMIX_RANK_WILDCARD && ns != nullptr && ns->registered) {
                for (pmix_rank_t r : ns->local_ranks) f->expected.insert({ns->name, r});
            }
        }
        if (const pmix_info_t* t = info.find(PMIX_TIMEOUT);
            t != nullptr && t->value.type == PMIX_INT && t->value.data.integer > 0) {
            f->timer = ex->run_after(std::chrono::seconds(t->value.data.integer), [this, id] {
                fence_complete(id, PMIX_ERR_TIMEOUT, nullptr, 0);
            });
        }
        f->info = std::move(info);
        const bool cross_node = module.fence_nb != nullptr && !all_local(f->procs);
        for (auto key = f->expected.begin(); key != f->expected.end();) {
            auto c = clients.find(*key);
            if (c == clients.end() || !c->second.lost) {
                ++key;
            } else if (cross_node) {  // gone already: the node goes on without it
                f->local_status = PMIX_ERR_PARTIAL_SUCCESS;
                key = f->expected.erase(key);
            } else {
                f->failed = PMIX_ERR_LOST_CONNECTION;  // a participant is already gone
                f->expected.erase(key);
                break;
            }
        }
        return *f;
    }
}

void State::fence_request(const ProcKey& who, wire::Connection& conn, const wire::Frame& frame) {
    proto::Reader r(frame.payload);
    std::vector<pmix_proc_t> procs;
    data::InfoArray info;
    r.procs(&procs);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        slog(exec::LogLevel::error, "undecodable fence from " + who.first + "; closing it");
        conn.close("undecodable fence", wire::CloseKind::bad_frame);
        return;
    }
    if (procs.empty()) {  // NULL procs: every process of the caller's namespace
        pmix_proc_t all{};
        std::strncpy(all.nspace, who.first.c_str(), PMIX_MAX_NSLEN);
        all.rank = PMIX_RANK_WILDCARD;
        procs.push_back(all);
    }
    if (procs.size() == 1 && procs[0].rank == PMIX_RANK_WILDCARD) {
        // The collective a board runs: a participant that comes here instead (it could not map
        // the board, or asked for what only the host offers) brings everyone else here too.
        disable_board(*this, ns_of(procs[0]), "a whole-namespace fence reached the server");
    }
    Fence* f = &find_or_create_fence(who, procs, info);
    if (f->failed != PMIX_SUCCESS) {
        reply_status(conn, frame, f->failed);
        f->expected.erase(who);
        if (f->expected.empty()) fences.erase(f->id);
        return;
    }
    f->expected.insert(who);
    f->arrived[who] = ReplyTo::of(conn, frame);
    if (f->arrived.size() < f->expected.size()) {
        return;
    }
    fence_to_host(*f);
}

// Every local participant is in: complete here when the host has no fence_nb, else hand the
// node's contribution to the host, with PMIX_LOCAL_COLLECTIVE_STATUS when a participant was lost
// on the way (fail_fences_of).
void State::fence_to_host(Fence& f) {
    if (module.fence_nb == nullptr) {
        fence_complete(f.id, PMIX_SUCCESS, nullptr, 0);
        return;
    }
    if (f.local_status != PMIX_SUCCESS &&
        f.info.append(PMIX_LOCAL_COLLECTIVE_STATUS, &f.local_status, PMIX_STATUS) != PMIX_SUCCESS) {
        fence_complete(f.id, PMIX_ERR_NOMEM, nullptr, 0);
        return;
    }
    // The host takes ownership of the contribution (a malloc'd buffer) when fence_nb accepts
    // it, as with OpenPMIx: ORTE and PRRTE load it into their own buffers and free it later.
    char* data = nullptr;
    std::size_t ndata = 0;
    if (f.collect) {
        const std::vector<std::uint8_t> blob =
            modex_blob({f.expected.begin(), f.expected.end()}, f.signature, f.id);
        if (!blob.empty()) {
            data = static_cast<char*>(std::malloc(blob.size()));
            if (data == nullptr) {
                fence_complete(f.id, PMIX_ERR_NOMEM, nullptr, 0);
                return;
            }
            std::memcpy(data, blob.data(), blob.size());
            ndata = blob.size();
        }
        slog(exec::LogLevel::debug, "fence " + std::to_string(f.id) + ": modex blob of " +
                                        std::to_string(f.expected.size()) + " process(es), " +
                                        std::to_string(ndata) + " bytes");
    }
    f.host_called = true;
    const std::uint64_t id = f.id;
    const pmix_status_t rc =
        module.fence_nb(f.procs.data(), f.procs.size(), f.info.data(), f.info.size(), data, ndata,
                        fence_modex_done, reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        std::free(data);  // refused: the host did not take it
    }
    if (rc != PMIX_SUCCESS) {
        fence_complete(id, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, nullptr, 0);
    }
}

void State::fence_complete(std::uint64_t id, pmix_status_t status, const std::uint8_t* data,
                           std::size_t ndata) {
    Fence* found = fences.find(id);
    if (found == nullptr || found->failed != PMIX_SUCCESS || found->fetching > 0) {
        return;  // timed out or failed already; a late host answer is dropped
    }
    Fence& f = *found;
    if (f.timer != exec::kInvalidTimer) {
        ex->cancel(f.timer);
        f.timer = exec::kInvalidTimer;
    }
    std::vector<ProcKey> stale;
    if (status == PMIX_SUCCESS && ndata > 0 && store_blob(data, ndata, &stale) != PMIX_SUCCESS) {
        slog(exec::LogLevel::warn, "the host's fence data does not decode");
        status = PMIX_ERR_UNPACK_FAILURE;
    }
    modex_log.fence_done(id, status == PMIX_SUCCESS);
    if (status == PMIX_SUCCESS && !stale.empty()) {
        fetch_whole_modex(f, stale);
        return;
    }
    release_fence(f, status);
}

void State::release_fence(Fence& f, pmix_status_t status) {
    if (f.timer != exec::kInvalidTimer) ex->cancel(f.timer);
    // The record goes before the replies: whatever a reply sets off may look for it.
    auto arrived = std::move(f.arrived);
    fences.erase(f.id);
    for (auto& [who, to] : arrived) {
        reply_status(to, status);
    }
}

namespace {

// The host's answer to a whole-data fetch (any thread).
void fence_fetch_answer(pmix_status_t status, const char* data, size_t ndata, void* cbdata,
                        pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    forward_modex_answer(&State::fence_fetch_done, status, data, ndata, cbdata, release_fn,
                         release_cbdata);
}

// How long a fence waits for the whole data of the processes whose delta it could not apply.
constexpr std::chrono::seconds kFetchTimeout{60};

}  // namespace

// Runs from the host's fence answer (a loop task of its own), never inside a host's call.
void State::fetch_whole_modex(Fence& f, const std::vector<ProcKey>& stale) {
    slog(exec::LogLevel::debug, "fence " + std::to_string(f.id) + ": whole modex of " +
                                    std::to_string(stale.size()) +
                                    " process(es) by direct modex (delta base not held)");
    const std::uint64_t id = f.id;
    f.fetching = stale.size();
    f.timer = ex->run_after(kFetchTimeout, [this, id] {
        if (Fence* live = fences.find(id)) {
            live->timer = exec::kInvalidTimer;
            release_fence(*live, PMIX_ERR_TIMEOUT);
        }
    });
    for (const auto& key : stale) {
        pmix_proc_t p{};
        std::strncpy(p.nspace, key.first.c_str(), PMIX_MAX_NSLEN);
        p.rank = key.second;
        // Deltas are only sent where the host has direct_modex (modex_blob), and every node
        // runs the same host.
        const pmix_status_t rc =
            module.direct_modex == nullptr
                ? PMIX_ERR_NOT_SUPPORTED
                : module.direct_modex(&p, nullptr, 0, fence_fetch_answer,
                                      reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
        if (rc != PMIX_SUCCESS) {
            fence_fetch_done(id, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_NOT_FOUND : rc, nullptr,
                             0);
            if (fences.find(id) == nullptr) return;
        }
    }
}

void State::fence_fetch_done(std::uint64_t id, pmix_status_t status, const std::uint8_t* data,
                             std::size_t ndata) {
    Fence* f = fences.find(id);
    if (f == nullptr || f->fetching == 0) return;  // failed or timed out already
    if (status == PMIX_SUCCESS && ndata > 0 && store_blob(data, ndata) != PMIX_SUCCESS) {
        status = PMIX_ERR_UNPACK_FAILURE;
    }
    if (status != PMIX_SUCCESS) {
        slog(exec::LogLevel::warn, "fence " + std::to_string(id) +
                                       ": fetching a participant's whole modex failed (status " +
                                       std::to_string(status) + ")");
        release_fence(*f, status);
        return;
    }
    if (--f->fetching == 0) release_fence(*f, PMIX_SUCCESS);
}

// True when every participant runs on this node (a whole namespace: every rank its
// registration names is local), so no other server takes part.
bool State::all_local(const std::vector<pmix_proc_t>& procs) const {
    for (const auto& p : procs) {
        if (p.rank != PMIX_RANK_WILDCARD) {
            if (!is_local(p)) return false;
            continue;
        }
        const Namespace* ns = namespaces.find(ns_of(p));
        if (ns == nullptr || !ns->registered || ns->ranks.empty()) return false;
        std::size_t named = 0;
        for (const auto& [first, last] : ns->ranks) named += last - first + 1;
        if (named != ns->local_ranks.size()) return false;
    }
    return true;
}

// A participant of a fence that spans other nodes died before the node's contribution went up.
// As OpenPMIx 4.2 does, the others here are not failed: once they are all in, the host gets the
// node's contribution without the dead one and PMIX_LOCAL_COLLECTIVE_STATUS (PARTIAL_SUCCESS, or
// LOST_CONNECTION when nobody here is left), and the host's answer decides for everyone: its
// peers on other nodes may pass the same fence (Slurm ignores the status; pmixd fails the fence).
// Posted: this runs from a connection's close, possibly inside a host's call.
void State::leave_cross_node_fence(Fence& f, const ProcKey& who) {
    f.expected.erase(who);
    f.arrived.erase(who);
    f.local_status = f.expected.empty() ? PMIX_ERR_LOST_CONNECTION : PMIX_ERR_PARTIAL_SUCCESS;
    if (f.arrived.size() < f.expected.size()) return;  // the last arrival sends it up
    ex->post([this, id = f.id] {
        if (Fence* live = fences.find(id);
            live != nullptr && !live->host_called && live->failed == PMIX_SUCCESS) {
            fence_to_host(*live);
        }
    });
}

void State::fail_fences_of(const ProcKey& who, pmix_status_t status) {
    for (auto it = fences.begin(); it != fences.end();) {
        Fence& f = it->second;
        if (f.expected.count(who) == 0 || f.failed != PMIX_SUCCESS) {
            ++it;
            continue;
        }
        if (f.host_called) {
            // Its contribution is with the host, whose answer decides for everyone (as with
            // OpenPMIx): the collective may already have completed elsewhere. Failing it here
            // failed a rank whose peers on other nodes had passed the same fence (a kill that
            // outran the fence's result to this node, seen in CI).
            f.arrived.erase(who);
            ++it;
            continue;
        }
        if (module.fence_nb != nullptr && !all_local(f.procs)) {
            leave_cross_node_fence(f, who);
            ++it;
            continue;
        }
        if (f.timer != exec::kInvalidTimer) ex->cancel(f.timer);
        f.failed = status;
        for (auto& [p, to] : f.arrived) {
            reply_status(to, status);
            f.expected.erase(p);
        }
        f.arrived.clear();
        f.expected.erase(who);
        // Participants still to come are answered on arrival; then the record goes.
        it = f.expected.empty() ? fences.erase(it) : std::next(it);
    }
}

pmix_status_t dmodex_request(const pmix_proc_t& proc, pmix_dmodex_response_fn_t cbfunc,
                             void* cbdata) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    State* s = st.get();
    const bool posted = s->ex->post([s, proc, cbfunc, cbdata] {
        if (!s->is_local(proc)) {
            cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata);
            return;
        }
        if (auto cl = s->clients.find({ns_of(proc), proc.rank});
            cl != s->clients.end() && !cl->second.committed && !cl->second.lost &&
            !cl->second.finalized) {
            // Asked before the client committed (a peer on another node is faster than it):
            // answered at its commit, or with what there is when it finalizes or leaves. Measured
            // under Slurm on two nodes: answering at once made the peer's Get fail NOT_FOUND.
            CommitWait wait;
            wait.host_answer = cbfunc;
            wait.host_cbdata = cbdata;
            s->wait_for_commit(cl->first, std::move(wait), 0);
            return;
        }
        auto blob = s->modex_blob({{ns_of(proc), proc.rank}});
        cbfunc(PMIX_SUCCESS, reinterpret_cast<char*>(blob.data()), blob.size(), cbdata);
    });
    return posted ? PMIX_SUCCESS : PMIX_ERR_INIT;
}

}  // namespace pmix::server
