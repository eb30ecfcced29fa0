// bench/fabric/sim_network.h - thousands of node daemons' collectives in one process, on a
// virtual clock (a discrete-event simulation over the fabric transport seam).
//
// Wire: the cost of one message of n bytes from s to r sent at virtual time t, LogGP-style: a
// one-way latency L (per message, software included), a per-byte cost G, and of L an overhead o
// during which the sender (and the receiver) can do nothing else:
//   start     = max(t, tx_free[s]);  tx_free[s] = start + o + n G   (the sender is serial)
//   arrive    = start + n G + L
//   delivered = max(arrive, rx_free[r] + o + n G); rx_free[r] = delivered  (so is the receiver)
// No switch contention and no CPU cost besides o: the model of bench/fabric's table
// (2 ceil(log2 D) L + bytes (D-1) G) with both ends' serialization made explicit. o only matters
// where one node sends or receives many messages at once (a flat broadcast, a tree's root).
#pragma once

#include "fabric/transport.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace pmix::bench {

struct WireCost {
    double latency_us = 15.0;
    double us_per_byte = 0.0017;
    double overhead_us = 5.0;
};

class Wire {
public:
    Wire(std::uint32_t nodes, WireCost cost);
    // The virtual time at which a message of `bytes` from `from`, sent at `now`, is delivered.
    double send(std::uint32_t from, std::uint32_t to, std::uint64_t bytes, double now);

private:
    WireCost cost_;
    std::vector<double> tx_free_, rx_free_;
};

class SimNetwork {
public:
    SimNetwork(std::uint32_t nodes, WireCost cost, std::uint64_t extra_per_block);
    ~SimNetwork();
    SimNetwork(const SimNetwork&) = delete;
    SimNetwork& operator=(const SimNetwork&) = delete;

    fabric::Transport& transport(std::uint32_t rank);
    void attach(std::uint32_t rank, fabric::Receiver* receiver);
    double now() const noexcept { return now_; }
    // Delivers every event in time order (those sent meanwhile too); returns how many.
    std::uint64_t run();
    std::uint64_t bytes_charged() const noexcept { return charged_; }

private:
    class Node;
    struct Event {
        double at;
        std::uint64_t seq;
        std::uint32_t from, to;
        fabric::Bytes bytes;
    };
    bool enqueue(std::uint32_t from, std::uint32_t to, fabric::Bytes bytes);

    Wire wire_;
    std::uint64_t extra_per_block_;
    std::vector<std::unique_ptr<Node>> nodes_;
    std::vector<fabric::Receiver*> receivers_;
    std::vector<Event> heap_;
    std::uint64_t seq_ = 0;
    std::uint64_t charged_ = 0;
    double now_ = 0;
};

// The same schedule without data or state machines (fabric::Collective::peer/origins replayed on
// the same Wire), for sizes where D state machines of D blocks do not fit in one process.
// `block_bytes` per member (the root's blob for bcast). Returns the time the last node finishes
// and counts the messages.
double model_collective(fabric::Algorithm a, std::uint32_t nodes, std::uint64_t block_bytes,
                        WireCost cost, std::uint64_t& messages);

// The bytes a packet of `blocks` blocks of `block_bytes` each takes on the wire (fabric/packet.h).
std::uint64_t packet_bytes(fabric::Algorithm a, std::uint64_t blocks, std::uint64_t block_bytes);

}  // namespace pmix::bench
