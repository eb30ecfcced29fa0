// fabric/loopback.cpp - the in-process test transport (see loopback.h).
#include "fabric/loopback.h"

namespace pmix::fabric {

class LoopbackHub::Member final : public Transport {
public:
    Member(LoopbackHub& hub, std::uint32_t rank) : hub_(hub), rank_(rank) {}
    std::uint32_t rank() const noexcept override { return rank_; }
    std::uint32_t size() const noexcept override {
        return static_cast<std::uint32_t>(hub_.members_.size());
    }
    bool send(std::uint32_t peer, Bytes bytes) override {
        return hub_.enqueue(rank_, peer, std::move(bytes));
    }

private:
    LoopbackHub& hub_;
    std::uint32_t rank_;
};

LoopbackHub::LoopbackHub(std::uint32_t members)
    : receivers_(members, nullptr), dead_(members, false) {
    for (std::uint32_t r = 0; r < members; ++r)
        members_.push_back(std::make_unique<Member>(*this, r));
}

LoopbackHub::~LoopbackHub() = default;

Transport& LoopbackHub::transport(std::uint32_t rank) { return *members_.at(rank); }

void LoopbackHub::attach(std::uint32_t rank, Receiver* receiver) { receivers_.at(rank) = receiver; }

bool LoopbackHub::enqueue(std::uint32_t from, std::uint32_t to, Bytes bytes) {
    if (to >= members_.size() || dead_[to] || dead_[from]) return false;
    bytes_sent_ += bytes.size();
    queue_.push_back(InFlight{from, to, std::move(bytes)});
    return true;
}

void LoopbackHub::deliver(std::size_t index) {
    InFlight p = std::move(queue_.at(index));
    queue_[index] = std::move(queue_.back());
    queue_.pop_back();
    if (!dead_[p.to] && receivers_[p.to] != nullptr) receivers_[p.to]->on_packet(p.from, p.bytes);
}

void LoopbackHub::kill(std::uint32_t rank) {
    dead_.at(rank) = true;
    std::erase_if(queue_, [rank](const InFlight& p) { return p.to == rank || p.from == rank; });
    for (std::uint32_t r = 0; r < members_.size(); ++r) {
        if (!dead_[r] && receivers_[r] != nullptr) receivers_[r]->on_peer_lost(rank);
    }
}

}  // namespace pmix::fabric
