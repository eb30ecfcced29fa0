/* fault_client ROUNDS BYTES FENCE_TIMEOUT OUTDIR: a rank that loops Put/Commit/Fence/Get, for
 * tests that break something in the middle of a job (tests/faults/run_fault.sh).
 *   ROUNDS         rounds of: Put "fc.<round>" (BYTES bytes), Commit, Fence (collecting data,
 *                  with PMIX_TIMEOUT = FENCE_TIMEOUT s when > 0), Get the next rank's key
 *   OUTDIR         each rank appends its lines to OUTDIR/rank.<r> ("-": stdout); a file, because
 *                  a killed launcher takes the ranks' stdout pipes with it
 * Environment: FAULT_PAUSE_MS pause between rounds (spreads a kill over many points);
 * FAULT_STOP_RANK this rank raises SIGSTOP just before its first fence (a stopped member);
 * FAULT_START_DELAY_MS each rank waits this long before PMIx_Init;
 * FAULT_HOLD_MS a rank whose round failed waits this long before it finalizes;
 * FAULT_TRUNCATE_BOARD this rank (hostile) truncates its namespace's fence board (the segment
 * PMIX_CPP_FENCE_BOARD names) to 0 bytes before its first fence, then waits FAULT_HOLD_MS and
 * exits 3 without fencing.
 * Every failing call prints "rank R round K OP: STATUS (code)" and the rank finalizes and exits
 * 1; "rank R done" and exit 0 when every round succeeded. */
#include <pmix.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static FILE* out;
static pmix_proc_t me;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int report(int round, const char* op, pmix_status_t rc) {
    fprintf(out, "rank %u round %d %s: %s (%d)\n", me.rank, round, op, PMIx_Error_string(rc), rc);
    fflush(out);
    return rc == PMIX_SUCCESS;
}

static uint32_t job_size(void) {
    pmix_proc_t job;
    pmix_value_t* val = NULL;
    uint32_t size = 0;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val) && NULL != val) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    return size;
}

static int put_commit(int round, size_t bytes, char* buf) {
    char key[32];
    pmix_value_t v;
    pmix_status_t rc;
    snprintf(key, sizeof key, "fc.%d", round);
    memset(buf, 'a' + (int)((me.rank + (uint32_t)round) % 26u), bytes);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = buf;
    v.data.bo.size = bytes;
    rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    if (PMIX_SUCCESS != rc) return report(round, "put", rc);
    rc = PMIx_Commit();
    return PMIX_SUCCESS == rc || report(round, "commit", rc);
}

static int fence(int round, int timeout) {
    pmix_info_t info[2];
    size_t ninfo = 1;
    pmix_status_t rc;
    double start = now_s();
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, NULL, PMIX_BOOL);
    if (timeout > 0) PMIX_INFO_LOAD(&info[ninfo++], PMIX_TIMEOUT, &timeout, PMIX_INT);
    rc = PMIx_Fence(NULL, 0, info, ninfo);
    if (PMIX_SUCCESS == rc) return 1;
    fprintf(out, "rank %u round %d fence after %.1f s\n", me.rank, round, now_s() - start);
    return report(round, "fence", rc);
}

static int get_next(int round, uint32_t size, size_t bytes) {
    char key[32];
    pmix_proc_t peer;
    pmix_value_t* val = NULL;
    pmix_status_t rc;
    pmix_rank_t next = (me.rank + 1u) % size;
    snprintf(key, sizeof key, "fc.%d", round);
    PMIX_LOAD_PROCID(&peer, me.nspace, next);
    rc = PMIx_Get(&peer, key, NULL, 0, &val);
    if (PMIX_SUCCESS != rc) return report(round, "get", rc);
    if (NULL == val || PMIX_BYTE_OBJECT != val->type || val->data.bo.size != bytes ||
        (bytes > 0 && val->data.bo.bytes[0] != 'a' + (int)((next + (uint32_t)round) % 26u))) {
        fprintf(out, "rank %u round %d get: wrong value from rank %u\n", me.rank, round, next);
        fflush(out);
        rc = PMIX_ERROR;
    }
    if (NULL != val) PMIX_VALUE_RELEASE(val);
    return PMIX_SUCCESS == rc;
}

