/* bench/e2e/floor.c - the machine's floor for any request/reply between two processes: the
 * round-trip time of a 64-byte message over a Unix stream socket pair (write, the peer reads and
 * writes back, read), with nothing else in the path. A PMIx call that asks the server, and any
 * fence, costs at least one such round trip, so run.py reports it next to the scenario's
 * numbers. Prints "FLOOR roundtrip_us=X" (median of 7 batches of 5000 round trips).
 * Usage: bench-floor */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
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

int main(void) {
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
    qsort(batch, BATCHES, sizeof batch[0], cmp);
    printf("FLOOR roundtrip_us=%.2f\n", batch[BATCHES / 2]);
    return 0;
}
