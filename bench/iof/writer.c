/* bench/iof/writer.c - the rank of the IO forwarding benchmark (bench/iof/run.py). Plain C, no
 * PMIx: the same binary runs under every launcher and directly into a pipe.
 *   writer throughput MBYTES CHUNK_KIB  "START <ns>\n", then MBYTES MiB of 1 KiB lines
 *                                       ("x...x\n") in write(2)s of CHUNK_KIB KiB to stdout.
 *   writer latency COUNT GAP_US         COUNT lines "LAT <seq> <ns>\n", one write(2) each,
 *                                       GAP_US microseconds apart.
 * <ns>: CLOCK_MONOTONIC when the line is written (the reader on the same host compares). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int write_all(const char* p, size_t n) {
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int throughput(long mbytes, long chunk_kib) {
    const size_t chunk = (size_t)chunk_kib * 1024;
    char* buf = malloc(chunk);
    if (buf == NULL) return 2;
    memset(buf, 'x', chunk);
    for (size_t i = 1023; i < chunk; i += 1024) buf[i] = '\n';
    char start[64];
    int n = snprintf(start, sizeof start, "START %lld\n", now_ns());
    if (write_all(start, (size_t)n) != 0) return 1;
    const size_t total = (size_t)mbytes << 20;
    for (size_t done = 0; done < total; done += chunk)
        if (write_all(buf, chunk) != 0) return 1;
    free(buf);
    return 0;
}

static int latency(long count, long gap_us) {
    struct timespec gap = {gap_us / 1000000, (gap_us % 1000000) * 1000};
    for (long seq = 0; seq < count; ++seq) {
        char line[64];
        int n = snprintf(line, sizeof line, "LAT %ld %lld\n", seq, now_ns());
        if (write_all(line, (size_t)n) != 0) return 1;
        nanosleep(&gap, NULL);
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 4 && strcmp(argv[1], "throughput") == 0)
        return throughput(atol(argv[2]), atol(argv[3]));
    if (argc == 4 && strcmp(argv[1], "latency") == 0) return latency(atol(argv[2]), atol(argv[3]));
    fprintf(stderr, "usage: writer throughput MBYTES CHUNK_KIB | latency COUNT GAP_US\n");
    return 2;
}
