// gds/board.cpp - the fence board (see board.h for the protocol and why it exists).
#include "gds/board.h"

#include "gds/backing.h"
#include "gds/store.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <new>

namespace pmix::gds {
namespace {

using board_layout::BoardHeader;
using board_layout::kDisabled;
using board_layout::kGenerationMask;

std::uint32_t* futex_word(BoardHeader* h) noexcept {
    return reinterpret_cast<std::uint32_t*>(&h->word);
}

void wake_all(BoardHeader* h) noexcept {
    ::syscall(SYS_futex, futex_word(h), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

// Sleeps while the word still reads `seen`, at most `slice` (spurious returns are fine: the
// caller re-reads the word).
void sleep_on(BoardHeader* h, std::uint32_t seen, std::chrono::nanoseconds slice) noexcept {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(slice.count() / 1000000000);
    ts.tv_nsec = static_cast<long>(slice.count() % 1000000000);
    ::syscall(SYS_futex, futex_word(h), FUTEX_WAIT, seen, &ts, nullptr, 0);
}

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

void disable_header(BoardHeader* h) noexcept {
    h->word.fetch_or(kDisabled, std::memory_order_seq_cst);
    wake_all(h);
}

void* map_shared(int fd) noexcept {
    void* base =
        ::mmap(nullptr, board_layout::kBoardBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return base == MAP_FAILED ? nullptr : base;
}

std::string nspace_field(const BoardHeader& h) {
    return std::string(h.nspace, ::strnlen(h.nspace, sizeof h.nspace));
}

}  // namespace

// ---- FenceBoard (server) ------------------------------------------------------------------------

namespace {

// The header of a fresh board at `base`.
BoardHeader* init_header(void* base, std::string_view nspace, std::uint32_t nranks) {
    auto* h = new (base) BoardHeader{};
    h->magic = board_layout::kMagic;
    h->nranks = nranks;
    std::memcpy(h->nspace, nspace.data(), nspace.size());
    // The stamp goes last: a reader that sees it sees a complete header.
    std::atomic_ref<std::uint64_t>(h->stamp).store(board_layout::kStamp, std::memory_order_release);
    return h;
}

// A board in POSIX shared memory, <prefix>-fb-<pid>-<n>: what a job of another user maps (it
// cannot reach a memfd through /proc), and the fallback where memfd_create is refused. Anyone
// who may write it may also shrink it; see sealed_board.
pmix_status_t shm_board(const std::string& prefix, void** base, std::string& name) {
    int fd = -1;
    if (pmix_status_t rc =
            create_shm_object(prefix + "-fb", board_layout::kBoardBytes, nullptr, fd, name);
        rc != PMIX_SUCCESS) {
        return rc;
    }
    *base = map_shared(fd);
    const int err = errno;
    ::close(fd);
    if (*base == nullptr) {
        ::shm_unlink(name.c_str());
        return shm_status_from_errno(err);
    }
    return PMIX_SUCCESS;
}

// A board nobody can shrink: a memfd sealed against resizing, which participants of the
// server's own uid open as /proc/<server pid>/fd/<fd>. A participant that truncated a shared
// board made every other participant that had it mapped die of SIGBUS at its next fence
// (tests/faults, case truncated_board: 2 of 3 ranks); on this one ftruncate fails with EPERM.
// -1 when the kernel refuses memfd or seals (the caller falls back to shm_board).
int sealed_board(void** base) {
    const int fd = ::memfd_create("pmix-fence-board", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    const bool ready =
        ::ftruncate(fd, static_cast<off_t>(board_layout::kBoardBytes)) == 0 &&
        ::posix_fallocate(fd, 0, static_cast<off_t>(board_layout::kBoardBytes)) == 0 &&
        ::fchmod(fd, 0600) == 0 &&
        ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0 &&
        (*base = map_shared(fd)) != nullptr;
    if (!ready) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

pmix_status_t FenceBoard::create(const std::string& prefix, std::string_view nspace,
                                 std::uint32_t nranks, std::unique_ptr<FenceBoard>& out) {
    if (nranks == 0 || nspace.empty() || nspace.size() > PMIX_MAX_NSLEN) return PMIX_ERR_BAD_PARAM;
    void* base = nullptr;
    std::string name;
    const int fd = sealed_board(&base);
    if (fd >= 0) {
        name = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd);
    } else if (pmix_status_t rc = shm_board(prefix, &base, name); rc != PMIX_SUCCESS) {
        return rc;
    }
    out.reset(new FenceBoard(init_header(base, nspace, nranks), std::move(name), fd, prefix));
    return PMIX_SUCCESS;
}

pmix_status_t FenceBoard::share(gid_t gid) {
    if (fd_ >= 0) {
        // Another user's processes cannot open our /proc/<pid>/fd: the board moves to shared
        // memory, before any participant has its name (share comes with the registration).
        void* base = nullptr;
        std::string name;
        if (pmix_status_t rc = shm_board(prefix_, &base, name); rc != PMIX_SUCCESS) return rc;
        std::memcpy(base, header_, board_layout::kBoardBytes);
        ::munmap(header_, board_layout::kBoardBytes);
        ::close(fd_);
        fd_ = -1;
        header_ = static_cast<BoardHeader*>(base);
        name_ = std::move(name);
    }
    return share_shm_object(name_, SegmentAccess{gid, 0660});
}

FenceBoard::~FenceBoard() {
    ::munmap(header_, board_layout::kBoardBytes);
    if (fd_ >= 0) {
        ::close(fd_);
    } else {
        ::shm_unlink(name_.c_str());
    }
}

// The server never touches the board's memory once it is created: a participant may shrink the
// segment (ftruncate needs only write access, which participants have), and the server's next
// load or store there would raise SIGBUS in the server (seen: a rank of another user truncated
// its board, then died; pmixrun, root, died of SIGBUS disabling the board). FUTEX_WAKE_OP makes
// the kernel do the fetch_or and the wake-up: on memory that is gone it returns EFAULT instead.
// The op: *word |= 1 << 31 (kDisabled), then wake every waiter on the word.
void FenceBoard::disable() noexcept {
    static_assert(kDisabled == 1u << 31);
    disabled_.store(true, std::memory_order_relaxed);
    const int op = FUTEX_OP(FUTEX_OP_OR | FUTEX_OP_OPARG_SHIFT, 31, FUTEX_OP_CMP_EQ, 0);
    std::uint32_t* word = futex_word(header_);
    ::syscall(SYS_futex, word, FUTEX_WAKE_OP, INT_MAX,
              reinterpret_cast<const timespec*>(static_cast<std::uintptr_t>(INT_MAX)), word, op);
}

bool FenceBoard::disabled() const noexcept { return disabled_.load(std::memory_order_relaxed); }

// ---- BoardView (participants) -------------------------------------------------------------------

pmix_status_t BoardView::open(const std::string& name, std::string_view nspace,
                              std::unique_ptr<BoardView>& out) {
    const int fd = name.rfind("/proc/", 0) == 0 ? ::open(name.c_str(), O_RDWR | O_CLOEXEC)
                                                : ::shm_open(name.c_str(), O_RDWR, 0);
    if (fd < 0) return shm_status_from_errno(errno);
    struct stat st {};
    void* base = nullptr;
    if (::fstat(fd, &st) == 0 &&
        static_cast<std::size_t>(st.st_size) == board_layout::kBoardBytes) {
        base = map_shared(fd);
    }
    ::close(fd);
    if (base == nullptr) return kErrCorrupt;  // truncated, resized, or not mappable
    auto* h = static_cast<BoardHeader*>(base);
    const std::uint32_t nranks = h->nranks;
    const bool valid = std::atomic_ref<std::uint64_t>(h->stamp).load(std::memory_order_acquire) ==
                           board_layout::kStamp &&
                       h->magic == board_layout::kMagic && nranks != 0 &&
                       nspace_field(*h) == nspace;
    if (!valid) {
        ::munmap(base, board_layout::kBoardBytes);
        return kErrCorrupt;
    }
    out.reset(new BoardView(h, nranks));
    return PMIX_SUCCESS;
}

BoardView::~BoardView() { ::munmap(header_, board_layout::kBoardBytes); }

bool BoardView::disabled() const noexcept {
    return (header_->word.load(std::memory_order_acquire) & kDisabled) != 0;
}

void BoardView::disable() noexcept { disable_header(header_); }

BoardView::Outcome BoardView::arrive_and_wait(std::chrono::steady_clock::time_point deadline,
                                              std::chrono::microseconds spin,
                                              const std::atomic<bool>* cancel) noexcept {
    using clock = std::chrono::steady_clock;
    // The futex sleeps in slices so a lost wake-up (a peer that died between its two writes)
    // costs at most one slice before the deadline or a disable is seen.
    constexpr std::chrono::milliseconds kSlice{100};
    BoardHeader* h = header_;
    const std::uint32_t w = h->word.load(std::memory_order_seq_cst);
    if ((w & kDisabled) != 0) return Outcome::redirect;
    const std::uint32_t gen = w & kGenerationMask;
    if (h->arrived.fetch_add(1, std::memory_order_seq_cst) + 1 == nranks_) {
        h->arrived.store(0, std::memory_order_seq_cst);
        std::uint32_t expect = gen;
        if (!h->word.compare_exchange_strong(expect, (gen + 1) & kGenerationMask,
                                             std::memory_order_seq_cst)) {
            return Outcome::redirect;  // disabled meanwhile: everyone goes to the server
        }
        wake_all(h);
        return Outcome::done;
    }
    const auto spin_until = clock::now() + spin;
    for (;;) {
        const std::uint32_t now_word = h->word.load(std::memory_order_seq_cst);
        if ((now_word & kGenerationMask) != gen) return Outcome::done;
        if ((now_word & kDisabled) != 0) return Outcome::redirect;
        if (cancel != nullptr && cancel->load(std::memory_order_acquire)) return Outcome::cancelled;
        const auto now = clock::now();
        if (now >= deadline) {
            disable_header(h);  // our arrival is counted: the board cannot be trusted again
            // The last arrival may have completed the fence just before the disable.
            const std::uint32_t last = h->word.load(std::memory_order_seq_cst);
            return (last & kGenerationMask) != gen ? Outcome::done : Outcome::timeout;
        }
        if (now < spin_until) {
            cpu_relax();
            continue;
        }
        sleep_on(h, now_word, std::min<clock::duration>(kSlice, deadline - now));
    }
}

}  // namespace pmix::gds
