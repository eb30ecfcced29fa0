// gds/board.h - the fence board: one small shared segment per namespace whose processes all run
// on this node, on which those processes meet for a whole-namespace fence without the server.
//
// Why: a fence through the server costs at least two process wake-ups (the server's, then each
// client's): 33-52 us for two clients on this project's 2-vCPU VM (`bench-floor barrier`), above
// the 30 us goal for a one-node fence of two processes. A node-local job needs no data to move at
// fence time: every PMIx_Commit is a round trip after which the server has published the data in
// the store, so the fence only has to tell each process that every other one has committed. A
// barrier in shared memory does that with no wake-up at all when the processes spin (0.03 us
// measured with two processes and a 5 us spin window) and one futex wake-up when they sleep.
//
// This is the one segment clients write. It holds no data, only the barrier's two words, so a
// process that scribbles on it can hang or fail fences of its own job, which it could do anyway by
// not calling them; it cannot touch the store (read-only mappings) or the server, which never reads
// the board: it only sets the sticky `disabled` bit, through the kernel (FUTEX_WAKE_OP), so that a
// participant that truncates the segment cannot make the server fault either. Once disabled (a
// participant died, a fence timed out, a participant reached the server's fence instead), every
// fence of that namespace takes the server path, and a process waiting on the board at that moment
// re-issues its fence there, so all participants always meet in the same place.
//
// Protocol (one centralised counter and a generation word, both 32-bit, the word a futex):
//   arrive: w = word; if disabled(w): server path. g = gen(w). n = ++arrived.
//     the n-th arrival: arrived = 0, then CAS word g -> g + 1 (fails only when disabled: server
//     path for everyone), then FUTEX_WAKE.
//   wait:   until gen(word) != g (done), else disabled(word) (server path), else the deadline
//     (this process disables the board and reports PMIX_ERR_TIMEOUT); spinning first, then
//     FUTEX_WAIT in bounded slices.
// Generation and disabled bit share one word, so "the fence completed" and "the board was
// disabled" are ordered for every reader: nobody can see the second without knowing about the
// first.
#pragma once

#include <pmix_common.h>

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

namespace pmix::gds {

namespace board_layout {

inline constexpr std::uint64_t kMagic = 0x4452414f42584d50ull;  // "PMXBOARD"
inline constexpr std::uint32_t kDisabled = 0x80000000u;
inline constexpr std::uint32_t kGenerationMask = 0x7fffffffu;

struct BoardHeader {
    std::uint64_t magic;
    std::uint64_t stamp;
    std::uint32_t nranks;
    std::uint32_t reserved;
    char nspace[PMIX_MAX_NSLEN + 1];
    alignas(64) std::atomic<std::uint32_t> arrived;  // own cache line: every arrival writes it
    alignas(64) std::atomic<std::uint32_t> word;     // generation | kDisabled; the futex
};
static_assert(std::atomic<std::uint32_t>::is_always_lock_free);
static_assert(sizeof(std::atomic<std::uint32_t>) == 4, "a futex is 32 bits");
static_assert(std::is_standard_layout_v<BoardHeader>);

// Folded from every field's offset and size, so two builds that disagree refuse each other.
constexpr std::uint64_t compute_stamp() noexcept {
    const std::uint64_t parts[] = {sizeof(BoardHeader),
                                   offsetof(BoardHeader, magic),
                                   offsetof(BoardHeader, stamp),
                                   offsetof(BoardHeader, nranks),
                                   offsetof(BoardHeader, nspace),
                                   sizeof(BoardHeader::nspace),
                                   offsetof(BoardHeader, arrived),
                                   offsetof(BoardHeader, word),
                                   kDisabled};
    std::uint64_t h = 0xcbf29ce484222325ull;
    for (std::uint64_t p : parts) h = (h ^ p) * 0x100000001b3ull;
    return h;
}
inline constexpr std::uint64_t kStamp = compute_stamp();
inline constexpr std::size_t kBoardBytes = 4096;
static_assert(sizeof(BoardHeader) <= kBoardBytes);

}  // namespace board_layout

// The server's side: creates the board and can disable it. The board is a memfd sealed against
// resizing (0600, closed when destroyed), named /proc/<server pid>/fd/<fd>: participants cannot
// shrink it under the others' mappings. share() moves it to POSIX shared memory for a job's group
// (another user cannot open our /proc entries); there, and where memfd is refused, it is
// <prefix>-fb-<pid>-<counter> (unlinked when destroyed), which its participants could truncate.
class FenceBoard {
public:
    // `prefix` as the store's ("/pmixgds").
    static pmix_status_t create(const std::string& prefix, std::string_view nspace,
                                std::uint32_t nranks, std::unique_ptr<FenceBoard>& out);
    ~FenceBoard();
    FenceBoard(const FenceBoard&) = delete;
    FenceBoard& operator=(const FenceBoard&) = delete;

    const std::string& name() const noexcept { return name_; }
    // Lets group `gid` map it read-write (0660, the server stays the owner): the job of another
    // user than the server's. Nothing the server reads is on the board, so a participant that
    // scribbles on it can only spoil its own job's fences (see above). Before the name is given
    // to any participant: it changes the name (a sealed board becomes a shared-memory one).
    pmix_status_t share(gid_t gid);
    // Sticky: every later fence of the namespace goes to the server; waiters are woken. Safe on
    // a board a participant truncated (nothing happens then: the kernel does the write).
    void disable() noexcept;
    // Whether this server disabled it (it never reads the board: participants can change it).
    bool disabled() const noexcept;

private:
    FenceBoard(board_layout::BoardHeader* header, std::string name, int fd, std::string prefix)
        : header_(header), name_(std::move(name)), fd_(fd), prefix_(std::move(prefix)) {}
    board_layout::BoardHeader* header_;  // written only before share(); see disable()
    std::string name_;
    int fd_;  // the sealed memfd; -1 for a shared-memory board
    std::string prefix_;
    std::atomic<bool> disabled_{false};  // by this server (participants' own disabling unseen)
};

// A participant's side: maps an existing board read-write after checking it.
class BoardView {
public:
    // PMIX_ERR_NOT_FOUND (no such segment), PMIX_ERR_NO_PERMISSIONS, or kErrCorrupt (wrong
    // size, magic, stamp, rank count, or a board of another namespace).
    static pmix_status_t open(const std::string& name, std::string_view nspace,
                              std::unique_ptr<BoardView>& out);
    ~BoardView();
    BoardView(const BoardView&) = delete;
    BoardView& operator=(const BoardView&) = delete;

    enum class Outcome {
        done,       // every participant arrived
        redirect,   // the board is disabled: take the server path for this same fence
        timeout,    // the deadline passed first; the board is now disabled
        cancelled,  // `cancel` was set while waiting (this process is finalizing)
    };
    // Arrives and waits (spinning for `spin` first). One fence at a time per process. `cancel`,
    // when given, is checked at least every 100 ms while sleeping.
    Outcome arrive_and_wait(std::chrono::steady_clock::time_point deadline,
                            std::chrono::microseconds spin,
                            const std::atomic<bool>* cancel = nullptr) noexcept;
    bool disabled() const noexcept;
    void disable() noexcept;
    std::uint32_t nranks() const noexcept { return nranks_; }

private:
    BoardView(board_layout::BoardHeader* header, std::uint32_t nranks)
        : header_(header), nranks_(nranks) {}
    board_layout::BoardHeader* header_;
    std::uint32_t nranks_;  // copied at open: later writes to the header cannot change it
};

}  // namespace pmix::gds
