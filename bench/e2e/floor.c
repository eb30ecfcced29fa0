/* bench/e2e/floor.c - the machine's floors for what PMIx does over its control plane.
 *   bench-floor: the round-trip time of a 64-byte message over a Unix stream socket pair (write,
 *     the peer reads and writes back, read), with nothing else in the path. A PMIx call that asks
 *     the server, and any fence, costs at least one such round trip, so run.py reports it next to
 *     the scenario's numbers. Prints "FLOOR roundtrip_us=X" (median of 7 batches of 5000).
 *   bench-floor barrier [SPIN_US]: the least a fence of 2 clients through a server can cost: two
 *     client processes each write 64 bytes to a server process and read its answer; the server
 *     answers both once it has both. Nothing else in the path (no threads, no framing). With
 *     SPIN_US, every read first polls without blocking for that long (busy waiting, the usual
 *     way around wake-up latency). Prints "FLOOR barrier_us=X spin_us=S" (median of 7 batches of
 *     1000 barriers, as client 0 sees them).
 *   bench-floor futex N [LOOPS]: the least a barrier of N processes on one node can cost without
 *     busy waiting: N forked processes meet LOOPS times (default 300, after 20) on one shared
 *     futex word (the last to arrive bumps a generation and wakes all; the others sleep until it
 *     changes). No PMIx, no server. Prints "FLOOR futex_barrier_us=X nprocs=N" (process 0's mean).
 * Measured on the 2-vCPU VM of this project: round trip 39-51 us; barrier 33-52 us blocking, and
 * with busy waiting slower, not faster: 41 / 58 / 80 / 256 us for 5 / 20 / 50 / 200 us spin
 * windows (three busy processes share two CPUs); futex barrier 20-21 / 56-60 / 224-263 us at
 * N = 2 / 16 / 64 (PMIx_Fence without data, on the fence board: 0.37-0.49 ms at 64).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCHES 7
#define TRIPS 5000

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int exact(ssize_t got, size_t want) { return got == (ssize_t)want; }

static int cmp(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double g_spin_us = 0;

/* Reads exactly 64 bytes: polling first for g_spin_us, then blocking. 0 when the peer is gone. */
static int read64(int fd, char* buf) {
    const double start = now_us();
    for (;;) {
        const int spin = now_us() - start < g_spin_us;
        const ssize_t n = recv(fd, buf, 64, spin ? MSG_DONTWAIT : MSG_WAITALL);
        if (n == 64) return 1;
        if (n < 0 && errno == EAGAIN && spin) continue;
        return 0;
    }
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof v[0], cmp);
    return v[n / 2];
}

/* Two clients, one server: the minimal server-mediated barrier. */
static int barrier(void) {
    enum { kBarriers = 1000 };
    int c0[2], c1[2];
    char buf[64] = {0};
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, c0) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM, 0, c1) != 0) {
        perror("bench-floor: socketpair");
        return 1;
    }
    const int total = (BATCHES + 1) * kBarriers; /* one warm-up batch */
    pid_t server = fork();
    if (server == 0) {
        for (int i = 0; i < total; ++i) {
            if (!read64(c0[1], buf) || !read64(c1[1], buf)) _exit(1);
            if (!exact(write(c0[1], buf, 64), 64) || !exact(write(c1[1], buf, 64), 64)) _exit(1);
        }
        _exit(0);
    }
    pid_t other = fork();
    if (other == 0) {
        for (int i = 0; i < total; ++i) {
            if (!exact(write(c1[0], buf, 64), 64) || !read64(c1[0], buf)) _exit(1);
        }
        _exit(0);
    }
    double batch[BATCHES];
    for (int b = -1; b < BATCHES; ++b) {
        const double t0 = now_us();
        for (int i = 0; i < kBarriers; ++i) {
            if (!exact(write(c0[0], buf, 64), 64) || !read64(c0[0], buf)) {
                fprintf(stderr, "bench-floor: a barrier process went away\n");
                return 1;
            }
        }
        if (b >= 0) batch[b] = (now_us() - t0) / kBarriers;
    }
    waitpid(server, NULL, 0);
    waitpid(other, NULL, 0);
    printf("FLOOR barrier_us=%.2f spin_us=%.0f\n", median(batch, BATCHES), g_spin_us);
    return 0;
}

