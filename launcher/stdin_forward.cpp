// launcher/stdin_forward.cpp - pmixrun's own stdin goes to rank 0 of its job, as mpirun does;
// every other process of pmixrun gets /dev/null (pmixd's ranks keep pmixd's stdin).
// Back-pressure: pmixrun reads its stdin only while less than kStdinHeld bytes wait for rank 0,
// so a slow reader never makes pmixrun buffer without bound. At EOF (or when rank 0 is gone)
// rank 0's stdin is closed.
#include "launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

namespace pmix::launcher {

namespace {
constexpr std::size_t kStdinHeld = 1u << 20;

// Rank 0's input is over for good (EOF, or it closed its stdin): later pushes are refused.
void close_target(StdinForward& f) {
    if (f.target >= 0) ::close(f.target);
    f.target = -1;
    f.pending.clear();
    f.eof = true;
}
}  // namespace

int child_stdin(Launcher& launcher, const Proc& process) {
    if (launcher.remote != nullptr) return -1;
    StdinForward& f = launcher.stdin_fwd;
    if (process.job != 0 || process.rank != 0 || f.target >= 0 || f.eof) {
        return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    }
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ::fcntl(fds[1], F_SETFL, ::fcntl(fds[1], F_GETFL) | O_NONBLOCK);
    ::signal(SIGPIPE, SIG_IGN);  // rank 0 gone: the write fails with EPIPE instead
    f.target = fds[1];
    return fds[0];
}

void stdin_poll_fds(Launcher& launcher, std::vector<pollfd>& fds) {
    StdinForward& f = launcher.stdin_fwd;
    const bool read_more = f.target >= 0 && !f.eof && f.pending.size() < kStdinHeld;
    fds.push_back({read_more ? STDIN_FILENO : -1, POLLIN, 0});
    fds.push_back({f.target >= 0 && !f.pending.empty() ? f.target : -1, POLLOUT, 0});
}

void stdin_service(Launcher& launcher, const pollfd* fds) {
    StdinForward& f = launcher.stdin_fwd;
    if (fds[0].fd >= 0 && fds[0].revents != 0) {
        char chunk[65536];
        const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (n > 0) {
            f.pending.append(chunk, static_cast<std::size_t>(n));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            f.eof = true;
        }
    }
    while (f.target >= 0 && !f.pending.empty()) {
        const ssize_t n = ::write(f.target, f.pending.data(), f.pending.size());
        if (n > 0) {
            f.pending.erase(0, static_cast<std::size_t>(n));
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (errno != EAGAIN) close_target(f);  // rank 0 closed its stdin or exited
            break;
        }
    }
    if (f.eof && f.pending.empty() && f.target >= 0) close_target(f);
}

void stdin_close(Launcher& launcher) { close_target(launcher.stdin_fwd); }

}  // namespace pmix::launcher
