/* bench/iof/reader.c - the reading end of the IO forwarding benchmark (bench/iof/run.py): reads
 * a launcher's stdout (or the writer's, directly) from stdin, in 1 MiB reads, to EOF.
 *   reader throughput MBYTES   finds "START <ns>" (after any tag a launcher adds), counts the
 *                              MBYTES*1024 lines that follow and stops the clock at the last:
 *                              "IOF throughput_mbps=<MiB/s> bytes=<n>" (n: every byte read).
 *   reader latency COUNT       each "LAT <seq> <ns>" line's arrival minus <ns> (CLOCK_MONOTONIC,
 *                              same host): "IOF latency_us median=<m> p99=<p> max=<x> lines=<n>".
 * Exit 1 when a line is missing or comes twice (after START: exactly MBYTES*1024 lines to EOF;
 * every LAT sequence number once). */
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

static int cmp_ll(const void* a, const void* b) {
    long long x = *(const long long*)a, y = *(const long long*)b;
    return x < y ? -1 : x > y;
}

enum { kBuf = 1 << 20, kLine = 256 };

static char buf[kBuf];

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: reader throughput MBYTES | latency COUNT\n");
        return 2;
    }
    const int lat = strcmp(argv[1], "latency") == 0;
    const long n = atol(argv[2]);
    const long want_lines = lat ? n : n * 1024;
    long long* delays = lat ? calloc((size_t)n, sizeof *delays) : NULL;
    char* seen = lat ? calloc((size_t)n, 1) : NULL;
    long twice = 0;
    char line[kLine];  // the current line's first bytes (enough for START / LAT lines)
    size_t line_len = 0;
    long lines = 0, got = 0;
    long long start = -1, end = -1, bytes = 0;
    for (;;) {
        ssize_t r = read(STDIN_FILENO, buf, kBuf);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        const long long arrived = now_ns();
        bytes += r;
        for (ssize_t i = 0; i < r; ++i) {
            if (buf[i] != '\n') {
                if (line_len < kLine - 1) line[line_len++] = buf[i];
                continue;
            }
            line[line_len] = '\0';
            line_len = 0;
            const char* s;
            if (lat && (s = strstr(line, "LAT ")) != NULL) {
                long seq;
                long long sent;
                if (sscanf(s, "LAT %ld %lld", &seq, &sent) != 2 || seq < 0 || seq >= n) continue;
                if (seen[seq]++) {
                    ++twice;
                } else {
                    delays[got++] = arrived - sent;
                }
            } else if (!lat && start < 0 && (s = strstr(line, "START ")) != NULL) {
                start = atoll(s + 6);
            } else if (!lat && start >= 0 && ++lines == want_lines) {
                end = arrived;  // more lines after this one: reported below
            }
        }
    }
    if (lat) {
        const int complete = got == n && twice == 0;
        if (!complete) {
            fprintf(stderr, "reader: %ld of %ld lines, %ld twice\n", got, n, twice);
        } else {
            qsort(delays, (size_t)n, sizeof *delays, cmp_ll);
            printf("IOF latency_us median=%.1f p99=%.1f max=%.1f lines=%ld\n", delays[n / 2] / 1e3,
                   delays[(n * 99) / 100] / 1e3, delays[n - 1] / 1e3, n);
        }
        free(delays);
        free(seen);
        return complete ? 0 : 1;
    }
    if (start < 0 || lines != want_lines) {
        fprintf(stderr, "reader: %ld lines after START, want %ld\n", lines, want_lines);
        return 1;
    }
    printf("IOF throughput_mbps=%.1f bytes=%lld\n", (double)n / ((end - start) / 1e9), bytes);
    return 0;
}
