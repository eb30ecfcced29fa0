// tests/hostile/test_board_scribbler.cpp - a client that writes random bytes over its namespace's
// fence board (the one segment clients write, gds/board.h) during and between fences, next to three
// real clients of the same job running Put/Commit/Fence/Get rounds. Each of them must finish, every
// value it reads must be the one its peer put (a fence or Get may instead fail with a PMIx error),
// and the server must still serve a client of another job afterwards.
#include "hostile_server.h"

#include <cstdio>

namespace {

using namespace std::chrono_literals;
using hostile::HostileServer;
namespace exec = pmix::exec;

class BoardScribbler : public HostileServer {};

TEST_F(BoardScribbler, OthersGetCorrectDataOrAnErrorAndNobodyHangs) {
    constexpr int kRounds = 6;
    std::vector<pid_t> kids;
    kids.push_back(spawn_client("hostile.fence", 0, {"scribble", std::to_string(kRounds)}));
    for (pmix_rank_t r = 1; r < 4; ++r)
        kids.push_back(spawn_client("hostile.fence", r, {"rounds", std::to_string(kRounds)}));
    // Each round waits at most 1 s per fence and per Get (PMIX_TIMEOUT): a bound, not a pace.
    for (pmix_rank_t r = 0; r < 4; ++r) {
        EXPECT_EQ(wait_client(kids[r], std::chrono::seconds(60)), 0)
            << "rank " << r << ": " << client_output("hostile.fence", r);
        std::printf("rank %u: %s", r, client_output("hostile.fence", r).c_str());
    }
    EXPECT_NE(client_output("hostile.fence", 0).find("scribbles="), std::string::npos);
    EXPECT_EQ(client_output("hostile.fence", 0).find("NO BOARD"), std::string::npos)
        << "the scribbler must have mapped the board";
    ASSERT_TRUE(alive());
    const pid_t after = spawn_client("hostile.after", 0, {"once"});
    EXPECT_EQ(wait_client(after, std::chrono::seconds(30)), 0) << client_output("hostile.after", 0);
    EXPECT_TRUE(serves(5));
}

}  // namespace
