// tests/unit/fabric/test_collectives.cpp - allgather (Bruck, ring, recursive doubling, tree),
// barrier and broadcast through the in-process hub: every group size 1..64, contributions of 0
// bytes to 1 MiB and unequal sizes, members starting at random moments, packets delivered in random
// order.
#include "harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>
#include <numeric>

namespace pmix::fabric::test {
namespace {

using SizeOf = std::function<std::size_t(std::uint32_t)>;

// Runs one collective on members 0..n-1, starting them in random order with random amounts of
// delivery in between, and checks that everyone got every contribution in member order.
void run_allgather(std::uint32_t n, Algorithm alg, const SizeOf& size_of, std::uint32_t seed) {
    Cluster c(n, seed);
    std::vector<Outcome> out(n);
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    std::shuffle(order.begin(), order.end(), c.rng());
    std::vector<std::uint32_t> all(order);  // start() sorts the member list itself
    for (std::uint32_t r : order) {
        CollectiveSpec spec{42, alg, all, Clock::time_point::max()};
        const bool silent = alg == Algorithm::dissemination || (alg == Algorithm::bcast && r != 0);
        const Bytes mine = silent ? Bytes{} : pattern(r, size_of(r));
        ASSERT_EQ(c.start(r, spec, mine, out[r]), PMIX_SUCCESS);
        c.shuffle_deliver(c.rng()() % 4);
    }
    c.shuffle_deliver();
    for (std::uint32_t r = 0; r < n; ++r) {
        ASSERT_TRUE(out[r].status.has_value())
            << "member " << r << " of " << n << " never completed";
        ASSERT_EQ(*out[r].status, PMIX_SUCCESS);
        if (alg == Algorithm::dissemination) {
            EXPECT_TRUE(out[r].blocks.empty());
            continue;
        }
        ASSERT_EQ(out[r].blocks.size(), n);
        for (std::uint32_t o = 0; o < n; ++o) {
            const std::size_t size = alg == Algorithm::bcast && o != 0 ? 0 : size_of(o);
            ASSERT_EQ(out[r].blocks[o], pattern(o, size)) << "member " << r << " block " << o;
        }
    }
    for (std::uint32_t r = 0; r < n; ++r) {
        EXPECT_EQ(c.engine(r).in_flight(), 0u);
        EXPECT_EQ(c.engine(r).dropped_packets(), 0u);
    }
}

class EveryGroupSize : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(EveryGroupSize, BruckWithoutData) {
    run_allgather(
        GetParam(), Algorithm::bruck, [](std::uint32_t) { return 0; }, GetParam());
}

TEST_P(EveryGroupSize, BruckWithUnequalSizes) {
    run_allgather(
        GetParam(), Algorithm::bruck, [](std::uint32_t r) { return (r * 37) % 301; },
        GetParam() + 100);
}

TEST_P(EveryGroupSize, RingWithUnequalSizes) {
    run_allgather(
        GetParam(), Algorithm::ring, [](std::uint32_t r) { return (r * 53) % 4099; },
        GetParam() + 200);
}

TEST_P(EveryGroupSize, DisseminationBarrier) {
    run_allgather(
        GetParam(), Algorithm::dissemination, [](std::uint32_t) { return 0; }, GetParam() + 300);
}

// One member contributes 1 MiB, the others 0 to 64 KiB.
TEST_P(EveryGroupSize, BruckWithOneMebibyteContribution) {
    run_allgather(
        GetParam(), Algorithm::bruck,
        [](std::uint32_t r) -> std::size_t { return r == 0 ? 1u << 20 : (r * 4099u) % 65537u; },
        GetParam() + 400);
}

TEST_P(EveryGroupSize, TreeWithUnequalSizes) {
    run_allgather(
        GetParam(), Algorithm::tree, [](std::uint32_t r) { return (r * 41) % 1031; },
        GetParam() + 500);
}

TEST_P(EveryGroupSize, BroadcastFromTheFirstMember) {
    run_allgather(
        GetParam(), Algorithm::bcast, [](std::uint32_t) { return 5000; }, GetParam() + 600);
}

TEST_P(EveryGroupSize, RecursiveDoublingOnPowersOfTwoOnly) {
    const std::uint32_t n = GetParam();
    if (Collective::supports(Algorithm::recursive_doubling, n)) {
        run_allgather(
            n, Algorithm::recursive_doubling, [](std::uint32_t r) { return (r * 29) % 777; },
            n + 700);
        return;
    }
    Cluster c(n);
    Outcome o;
    std::vector<std::uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0u);
    EXPECT_EQ(c.start(0, {1, Algorithm::recursive_doubling, all, Clock::time_point::max()},
                      pattern(0, 8), o),
              PMIX_ERR_BAD_PARAM);
}

INSTANTIATE_TEST_SUITE_P(Sizes1To64, EveryGroupSize, ::testing::Range(1u, 65u));

TEST(Collectives, RingWithOneMebibyteFromEveryMemberOfEight) {
    run_allgather(
        8, Algorithm::ring, [](std::uint32_t) { return std::size_t{1} << 20; }, 7);
}

// Rounds and traffic: Bruck needs ceil(log2 P) packets per member, ring P - 1, and each member
// receives every other member's block exactly once in both.
TEST(Collectives, PacketCountsMatchTheAlgorithms) {
    for (std::uint32_t n : {2u, 3u, 7u, 8u, 33u, 64u}) {
        EXPECT_EQ(Collective::rounds_for(Algorithm::tree, n),
                  2 * Collective::rounds_for(Algorithm::bruck, n));
        EXPECT_EQ(Collective::rounds_for(Algorithm::bcast, n),
                  Collective::rounds_for(Algorithm::bruck, n));
        EXPECT_EQ(Collective::rounds_for(Algorithm::bruck, n),
                  static_cast<std::uint32_t>(std::ceil(std::log2(n))));
        EXPECT_EQ(Collective::rounds_for(Algorithm::dissemination, n),
                  Collective::rounds_for(Algorithm::bruck, n));
        EXPECT_EQ(Collective::rounds_for(Algorithm::ring, n), n - 1);
        for (Algorithm alg : {Algorithm::bruck, Algorithm::ring}) {
            Cluster c(n);
            std::vector<Outcome> out(n);
            std::vector<std::uint32_t> all(n);
            std::iota(all.begin(), all.end(), 0u);
            for (std::uint32_t r = 0; r < n; ++r) {
                ASSERT_EQ(
                    c.start(r, {1, alg, all, Clock::time_point::max()}, pattern(r, 1000), out[r]),
                    PMIX_SUCCESS);
            }
            EXPECT_EQ(c.hub().queued(), n);  // round 0 only: later rounds wait for receipts
            const std::size_t packets = c.shuffle_deliver();
            EXPECT_EQ(packets, std::size_t{n} * Collective::rounds_for(alg, n));
            // Payload per member: (n-1) blocks of 1000 bytes plus framing.
            EXPECT_GE(c.hub().bytes_sent(), std::uint64_t{n} * (n - 1) * 1000);
            EXPECT_LT(c.hub().bytes_sent(), std::uint64_t{n} * (n - 1) * 1100);
        }
    }
}

// A collective over a subset of the transport's ranks, and two collectives in flight at once,
// started in opposite orders on the members they share.
TEST(Collectives, SubsetsAndConcurrentCollectivesMatchById) {
    Cluster c(12, 5);
    const std::vector<std::uint32_t> a{1, 4, 5, 9};
    const std::vector<std::uint32_t> b{0, 4, 5, 6, 9, 11};
    std::map<std::uint32_t, Outcome> out_a, out_b;
    for (std::uint32_t r : a)
        ASSERT_EQ(c.start(r, {100, Algorithm::bruck, a, Clock::time_point::max()}, pattern(r, r),
                          out_a[r]),
                  PMIX_SUCCESS);
    std::vector<std::uint32_t> rb(b.rbegin(), b.rend());
    for (std::uint32_t r : rb)
        ASSERT_EQ(c.start(r, {200, Algorithm::ring, b, Clock::time_point::max()}, pattern(r, 3 * r),
                          out_b[r]),
                  PMIX_SUCCESS);
    c.shuffle_deliver();
    for (auto& [r, o] : out_a) {
        ASSERT_EQ(o.status, PMIX_SUCCESS);
        for (std::size_t k = 0; k < a.size(); ++k) EXPECT_EQ(o.blocks[k], pattern(a[k], a[k]));
    }
    for (auto& [r, o] : out_b) {
        ASSERT_EQ(o.status, PMIX_SUCCESS);
        for (std::size_t k = 0; k < b.size(); ++k) EXPECT_EQ(o.blocks[k], pattern(b[k], 3 * b[k]));
    }
}

// The tree sends one packet per member up (gather) and one down (broadcast), the broadcast one
// down, recursive doubling log2 P per member; a broadcast's data from a non-root is refused.
TEST(Collectives, TreeBroadcastAndRecursiveDoublingPacketCounts) {
    for (std::uint32_t n : {2u, 3u, 8u, 13u, 32u}) {
        for (Algorithm alg : {Algorithm::tree, Algorithm::bcast, Algorithm::recursive_doubling}) {
            if (!Collective::supports(alg, n)) continue;
            Cluster c(n);
            std::vector<Outcome> out(n);
            std::vector<std::uint32_t> all(n);
            std::iota(all.begin(), all.end(), 0u);
            for (std::uint32_t r = 0; r < n; ++r) {
                const Bytes mine = alg == Algorithm::bcast && r != 0 ? Bytes{} : pattern(r, 100);
                ASSERT_EQ(c.start(r, {1, alg, all, Clock::time_point::max()}, mine, out[r]),
                          PMIX_SUCCESS);
            }
            const std::size_t packets = c.shuffle_deliver();
            const std::size_t expected = alg == Algorithm::tree    ? 2 * (n - 1)
                                         : alg == Algorithm::bcast ? n - 1
                                                                   : n * std::bit_width(n - 1);
            EXPECT_EQ(packets, expected) << algorithm_name(alg) << " on " << n;
            for (const Outcome& o : out) EXPECT_EQ(o.status, PMIX_SUCCESS);
        }
    }
    Cluster c(3);
    Outcome o;
    EXPECT_EQ(
        c.start(1, {2, Algorithm::bcast, {0, 1, 2}, Clock::time_point::max()}, pattern(1, 4), o),
        PMIX_ERR_BAD_PARAM);
}

// The allgather chosen for a fence runs on every group size.
TEST(Collectives, TheChosenAllgatherRunsOnEveryGroupSize) {
    for (std::uint32_t n = 1; n <= 20000; n += 1 + n / 3) {
        const Algorithm a = Collective::allgather_for(n);
        EXPECT_TRUE(Collective::supports(a, n)) << n;
        EXPECT_NE(a, Algorithm::dissemination);
        EXPECT_NE(a, Algorithm::bcast);
    }
}

// Packets of a collective this member has not started yet wait for it.
TEST(Collectives, PacketsBeforeTheLocalStartAreKept) {
    Cluster c(2);
    Outcome o0, o1;
    const std::vector<std::uint32_t> all{0, 1};
    ASSERT_EQ(c.start(0, {9, Algorithm::bruck, all, Clock::time_point::max()}, pattern(0, 10), o0),
              PMIX_SUCCESS);
    c.shuffle_deliver();  // rank 1 receives rank 0's round 0 before it starts
    EXPECT_FALSE(o0.status.has_value());
    ASSERT_EQ(c.start(1, {9, Algorithm::bruck, all, Clock::time_point::max()}, pattern(1, 20), o1),
              PMIX_SUCCESS);
    EXPECT_EQ(o1.status, PMIX_SUCCESS);  // completes inside start(): everything was there
    c.shuffle_deliver();
    EXPECT_EQ(o0.status, PMIX_SUCCESS);
    EXPECT_EQ(o0.blocks, o1.blocks);
}

}  // namespace
}  // namespace pmix::fabric::test
