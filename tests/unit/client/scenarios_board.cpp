// The client scenarios of whole-namespace fences on the fence board (test_board.cpp runs them
// against the real server): Fence_nb and its order with blocking fences, a timeout and what
// follows it, a participant that dies, a participant that goes to the server. Each leaves its
// verdict in its exit status; the test checks what the host saw.
#include "scenario_support.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace clienttest {

namespace {

using Clock = std::chrono::steady_clock;

int nprocs() {
    const char* n = std::getenv("TEST_NPROCS");
    return n == nullptr ? 0 : std::atoi(n);
}

int put_commit(const pmix_proc_t& me, const char* key, int round) {
    const std::string mine = std::to_string(me.rank) + "/" + std::to_string(round);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, mine.c_str(), PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    return 0;
}

// Every peer's `key` holds "<rank>/<round>".
int check_peers(const pmix_proc_t& me, const char* key, int round) {
    for (int r = 0; r < nprocs(); ++r) {
        pmix_proc_t peer = me;
        peer.rank = static_cast<pmix_rank_t>(r);
        pmix_value_t* got = nullptr;
        CHECK_RC(PMIx_Get(&peer, key, nullptr, 0, &got), PMIX_SUCCESS);
        CHECK(got->type == PMIX_STRING &&
              got->data.string == std::to_string(r) + "/" + std::to_string(round));
        PMIX_VALUE_RELEASE(got);
    }
    return 0;
}

int init_expecting_board(pmix_proc_t* me) {
    CHECK_RC(PMIx_Init(me, nullptr, 0), PMIX_SUCCESS);
    const char* want = std::getenv("TEST_EXPECT_BOARD");
    const char* board = std::getenv("PMIX_CPP_FENCE_BOARD");
    if (want != nullptr) CHECK((*want == '1') == (board != nullptr && *board != '\0'));
    return 0;
}

int fence_collect(const pmix_info_t* extra = nullptr) {
    pmix_info_t info[2];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    std::size_t n = 1;
    if (extra != nullptr) info[n++] = *extra;
    CHECK_RC(PMIx_Fence(nullptr, 0, info, n), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info[0]);
    return 0;
}

}  // namespace

// 20 rounds of Put/Commit/Fence/Get of every peer (blocking, then Fence_nb), then two Fence_nb
// calls followed at once by a blocking fence: all three complete, the callbacks in call order.
int board_rounds() {
    pmix_proc_t me{};
    if (int rc = init_expecting_board(&me); rc != 0) return rc;
    for (int round = 0; round < 20; ++round) {
        // A key per round: a peer already past this fence may commit the next round's value
        // while this process still reads this one's.
        const std::string key = "test.board.key." + std::to_string(round);
        if (int rc = put_commit(me, key.c_str(), round); rc != 0) return rc;
        if (round % 2 == 0) {
            if (int rc = fence_collect(); rc != 0) return rc;
        } else {
            Signal done;
            CHECK_RC(PMIx_Fence_nb(nullptr, 0, nullptr, 0, op_cb, &done), PMIX_SUCCESS);
            CHECK(done.wait());
            CHECK_RC(done.status, PMIX_SUCCESS);
        }
        if (int rc = check_peers(me, key.c_str(), round); rc != 0) return rc;
    }
    static std::atomic<int> order{0};
    static int first = -1, second = -1;
    Signal a, b;
    auto first_cb = [](pmix_status_t st, void* cb) {
        first = order++;
        op_cb(st, cb);
    };
    auto second_cb = [](pmix_status_t st, void* cb) {
        second = order++;
        op_cb(st, cb);
    };
    CHECK_RC(PMIx_Fence_nb(nullptr, 0, nullptr, 0, first_cb, &a), PMIX_SUCCESS);
    CHECK_RC(PMIx_Fence_nb(nullptr, 0, nullptr, 0, second_cb, &b), PMIX_SUCCESS);
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_SUCCESS);
    CHECK(a.wait() && b.wait());
    CHECK(a.status == PMIX_SUCCESS && b.status == PMIX_SUCCESS);
    CHECK(first == 0 && second == 1);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

// Rank 0 fences with PMIX_TIMEOUT 1 s while rank 1 stays away for 3 s: PMIX_ERR_TIMEOUT after
// about a second. Then both fence again and meet (on the server: the timeout disabled the board).
int board_timeout() {
    pmix_proc_t me{};
    if (int rc = init_expecting_board(&me); rc != 0) return rc;
    if (me.rank == 0) {
        pmix_info_t t;
        int seconds = 1;
        PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &seconds, PMIX_INT);
        const auto start = Clock::now();
        CHECK_RC(PMIx_Fence(nullptr, 0, &t, 1), PMIX_ERR_TIMEOUT);
        const auto waited = Clock::now() - start;
        CHECK(waited >= std::chrono::milliseconds(900) && waited < std::chrono::seconds(10));
        PMIX_INFO_DESTRUCT(&t);
    } else {
        std::this_thread::sleep_for(std::chrono::seconds(3));
    }
    if (int rc = put_commit(me, "test.after.timeout", 0); rc != 0) return rc;
    if (int rc = fence_collect(); rc != 0) return rc;
    if (int rc = check_peers(me, "test.after.timeout", 0); rc != 0) return rc;
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

// Rank 1 dies after the first fence; rank 0's next fence fails with PMIX_ERR_LOST_CONNECTION
// within seconds whether it reaches the board before or after the server noticed the death.
int board_dead_peer() {
    pmix_proc_t me{};
    if (int rc = init_expecting_board(&me); rc != 0) return rc;
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_SUCCESS);
    if (me.rank == 1) ::_exit(0);  // no PMIx_Finalize
    const auto start = Clock::now();
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_ERR_LOST_CONNECTION);
    CHECK(Clock::now() - start < std::chrono::seconds(10));
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

// Rank 0 requires a directive only the host can honour (PMIX_COLLECTIVE_ALGO, required): its
// fence goes to the server, which sends the others there too. Everyone completes twice.
int board_required_directive() {
    pmix_proc_t me{};
    if (int rc = init_expecting_board(&me); rc != 0) return rc;
    for (int round = 0; round < 2; ++round) {
        const std::string key = "test.directive.key." + std::to_string(round);
        if (int rc = put_commit(me, key.c_str(), round); rc != 0) return rc;
        if (me.rank == 0) {
            pmix_info_t algo;
            PMIX_INFO_LOAD(&algo, PMIX_COLLECTIVE_ALGO, "ring", PMIX_STRING);
            PMIX_INFO_REQUIRED(&algo);
            if (int rc = fence_collect(&algo); rc != 0) return rc;
            PMIX_INFO_DESTRUCT(&algo);
        } else if (int rc = fence_collect(); rc != 0) {
            return rc;
        }
        if (int rc = check_peers(me, key.c_str(), round); rc != 0) return rc;
    }
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

}  // namespace clienttest
