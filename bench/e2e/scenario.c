/* bench/e2e/scenario.c - the end-to-end startup/wireup scenario: what an MPI job does from
 * PMIx_Init to PMIx_Finalize, each phase timed per rank.
 *
 * Public API only: built once against our libpmix (bench-scenario) and once against Debian's
 * OpenPMIx 4.2.2 (bench-scenario-openpmix), launched by pmixrun / pmixrun-openpmix.
 * Each rank: PMIx_Init; a barrier that absorbs the launch skew (the launcher forks ranks one
 * after the other, so without it the first collective would mostly measure the wait for the
 * last rank to start; reported as "sync"); Put 4 keys (64-byte strings, PMIX_GLOBAL); Commit; Fence
 * with PMIX_COLLECT_DATA; Get a job-level key K times; Get every peer's 4 keys (copy, then with
 * PMIX_GET_POINTER_VALUES, the same number of rounds); Fence without data (barrier); then the
 * steady state of a collective with data: LOOPS times Put one 64-byte key, Commit, Fence with
 * PMIX_COLLECT_DATA, and read the next rank's new key ("fenceloop", per iteration); Finalize.
 * Inside that loop, the first Get of the next rank's new key right after the fence ("getfirst": it
 * pays for whatever reading fresh data costs) and the same Get again ("getwarm"), each the rank's
 * median over the iterations; "fenceloop" leaves the warm Get out. Then LOOPS fences with data and
 * no new key, each followed by the first Get of a key read before ("getold": the waking up alone).
 * Every value read is checked (a wrong value is an error exit, never a number). One line per rank:
 *   BENCH rank=R nprocs=N init=us sync=us put=us commit=us fence=us getjob=us getpeer=us getptr=us
 *         barrier=us fenceloop=us getfirst=us getwarm=us getold=us finalize=us pss_kb=K rss_kb=K
 * Per-call averages for the Gets. Pss/Rss from /proc/self/smaps_rollup after the Gets. Rank 0 also
 * prints "BENCHLIB <path>", the libpmix it loaded (bench/e2e/sweep.py checks that a --baseline
 * run used the baseline's library).
 * The timed fence with data and the timed barrier each come between two untimed barriers
 * ("align"), for the same reason as "sync": with 64 ranks on 2 vCPUs, what comes before them
 * (Commit through the server, thousands of Gets, reading smaps) ends at different times per rank,
 * and what comes after them (the Gets) keeps the CPUs busy while the other ranks wait to be
 * scheduled. Measured at N = 64 without them: the fence with data took 0.1 to 47 ms depending on
 * the rank, in even steps (ranks released and then queued behind each other's Gets), 26 ms
 * median on our library and 14 ms on OpenPMIx, while the barrier followed by the steady-state
 * loop (blocking round trips, no CPU-bound work) took 0.9 ms.
 * Usage: bench-scenario [K [LOOPS [PEERS]]]
 *   K      job-key Gets (default 2000)
 *   LOOPS  iterations of the steady-state loop (default 50, at most 1000)
 *   PEERS  read the keys of at most this many peers, the ranks after this one (default: all).
 *          bench/e2e/sweep.py caps it at 1,024 ranks, where reading every peer's keys costs
 *          minutes of CPU on OpenPMIx and measures nothing the per-call average does not show.
 */
#include <pmix.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NKEYS 4
#define MAX_LOOPS 1000

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void die(const char* what, pmix_status_t rc) {
    fprintf(stderr, "bench-scenario: %s failed: %s\n", what, PMIx_Error_string(rc));
    exit(1);
}

static void value_text(char* buf, size_t n, pmix_rank_t rank, int k) {
    /* 63 characters + NUL = 64 bytes */
    snprintf(buf, n, "rank-%08u-key-%d-%048d", (unsigned)rank, k, 0);
    buf[63] = '\0';
}

static void key_name(char* buf, size_t n, int k) { snprintf(buf, n, "bench.key.%d", k); }

