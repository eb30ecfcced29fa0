// tests/fuzz/fuzz_board.cpp - the fence board (gds/board.h), the one segment clients write: a
// participant that scribbles on it, before another opens it or while it waits. The other
// participant must refuse the board or finish its fence (done, redirect to the server, timeout),
// and the server's side must still disable it; nothing may crash or hang.
//
// Input: a flags byte, then patches (offset: 2 bytes LE modulo the board size, value: 1 byte)
// applied to a fresh valid board; bit 0 of the flags applies them after the participant opened
// the board (scribbling during a fence) instead of before, bit 1 truncates the segment first.
#include "fuzz_input.h"

#include "gds/board.h"
#include "gds/store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace {

using namespace pmix::gds;
using pmix::fuzz::violated;

constexpr const char* kNamespace = "fuzz.board";

// Writes the patches into the board through a mapping of its own, as another process would.
void scribble(const std::string& name, pmix::fuzz::Input& in, bool truncate) {
    const int fd = name.rfind("/proc/", 0) == 0 ? ::open(name.c_str(), O_RDWR)
                                                : ::shm_open(name.c_str(), O_RDWR, 0);
    if (fd < 0) violated("cannot open the board just created");
    void* base =
        ::mmap(nullptr, board_layout::kBoardBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) violated("cannot map the board just created");
    auto* bytes = static_cast<volatile std::uint8_t*>(base);
    while (!in.empty()) {
        const std::size_t offset =
            (in.u8() | (std::size_t{in.u8()} << 8)) % board_layout::kBoardBytes;
        bytes[offset] = in.u8();
    }
    ::munmap(base, board_layout::kBoardBytes);
    if (truncate && ::ftruncate(fd, 64) != 0) violated("cannot truncate the board");
    ::close(fd);
}

void take_part(BoardView& view) {
    // An arrival that the scribbled counters cannot complete waits until the deadline: keep it
    // short, the outcome matters, not the wait.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
    const auto outcome = view.arrive_and_wait(deadline, std::chrono::microseconds(0));
    if (outcome == BoardView::Outcome::cancelled) violated("cancelled without a cancel flag");
    (void)view.disabled();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pmix::fuzz::Input in(data, size);
    const std::uint8_t flags = in.u8();
    const std::uint32_t nranks = in.u8() % 4 + 1;
    std::unique_ptr<FenceBoard> board;
    if (FenceBoard::create("/pmixfuzz", kNamespace, nranks, board) != PMIX_SUCCESS) {
        violated("cannot create a fence board");
    }
    const bool after_open = (flags & 1) != 0;
    const bool truncate = (flags & 2) != 0;
    // Only a shared-memory board (another user's job) can be truncated; the sealed one refuses.
    if (truncate && board->share(::getegid()) != PMIX_SUCCESS) violated("cannot share a board");
    std::unique_ptr<BoardView> view;
    if (!after_open) scribble(board->name(), in, truncate);
    const pmix_status_t rc = BoardView::open(board->name(), kNamespace, view);
    if (rc != PMIX_SUCCESS && rc != kErrCorrupt) violated("a board refused with another status");
    if (after_open) scribble(board->name(), in, false);  // a mapped board truncated is SIGBUS
    if (view) take_part(*view);
    board->disable();
    if (!board->disabled()) violated("the server's disable did not stick");
    return 0;
}
