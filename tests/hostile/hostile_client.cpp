// tests/hostile/hostile_client.cpp - a real libpmix client (public API only) for the hostile-peer
// tests, started in the environment the server's setup_fork gave (hostile_host.cpp).
//
//   hostile_client rounds N     N rounds of Put/Commit/Fence/Get of every peer's value; every
//                               fence and Get carries PMIX_TIMEOUT, so nothing waits forever
//   hostile_client scribble N   the same, while a thread writes random bytes over this
//                               process's own read-write mapping of the namespace's fence board
//   hostile_client once         Init, Put, Commit, Fence, Get, Finalize: all must succeed
//
// Prints "RESULT fences_ok=.. fences_failed=.. gets_ok=.. gets_failed=.. wrong=.." and exits 0
// when no Get returned wrong data (a failure with a PMIx error is allowed in the first two
// modes), 3 when one did, 2 when PMIx_Init failed, 4 when "once" saw any failure.
#include <pmix.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>

namespace {

constexpr std::size_t kBoardBytes = 4096;  // gds/board.h: board_layout::kBoardBytes
constexpr int kTimeoutSeconds = 1;

struct Counts {
    int fences_ok = 0, fences_failed = 0, gets_ok = 0, gets_failed = 0, wrong = 0;
};

std::uint32_t value_of(pmix_rank_t rank, int round) {
    return static_cast<std::uint32_t>(rank * 1000 + static_cast<pmix_rank_t>(round));
}

pmix_status_t fence_with_timeout() {
    pmix_info_t info;
    int secs = kTimeoutSeconds;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    const pmix_status_t rc = PMIx_Fence(nullptr, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

// Gets `key` of (ns, rank) with a timeout; counts a success with the wrong value as wrong.
void get_and_check(const char* ns, pmix_rank_t rank, const std::string& key, std::uint32_t want,
                   Counts& c) {
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, ns, rank);
    pmix_info_t info;
    int secs = kTimeoutSeconds;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_value_t* v = nullptr;
    const pmix_status_t rc = PMIx_Get(&peer, key.c_str(), &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        ++c.gets_failed;
        std::printf("get %s:%u %s: %s\n", ns, rank, key.c_str(), PMIx_Error_string(rc));
        return;
    }
    if (v != nullptr && v->type == PMIX_UINT32 && v->data.uint32 == want) {
        ++c.gets_ok;
    } else {
        ++c.wrong;
        std::printf("WRONG %s:%u %s\n", ns, rank, key.c_str());
    }
    if (v != nullptr) PMIX_VALUE_RELEASE(v);
}

// Rounds [first, first + rounds).
void run_rounds(const pmix_proc_t& me, pmix_rank_t nprocs, int first, int rounds, Counts& c) {
    for (int round = first; round < first + rounds; ++round) {
        const std::string key = "hostile.r" + std::to_string(round);
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, nullptr, PMIX_UINT32);
        v.data.uint32 = value_of(me.rank, round);
        if (PMIx_Put(PMIX_GLOBAL, key.c_str(), &v) != PMIX_SUCCESS ||
            PMIx_Commit() != PMIX_SUCCESS) {
            ++c.wrong;  // our own data must always go in
            std::printf("PUT FAILED round %d\n", round);
            continue;
        }
        if (const pmix_status_t rc = fence_with_timeout(); rc == PMIX_SUCCESS) {
            ++c.fences_ok;
        } else {
            ++c.fences_failed;
            std::printf("fence of round %d: %s\n", round, PMIx_Error_string(rc));
        }
        for (pmix_rank_t r = 0; r < nprocs; ++r)
            get_and_check(me.nspace, r, key, value_of(r, round), c);
    }
}

// Writes random bytes over the board until `stop`: runs of random length at random offsets, and
// single 32-bit words in the header's first cache lines (where the counter and the futex live).
void scribble(void* board, const std::atomic<bool>& stop, std::atomic<long>& writes) {
    std::mt19937 rng(static_cast<unsigned>(getpid()));
    auto* bytes = static_cast<unsigned char*>(board);
    while (!stop.load(std::memory_order_relaxed)) {
        if (rng() % 2 == 0) {
            const std::size_t at = rng() % kBoardBytes;
            const std::size_t n = 1 + rng() % (kBoardBytes - at);
            for (std::size_t i = 0; i < n; ++i) bytes[at + i] = static_cast<unsigned char>(rng());
        } else {
            const std::size_t word = rng() % 64;  // the first 256 bytes
            const std::uint32_t x = static_cast<std::uint32_t>(rng());
            std::memcpy(bytes + 4 * word, &x, sizeof x);
        }
        writes.fetch_add(1, std::memory_order_relaxed);
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 100));
    }
}

