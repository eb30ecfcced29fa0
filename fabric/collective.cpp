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

Algorithm Collective::allgather_for(std::uint32_t group_size) noexcept {
    (void)group_size;  // the winner is the same at every size measured (collective.h)
    return Algorithm::bruck;
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

namespace {

std::uint32_t wrap(std::int64_t index, std::uint32_t size) noexcept {
    const auto p = static_cast<std::int64_t>(size);
    return static_cast<std::uint32_t>(((index % p) + p) % p);
}

// The binomial tree's peer of member i in `round` (see collective.h), for tree and bcast.
std::optional<std::uint32_t> tree_peer(Algorithm a, std::uint32_t p, std::uint32_t i,
                                       std::uint32_t round, bool sending) noexcept {
    const std::uint32_t levels = Collective::rounds_for(Algorithm::bcast, p);
    if (a == Algorithm::tree && round < levels) {  // gather towards member 0
        const std::uint32_t d = 1u << round;
        if (sending && i % (2 * d) == d) return i - d;
        if (!sending && i % (2 * d) == 0 && i + d < p) return i + d;
        return std::nullopt;
    }
    const std::uint32_t step = a == Algorithm::tree ? round - levels : round;
    const std::uint32_t d = 1u << (levels - 1 - step);  // broadcast: farthest first
    if (sending && i % (2 * d) == 0 && i + d < p) return i + d;
    if (!sending && i % (2 * d) == d) return i - d;
    return std::nullopt;
}

}  // namespace

std::optional<std::uint32_t> Collective::peer(Algorithm a, std::uint32_t size, std::uint32_t index,
                                              std::uint32_t round, bool sending) noexcept {
    const std::int64_t i = index;
    const std::int64_t d = std::int64_t{1} << std::min<std::uint32_t>(round, 62);
    const std::int64_t sign = sending ? 1 : -1;
    switch (a) {
        case Algorithm::bruck:
            return wrap(i - sign * d, size);
        case Algorithm::ring:
            return wrap(i + sign, size);
        case Algorithm::dissemination:
            return wrap(i + sign * d, size);
        case Algorithm::recursive_doubling:
            return static_cast<std::uint32_t>(i ^ d);
        case Algorithm::tree:
        case Algorithm::bcast:
            return tree_peer(a, size, index, round, sending);
    }
    return std::nullopt;
}

// The blocks member `sender` sends in `round`: what it holds by then that its peer lacks. Bruck
// sends the m = min(2^k, P - 2^k) blocks starting at its own (it holds exactly the blocks
// s .. s+2^k-1 after round k-1); recursive doubling its aligned 2^k; the tree's gather its
// subtree, its broadcast everything.
std::vector<std::uint32_t> Collective::origins(Algorithm a, std::uint32_t size,
                                               std::uint32_t sender, std::uint32_t round) {
    const auto p = static_cast<std::int64_t>(size);
    const std::int64_t s = sender;
    const std::int64_t d = std::int64_t{1} << std::min<std::uint32_t>(round, 62);
    std::vector<std::uint32_t> out;
    auto range = [&out](std::int64_t from, std::int64_t to) {
        for (std::int64_t j = from; j < to; ++j) out.push_back(static_cast<std::uint32_t>(j));
    };
    switch (a) {
        case Algorithm::dissemination:
            break;
        case Algorithm::ring:
            out.push_back(wrap(s - round, size));
            break;
        case Algorithm::bruck:
            for (std::int64_t j = 0; j < std::min(d, p - d); ++j) out.push_back(wrap(s + j, size));
            break;
        case Algorithm::recursive_doubling:
            range(s & ~(d - 1), (s & ~(d - 1)) + d);
            break;
        case Algorithm::bcast:
            out.push_back(0);
            break;
        case Algorithm::tree:
            if (round >= rounds_for(Algorithm::bcast, size)) range(0, p);
            else range(s, std::min(s + d, p));
            break;
    }
    return out;
}

std::optional<std::uint32_t> Collective::send_peer(std::uint32_t round) const noexcept {
    return peer(algorithm_, static_cast<std::uint32_t>(members_.size()), index_, round, true);
}

std::optional<std::uint32_t> Collective::recv_peer(std::uint32_t round) const noexcept {
    return peer(algorithm_, static_cast<std::uint32_t>(members_.size()), index_, round, false);
}

void Collective::send_round(std::uint32_t round, std::vector<Outgoing>& out) {
    const std::optional<std::uint32_t> to = send_peer(round);
    if (!to) return;
    Bytes body;
    if (algorithm_ != Algorithm::dissemination) {
        std::vector<const Block*> blocks;
        for (std::uint32_t origin :
             origins(algorithm_, static_cast<std::uint32_t>(members_.size()), index_, round))
            blocks.push_back(&*blocks_[origin]);
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
    const std::vector<std::uint32_t> expected =
        origins(algorithm_, static_cast<std::uint32_t>(members_.size()), *recv_peer(round), round);
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
