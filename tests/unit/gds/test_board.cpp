// The fence board (gds/board.h) alone: creation and the checks a participant makes before
// using one, the barrier across threads with and without spinning (under ThreadSanitizer in CI,
// label gds), and the three ways a wait ends other than completion: disabled, timeout, cancel.
#include "gds/board.h"
#include "gds/store.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

namespace {

using pmix::gds::BoardView;
using pmix::gds::FenceBoard;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

const std::string kPrefix = "/pmixtest-board-" + std::to_string(::getpid());

std::unique_ptr<FenceBoard> make(std::uint32_t n, const char* ns = "board.ns") {
    std::unique_ptr<FenceBoard> b;
    EXPECT_EQ(FenceBoard::create(kPrefix, ns, n, b), PMIX_SUCCESS);
    return b;
}

std::unique_ptr<BoardView> view_of(const FenceBoard& b, const char* ns = "board.ns") {
    std::unique_ptr<BoardView> v;
    EXPECT_EQ(BoardView::open(b.name(), ns, v), PMIX_SUCCESS);
    return v;
}

// What a participant does with the name it is given: a sealed board's /proc path, or a shared
// one's shared-memory name.
int open_rw(const std::string& name) {
    return name.rfind("/proc/", 0) == 0 ? ::open(name.c_str(), O_RDWR)
                                        : ::shm_open(name.c_str(), O_RDWR, 0);
}

// A shared-memory board (what share() makes): the kind a participant can truncate.
std::unique_ptr<FenceBoard> make_shared_board(std::uint32_t n) {
    auto b = make(n);
    EXPECT_EQ(b->share(::getegid()), PMIX_SUCCESS);
    return b;
}

// The server's own jobs get a memfd sealed against resizing: a participant that may write it
// still cannot shrink it under the others' mappings (which made them die of SIGBUS).
TEST(FenceBoard, ASealedBoardCannotBeResized) {
    auto b = make(2);
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(b->name().rfind("/proc/" + std::to_string(::getpid()) + "/fd/", 0), 0u) << b->name();
    struct stat sb {};
    ASSERT_EQ(::stat(b->name().c_str(), &sb), 0);
    EXPECT_EQ(sb.st_mode & 0777, 0600u);
    auto v = view_of(*b);
    ASSERT_NE(v, nullptr);
    const int fd = open_rw(b->name());
    ASSERT_GE(fd, 0);
    EXPECT_NE(::ftruncate(fd, 0), 0);
    EXPECT_EQ(errno, EPERM);
    EXPECT_NE(::ftruncate(fd, 2 * pmix::gds::board_layout::kBoardBytes), 0);
    ::close(fd);
    EXPECT_FALSE(v->disabled());  // still mapped and readable
}

// Another user's job gets its board through its group: 0660, still owned by the server.
TEST(FenceBoard, ShareGivesTheBoardToAGroup) {
    auto b = make(2);
    ASSERT_NE(b, nullptr);
    ASSERT_EQ(b->share(::getegid()), PMIX_SUCCESS);
    ASSERT_EQ(b->name().rfind("/proc/", 0), std::string::npos) << "moved to shared memory";
    struct stat sb {};
    ASSERT_EQ(::stat(("/dev/shm" + b->name()).c_str(), &sb), 0);
    EXPECT_EQ(sb.st_mode & 0777, 0660u);
    EXPECT_EQ(sb.st_gid, ::getegid());
    EXPECT_EQ(sb.st_uid, ::geteuid());
    EXPECT_NE(view_of(*b), nullptr);
}

TEST(FenceBoard, CreateRefusesBadArgumentsAndUnlinksWhenDestroyed) {
    std::unique_ptr<FenceBoard> b;
    EXPECT_EQ(FenceBoard::create(kPrefix, "ns", 0, b), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(FenceBoard::create(kPrefix, "", 2, b), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(FenceBoard::create(kPrefix, std::string(PMIX_MAX_NSLEN + 1, 'n'), 2, b),
              PMIX_ERR_BAD_PARAM);
    b = make_shared_board(2);
    const std::string name = b->name();
    EXPECT_EQ(::access(("/dev/shm" + name).c_str(), F_OK), 0);
    b.reset();
    EXPECT_NE(::access(("/dev/shm" + name).c_str(), F_OK), 0);
}

TEST(FenceBoard, AParticipantRefusesWhatIsNotItsNamespacesBoard) {
    auto b = make(2);
    std::unique_ptr<BoardView> v;
    EXPECT_EQ(BoardView::open("/pmixtest-board-none", "board.ns", v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(BoardView::open(b->name(), "other.ns", v), pmix::gds::kErrCorrupt);
    EXPECT_EQ(v, nullptr);
}

// A truncated segment, a wrong stamp, a zero rank count: refused, never used.
TEST(FenceBoard, ADamagedBoardIsRefused) {
    auto b = make_shared_board(2);
    const int fd = open_rw(b->name());
    ASSERT_GE(fd, 0);
    auto* h = static_cast<pmix::gds::board_layout::BoardHeader*>(::mmap(
        nullptr, pmix::gds::board_layout::kBoardBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
    ASSERT_NE(h, MAP_FAILED);
    std::unique_ptr<BoardView> v;
    h->stamp ^= 1;
    EXPECT_EQ(BoardView::open(b->name(), "board.ns", v), pmix::gds::kErrCorrupt);
    h->stamp ^= 1;
    h->nranks = 0;
    EXPECT_EQ(BoardView::open(b->name(), "board.ns", v), pmix::gds::kErrCorrupt);
    h->nranks = 2;
    EXPECT_EQ(BoardView::open(b->name(), "board.ns", v), PMIX_SUCCESS);
    v.reset();
    ::munmap(h, pmix::gds::board_layout::kBoardBytes);
    ASSERT_EQ(::ftruncate(fd, 64), 0);
    ::close(fd);
    EXPECT_EQ(BoardView::open(b->name(), "board.ns", v), pmix::gds::kErrCorrupt);
}

// n threads, each with its own view, 2,000 fences: after fence k every thread must see every
// other thread's write of round k (what the fence promises the data path).
void run_rounds(std::uint32_t n, std::chrono::microseconds spin) {
    auto b = make(n);
    constexpr int kRounds = 2000;
    std::vector<std::atomic<int>> wrote(n);
    std::atomic<int> errors{0};
    std::vector<std::thread> threads;
    for (std::uint32_t t = 0; t < n; ++t) {
        threads.emplace_back([&, t] {
            auto v = view_of(*b);
            for (int round = 1; round <= kRounds; ++round) {
                wrote[t].store(round, std::memory_order_relaxed);
                if (v->arrive_and_wait(Clock::now() + 30s, spin) != BoardView::Outcome::done) {
                    ++errors;
                    return;
                }
                for (std::uint32_t o = 0; o < n; ++o) {
                    if (wrote[o].load(std::memory_order_relaxed) < round) ++errors;
                }
                // Nobody may start round + 2 before this thread read round's values.
                if (v->arrive_and_wait(Clock::now() + 30s, spin) != BoardView::Outcome::done) {
                    ++errors;
                    return;
                }
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(errors.load(), 0);
    EXPECT_FALSE(b->disabled());
}

TEST(FenceBoard, EveryoneSeesEveryRoundSleeping) { run_rounds(4, 0us); }
TEST(FenceBoard, EveryoneSeesEveryRoundSpinning) { run_rounds(3, 50us); }
TEST(FenceBoard, OneParticipantNeverWaits) { run_rounds(1, 0us); }

// The server disables the board while a participant waits: it is told to go to the server, and
// so is every later arrival.
TEST(FenceBoard, DisablingRedirectsTheWaiterAndEveryLaterFence) {
    auto b = make(2);
    auto v = view_of(*b);
    std::atomic<int> outcome{-1};
    std::thread waiter(
        [&] { outcome = static_cast<int>(v->arrive_and_wait(Clock::now() + 30s, 0us)); });
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(outcome.load(), -1) << "the other participant has not arrived";
    b->disable();
    waiter.join();
    EXPECT_EQ(outcome.load(), static_cast<int>(BoardView::Outcome::redirect));
    auto late = view_of(*b);
    EXPECT_EQ(late->arrive_and_wait(Clock::now() + 30s, 0us), BoardView::Outcome::redirect);
    EXPECT_TRUE(late->disabled());
}

TEST(FenceBoard, ATimeoutDisablesTheBoardAndRedirectsTheOthers) {
    auto b = make(3);
    auto v1 = view_of(*b);
    auto v2 = view_of(*b);
    std::atomic<int> other{-1};
    std::thread patient(
        [&] { other = static_cast<int>(v2->arrive_and_wait(Clock::now() + 30s, 0us)); });
    const auto start = Clock::now();
    EXPECT_EQ(v1->arrive_and_wait(start + 200ms, 0us), BoardView::Outcome::timeout);
    EXPECT_GE(Clock::now() - start, 200ms);
    patient.join();
    EXPECT_EQ(other.load(), static_cast<int>(BoardView::Outcome::redirect));
    EXPECT_TRUE(v2->disabled());
    EXPECT_FALSE(b->disabled()) << "the server's view: only what it disabled itself";
}

// A participant (another user's, with write access) shrinks the board: the server's disable must
// not fault (it used to die of SIGBUS there), and it still counts the board as disabled.
TEST(FenceBoard, DisablingATruncatedBoardDoesNotFault) {
    auto b = make_shared_board(2);
    const int fd = open_rw(b->name());
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, 0), 0);
    ::close(fd);
    b->disable();
    EXPECT_TRUE(b->disabled());
}

TEST(FenceBoard, CancelEndsAWaitWithoutDisabling) {
    auto b = make(2);
    auto v = view_of(*b);
    std::atomic<bool> cancel{false};
    std::atomic<int> outcome{-1};
    std::thread waiter(
        [&] { outcome = static_cast<int>(v->arrive_and_wait(Clock::now() + 30s, 0us, &cancel)); });
    std::this_thread::sleep_for(20ms);
    cancel = true;
    waiter.join();  // within one 100 ms sleep slice
    EXPECT_EQ(outcome.load(), static_cast<int>(BoardView::Outcome::cancelled));
    EXPECT_FALSE(b->disabled());
}

}  // namespace
