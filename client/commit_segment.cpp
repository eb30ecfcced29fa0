// client/commit_segment.cpp - see commit_segment.h.
#include "client/commit_segment.h"
#include "client/peer_segments.h"

#include "base/env_names.h"
#include "exec/completion.h"
#include "exec/log.h"
#include "gds/proc_segment.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pmix::client::commit_segment {

namespace {

// abandoned: announced, then a write failed; kept (mapped by peers) until PMIx_Finalize.
enum class Mode { untried, announced, refused, abandoned };

// Commits are serialised: one writer for the segment, and the messages leave in the order of
// the generations they carry.
std::mutex g_mu;
Mode g_mode = Mode::untried;
// Commits with data so far in this initialisation. The segment comes with the second: a process
// that commits once (an MPI job's one modex) gains nothing from it, and every peer that reads
// that process would map its segment. Measured with the segment from the first commit on
// (release, bench/run.sh --sweep): pmixrun -n 256 putget, whose ranks each read every peer once,
// 2.6 s against 0.6 s; at 1,024 it did not finish in 60 s (each rank opening and mapping 1,023
// segments); Pss per process 785 against 441 KiB; the first Commit 1.9x as long.
int g_data_commits = 0;

std::unique_ptr<gds::OwnSegment> g_own;
std::atomic<pmix_status_t> g_async_error{PMIX_SUCCESS};

// Commits after the announcement are in the segment when PMIx_Commit returns, which is all a
// peer on this node needs, and what the server reads first for a Get or a direct modex of this
// process (server/own_segments.h). Their message to the server (whose store must stay complete
// for server-path and cross-node fences, tools, other namespaces, a process that finalizes)
// waits here until this process next sends the server anything (send_unsent_first, called for
// every request, so the server sees them before a fence, Get or goodbye of this process), or for
// kUnsentDelay at most (a timer on the progress thread). Sent with each commit, every commit
// woke this process's progress thread twice (send, reply) and the server once: on 2 vCPUs that
// was most of a 39 us Put + Commit + Fence + Get at N = 2 (now 4-5 us per iteration). The delay: measured with
// pmixrun -n 64 bench-scenario 200 50 8 (release), Put + Commit + Fence + Get 2.0-3.6 ms when
// flushed every 2 ms, 1.4-2.0 ms every 10-20 ms, 0.87-0.94 ms every 50 ms or more (flushes
// landing at random moments wake the server and a progress thread while the others fence).
constexpr auto kUnsentDelay = std::chrono::milliseconds(50);
// Queued commits are merged, each key's newest value once (the server's store would supersede
// the older ones anyway): one message and one store commit in the server per flush. Measured
// (release, pmixrun -n 64 bench-scenario 200 50 8, the server processing every commit of the loop
// as it came: Put + Commit + Fence + Get 2.7-3.1 ms; with nothing flushed during the loop 0.9 ms).
std::mutex g_unsent_mu;  // after g_mu, before the client state's mutex
std::vector<Put> g_unsent;  // merge_put: each key once
bool g_flush_armed = false;

pmix_status_t build(const std::vector<Put>& puts, const std::string* announce,
                    wire::Bytes* out);

void note_async_reply(pmix_status_t st, wire::Frame&& f) {
    if (st == PMIX_SUCCESS) st = reply_status(f);
    pmix_status_t none = PMIX_SUCCESS;
    if (st != PMIX_SUCCESS) g_async_error.compare_exchange_strong(none, st);
}

// Under g_unsent_mu.
void send_unsent_locked(wire::Connection& conn) {
    wire::Bytes payload;
    pmix_status_t rc = build(g_unsent, nullptr, &payload);
    g_unsent.clear();
    if (rc == PMIX_SUCCESS) {
        rc = conn.request(static_cast<std::uint32_t>(proto::Op::kCommit), std::move(payload),
                          kDefaultTimeout, [](pmix_status_t st, wire::Frame&& f) {
                              exec::invoke_guarded("pmix client commit reply",
                                                   [&] { note_async_reply(st, std::move(f)); });
                          });
    }
    pmix_status_t none = PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) g_async_error.compare_exchange_strong(none, rc);
}