// This process's own read-write mapping of the board setup_fork named (nullptr if none).
void* map_board() {
    const char* name = std::getenv("PMIX_CPP_FENCE_BOARD");
    if (name == nullptr) return nullptr;
    // The server's own jobs get a sealed memfd named by /proc/<server pid>/fd/<n> (gds/board.h);
    // another user's job a /dev/shm name.
    const bool proc_name = std::strncmp(name, "/proc/", 6) == 0;
    const int fd = proc_name ? open(name, O_RDWR | O_CLOEXEC) : shm_open(name, O_RDWR, 0);
    if (fd < 0) return nullptr;
    void* p = mmap(nullptr, kBoardBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    return p == MAP_FAILED ? nullptr : p;
}

pmix_rank_t job_size(const pmix_proc_t& me) {
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t* v = nullptr;
    pmix_rank_t n = 0;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, nullptr, 0, &v) == PMIX_SUCCESS && v->type == PMIX_UINT32)
        n = v->data.uint32;
    if (v != nullptr) PMIX_VALUE_RELEASE(v);
    return n;
}

int once(const pmix_proc_t& me) {
    Counts c;
    run_rounds(me, job_size(me), 0, 1, c);
    std::printf("RESULT fences_ok=%d fences_failed=%d gets_ok=%d gets_failed=%d wrong=%d\n",
                c.fences_ok, c.fences_failed, c.gets_ok, c.gets_failed, c.wrong);
    return c.fences_ok == 1 && c.gets_ok == static_cast<int>(job_size(me)) && c.wrong == 0 ? 0 : 4;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 0;
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) {
        std::printf("INIT FAILED\n");
        return 2;
    }
    int code = 0;
    if (mode == "once") {
        code = once(me);
    } else {
        std::atomic<bool> stop{false};
        std::atomic<long> writes{0};
        std::thread scribbler;
        void* board = mode == "scribble" ? map_board() : nullptr;
        if (mode == "scribble" && board == nullptr) std::printf("NO BOARD\n");
        if (board != nullptr)
            scribbler = std::thread(scribble, board, std::cref(stop), std::ref(writes));
        Counts c;
        // Scribbled between fences too: before the first, and between rounds.
        const auto pause = std::chrono::milliseconds(board != nullptr ? 10 : 0);
        std::this_thread::sleep_for(2 * pause);
        for (int round = 0; round < rounds; ++round) {
            run_rounds(me, job_size(me), round, 1, c);
            std::this_thread::sleep_for(pause);
        }
        stop = true;
        if (scribbler.joinable()) scribbler.join();
        std::printf(
            "RESULT fences_ok=%d fences_failed=%d gets_ok=%d gets_failed=%d wrong=%d "
            "scribbles=%ld\n",
            c.fences_ok, c.fences_failed, c.gets_ok, c.gets_failed, c.wrong, writes.load());
        code = c.wrong == 0 ? 0 : 3;
        if (board != nullptr) munmap(board, kBoardBytes);
    }
    std::fflush(stdout);
    PMIx_Finalize(nullptr, 0);
    return code;
}