static long smaps_kb(const char* field) {
    FILE* f = fopen("/proc/self/smaps_rollup", "r");
    char line[256];
    long kb = -1;
    size_t len = strlen(field);
    if (f == NULL) return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, field, len) == 0 && line[len] == ':') {
            kb = strtol(line + len + 1, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

static void put_keys(const pmix_proc_t* me) {
    for (int k = 0; k < NKEYS; ++k) {
        char key[PMIX_MAX_KEYLEN + 1], text[80];
        pmix_value_t v;
        key_name(key, sizeof key, k);
        value_text(text, sizeof text, me->rank, k);
        PMIX_VALUE_LOAD(&v, text, PMIX_STRING);
        pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
        PMIX_VALUE_DESTRUCT(&v);
        if (rc != PMIX_SUCCESS) die("PMIx_Put", rc);
    }
}

/* Gets the keys of `count` peers (the ranks after this one; this one alone in a 1-process job)
 * `rounds` times; returns the per-call average in us. Key names and expected values are formatted
 * before the clock starts (snprintf costs more than a Get from a shared store); every value is
 * still compared in the timed loop. */
static double get_peers(const pmix_proc_t* me, uint32_t nprocs, uint32_t count, int rounds,
                        bool pointer) {
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_GET_POINTER_VALUES, &yes, PMIX_BOOL);
    char keys[NKEYS][PMIX_MAX_KEYLEN + 1];
    char(*want)[NKEYS][80] = malloc(sizeof *want * count);
    pmix_proc_t* peers = malloc(sizeof *peers * count);
    if (want == NULL || peers == NULL) die("malloc", PMIX_ERR_NOMEM);
    for (int k = 0; k < NKEYS; ++k) key_name(keys[k], sizeof keys[k], k);
    for (uint32_t i = 0; i < count; ++i) {
        pmix_rank_t p = nprocs > 1 ? (me->rank + 1 + i) % nprocs : me->rank;
        PMIX_PROC_LOAD(&peers[i], me->nspace, p);
        for (int k = 0; k < NKEYS; ++k) value_text(want[i][k], sizeof want[i][k], p, k);
    }
    long calls = 0;
    double t0 = now_us();
    for (int r = 0; r < rounds; ++r) {
        for (uint32_t i = 0; i < count; ++i) {
            for (int k = 0; k < NKEYS; ++k) {
                pmix_value_t* val = NULL;
                pmix_status_t rc =
                    PMIx_Get(&peers[i], keys[k], pointer ? &info : NULL, pointer ? 1 : 0, &val);
                if (rc != PMIX_SUCCESS) die("PMIx_Get (peer key)", rc);
                if (val->type != PMIX_STRING || strcmp(val->data.string, want[i][k]) != 0) {
                    fprintf(stderr, "bench-scenario: wrong value for %s of rank %u\n", keys[k],
                            peers[i].rank);
                    exit(1);
                }
                if (!pointer) PMIX_VALUE_RELEASE(val); /* pointer mode: owned by the library */
                ++calls;
            }
        }
    }
    double per = calls > 0 ? (now_us() - t0) / (double)calls : 0.0;
    free(want);
    free(peers);
    PMIX_INFO_DESTRUCT(&info);
    return per;
}

static double get_job_key(const pmix_proc_t* me, uint32_t nprocs, int times) {
    pmix_proc_t wild;
    PMIX_PROC_LOAD(&wild, me->nspace, PMIX_RANK_WILDCARD);
    double t0 = now_us();
    for (int i = 0; i < times; ++i) {
        pmix_value_t* val = NULL;
        pmix_status_t rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
        if (rc != PMIX_SUCCESS) die("PMIx_Get (PMIX_JOB_SIZE)", rc);
        if (val->type != PMIX_UINT32 || val->data.uint32 != nprocs) {
            fprintf(stderr, "bench-scenario: wrong PMIX_JOB_SIZE\n");
            exit(1);
        }
        PMIX_VALUE_RELEASE(val);
    }
    return (now_us() - t0) / (double)times;
}

/* Gets `key` of `peer` and checks it against the text that rank put in loop iteration i. */
static void get_loop_key(const pmix_proc_t* peer, const char* key, int i) {
    char want[80];
    pmix_value_t* got = NULL;
    pmix_status_t rc = PMIx_Get(peer, key, NULL, 0, &got);
    if (rc != PMIX_SUCCESS) die("PMIx_Get (loop)", rc);
    value_text(want, sizeof want, peer->rank, 100 + i);
    if (got->type != PMIX_STRING || strcmp(got->data.string, want) != 0) {
        fprintf(stderr, "bench-scenario: wrong value for %s of rank %u\n", key, peer->rank);
        exit(1);
    }
    PMIX_VALUE_RELEASE(got);
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct loop_times {
    double per_loop;            /* us per Put + Commit + Fence(data) + first Get */
    double get_first, get_warm; /* medians over the iterations */
    double commit;              /* median of the loop's Commits (not the job's first one) */
};

/* loops x (Put a new key, Commit, Fence with data, Get the next rank's new key), then that Get
 * again (warm, not part of the loop's time). */
static struct loop_times fence_loop(const pmix_proc_t* me, uint32_t nprocs, int loops) {
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_proc_t next;
    PMIX_PROC_LOAD(&next, me->nspace, (me->rank + 1) % (nprocs > 0 ? nprocs : 1));
    static double first[MAX_LOOPS], warm[MAX_LOOPS], commits[MAX_LOOPS];
    double warm_total = 0, t0 = now_us();
    for (int i = 0; i < loops; ++i) {
        char key[PMIX_MAX_KEYLEN + 1], text[80];
        snprintf(key, sizeof key, "bench.loop.%d", i);
        value_text(text, sizeof text, me->rank, 100 + i);
        pmix_value_t v;
        PMIX_VALUE_LOAD(&v, text, PMIX_STRING);
        pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
        PMIX_VALUE_DESTRUCT(&v);
        if (rc != PMIX_SUCCESS) die("PMIx_Put (loop)", rc);
        double t_commit = now_us();
        if ((rc = PMIx_Commit()) != PMIX_SUCCESS) die("PMIx_Commit (loop)", rc);
        commits[i] = now_us() - t_commit;
        if ((rc = PMIx_Fence(NULL, 0, &collect, 1)) != PMIX_SUCCESS) die("PMIx_Fence (loop)", rc);
        double t = now_us();
        get_loop_key(&next, key, i);
        double t_mid = now_us();
        get_loop_key(&next, key, i);
        double t_end = now_us();
        first[i] = t_mid - t;
        warm[i] = t_end - t_mid;
        warm_total += warm[i];
    }
    PMIX_INFO_DESTRUCT(&collect);
    struct loop_times out = {(now_us() - t0 - warm_total) / loops, median(first, loops),
                             median(warm, loops), median(commits, loops)};
    return out;
}

/* loops x (Fence with data, then the first Get of a key the next rank put before and this rank
 * has read already): median us. No data is fresh here, so this is what any Get right after a fence
 * pays for the waking up (caches and TLB refilled after the wait); "getfirst" minus this is the
 * share of the data being new. Measured at N = 16 on 2 vCPUs: 1.6 us here against 1.7 us for a
 * fresh key and 0.4 us warm. */
static double first_get_of_old_key(const pmix_proc_t* me, uint32_t nprocs, int loops) {
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_proc_t next;
    PMIX_PROC_LOAD(&next, me->nspace, (me->rank + 1) % (nprocs > 0 ? nprocs : 1));
    static double first[MAX_LOOPS];
    for (int i = 0; i < loops; ++i) {
        pmix_status_t rc = PMIx_Fence(NULL, 0, &collect, 1);
        if (rc != PMIX_SUCCESS) die("PMIx_Fence (old key)", rc);
        double t = now_us();
        get_loop_key(&next, "bench.loop.0", 0);
        first[i] = now_us() - t;
    }
    PMIX_INFO_DESTRUCT(&collect);
    return median(first, loops);
}

/* The peers' keys, copied then by pointer, about 4000 Gets each (as many rounds as that takes;
 * uncapped, the same rounds as before PEERS existed). */
static void peer_gets(const pmix_proc_t* me, uint32_t nprocs, long cap, double* copy,
                      double* pointer) {
    uint32_t count = nprocs > 1 ? nprocs - 1 : 1;
    if (cap > 0 && (uint32_t)cap < count) count = (uint32_t)cap;
    uint32_t basis = count + (nprocs > 1 ? 1 : 0);
    int rounds = (int)(4000 / (basis * NKEYS)) + 1;
    *copy = get_peers(me, nprocs, count, rounds, false);
    *pointer = get_peers(me, nprocs, count, rounds, true);
}

/* "BENCHLIB <path>": the libpmix this process mapped, from /proc/self/maps. */
static void print_library_path(void) {
    FILE* f = fopen("/proc/self/maps", "r");
    char line[4096];
    if (f == NULL) return;
    while (fgets(line, sizeof line, f) != NULL) {
        char* path = strchr(line, '/');
        if (path != NULL && strstr(path, "/libpmix.so") != NULL) {
            printf("BENCHLIB %s", path);
            break;
        }
    }
    fclose(f);
}

static uint32_t job_size(const pmix_proc_t* me) {
    pmix_proc_t wild;
    pmix_value_t* val = NULL;
    PMIX_PROC_LOAD(&wild, me->nspace, PMIX_RANK_WILDCARD);
    pmix_status_t rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val);
    if (rc != PMIX_SUCCESS || val->type != PMIX_UINT32) die("PMIx_Get (PMIX_JOB_SIZE)", rc);
    uint32_t n = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return n;
}

int main(int argc, char** argv) {
    int times = argc > 1 ? atoi(argv[1]) : 2000;
    if (times <= 0) times = 2000;
    int loops = argc > 2 ? atoi(argv[2]) : 50;
    if (loops <= 0 || loops > MAX_LOOPS) loops = 50;
    long peer_cap = argc > 3 ? atol(argv[3]) : -1;
    pmix_proc_t me;
    double t = now_us();
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    double t_init = now_us() - t;
    if (rc != PMIX_SUCCESS) die("PMIx_Init", rc);
    uint32_t nprocs = job_size(&me);
    if (me.rank == 0) print_library_path();

    t = now_us();
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) die("PMIx_Fence (sync)", rc);
    double t_sync = now_us() - t;

    t = now_us();
    put_keys(&me);
    double t_put = now_us() - t;
    t = now_us();
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS) die("PMIx_Commit", rc);
    double t_commit = now_us() - t;

    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) die("PMIx_Fence (align)", rc);
    t = now_us();
    if ((rc = PMIx_Fence(NULL, 0, &collect, 1)) != PMIX_SUCCESS) die("PMIx_Fence (collect)", rc);
    double t_fence = now_us() - t;
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) die("PMIx_Fence (align)", rc);
    PMIX_INFO_DESTRUCT(&collect);

    double t_job = get_job_key(&me, nprocs, times);
    double t_peer = 0, t_ptr = 0;
    peer_gets(&me, nprocs, peer_cap, &t_peer, &t_ptr);
    long pss = smaps_kb("Pss"), rss = smaps_kb("Rss");

    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) die("PMIx_Fence (align)", rc);
    t = now_us();
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) die("PMIx_Fence (barrier)", rc);
    double t_barrier = now_us() - t;
    if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) die("PMIx_Fence (align)", rc);
    struct loop_times loop = fence_loop(&me, nprocs, loops);
    double t_old = first_get_of_old_key(&me, nprocs, loops);

    t = now_us();
    if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS) die("PMIx_Finalize", rc);
    double t_fin = now_us() - t;

    printf(
        "BENCH rank=%u nprocs=%u init=%.1f sync=%.1f put=%.2f commit=%.1f fence=%.1f getjob=%.4f "
        "getpeer=%.4f getptr=%.4f barrier=%.1f fenceloop=%.1f getfirst=%.3f getwarm=%.3f "
        "getold=%.3f finalize=%.1f pss_kb=%ld rss_kb=%ld commitloop=%.2f\n",
        (unsigned)me.rank, (unsigned)nprocs, t_init, t_sync, t_put, t_commit, t_fence, t_job,
        t_peer, t_ptr, t_barrier, loop.per_loop, loop.get_first, loop.get_warm, t_old, t_fin, pss,
        rss, loop.commit);
    return 0;
}
