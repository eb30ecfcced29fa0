// Whole-namespace fences of a job that runs entirely on this node meet on the namespace's fence
// board (gds/board.h, server/board.cpp) and never reach the host; everything that cannot stay on
// the board (boards off, a participant without it, a directive for the host, a timeout, a dead
// participant) ends at the server, with every participant, and fails or completes visibly.
// Real server in this process, real client processes (scenarios_board.cpp).
#include "e2e_harness.h"

#include <unistd.h>

#include <string>
#include <vector>

namespace clienttest {
namespace {

// Value of `name` in a setup_fork environment for `ns`:`rank` ("" when absent).
std::string forked_env(const char* ns, pmix_rank_t rank, const char* name) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, rank);
    char** env = nullptr;
    EXPECT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
    std::string value;
    const std::string prefix = std::string(name) + "=";
    for (char** e = env; e != nullptr && *e != nullptr; ++e) {
        if (std::strncmp(*e, prefix.c_str(), prefix.size()) == 0) value = *e + prefix.size();
    }
    free_env(env);
    return value;
}

// Runs `scenario` in `n` children of job `ns`; `extra_for(rank)` is added to each environment.
template <class ExtraFor>
void run_job(const char* ns, int n, const char* scenario, ExtraFor extra_for) {
    register_job(ns, n);
    std::vector<pid_t> kids;
    for (int r = 0; r < n; ++r) {
        kids.push_back(start_client(ns, static_cast<pmix_rank_t>(r), n, extra_for(r), scenario));
    }
    expect_all_succeed(kids);
}

std::vector<std::string> same_for_all(int) { return {"TEST_EXPECT_BOARD=1"}; }

struct BoardTest : ::testing::Test {
    ShmPrefix shm;
    void SetUp() override { g_fences = 0; }
    void TearDown() override {
        ::unsetenv("PMIX_CPP_LOCAL_FENCE");
        EXPECT_EQ(segments_named(shm.name), 0) << "boards and store segments are unlinked";
    }
};

TEST_F(BoardTest, SetupForkNamesABoardOnlyForJobsEntirelyOnThisNode) {
    Server server;
    register_job("local.job", 2);
    const std::string board = forked_env("local.job", 0, "PMIX_CPP_FENCE_BOARD");
    // A memfd sealed against resizing, reached through the server's /proc entry (gds/board.h).
    EXPECT_EQ(board.rfind("/proc/" + std::to_string(::getpid()) + "/fd/", 0), 0u) << board;
    EXPECT_EQ(forked_env("local.job", 1, "PMIX_CPP_FENCE_BOARD"), board);
    EXPECT_TRUE(std::filesystem::exists(board));
    register_job("split.job", 4, 2);
    EXPECT_EQ(forked_env("split.job", 0, "PMIX_CPP_FENCE_BOARD"), "");
    ::setenv("PMIX_CPP_LOCAL_FENCE", "server", 1);
    register_job("off.job", 2);
    EXPECT_EQ(forked_env("off.job", 0, "PMIX_CPP_FENCE_BOARD"), "");
    PMIx_server_deregister_nspace("local.job", nullptr, nullptr);
    for (int i = 0; i < 200 && std::filesystem::exists("/dev/shm" + board); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_FALSE(std::filesystem::exists("/dev/shm" + board)) << "deregistration unlinks it";
}

// Blocking fences, Fence_nb, and Fence_nb calls queued before a blocking fence: all on the
// board, with every peer's data readable after each; the host's fence_nb is never called.
TEST_F(BoardTest, RoundsOfFencesNeverReachTheHost) {
    Server server;
    run_job("rounds.job", 4, "board_rounds", same_for_all);
    EXPECT_EQ(g_fences.load(), 0);
}

TEST_F(BoardTest, WithBoardsOffEveryFenceGoesToTheHost) {
    ::setenv("PMIX_CPP_LOCAL_FENCE", "server", 1);
    Server server;
    run_job("off.job", 4, "exchange", [](int) {
        return std::vector<std::string>{"TEST_EXPECT_STORE=1", "TEST_EXPECT_BOARD=0"};
    });
    EXPECT_EQ(g_fences.load(), 2) << "the exchange scenario fences twice";
}

// Rank 0 cannot map the board: its first fence reaches the server, which disables the board,
// and the three others, already waiting on it, follow it there.
TEST_F(BoardTest, AParticipantWithoutTheBoardBringsEveryoneToTheServer) {
    Server server;
    run_job("noboard.job", 4, "exchange", [](int r) {
        std::vector<std::string> extra{"TEST_EXPECT_STORE=1"};
        if (r == 0) extra.push_back("PMIX_CPP_FENCE_BOARD=/pmixtest-no-such-board");
        return extra;
    });
    EXPECT_EQ(g_fences.load(), 2);
}

TEST_F(BoardTest, ARequiredHostDirectiveBringsEveryoneToTheServer) {
    Server server;
    // No TEST_EXPECT_BOARD: rank 0 may disable the board before the last rank is forked, and
    // setup_fork does not name a disabled board.
    run_job("directive.job", 3, "board_required_directive",
            [](int) { return std::vector<std::string>{}; });
    EXPECT_EQ(g_fences.load(), 2);
}

TEST_F(BoardTest, ATimeoutOnTheBoardIsReportedAndTheNextFenceStillMeets) {
    Server server;
    run_job("timeout.job", 2, "board_timeout", same_for_all);
    EXPECT_EQ(g_fences.load(), 1)
        << "after the timeout the board is off: the next fence is the host's";
}

TEST_F(BoardTest, ADeadParticipantFailsTheFenceInsteadOfHangingIt) {
    Server server;
    run_job("dead.job", 2, "board_dead_peer", same_for_all);
    EXPECT_EQ(g_fences.load(), 0) << "a fence with a lost participant never reaches the host";
}

}  // namespace
}  // namespace clienttest
