// tests/unit/fabric/test_engine_failures.cpp - collectives fail visibly and never hang: a member
// lost before or during, a deadline, bad arguments; bad packets are dropped and counted while the
// collective still completes with the good ones.
#include "harness.h"

#include <gtest/gtest.h>

#include <numeric>

namespace pmix::fabric::test {
namespace {

std::vector<std::uint32_t> first(std::uint32_t n) {
    std::vector<std::uint32_t> v(n);
    std::iota(v.begin(), v.end(), 0u);
    return v;
}

TEST(EngineFailures, MemberLostMidCollectiveFailsEveryoneElse) {
    for (Algorithm alg : {Algorithm::bruck, Algorithm::ring, Algorithm::dissemination}) {
        Cluster c(8, 3);
        std::vector<Outcome> out(8);
        for (std::uint32_t r = 0; r < 8; ++r) {
            if (r == 5) continue;  // rank 5 dies before contributing
            const Bytes mine = alg == Algorithm::dissemination ? Bytes{} : pattern(r, 64);
            ASSERT_EQ(c.start(r, {7, alg, first(8), Clock::time_point::max()}, mine, out[r]),
                      PMIX_SUCCESS);
        }
        c.shuffle_deliver(6);
        c.hub().kill(5);
        c.shuffle_deliver();
        for (std::uint32_t r = 0; r < 8; ++r) {
            if (r == 5) continue;
            ASSERT_TRUE(out[r].status.has_value())
                << algorithm_name(alg) << " member " << r << " hangs";
            EXPECT_EQ(*out[r].status, PMIX_ERR_LOST_CONNECTION);
            EXPECT_TRUE(out[r].blocks.empty());
            EXPECT_EQ(c.engine(r).in_flight(), 0u);
        }
    }
}

TEST(EngineFailures, StartingWithALostMemberFailsAtOnceAndOthersStillWork) {
    Cluster c(4);
    c.hub().kill(3);
    Outcome o;
    EXPECT_EQ(c.start(0, {1, Algorithm::bruck, first(4), Clock::time_point::max()}, {}, o),
              PMIX_ERR_LOST_CONNECTION);
    EXPECT_FALSE(o.status.has_value());
    std::vector<Outcome> out(3);
    for (std::uint32_t r = 0; r < 3; ++r) {
        ASSERT_EQ(c.start(r, {2, Algorithm::bruck, first(3), Clock::time_point::max()},
                          pattern(r, 5), out[r]),
                  PMIX_SUCCESS);
    }
    c.shuffle_deliver();
    for (auto& x : out) EXPECT_EQ(x.status, PMIX_SUCCESS);
}

TEST(EngineFailures, DeadlinePassesWithAMissingMember) {
    Cluster c(3);
    Outcome o0, o1;
    const auto soon = Clock::now() + std::chrono::milliseconds(20);
    ASSERT_EQ(c.start(0, {4, Algorithm::bruck, first(3), soon}, pattern(0, 1), o0), PMIX_SUCCESS);
    ASSERT_EQ(
        c.start(1, {4, Algorithm::bruck, first(3), Clock::time_point::max()}, pattern(1, 1), o1),
        PMIX_SUCCESS);
    c.shuffle_deliver();
    EXPECT_EQ(c.engine(0).expire(Clock::now()), soon);  // not yet: the deadline is still ahead
    EXPECT_FALSE(o0.status.has_value());
    EXPECT_EQ(c.engine(0).expire(soon + std::chrono::milliseconds(1)), Clock::time_point::max());
    EXPECT_EQ(o0.status, PMIX_ERR_TIMEOUT);
    EXPECT_FALSE(o1.status.has_value());  // no deadline of its own: still waiting for rank 2
    EXPECT_EQ(c.engine(1).in_flight(), 1u);
}

TEST(EngineFailures, BadArgumentsAreRefusedWithoutACallback) {
    Cluster c(4);
    Outcome o;
    EXPECT_EQ(c.start(0, {1, Algorithm::bruck, {1, 2}, Clock::time_point::max()}, {}, o),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(c.start(0, {1, Algorithm::bruck, {0, 9}, Clock::time_point::max()}, {}, o),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(c.start(0, {1, Algorithm::dissemination, {0, 1}, Clock::time_point::max()},
                      pattern(0, 3), o),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(
        c.engine(0).start({1, Algorithm::bruck, {0, 1}, Clock::time_point::max()}, {}, nullptr),
        PMIX_ERR_BAD_PARAM);
    ASSERT_EQ(c.start(0, {1, Algorithm::bruck, {0, 1}, Clock::time_point::max()}, {}, o),
              PMIX_SUCCESS);
    Outcome again;
    EXPECT_EQ(c.start(0, {1, Algorithm::bruck, {0, 1}, Clock::time_point::max()}, {}, again),
              PMIX_ERR_BAD_PARAM);
    EXPECT_FALSE(o.status.has_value());
    EXPECT_FALSE(again.status.has_value());
}

// Garbage, truncation, a forged sender, a wrong round and wrong blocks are each dropped and
// counted; the genuine packets that follow still complete the collective.
TEST(EngineFailures, BadPacketsAreDroppedAndTheCollectiveCompletes) {
    Cluster c(2);
    Outcome o0, o1;
    const std::vector<std::uint32_t> all{0, 1};
    ASSERT_EQ(c.start(0, {11, Algorithm::bruck, all, Clock::time_point::max()}, pattern(0, 8), o0),
              PMIX_SUCCESS);
    Engine& e0 = c.engine(0);
    const Bytes garbage{std::byte{1}, std::byte{2}, std::byte{3}};
    e0.on_packet(1, garbage);
    Block b{1, pattern(1, 8)};
    const Bytes good_body = encode_blocks({&b});
    Bytes truncated = encode_packet({Algorithm::bruck, 11, 0, 1}, good_body);
    truncated.resize(truncated.size() - 3);
    e0.on_packet(1, truncated);
    e0.on_packet(1, encode_packet({Algorithm::bruck, 11, 0, 0}, good_body));  // claims rank 0
    e0.on_packet(1, encode_packet({Algorithm::bruck, 11, 5, 1}, good_body));  // no round 5
    e0.on_packet(1, encode_packet({Algorithm::ring, 11, 0, 1}, good_body));   // other algorithm
    Block wrong{0, pattern(0, 8)};
    e0.on_packet(1, encode_packet({Algorithm::bruck, 11, 0, 1}, encode_blocks({&wrong})));
    EXPECT_EQ(e0.dropped_packets(), 6u);
    EXPECT_FALSE(o0.status.has_value());
    ASSERT_EQ(c.start(1, {11, Algorithm::bruck, all, Clock::time_point::max()}, pattern(1, 8), o1),
              PMIX_SUCCESS);
    c.shuffle_deliver();
    ASSERT_EQ(o0.status, PMIX_SUCCESS);
    EXPECT_EQ(o0.blocks[1], pattern(1, 8));
    EXPECT_EQ(o1.status, PMIX_SUCCESS);
}

// A completion may start the next collective on the same engine (the daemon's next fence).
TEST(EngineFailures, CompletionCanStartTheNextCollective) {
    Cluster c(2);
    const std::vector<std::uint32_t> all{0, 1};
    int second_done = 0;
    for (std::uint32_t r = 0; r < 2; ++r) {
        Engine& e = c.engine(r);
        ASSERT_EQ(
            e.start({1, Algorithm::dissemination, all, Clock::time_point::max()}, {},
                    [&e, &all, &second_done](pmix_status_t s, std::vector<Bytes>) {
                        ASSERT_EQ(s, PMIX_SUCCESS);
                        EXPECT_EQ(
                            e.start({2, Algorithm::dissemination, all, Clock::time_point::max()},
                                    {},
                                    [&second_done](pmix_status_t s2, std::vector<Bytes>) {
                                        second_done += s2 == PMIX_SUCCESS ? 1 : 0;
                                    }),
                            PMIX_SUCCESS);
                    }),
            PMIX_SUCCESS);
    }
    c.shuffle_deliver();
    EXPECT_EQ(second_done, 2);
}

}  // namespace
}  // namespace pmix::fabric::test
