// UniqueFunction (move-only closures, inline and heap storage) and UniqueFd (RAII descriptor).
#include "exec/unique_fd.h"
#include "exec/unique_function.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <functional>
#include <memory>
#include <string>

namespace {

using pmix::exec::UniqueFd;
using pmix::exec::UniqueFunction;

bool fd_is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

// Counts live copies so the tests can see when a closure's captures are destroyed.
struct Tracker {
    explicit Tracker(int* live) : live_(live) { ++*live_; }
    Tracker(Tracker&& o) noexcept : live_(o.live_) { ++*live_; }
    Tracker(const Tracker&) = delete;
    ~Tracker() { --*live_; }
    int* live_;
};

TEST(UniqueFunction, HoldsMoveOnlyCapture) {
    auto owned = std::make_unique<int>(41);
    UniqueFunction<int(int)> f = [p = std::move(owned)](int add) { return *p + add; };
    ASSERT_TRUE(static_cast<bool>(f));
    EXPECT_EQ(f(1), 42);
    UniqueFunction<int(int)> g = std::move(f);
    EXPECT_FALSE(static_cast<bool>(f));  // NOLINT(bugprone-use-after-move): checked on purpose
    EXPECT_EQ(g(2), 43);
}

TEST(UniqueFunction, SmallAndLargeCapturesAreDestroyedExactlyOnce) {
    int live = 0;
    {
        UniqueFunction<void()> small = [t = Tracker(&live)] {};
        std::array<char, 256> big_payload{};
        UniqueFunction<void()> large = [t = Tracker(&live), big_payload] { (void)big_payload; };
        EXPECT_EQ(live, 2);
        UniqueFunction<void()> moved_small = std::move(small);
        UniqueFunction<void()> moved_large = std::move(large);
        EXPECT_EQ(live, 2);  // a move relocates, it does not duplicate
        moved_small = nullptr;
        EXPECT_EQ(live, 1);
        moved_large();
    }
    EXPECT_EQ(live, 0);
}

TEST(UniqueFunction, MoveAssignReleasesPreviousTarget) {
    int live = 0;
    UniqueFunction<void()> a = [t = Tracker(&live)] {};
    UniqueFunction<void()> b = [t = Tracker(&live)] {};
    EXPECT_EQ(live, 2);
    a = std::move(b);
    EXPECT_EQ(live, 1);
}

TEST(UniqueFunction, ForwardsArgumentsAndReturnsValues) {
    UniqueFunction<std::string(std::string&&, const std::string&)> cat =
        [](std::string&& a, const std::string& b) { return std::move(a) + b; };
    EXPECT_EQ(cat(std::string("ab"), std::string("cd")), "abcd");
    int counter = 0;
    UniqueFunction<void()> bump = [&counter] { ++counter; };
    bump();
    bump();
    EXPECT_EQ(counter, 2);  // stateful: the same target is called each time
}

TEST(UniqueFunction, CallingEmptyThrows) {
    UniqueFunction<void()> empty;
    EXPECT_FALSE(static_cast<bool>(empty));
    EXPECT_THROW(empty(), std::bad_function_call);
}

TEST(UniqueFd, ClosesOnDestructionAndReset) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    {
        UniqueFd r(fds[0]);
        UniqueFd w(fds[1]);
        EXPECT_TRUE(static_cast<bool>(r));
        EXPECT_EQ(r.get(), fds[0]);
        w.reset();
        EXPECT_FALSE(fd_is_open(fds[1]));
        EXPECT_FALSE(static_cast<bool>(w));
    }
    EXPECT_FALSE(fd_is_open(fds[0]));
}

TEST(UniqueFd, MoveTransfersOwnershipAndReleaseGivesItUp) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    UniqueFd a(fds[0]);
    UniqueFd b(std::move(a));
    EXPECT_EQ(a.get(), -1);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(b.get(), fds[0]);
    UniqueFd c(fds[1]);
    b = std::move(c);  // b closes fds[0], takes fds[1]
    EXPECT_FALSE(fd_is_open(fds[0]));
    int raw = b.release();
    EXPECT_EQ(raw, fds[1]);
    EXPECT_FALSE(static_cast<bool>(b));
    EXPECT_TRUE(fd_is_open(raw));  // released, so still open
    ::close(raw);
}

}  // namespace
