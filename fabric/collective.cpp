// fabric/collective.cpp - the allgather and barrier state machines (see collective.h).
#include "fabric/collective.h"

#include <algorithm>

namespace pmix::fabric {

std::uint32_t Collective::rounds_for(Algorithm a, std::uint32_t group_size) noexcept {
    if (group_size <= 1) return 0;
    if (a == Algorithm::ring) return group_size - 1;
    std::uint32_t rounds = 0;
    for (std::uint64_t reach = 1; reach < group_size; reach <<= 1) ++rounds;
    return a == Algorithm::tree ? 2 * rounds : rounds;
}

bool Collective::supports(Algorithm a, std::uint32_t group_size) noexcept {
    if (a == Algorithm::recursive_doubling) return (group_size & (group_size - 1)) == 0;
    return group_size >= 1;
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

// The binomial tree's peer of this member in `round` (see collective.h), for tree and bcast.
std::optional<std::uint32_t> Collective::tree_peer(std::uint32_t round,
                                                   bool sending) const noexcept {
    const std::uint32_t p = static_cast<std::uint32_t>(members_.size());
    const std::uint32_t levels = rounds_for(Algorithm::bcast, p);
    const std::uint32_t i = index_;
    if (algorithm_ == Algorithm::tree && round < levels) {  // gather towards member 0
        const std::uint32_t d = 1u << round;
        if (sending && i % (2 * d) == d) return i - d;
        if (!sending && i % (2 * d) == 0 && i + d < p) return i + d;
        return std::nullopt;
    }
    const std::uint32_t step = algorithm_ == Algorithm::tree ? round - levels : round;
    const std::uint32_t d = 1u << (levels - 1 - step);  // broadcast: farthest first
    if (sending && i % (2 * d) == 0 && i + d < p) return i + d;
    if (!sending && i % (2 * d) == d) return i - d;
    return std::nullopt;
}

std::optional<std::uint32_t> Collective::send_peer(std::uint32_t round) const noexcept {
    const std::int64_t i = index_;
    const std::int64_t d = std::int64_t{1} << round;
    switch (algorithm_) {
        case Algorithm::bruck:
            return at(i - d);
        case Algorithm::ring:
            return at(i + 1);
        case Algorithm::dissemination:
            return at(i + d);
        case Algorithm::recursive_doubling:
            return static_cast<std::uint32_t>(i ^ d);
        case Algorithm::tree:
        case Algorithm::bcast:
            return tree_peer(round, true);
    }
    return std::nullopt;
}

std::optional<std::uint32_t> Collective::recv_peer(std::uint32_t round) const noexcept {
    const std::int64_t i = index_;
    const std::int64_t d = std::int64_t{1} << round;
    switch (algorithm_) {
        case Algorithm::bruck:
            return at(i + d);
        case Algorithm::ring:
            return at(i - 1);
        case Algorithm::dissemination:
            return at(i - d);
        case Algorithm::recursive_doubling:
            return static_cast<std::uint32_t>(i ^ d);
        case Algorithm::tree:
        case Algorithm::bcast:
            return tree_peer(round, false);
    }
    return std::nullopt;
}

// The blocks member `sender` sends in `round`: what it holds by then that its peer lacks. Bruck
// sends the m = min(2^k, P - 2^k) blocks starting at its own (it holds exactly the blocks
// s .. s+2^k-1 after round k-1); recursive doubling its aligned 2^k; the tree's gather its
// subtree, its broadcast everything.
std::vector<std::uint32_t> Collective::origins_of(std::uint32_t round, std::uint32_t sender) const {
    const auto p = static_cast<std::int64_t>(members_.size());
    const std::int64_t s = sender;
    const std::int64_t d = std::int64_t{1} << std::min<std::uint32_t>(round, 62);
    std::vector<std::uint32_t> out;
    switch (algorithm_) {
        case Algorithm::dissemination:
            return out;
        case Algorithm::ring:
            return {at(s - round)};
        case Algorithm::bruck:
            for (std::int64_t j = 0; j < std::min(d, p - d); ++j) out.push_back(at(s + j));
            return out;
        case Algorithm::recursive_doubling:
            for (std::int64_t j = s & ~(d - 1); j < (s & ~(d - 1)) + d; ++j)
                out.push_back(static_cast<std::uint32_t>(j));
            return out;
        case Algorithm::bcast:
            return {0};
        case Algorithm::tree:
            if (round >= rounds_for(Algorithm::bcast, static_cast<std::uint32_t>(p))) {
                for (std::int64_t j = 0; j < p; ++j) out.push_back(static_cast<std::uint32_t>(j));
                return out;
            }
            for (std::int64_t j = s; j < std::min(s + d, p); ++j)
                out.push_back(static_cast<std::uint32_t>(j));
            return out;
    }
    return out;
}

void Collective::send_round(std::uint32_t round, std::vector<Outgoing>& out) {
    const std::optional<std::uint32_t> to = send_peer(round);
    if (!to) return;
    Bytes body;
    if (algorithm_ != Algorithm::dissemination) {
        std::vector<const Block*> blocks;
        for (std::uint32_t origin : origins_of(round, index_)) blocks.push_back(&*blocks_[origin]);
        body = encode_blocks(blocks);
    }
    const PacketHeader h{algorithm_, id_, round, self_};
    out.push_back(Outgoing{members_[*to], encode_packet(h, body)});
}

void Collective::start(std::vector<Outgoing>& out) { advance(out); }

bool Collective::parse(std::uint32_t round, std::span<const std::byte> body,
                       std::vector<Block>& got, std::string& why) const {
    if (algorithm_ == Algorithm::dissemination) {
        if (body.empty()) return true;
        why = "barrier packet with a body";
        return false;
    }
    if (!decode_blocks(body, static_cast<std::uint32_t>(members_.size()), got, why)) return false;
    const std::vector<std::uint32_t> expected = origins_of(round, *recv_peer(round));
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

void Collective::keep(std::vector<Block>& got) {
    for (Block& b : got) blocks_[b.origin] = std::move(b);
}

// Enters round_ and moves on through every round whose packet is already here (or that has none
// to wait for), sending as each round opens; stops at the first round still waiting.
void Collective::advance(std::vector<Outgoing>& out) {
    for (; !done(); ++round_) {
        send_round(round_, out);
        if (!recv_peer(round_)) continue;
        auto it = early_.find(round_);
        if (it == early_.end()) return;
        keep(it->second);
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
    const std::optional<std::uint32_t> peer = recv_peer(round);
    if (!peer || p.header.from != members_[*peer]) {
        why = "round " + std::to_string(round) + " came from rank " +
              std::to_string(p.header.from) + ", expected " +
              (peer ? "rank " + std::to_string(members_[*peer]) : std::string("none"));
        return false;
    }
    std::vector<Block> got;
    if (!parse(round, p.body, got, why)) return false;
    if (round > round_) {
        early_.emplace(round, std::move(got));  // a fast peer is rounds ahead
        return true;
    }
    keep(got);
    ++round_;
    advance(out);
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
