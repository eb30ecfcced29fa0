// spawn_on_own_table (spawn_thread.h): posix_spawn from a thread that unshared its descriptor table.
//
// Why: a spawned child starts with a copy of the caller's descriptor table, and its exec closes
// every close-on-exec descriptor of that copy, one by one. pmixrun holds about three descriptors
// per started rank (stdout and stderr pipes, the rank's server connection), so the k-th start
// copied and closed about 3k of them: O(N) per rank, O(N^2) per job, and the launcher waits for
// each child's exec (posix_spawn's vfork). Measured (release, `pmixrun -n 1024 putget`, perf):
// do_close_on_exec was 9% of the job's CPU. This thread's table holds only 0-2, what we
// inherited without close-on-exec (which the ranks inherited before too) and, during one call, the
// descriptors the call names, received over a socket (SCM_RIGHTS). The children are still ours:
// a thread's child is its process's child (waitpid, SIGCHLD unchanged).
#include "spawn_thread.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace pmix::launcher {
namespace {

// One call, in the caller's memory (threads share it); the caller waits until it is answered.
struct Request {
    PosixSpawn start;
    const SpawnSpec* spec;
    const char* program;
    char* const* argv;
    sigset_t mask;  // the caller's: posix_spawn would give the child the spawning thread's
    SpawnResult result;
};

enum : char { kReady = 'r', kDone = 'd', kRefused = 'x' };

// Closes the close-on-exec descriptors of this thread's table (copies of the process's, made by
// unshare) but `keep`. The others stay: without this thread the ranks inherited them too.
void close_copied_descriptors(int keep) {
    DIR* dir = ::opendir("/proc/thread-self/fd");
    if (dir == nullptr) return;
    const int own = ::dirfd(dir);
    while (const dirent* entry = ::readdir(dir)) {
        char* end = nullptr;
        const long fd = std::strtol(entry->d_name, &end, 10);
        if (*end != '\0' || end == entry->d_name || fd <= 2 || fd == keep || fd == own) continue;
        const int flags = ::fcntl(static_cast<int>(fd), F_GETFD);
        if (flags >= 0 && (flags & FD_CLOEXEC) != 0) ::close(static_cast<int>(fd));
    }
    ::closedir(dir);
}

// Receives one request and the descriptors it names; false when the socket closed.
bool receive(int sock, Request*& request, int (&fds)[3], int& count, bool& truncated) {
    char control[CMSG_SPACE(3 * sizeof(int))];
    iovec iov{&request, sizeof request};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t got;
    do got = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    if (got != static_cast<ssize_t>(sizeof request)) return false;
    count = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
        count = static_cast<int>((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        std::memcpy(fds, CMSG_DATA(c), static_cast<size_t>(count) * sizeof(int));
    }
    truncated = (msg.msg_flags & MSG_CTRUNC) != 0;
    return true;
}

void serve(int sock) {
    ::pthread_setname_np(::pthread_self(), kSpawnThreadName);
    const char ready = ::unshare(CLONE_FILES) == 0 ? kReady : kRefused;
    if (ready == kReady) close_copied_descriptors(sock);
    if (::write(sock, &ready, 1) != 1 || ready != kReady) return;
    for (;;) {
        Request* request = nullptr;
        int fds[3] = {-1, -1, -1}, count = 0;
        bool truncated = false;
        if (!receive(sock, request, fds, count, truncated)) break;
        const SpawnSpec& asked = *request->spec;
        const int wanted[] = {asked.stdin_fd, asked.stdout_fd, asked.stderr_fd};
        int expected = 0;
        for (int fd : wanted) expected += fd >= 0 ? 1 : 0;
        char answer = kRefused;
        if (!truncated && count == expected) {
            SpawnSpec spec = asked;  // the same, with our numbers for its descriptors
            int* ours[] = {&spec.stdin_fd, &spec.stdout_fd, &spec.stderr_fd};
            for (int i = 0, next = 0; i < 3; ++i)
                if (wanted[i] >= 0) *ours[i] = fds[next++];
            request->result = request->start(spec, request->program, request->argv, request->mask);
            answer = kDone;
        }
        for (int i = 0; i < count; ++i) ::close(fds[i]);
        if (::write(sock, &answer, 1) != 1) break;
    }
    ::close(sock);
}

struct SpawnThread {
    std::mutex mutex;
    int sock = -1;          // ours; -1: not started
    bool available = true;  // false once starting it failed: callers spawn themselves

    bool start() {
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0) return false;
        // Every signal blocked in the thread from its first instruction: a handler run there
        // (pmixrun's SIGCHLD/SIGINT/SIGTERM write to a self-pipe) would write to that number in
        // this thread's own descriptor table, where the pipe is closed or the number is a rank's
        // descriptor in transit. It happened: one 2-process job in ten waited for pmixrun's 100 ms
        // tick to see its ranks end. The children get the caller's mask (Request::mask).
        sigset_t all, before;
        ::sigfillset(&all);
        ::pthread_sigmask(SIG_SETMASK, &all, &before);
        bool started = true;
        try {
            std::thread(serve, pair[1]).detach();
        } catch (...) {
            started = false;
        }
        ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
        if (!started) {
            ::close(pair[0]);
            ::close(pair[1]);
            return false;
        }
        char ready = kRefused;
        if (::read(pair[0], &ready, 1) != 1 || ready != kReady) {
            ::close(pair[0]);  // the thread ends (it closes its end)
            return false;
        }
        sock = pair[0];
        return true;
    }

    bool call(Request& request) {
        const SpawnSpec& spec = *request.spec;
        int fds[3], count = 0;
        for (int fd : {spec.stdin_fd, spec.stdout_fd, spec.stderr_fd})
            if (fd >= 0) fds[count++] = fd;
        Request* pointer = &request;
        iovec iov{&pointer, sizeof pointer};
        char control[CMSG_SPACE(3 * sizeof(int))] = {};
        msghdr msg{};
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        if (count > 0) {
            msg.msg_control = control;
            msg.msg_controllen = CMSG_SPACE(static_cast<size_t>(count) * sizeof(int));
            cmsghdr* c = CMSG_FIRSTHDR(&msg);
            c->cmsg_level = SOL_SOCKET;
            c->cmsg_type = SCM_RIGHTS;
            c->cmsg_len = CMSG_LEN(static_cast<size_t>(count) * sizeof(int));
            std::memcpy(CMSG_DATA(c), fds, static_cast<size_t>(count) * sizeof(int));
        }
        ssize_t sent;
        do sent = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
        while (sent < 0 && errno == EINTR);
        if (sent != static_cast<ssize_t>(sizeof pointer)) return false;
        // Answered once posix_spawn returned (it returns when the child has exec'ed or failed);
        // `request` stays alive until then.
        char answer = kRefused;
        ssize_t got;
        do got = ::read(sock, &answer, 1);
        while (got < 0 && errno == EINTR);
        return got == 1 && answer == kDone;
    }
};

SpawnThread& spawn_thread() {
    static SpawnThread* thread = new SpawnThread;  // never destroyed: its thread lives to exit
    return *thread;
}

}  // namespace

bool spawn_on_own_table(PosixSpawn start, const SpawnSpec& spec, const char* program,
                        char* const* argv, SpawnResult& result) {
    SpawnThread& thread = spawn_thread();
    std::lock_guard<std::mutex> lock(thread.mutex);
    if (!thread.available) return false;
    if (thread.sock < 0 && !thread.start()) {
        thread.available = false;
        return false;
    }
    Request request{start, &spec, program, argv, {}, {}};
    ::pthread_sigmask(SIG_BLOCK, nullptr, &request.mask);
    if (!thread.call(request)) return false;
    result = request.result;
    return true;
}

}  // namespace pmix::launcher
