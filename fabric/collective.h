// fabric/collective.h - one member's side of one allgather or barrier, as a state machine.
//
// No threads and no I/O here: start() and accept() return the packets to send, so the same code
// runs over libfabric in the daemons and over the in-process hub in the unit tests (every group
// size 1..64, packets delivered in random order). A packet may arrive rounds early (a fast peer
// is already further on); it is kept until its round comes, so nothing depends on the order in
// which the transport delivers.
//
// Rounds, for a group of P members, member i (its index in the sorted member list), L =
// ceil(log2 P). In a round a member sends at most one packet and waits for at most one; a round
// with neither is skipped.
//   bruck          round k (d = 2^k, k < L): send the blocks of members i .. i+m-1
//                  (m = min(d, P-d), indices mod P) to i-d, receive those of i+d .. from i+d.
//                  Every member receives every other block exactly once, in log2 rounds.
//   ring           round s < P-1: send the block of member i-s to i+1, receive i-1-s from i-1.
//   dissemination  round k: send an empty packet to i+d, receive one from i-d (a barrier).
//   recursive_doubling  P a power of two; round k: exchange the aligned 2^k blocks held with
//                  partner i xor 2^k.
//   tree           rounds 0..L-1, binomial gather to member 0: if i mod 2d = d send the blocks
//                  i .. i+d-1 to i-d; if i mod 2d = 0 receive i+d .. i+2d-1 from i+d. Rounds
//                  L..2L-1, binomial broadcast with d = 2^(L-1) down to 1: if i mod 2d = 0 send
//                  all P blocks to i+d; if i mod 2d = d receive them from i-d.
//   bcast          the broadcast half of `tree` carrying member 0's block only.
#pragma once

#include "fabric/packet.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace pmix::fabric {

struct Outgoing {
    std::uint32_t to = 0;  // transport rank
    Bytes bytes;
};

class Collective {
public:
    // `members`: transport ranks, sorted, without duplicates, containing `self`.
    Collective(std::uint64_t id, Algorithm algorithm, std::vector<std::uint32_t> members,
               std::uint32_t self, Bytes contribution);

    std::uint64_t id() const noexcept { return id_; }
    const std::vector<std::uint32_t>& members() const noexcept { return members_; }
    bool done() const noexcept { return round_ >= rounds_; }

    void start(std::vector<Outgoing>& out);
    // False (with `why`) for a packet this member must not receive: wrong sender for its round,
    // a round out of range, a repeated round, a malformed body. The collective is unchanged.
    bool accept(const Packet& p, std::vector<Outgoing>& out, std::string& why);
    // Each member's contribution, in member order (empty for a barrier). Only once done().
    std::vector<Bytes> take_result();

    static std::uint32_t rounds_for(Algorithm a, std::uint32_t group_size) noexcept;
    // The allgather a fence of `group_size` daemons should run. From bench/fabric's simulation
    // (bench/results/collective-sim-20261127-*.md; this machine's tcp;ofi_rxm: 17.6 us per
    // message, 0.0027 us per byte), Bruck is the fastest at every D = 64 .. 16,384 and 64 B ..
    // 256 KiB per member, tied with recursive doubling (same rounds, same bytes) where P is a
    // power of two, which Bruck does not need. At 32 KiB per member: D = 1,024 Bruck 90.7 ms,
    // ring 108.6 ms (P-1 latencies), tree 997 ms (its broadcast half carries everything at
    // every level); D = 16,384 Bruck 1.45 s (the bytes: every daemon receives (D-1) x 32 KiB),
    // tree 21.7 s. Ring comes within 3% of Bruck only at 256 KiB per member and would win only
    // where Bruck's long-distance partners contend for links, which the model does not have.
    // A barrier: dissemination (247 us at 16,384 against the tree's 5.8 ms).
    static Algorithm allgather_for(std::uint32_t group_size) noexcept;
    // Whether `a` runs on a group of that size (recursive doubling: powers of two only).
    static bool supports(Algorithm a, std::uint32_t group_size) noexcept;
    // The schedule without state (bench/fabric's model replays it at sizes where a state machine
    // per member does not fit in one process): the member index that member `index` of a group
    // of `size` sends to (`sending`) or receives from in `round`, nullopt for none; and the
    // member indices whose blocks `sender` sends in `round`.
    static std::optional<std::uint32_t> peer(Algorithm a, std::uint32_t size, std::uint32_t index,
                                             std::uint32_t round, bool sending) noexcept;
    static std::vector<std::uint32_t> origins(Algorithm a, std::uint32_t size, std::uint32_t sender,
                                              std::uint32_t round);

private:
    std::optional<std::uint32_t> send_peer(std::uint32_t round) const noexcept;
    std::optional<std::uint32_t> recv_peer(std::uint32_t round) const noexcept;
    void send_round(std::uint32_t round, std::vector<Outgoing>& out);
    bool parse(std::uint32_t round, std::span<const std::byte> body, std::vector<Block>& got,
               std::string& why) const;
    void advance(std::vector<Outgoing>& out);
    void keep(std::vector<Block>& got);

    std::uint64_t id_;
    Algorithm algorithm_;
    std::vector<std::uint32_t> members_;
    std::uint32_t self_;
    std::uint32_t index_ = 0;  // my position in members_
    std::uint32_t rounds_ = 0;
    std::uint32_t round_ = 0;  // the round whose packet I wait for
    std::vector<std::optional<Block>> blocks_;
    std::map<std::uint32_t, std::vector<Block>> early_;  // checked blocks of rounds after round_
};

}  // namespace pmix::fabric
