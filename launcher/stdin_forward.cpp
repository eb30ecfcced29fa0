// launcher/stdin_forward.cpp - the job's stdin on its way to the processes --stdin names (rank 0
// by default, as mpirun; `all`: every rank of the job; `none`), on the node they run on; every
// other process reads /dev/null. On one node the stream is pmixrun's own stdin; under pmixd it is
// what the head sends (stdin_data messages), and pmixd tells the head how much its processes took
// (stdin_taken), so that the head sends at most kStdinHeld ahead of them.
// Back-pressure: the stream is read only while less than kStdinHeld bytes wait for the slowest
// open target; the bytes are kept once and each target has its own position in them, so `all`
// holds no more than one target would. At EOF (once every target took everything) the pipes are
// closed; a target that closed its stdin or exited (EPIPE) is dropped.
// A job PMIx_Spawn started with PMIX_FWD_STDIN has a stream of its own (Launcher::spawned_stdin),
// to the ranks that names, fed only by PMIx_IOF_push (host_push_stdin), under the same bound.
#include "launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>

namespace pmix::launcher {

namespace {
constexpr uint64_t kTakenReport = 64u << 10;  // pmixd reports progress to the head in these steps

uint64_t stream_end(const StdinForward& f) { return f.base + f.pending.size(); }

bool any_open(const StdinForward& f) {
    return std::any_of(f.targets.begin(), f.targets.end(),
                       [](const StdinForward::Target& t) { return t.fd >= 0; });
}

// Where the slowest open target is in the stream (the end when none is open).
uint64_t slowest(const StdinForward& f) {
    uint64_t at = stream_end(f);
    for (const StdinForward::Target& t : f.targets)
        if (t.fd >= 0) at = std::min(at, t.taken);
    return at;
}

void close_target(StdinForward::Target& t) {
    if (t.fd >= 0) ::close(t.fd);
    t.fd = -1;
}

// Writes what `t` can take now; drops it when it is gone (EPIPE: it closed its stdin or exited).
void feed(StdinForward& f, StdinForward::Target& t) {
    while (t.fd >= 0 && t.taken < stream_end(f)) {
        const size_t from = static_cast<size_t>(t.taken - f.base);
        const ssize_t n = ::write(t.fd, f.pending.data() + from, f.pending.size() - from);
        if (n > 0) {
            t.taken += static_cast<uint64_t>(n);
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            if (errno != EAGAIN) close_target(t);
            return;
        }
    }
}

// pmixd: tells the head what every local target has taken, in kTakenReport steps and at the end.
void report_taken(Launcher& launcher) {
    StdinForward& f = launcher.stdin_fwd;
    if (launcher.remote == nullptr) return;
    const uint64_t taken = slowest(f);
    if (taken == f.reported || (taken - f.reported < kTakenReport && taken != stream_end(f)))
        return;
    f.reported = taken;
    launcher.remote->stdin_taken(taken);
}
}  // namespace

bool stdin_target(long stdin_rank, const Proc& process) {
    return process.job == 0 &&
           (stdin_rank == Options::kStdinAll ||
            (stdin_rank >= 0 && process.rank == static_cast<pmix_rank_t>(stdin_rank)));
}

StdinForward* stdin_forward_of(Launcher& launcher, const Proc& process) {
    if (process.job == 0)
        return stdin_target(launcher.options.stdin_rank, process) ? &launcher.stdin_fwd : nullptr;
    auto found = launcher.spawned_stdin.find(process.nspace);
    if (found == launcher.spawned_stdin.end()) return nullptr;
    const long named = found->second.named;
    return named == Options::kStdinAll ||
                   (named >= 0 && process.rank == static_cast<pmix_rank_t>(named))
               ? &found->second
               : nullptr;
}

int child_stdin(Launcher& launcher, const Proc& process) {
    StdinForward* f = stdin_forward_of(launcher, process);
    if (f == nullptr || (f->eof && f->pending.empty()))
        return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    ::fcntl(fds[1], F_SETFL, ::fcntl(fds[1], F_GETFL) | O_NONBLOCK);
    ::signal(SIGPIPE, SIG_IGN);  // a target gone: the write fails with EPIPE instead
    f->targets.push_back({fds[1], process.rank, f->base});
    // pmixd: the head sends the stream; a spawned job's comes from pushes only.
    if (process.job == 0) f->own_stdin = launcher.remote == nullptr;
    return fds[0];
}

uint64_t stdin_held(const StdinForward& f) { return stream_end(f) - slowest(f); }

void stdin_append(StdinForward& f, const char* bytes, size_t length, bool end) {
    if (f.eof) return;
    f.pending.append(bytes, length);
    f.eof = end;
}

namespace {
void target_poll_fds(const StdinForward& f, std::vector<pollfd>& fds) {
    for (const StdinForward::Target& t : f.targets)
        fds.push_back({t.fd >= 0 && t.taken < stream_end(f) ? t.fd : -1, POLLOUT, 0});
}

// Feeds every target what it can take, drops what every open target took, answers the pushes
// waiting for room; the pipes close once the stream ended and all of it was taken.
void service_targets(StdinForward& f) {
    for (StdinForward::Target& t : f.targets) feed(f, t);
    if (!f.targets.empty() && !any_open(f) && !f.eof) {  // nobody left to read it
        f.eof = true;
        f.targets_gone = true;
        f.pending.clear();
    }
    const uint64_t taken = slowest(f);
    f.pending.erase(0, static_cast<size_t>(taken - f.base));
    f.base = taken;
    stdin_release_pushes(f, false);
    if (f.eof && f.pending.empty())
        for (StdinForward::Target& t : f.targets) close_target(t);
}

void close_forward(StdinForward& f) {
    for (StdinForward::Target& t : f.targets) close_target(t);
    f.pending.clear();
    f.eof = true;
    stdin_release_pushes(f, true);
}
}  // namespace

// Our stdin (read by stdin_service when ready), then the main job's and every spawned job's
// targets (they only wake the loop: stdin_service feeds every target each turn).
void stdin_poll_fds(Launcher& launcher, std::vector<pollfd>& fds) {
    StdinForward& f = launcher.stdin_fwd;
    const bool read_more = f.own_stdin && !f.eof && stdin_held(f) < kStdinHeld;
    fds.push_back({read_more ? STDIN_FILENO : -1, POLLIN, 0});
    target_poll_fds(f, fds);
    for (const auto& [nspace, spawned] : launcher.spawned_stdin) target_poll_fds(spawned, fds);
}

void stdin_service(Launcher& launcher, const pollfd* fds) {
    StdinForward& f = launcher.stdin_fwd;
    if (fds[0].fd >= 0 && fds[0].revents != 0) {
        char chunk[65536];
        const ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
        if (n > 0) {
            f.pending.append(chunk, static_cast<size_t>(n));
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
            f.eof = true;
        }
    }
    service_targets(f);
    report_taken(launcher);
    for (auto& [nspace, spawned] : launcher.spawned_stdin) service_targets(spawned);
}

void stdin_close(Launcher& launcher) {
    close_forward(launcher.stdin_fwd);
    for (auto& [nspace, spawned] : launcher.spawned_stdin) close_forward(spawned);
}

void stdin_release_pushes(StdinForward& f, bool all) {
    if (!all && f.pending.size() >= kStdinHeld) return;
    std::vector<std::pair<pmix_op_cbfunc_t, void*>> ready;
    ready.swap(f.pushes_waiting);
    // Bytes still waiting when every target left were never delivered.
    const pmix_status_t status = f.targets_gone ? PMIX_ERR_IOF_FAILURE : PMIX_SUCCESS;
    for (const auto& [cbfunc, cbdata] : ready) cbfunc(status, cbdata);
}

}  // namespace pmix::launcher