void flush_when_due() {
    std::shared_ptr<wire::Connection> conn = server_connection();
    std::lock_guard lock(g_unsent_mu);
    g_flush_armed = false;
    if (conn != nullptr && !g_unsent.empty()) send_unsent_locked(*conn);
}

// Under g_unsent_mu: queues one commit's puts (copies; merged by key).
pmix_status_t queue_unsent(const std::vector<Put>& puts) {
    for (const Put& p : puts) {
        ValuePtr copy = copy_value(*p.value);
        if (copy == nullptr) return PMIX_ERR_NOMEM;
        merge_put(g_unsent, Put{p.scope, p.key, std::move(copy)});
    }
    if (!g_flush_armed) {
        g_flush_armed = run_after(kUnsentDelay, [] { flush_when_due(); }) == PMIX_SUCCESS;
        if (!g_flush_armed) {  // no progress thread (finalizing): nothing would send it later
            std::shared_ptr<wire::Connection> conn = server_connection();
            if (conn == nullptr) return PMIX_ERR_UNREACH;
            send_unsent_locked(*conn);
        }
    }
    return PMIX_SUCCESS;
}

// The commit message: the puts with their scopes, then (first commit only) the segment's name.
pmix_status_t build(const std::vector<Put>& puts, const std::string* announce,
                    wire::Bytes* out) {
    proto::Writer w;
    w.size(puts.size());
    for (const Put& p : puts) {
        pmix_info_t info{};
        std::memcpy(info.key, p.key.data(), p.key.size());
        info.value = *p.value;  // shallow: packed, not owned
        w.scope(p.scope).raw(&info, 1, PMIX_INFO);
    }
    if (announce != nullptr) w.string(announce->c_str());
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    *out = w.take();
    return PMIX_SUCCESS;
}

pmix_status_t write_segment(const std::vector<Put>& puts) {
    std::vector<gds::ModexPut> items;
    items.reserve(puts.size());
    for (const Put& p : puts) items.push_back({p.scope, p.key, p.value.get()});
    return g_own->commit(items.data(), items.size());
}

// The announcing commit: status, then whether the server took the segment (a server that does
// not say so did not).
pmix_status_t call_announce(wire::Bytes payload, bool* accepted) {
    struct Reply {
        pmix_status_t status;
        bool accepted;
    };
    exec::Completion<Reply> done;
    pmix_status_t rc = request(proto::Op::kCommit, std::move(payload), kDefaultTimeout,
                               [done](pmix_status_t st, wire::Frame&& f) {
                                   Reply out{st, false};
                                   if (st == PMIX_SUCCESS) {
                                       proto::Reader r(f.payload);
                                       std::size_t flag = 0;
                                       if (r.status(&out.status) != PMIX_SUCCESS) {
                                           out.status = PMIX_ERR_UNPACK_FAILURE;
                                       } else if (!r.at_end() && r.size(&flag) == PMIX_SUCCESS) {
                                           out.accepted = flag == 1;
                                       }
                                   }
                                   done.complete(out);
                               });
    if (rc != PMIX_SUCCESS) return rc;
    auto waited = done.wait(kDefaultTimeout + kWaitMargin);
    if (waited.status != PMIX_SUCCESS) return waited.status;
    *accepted = waited.value->accepted;
    return waited.value->status;
}

pmix_status_t commit_sync(const std::vector<Put>& puts) {
    wire::Bytes payload;
    if (pmix_status_t rc = build(puts, nullptr, &payload); rc != PMIX_SUCCESS) return rc;
    return call_status(proto::Op::kCommit, std::move(payload), kDefaultTimeout);
}

void give_up(const char* why, pmix_status_t rc) {
    g_own.reset();
    g_mode = Mode::refused;
    exec::log_debug("pmix client", std::string("no own modex segment (") + why + ", status " +
                                       std::to_string(rc) + "): every commit waits for the server");
}