/* The hostile rank: the others may be waiting on the board already. */
static void truncate_board(void) {
    const char* board = getenv("PMIX_CPP_FENCE_BOARD");
    const char* hold = getenv("FAULT_HOLD_MS");
    int fd = -1;
    if (NULL != board) {
        fd = 0 == strncmp(board, "/proc/", 6) ? open(board, O_RDWR) : shm_open(board, O_RDWR, 0);
    }
    usleep(300 * 1000);
    if (fd < 0) {
        fprintf(out, "rank %u cannot open board %s: %s\n", me.rank, board ? board : "(none)",
                strerror(errno));
    } else if (0 == ftruncate(fd, 0)) {
        fprintf(out, "rank %u truncates board %s: done\n", me.rank, board);
    } else {
        fprintf(out, "rank %u truncates board %s: refused (%s)\n", me.rank, board, strerror(errno));
    }
    fflush(out);
    if (fd >= 0) close(fd);
    if (hold != NULL) usleep((useconds_t)atoi(hold) * 1000);
    _exit(3);
}

static int run(int rounds, size_t bytes, int timeout) {
    const char* pause_env = getenv("FAULT_PAUSE_MS");
    const char* stop_env = getenv("FAULT_STOP_RANK");
    long pause_ms = pause_env ? strtol(pause_env, NULL, 10) : 0;
    uint32_t size = job_size();
    char* buf = malloc(bytes > 0 ? bytes : 1);
    int ok = size > 0 && buf != NULL;
    if (!ok) fprintf(out, "rank %u: no job size or no memory\n", me.rank);
    for (int round = 0; ok && round < rounds; ++round) {
        ok = put_commit(round, bytes, buf);
        if (ok && round == 0 && getenv("FAULT_TRUNCATE_BOARD") != NULL &&
            (pmix_rank_t)atoi(getenv("FAULT_TRUNCATE_BOARD")) == me.rank) {
            truncate_board();
        }
        if (ok && round == 0 && stop_env != NULL && (pmix_rank_t)atoi(stop_env) == me.rank) {
            fprintf(out, "rank %u pid %d stops before its fence\n", me.rank, (int)getpid());
            fflush(out);
            raise(SIGSTOP);
            fprintf(out, "rank %u continued\n", me.rank);
            fflush(out);
        }
        ok = ok && fence(round, timeout) && get_next(round, size, bytes);
        if (ok && pause_ms > 0) usleep((useconds_t)(pause_ms * 1000));
    }
    free(buf);
    return ok;
}

int main(int argc, char** argv) {
    pmix_status_t rc;
    int ok;
    if (argc != 5) {
        fprintf(stderr, "usage: fault_client ROUNDS BYTES FENCE_TIMEOUT OUTDIR\n");
        return 2;
    }
    if (getenv("FAULT_START_DELAY_MS") != NULL)  /* connect after the launcher started all */
        usleep((useconds_t)atoi(getenv("FAULT_START_DELAY_MS")) * 1000);
    rc = PMIx_Init(&me, NULL, 0);
    if (0 == strcmp(argv[4], "-")) {
        out = stdout;
    } else {
        char path[4096];
        if (PMIX_SUCCESS == rc) snprintf(path, sizeof path, "%s/rank.%u", argv[4], me.rank);
        else snprintf(path, sizeof path, "%s/noinit.%d", argv[4], (int)getpid());
        out = fopen(path, "a");
        if (NULL == out) out = stderr;
    }
    if (PMIX_SUCCESS != rc) {
        fprintf(out, "pid %d init: %s (%d)\n", (int)getpid(), PMIx_Error_string(rc), rc);
        return 1;
    }
    ok = run(atoi(argv[1]), (size_t)strtoull(argv[2], NULL, 10), atoi(argv[3]));
    if (ok) fprintf(out, "rank %u done\n", me.rank);
    if (!ok && getenv("FAULT_HOLD_MS") != NULL)
        usleep((useconds_t)atoi(getenv("FAULT_HOLD_MS")) * 1000);
    rc = PMIx_Finalize(NULL, 0);
    fprintf(out, "rank %u finalize: %s (%d)\n", me.rank, PMIx_Error_string(rc), rc);
    fclose(out);
    return ok ? 0 : 1;
}
