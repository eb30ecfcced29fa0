// fabric/engine.h - runs many collectives at once over one Transport.
//
// The daemons start a collective per fence (barrier without data, allgather with it); several
// can be in flight (fences of different namespaces or rank subsets), in any order on different
// daemons, so the engine matches packets by collective id, never by arrival order:
//   - a packet for an id not started here yet is kept until start() (a peer is ahead);
//   - a packet for an id that finished here is dropped;
//   - a malformed packet, or one the collective must not receive, is logged and dropped.
// A collective fails visibly, never hangs: when a member is lost (before or during), when a send
// is refused, or at its deadline (PMIX_ERR_TIMEOUT, checked by expire()).
//
// Thread-safe: one mutex; completions run after it is released, on the thread that caused them
// (the transport's for the last packet, the caller's for start() or expire()).
#pragma once

#include "fabric/collective.h"
#include "fabric/transport.h"

#include <pmix_common.h>

#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace pmix::fabric {

using Clock = std::chrono::steady_clock;

struct CollectiveSpec {
    std::uint64_t id = 0;  // the same on every member, unique among those in flight
    Algorithm algorithm = Algorithm::bruck;
    std::vector<std::uint32_t> members;  // transport ranks; sorted and deduplicated by start()
    Clock::time_point deadline = Clock::time_point::max();
};

// Status, then each member's contribution in member order (empty for a barrier or a failure).
using CollectiveDone = std::function<void(pmix_status_t, std::vector<Bytes>)>;

class Engine final : public Receiver {
public:
    explicit Engine(Transport& transport);

    // PMIX_ERR_BAD_PARAM if this rank is not a member, a member is out of range, a barrier
    // carries data, a broadcast carries data from another member than its root (the first),
    // recursive doubling runs on a group whose size is not a power of two or the id is in flight;
    // PMIX_ERR_LOST_CONNECTION if a member is already lost. On error `done` is not called.
    pmix_status_t start(CollectiveSpec spec, Bytes contribution, CollectiveDone done);

    void on_packet(std::uint32_t from, std::span<const std::byte> bytes) override;
    void on_peer_lost(std::uint32_t peer) override;
    // Fails every collective whose deadline is before `now`; returns the earliest deadline left.
    Clock::time_point expire(Clock::time_point now);

    std::size_t in_flight() const;
    std::size_t dropped_packets() const;

private:
    struct Active {
        std::unique_ptr<Collective> collective;
        CollectiveDone done;
        Clock::time_point deadline;
    };
    using Completion = std::function<void()>;

    void send_all(std::vector<Outgoing>& out, std::uint64_t id, std::vector<Completion>& fired);
    void finish(std::uint64_t id, pmix_status_t status, std::vector<Completion>& fired);
    void feed(Active& a, const Packet& p, std::vector<Completion>& fired);
    void remember_finished(std::uint64_t id);
    static void run(std::vector<Completion>& fired);

    Transport& transport_;
    mutable std::mutex mu_;
    std::map<std::uint64_t, Active> active_;
    std::map<std::uint64_t, std::vector<Bytes>> early_;  // packets of collectives not started
    std::set<std::uint32_t> lost_;
    std::set<std::uint64_t> finished_;
    std::deque<std::uint64_t> finished_order_;  // bounds finished_
    std::size_t dropped_ = 0;
};

}  // namespace pmix::fabric