bool shared_store_named() {
    const char* locator = std::getenv(env::kGdsLocator);
    return locator != nullptr && !gds::prefix_of_locator(locator).empty();
}

pmix_status_t create_own(std::unique_ptr<gds::OwnSegment>& out) {
    pmix_proc_t me{};
    if (!own_proc(&me)) return PMIX_ERR_INIT;
    return gds::OwnSegment::create({me.nspace, strnlen(me.nspace, PMIX_MAX_NSLEN)}, me.rank, out);
}

// The second commit with data: a segment, written, then announced in a synchronous commit.
pmix_status_t announce(const std::vector<Put>& puts) {
    if (!shared_store_named()) {
        g_mode = Mode::refused;  // no shared store: nobody could read a segment either
        return commit_sync(puts);
    }
    pmix_status_t rc = create_own(g_own);
    if (rc == PMIX_SUCCESS) rc = write_segment(puts);
    if (rc != PMIX_SUCCESS) {
        give_up("cannot create it", rc);
        return commit_sync(puts);
    }
    wire::Bytes payload;
    if (rc = build(puts, &g_own->announcement(), &payload); rc != PMIX_SUCCESS) return rc;
    bool accepted = false;
    rc = call_announce(std::move(payload), &accepted);
    if (accepted) {
        g_mode = Mode::announced;
    } else {
        give_up("the server did not take it", rc);
    }
    return rc;
}

pmix_status_t commit_async(const std::vector<Put>& puts) {
    // The segment first: a peer that passes the next fence reads it there.
    pmix_status_t rc = write_segment(puts);
    if (rc != PMIX_SUCCESS) {
        // The write published nothing (peers keep the previous generation, which is all they
        // may read before the next fence). The commit goes to the server and waits: once it
        // answers, it has applied this one and every earlier (same socket), so the segment is
        // abandoned only then and peers read the server's store from then on; so do later
        // commits (client.commit_segment.failed_write).
        const pmix_status_t sent = commit_sync(puts);
        g_own->retire(true);
        g_mode = Mode::abandoned;
        exec::log_debug("pmix client", "own modex segment abandoned (write status " +
                                           std::to_string(rc) + "): every commit waits for the server");
        return sent;
    }
    std::lock_guard lock(g_unsent_mu);
    return queue_unsent(puts);
}

}  // namespace

pmix_status_t commit(const std::vector<Put>& puts) {
    const pmix_status_t earlier = take_async_error();
    pmix_status_t rc = PMIX_SUCCESS;
    {
        std::lock_guard lock(g_mu);
        if (g_mode == Mode::announced) {
            rc = commit_async(puts);
        } else if (g_mode == Mode::untried && !puts.empty() && !peer_segments::disabled() &&
                   g_data_commits > 0) {
            rc = announce(puts);
        } else {
            rc = commit_sync(puts);
        }
        if (!puts.empty()) ++g_data_commits;
    }
    return rc != PMIX_SUCCESS ? rc : earlier;
}

std::unique_lock<std::mutex> send_unsent_first(wire::Connection& conn) noexcept {
    std::unique_lock lock(g_unsent_mu);
    if (!g_unsent.empty()) send_unsent_locked(conn);
    return lock;
}

pmix_status_t take_async_error() noexcept {
    return g_async_error.exchange(PMIX_SUCCESS);
}

void close() noexcept {
    std::lock_guard lock(g_mu);
    // Peers that mapped it keep reading its data until this process announces another segment
    // (PMIx_Init again); the memfds go with their last mapping.
    if (g_own != nullptr && g_mode == Mode::announced) g_own->retire(false);
    g_own.reset();
    g_mode = Mode::untried;
    g_data_commits = 0;
    {
        std::lock_guard unsent(g_unsent_mu);
        g_unsent.clear();  // the goodbye sent them; without a connection nobody can take them
        g_flush_armed = false;
    }
    g_async_error.store(PMIX_SUCCESS);
}

}  // namespace pmix::client::commit_segment