struct futex_meeting {
    _Atomic unsigned arrived;
    _Atomic unsigned generation;
};

static void futex_meet(struct futex_meeting* m, unsigned n) {
    const unsigned gen = atomic_load(&m->generation);
    if (atomic_fetch_add(&m->arrived, 1) + 1 == n) {
        atomic_store(&m->arrived, 0);
        atomic_store(&m->generation, gen + 1);
        syscall(SYS_futex, &m->generation, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
        return;
    }
    while (atomic_load(&m->generation) == gen) {
        syscall(SYS_futex, &m->generation, FUTEX_WAIT, gen, NULL, NULL, 0);
    }
}

static int futex_barrier(unsigned n, int loops) {
    if (n < 1 || n > 4096 || loops < 1) {
        fprintf(stderr, "bench-floor: futex N (1..4096) [LOOPS >= 1]\n");
        return 2;
    }
    struct futex_meeting* m = mmap(NULL, sizeof *m, PROT_READ | PROT_WRITE,
                                   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        perror("bench-floor: mmap");
        return 1;
    }
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        perror("bench-floor: pipe");
        return 1;
    }
    for (unsigned i = 0; i < n; ++i) {
        const pid_t pid = fork();
        if (pid < 0) {
            perror("bench-floor: fork");  // the others never complete a meeting: kill them
            kill(0, SIGKILL);
            return 1;
        }
        if (pid > 0) continue;
        for (int k = 0; k < 20; ++k) futex_meet(m, n);
        const double t0 = now_us();
        for (int k = 0; k < loops; ++k) futex_meet(m, n);
        const double per = (now_us() - t0) / loops;
        if (i == 0 && write(pipefd[1], &per, sizeof per) != (ssize_t)sizeof per) _exit(1);
        _exit(0);
    }
    close(pipefd[1]);
    double per = -1;
    const int got = exact(read(pipefd[0], &per, sizeof per), sizeof per);
    while (wait(NULL) > 0) {
    }
    if (!got) {
        fprintf(stderr, "bench-floor: process 0 reported nothing\n");
        return 1;
    }
    printf("FLOOR futex_barrier_us=%.1f nprocs=%u\n", per, n);
    return 0;
}

int main(int argc, char** argv) {
    if (argc > 2 && strcmp(argv[1], "futex") == 0) {
        return futex_barrier((unsigned)atoi(argv[2]), argc > 3 ? atoi(argv[3]) : 300);
    }
    if (argc > 1 && strcmp(argv[1], "barrier") == 0) {
        if (argc > 2) g_spin_us = atof(argv[2]);
        return barrier();
    }
    int sv[2];
    char buf[64] = {0};
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
        perror("bench-floor: socketpair");
        return 1;
    }
    pid_t child = fork();
    if (child < 0) {
        perror("bench-floor: fork");
        return 1;
    }
    if (child == 0) {
        close(sv[0]);
        while (exact(read(sv[1], buf, sizeof buf), sizeof buf) &&
               exact(write(sv[1], buf, sizeof buf), sizeof buf)) {
        }
        _exit(0);
    }
    close(sv[1]);
    double batch[BATCHES];
    for (int b = 0; b < BATCHES; ++b) {
        double t0 = now_us();
        for (int i = 0; i < TRIPS; ++i) {
            if (!exact(write(sv[0], buf, sizeof buf), sizeof buf) ||
                !exact(read(sv[0], buf, sizeof buf), sizeof buf)) {
                fprintf(stderr, "bench-floor: the echo process went away\n");
                return 1;
            }
        }
        batch[b] = (now_us() - t0) / TRIPS;
    }
    close(sv[0]);
    waitpid(child, NULL, 0);
    printf("FLOOR roundtrip_us=%.2f\n", median(batch, BATCHES));
    return 0;
}
