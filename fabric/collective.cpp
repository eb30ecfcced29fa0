// fabric/collective.cpp - the allgather and barrier state machines (see collective.h).
#include "fabric/collective.h"

#include <algorithm>

namespace pmix::fabric {

std::uint32_t Collective::rounds_for(Algorithm a, std::uint32_t group_size) noexcept {
    if (group_size <= 1) return 0;
    if (a == Algorithm::ring) return group_size - 1;
    std::uint32_t rounds = 0;
    for (std::uint64_t reach = 1; reach < group_size; reach <<= 1) ++rounds;
    return rounds;
}

Collective::Collective(std::uint64_t id, Algorithm algorithm, std::vector<std::uint32_t> members,
                       std::uint32_t self, Bytes contribution)
    : id_(id), algorithm_(algorithm), members_(std::move(members)), self_(self) {
    const auto it = std::lower_bound(members_.begin(), members_.end(), self_);
    index_ = static_cast<std::uint32_t>(it - members_.begin());
    rounds_ = rounds_for(algorithm_, static_cast<std::uint32_t>(members_.size()));
    blocks_.resize(members_.size());
    if (algorithm_ != Algorithm::dissemination) {
        blocks_[index_] = Block{index_, std::move(contribution)};
    }
}

std::uint32_t Collective::at(std::int64_t index) const noexcept {
    const auto p = static_cast<std::int64_t>(members_.size());
    return static_cast<std::uint32_t>(((index % p) + p) % p);
}

std::uint32_t Collective::send_peer(std::uint32_t round) const noexcept {
    const std::int64_t i = index_;
    const std::int64_t d = std::int64_t{1} << round;
    switch (algorithm_) {
        case Algorithm::bruck:
            return at(i - d);
        case Algorithm::ring:
            return at(i + 1);
        case Algorithm::dissemination:
            return at(i + d);
    }
    return index_;
}

std::uint32_t Collective::recv_peer(std::uint32_t round) const noexcept {
    const std::int64_t i = index_;
    const std::int64_t d = std::int64_t{1} << round;
    switch (algorithm_) {
        case Algorithm::bruck:
            return at(i + d);
        case Algorithm::ring:
            return at(i - 1);
        case Algorithm::dissemination:
            return at(i - d);
    }
    return index_;
}

// Bruck sends, in round k, the m = min(2^k, P - 2^k) blocks starting at its own: it holds
// exactly the blocks i .. i+2^k-1 after round k-1.
std::vector<std::uint32_t> Collective::origins_sent(std::uint32_t round) const {
    const auto p = static_cast<std::int64_t>(members_.size());
    if (algorithm_ == Algorithm::ring) return {at(std::int64_t{index_} - round)};
    if (algorithm_ == Algorithm::dissemination) return {};
    const std::int64_t d = std::int64_t{1} << round;
    std::vector<std::uint32_t> out;
    for (std::int64_t j = 0; j < std::min(d, p - d); ++j) out.push_back(at(index_ + j));
    return out;
}

std::vector<std::uint32_t> Collective::origins_received(std::uint32_t round) const {
    const auto p = static_cast<std::int64_t>(members_.size());
    if (algorithm_ == Algorithm::ring) return {at(std::int64_t{index_} - 1 - round)};
    if (algorithm_ == Algorithm::dissemination) return {};
    const std::int64_t d = std::int64_t{1} << round;
    std::vector<std::uint32_t> out;
    for (std::int64_t j = 0; j < std::min(d, p - d); ++j) out.push_back(at(index_ + d + j));
    return out;
}

void Collective::send_round(std::uint32_t round, std::vector<Outgoing>& out) {
    Bytes body;
    if (algorithm_ != Algorithm::dissemination) {
        std::vector<const Block*> blocks;
        for (std::uint32_t origin : origins_sent(round)) blocks.push_back(&*blocks_[origin]);
        body = encode_blocks(blocks);
    }
    const PacketHeader h{algorithm_, id_, round, self_};
    out.push_back(Outgoing{members_[send_peer(round)], encode_packet(h, body)});
}

void Collective::start(std::vector<Outgoing>& out) {
    if (!done()) send_round(0, out);
}

bool Collective::parse(std::uint32_t round, std::span<const std::byte> body,
                       std::vector<Block>& got, std::string& why) const {
    if (algorithm_ == Algorithm::dissemination) {
        if (body.empty()) return true;
        why = "barrier packet with a body";
        return false;
    }
    if (!decode_blocks(body, static_cast<std::uint32_t>(members_.size()), got, why)) return false;
    const std::vector<std::uint32_t> expected = origins_received(round);
    if (got.size() != expected.size()) {
        why = "round " + std::to_string(round) + " carries " + std::to_string(got.size()) +
              " blocks, expected " + std::to_string(expected.size());
        return false;
    }
    for (std::size_t k = 0; k < got.size(); ++k) {
        if (got[k].origin != expected[k]) {
            why = "round " + std::to_string(round) + " carries the block of member " +
                  std::to_string(got[k].origin) + " where " + std::to_string(expected[k]) +
                  " was due";
            return false;
        }
    }
    return true;
}

// Moves on through every round whose packet is already here, sending as each round opens.
void Collective::advance(std::vector<Block> got, std::vector<Outgoing>& out) {
    for (;;) {
        for (Block& b : got) blocks_[b.origin] = std::move(b);
        ++round_;
        if (done()) return;
        send_round(round_, out);
        auto it = early_.find(round_);
        if (it == early_.end()) return;
        got = std::move(it->second);
        early_.erase(it);
    }
}

bool Collective::accept(const Packet& p, std::vector<Outgoing>& out, std::string& why) {
    const std::uint32_t round = p.header.round;
    if (p.header.algorithm != algorithm_) {
        why = std::string("packet for algorithm ") + algorithm_name(p.header.algorithm) + " in a " +
              algorithm_name(algorithm_) + " collective";
        return false;
    }
    if (round >= rounds_ || round < round_ || early_.count(round) != 0) {
        why = "round " + std::to_string(round) + " is not expected (waiting for round " +
              std::to_string(round_) + " of " + std::to_string(rounds_) + ")";
        return false;
    }
    if (p.header.from != members_[recv_peer(round)]) {
        why = "round " + std::to_string(round) + " came from rank " +
              std::to_string(p.header.from) + ", expected rank " +
              std::to_string(members_[recv_peer(round)]);
        return false;
    }
    std::vector<Block> got;
    if (!parse(round, p.body, got, why)) return false;
    if (round > round_) {
        early_.emplace(round, std::move(got));  // a fast peer is rounds ahead
        return true;
    }
    advance(std::move(got), out);
    return true;
}

std::vector<Bytes> Collective::take_result() {
    std::vector<Bytes> out;
    if (algorithm_ == Algorithm::dissemination) return out;
    out.reserve(blocks_.size());
    for (auto& b : blocks_) out.push_back(b ? std::move(b->data) : Bytes{});
    return out;
}

}  // namespace pmix::fabric
