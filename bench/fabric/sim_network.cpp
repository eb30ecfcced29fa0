// bench/fabric/sim_network.cpp - the virtual-clock network and the schedule model (see
// sim_network.h).
#include "sim_network.h"

#include "fabric/collective.h"

#include <algorithm>

namespace pmix::bench {
namespace {

// Earliest delivery first; equal times in send order, so runs are deterministic.
template <class E>
bool later(const E& a, const E& b) {
    return a.at != b.at ? a.at > b.at : a.seq > b.seq;
}

// The block count of an allgather or broadcast packet (fabric/packet.h: 28-byte header, then a
// u32 count, little-endian); 0 for a barrier's empty body.
std::uint64_t blocks_in(const fabric::Bytes& packet) {
    if (packet.size() < fabric::kPacketHeaderSize + 4) return 0;
    std::uint64_t count = 0;
    for (int b = 3; b >= 0; --b)
        count =
            (count << 8) | std::to_integer<std::uint64_t>(packet[fabric::kPacketHeaderSize + b]);
    return count;
}

}  // namespace

Wire::Wire(std::uint32_t nodes, WireCost cost)
    : cost_(cost), tx_free_(nodes, 0.0), rx_free_(nodes, 0.0) {}

double Wire::send(std::uint32_t from, std::uint32_t to, std::uint64_t bytes, double now) {
    const double on_wire = static_cast<double>(bytes) * cost_.us_per_byte;
    const double start = std::max(now, tx_free_[from]);
    tx_free_[from] = start + cost_.overhead_us + on_wire;
    const double delivered =
        std::max(start + on_wire + cost_.latency_us, rx_free_[to] + cost_.overhead_us + on_wire);
    rx_free_[to] = delivered;
    return delivered;
}

std::uint64_t packet_bytes(fabric::Algorithm a, std::uint64_t blocks, std::uint64_t block_bytes) {
    if (a == fabric::Algorithm::dissemination) return fabric::kPacketHeaderSize;
    return fabric::kPacketHeaderSize + 4 + blocks * (8 + block_bytes);
}

class SimNetwork::Node final : public fabric::Transport {
public:
    Node(SimNetwork& net, std::uint32_t rank) : net_(net), rank_(rank) {}
    std::uint32_t rank() const noexcept override { return rank_; }
    std::uint32_t size() const noexcept override {
        return static_cast<std::uint32_t>(net_.nodes_.size());
    }
    bool send(std::uint32_t peer, fabric::Bytes bytes) override {
        return net_.enqueue(rank_, peer, std::move(bytes));
    }

private:
    SimNetwork& net_;
    std::uint32_t rank_;
};

SimNetwork::SimNetwork(std::uint32_t nodes, WireCost cost, std::uint64_t extra_per_block)
    : wire_(nodes, cost), extra_per_block_(extra_per_block), receivers_(nodes, nullptr) {
    for (std::uint32_t r = 0; r < nodes; ++r) nodes_.push_back(std::make_unique<Node>(*this, r));
}

SimNetwork::~SimNetwork() = default;

fabric::Transport& SimNetwork::transport(std::uint32_t rank) { return *nodes_.at(rank); }

void SimNetwork::attach(std::uint32_t rank, fabric::Receiver* receiver) {
    receivers_.at(rank) = receiver;
}

bool SimNetwork::enqueue(std::uint32_t from, std::uint32_t to, fabric::Bytes bytes) {
    if (to >= nodes_.size()) return false;
    const std::uint64_t charged = bytes.size() + blocks_in(bytes) * extra_per_block_;
    charged_ += charged;
    const double at = wire_.send(from, to, charged, now_);
    heap_.push_back(Event{at, seq_++, from, to, std::move(bytes)});
    std::push_heap(heap_.begin(), heap_.end(), later<Event>);
    return true;
}

std::uint64_t SimNetwork::run() {
    std::uint64_t delivered = 0;
    while (!heap_.empty()) {
        std::pop_heap(heap_.begin(), heap_.end(), later<Event>);
        Event e = std::move(heap_.back());
        heap_.pop_back();
        now_ = e.at;
        if (receivers_[e.to] != nullptr) receivers_[e.to]->on_packet(e.from, e.bytes);
        ++delivered;
    }
    return delivered;
}

namespace {

// One member of the model: fabric::Collective::advance() without blocks.
class ModelRun {
public:
    ModelRun(fabric::Algorithm a, std::uint32_t nodes, std::uint64_t block_bytes, WireCost cost)
        : a_(a),
          nodes_(nodes),
          block_bytes_(block_bytes),
          wire_(nodes, cost),
          rounds_(fabric::Collective::rounds_for(a, nodes)),
          round_(nodes, 0),
          arrived_(static_cast<std::size_t>(nodes) * rounds_, false) {}

    double run(std::uint64_t& messages) {
        for (std::uint32_t i = 0; i < nodes_; ++i) advance(i);
        while (!heap_.empty()) {
            std::pop_heap(heap_.begin(), heap_.end(), later<Event>);
            const Event e = heap_.back();
            heap_.pop_back();
            now_ = e.at;
            if (e.round == round_[e.to]) {
                ++round_[e.to];
                advance(e.to);
            } else {
                arrived_[std::size_t{e.to} * rounds_ + e.round] = true;
            }
        }
        messages = messages_;
        return last_;
    }

private:
    struct Event {
        double at;
        std::uint64_t seq;
        std::uint32_t to, round;
    };
    using C = fabric::Collective;

    void advance(std::uint32_t i) {
        for (; round_[i] < rounds_; ++round_[i]) {
            const std::uint32_t r = round_[i];
            if (const auto to = C::peer(a_, nodes_, i, r, true)) {
                const std::uint64_t blocks = C::origins(a_, nodes_, i, r).size();
                const double at = wire_.send(i, *to, packet_bytes(a_, blocks, block_bytes_), now_);
                heap_.push_back(Event{at, seq_++, *to, r});
                std::push_heap(heap_.begin(), heap_.end(), later<Event>);
                ++messages_;
            }
            if (!C::peer(a_, nodes_, i, r, false)) continue;
            const std::size_t slot = std::size_t{i} * rounds_ + r;
            if (!arrived_[slot]) return;
            arrived_[slot] = false;
        }
        last_ = std::max(last_, now_);
    }

    fabric::Algorithm a_;
    std::uint32_t nodes_;
    std::uint64_t block_bytes_;
    Wire wire_;
    std::uint32_t rounds_;
    std::vector<std::uint32_t> round_;
    std::vector<bool> arrived_;
    std::vector<Event> heap_;
    std::uint64_t seq_ = 0, messages_ = 0;
    double now_ = 0, last_ = 0;
};

}  // namespace

double model_collective(fabric::Algorithm a, std::uint32_t nodes, std::uint64_t block_bytes,
                        WireCost cost, std::uint64_t& messages) {
    return ModelRun(a, nodes, block_bytes, cost).run(messages);
}

}  // namespace pmix::bench
