/* segment_client MODE: two ranks (pmixrun -n 2) that check what a peer reads of rank 0's data
 * when rank 0's own modex segment (gds/proc_segment.h) stops being the place its commits go.
 * Rank 0's segment comes with its second commit (client/commit_segment.cpp): each case commits
 * twice before the part it tests.
 *   failed_write  rank 0 commits "v1" and "v1b", then, with RLIMIT_FSIZE below the size the segment's next
 *                 chained memfd needs (SIGXFSZ ignored: ftruncate fails with EFBIG), commits "v2"
 *                 and a 200 KiB value: the segment write fails, the commit must still succeed
 *                 and rank 1 must read "v2" and the whole large value after the fence, then "v3"
 *                 after one more round (later commits go to the server).
 *   reinit        rank 0 commits "a" (in its segment), both fence and rank 1 reads "a"; rank 0 finalizes,
 *                 initialises again and commits "b"; after the next fence rank 1 must read "b",
 *                 not the "a" its attached copy of rank 0's old segment holds.
 *   get_nb        50 rounds: rank 0 commits a new value of "seg.k" and a new key "seg.n<round>";
 *                 after each fence rank 1 reads both with PMIx_Get_nb, which the server answers:
 *                 the server must have them although rank 0's commit messages may still wait in
 *                 rank 0 (client/commit_segment.cpp): it reads rank 0's segment (server/own_segments.h).
 * Prints "rank R ok" and exits 0, or "rank R FAIL: ..." and exits 1. */
#include <pmix.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define BIG_BYTES (200 * 1024)

static pmix_proc_t me;

static int fail(const char* what, pmix_status_t rc) {
    printf("rank %u FAIL: %s: %s (%d)\n", me.rank, what, PMIx_Error_string(rc), rc);
    fflush(stdout);
    return 1;
}

static pmix_status_t put_string(const char* key, const char* s) {
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, s, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    return rc;
}

static pmix_status_t fence_all(void) {
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(NULL, 0, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* 0 when rank 0's `key` reads as `want` (compared over `len` bytes, or as a string if len is 0). */
static int expect_peer(const char* key, const char* want, size_t len) {
    pmix_proc_t peer;
    pmix_value_t* v = NULL;
    PMIX_LOAD_PROCID(&peer, me.nspace, 0);
    pmix_status_t rc = PMIx_Get(&peer, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v == NULL) return fail(key, rc);
    int bad = v->type != PMIX_STRING || v->data.string == NULL ||
              (len == 0 ? strcmp(v->data.string, want) != 0
                        : strlen(v->data.string) != len || memcmp(v->data.string, want, len) != 0);
    if (bad) {
        printf("rank %u FAIL: %s reads \"%.20s\", expected \"%.20s\"\n", me.rank, key,
               v->type == PMIX_STRING && v->data.string ? v->data.string : "(not a string)", want);
    }
    PMIX_VALUE_RELEASE(v);
    return bad;
}

/* One round: rank 0 puts `value` under "seg.k" (and `big`, when given, under "seg.big"),
 * everyone commits and fences, rank 1 checks what it reads. */
static int round_of(const char* value, const char* big) {
    pmix_status_t rc = PMIX_SUCCESS;
    if (me.rank == 0) {
        rc = put_string("seg.k", value);
        if (rc == PMIX_SUCCESS && big != NULL) rc = put_string("seg.big", big);
        if (rc != PMIX_SUCCESS) return fail("put", rc);
    }
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS) return fail("commit", rc);
    if ((rc = fence_all()) != PMIX_SUCCESS) return fail("fence", rc);
    int bad = 0;
    if (me.rank == 1) {
        bad = expect_peer("seg.k", value, 0);
        if (!bad && big != NULL) bad = expect_peer("seg.big", big, strlen(big));
    }
    /* Rank 0 may not commit the next round's value before rank 1 has read this one. */
    if (!bad && (rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) return fail("barrier", rc);
    return bad;
}

static int failed_write(void) {
    char* big = malloc(BIG_BYTES + 1);
    if (big == NULL) return fail("malloc", PMIX_ERR_NOMEM);
    for (size_t i = 0; i < BIG_BYTES; ++i) big[i] = (char)('a' + i % 23);
    big[BIG_BYTES] = '\0';
    int bad = round_of("v1", NULL);
    if (!bad) bad = round_of("v1b", NULL);
    struct rlimit saved;
    getrlimit(RLIMIT_FSIZE, &saved);
    if (!bad && me.rank == 0) {
        /* The first segment is 64 KiB; the next one must hold 200 KiB: refused. */
        struct rlimit small = {128 * 1024, saved.rlim_max};
        signal(SIGXFSZ, SIG_IGN);
        if (setrlimit(RLIMIT_FSIZE, &small) != 0) bad = fail("setrlimit", PMIX_ERROR);
    }
    if (!bad) bad = round_of("v2", big);
    if (me.rank == 0) setrlimit(RLIMIT_FSIZE, &saved);
    if (!bad) bad = round_of("v3", NULL);
    free(big);
    return bad;
}

static int reinit(void) {
    int bad = round_of("a0", NULL);
    if (!bad) bad = round_of("a1", NULL);
    if (!bad) bad = round_of("a", NULL);
    if (!bad && me.rank == 0) {
        pmix_status_t rc = PMIx_Finalize(NULL, 0);
        if (rc != PMIX_SUCCESS) return fail("finalize", rc);
        if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) return fail("init again", rc);
    }
    if (!bad) bad = round_of("b", NULL);
    if (!bad) bad = round_of("c", NULL);
    return bad;
}

struct nb_result {
    volatile int done;
    pmix_status_t status;
    char text[64];
};

static void got_nb(pmix_status_t status, pmix_value_t* v, void* cbdata) {
    struct nb_result* r = cbdata;
    r->status = status;
    if (status == PMIX_SUCCESS && v != NULL && v->type == PMIX_STRING && v->data.string != NULL) {
        snprintf(r->text, sizeof r->text, "%s", v->data.string);
    }
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
}

/* 0 when PMIx_Get_nb of rank 0's `key` answers `want` within 10 s. */
static int expect_peer_nb(const char* key, const char* want) {
    pmix_proc_t peer;
    struct nb_result r = {0, PMIX_ERROR, ""};
    PMIX_LOAD_PROCID(&peer, me.nspace, 0);
    pmix_status_t rc = PMIx_Get_nb(&peer, key, NULL, 0, got_nb, &r);
    if (rc != PMIX_SUCCESS) return fail("get_nb", rc);
    for (int i = 0; i < 10000 && !__atomic_load_n(&r.done, __ATOMIC_ACQUIRE); ++i) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    if (!__atomic_load_n(&r.done, __ATOMIC_ACQUIRE)) return fail(key, PMIX_ERR_TIMEOUT);
    if (r.status != PMIX_SUCCESS) return fail(key, r.status);
    if (strcmp(r.text, want) != 0) {
        printf("rank %u FAIL: %s reads \"%s\" (get_nb), expected \"%s\"\n", me.rank, key, r.text, want);
        return 1;
    }
    return 0;
}

static int get_nb(void) {
    int bad = 0;
    for (int round = 0; round < 50 && !bad; ++round) {
        char value[32], key[32];
        snprintf(value, sizeof value, "r%d", round);
        snprintf(key, sizeof key, "seg.n%d", round);
        pmix_status_t rc = PMIX_SUCCESS;
        if (me.rank == 0) {
            rc = put_string("seg.k", value);
            if (rc == PMIX_SUCCESS) rc = put_string(key, value);
            if (rc != PMIX_SUCCESS) return fail("put", rc);
        }
        if ((rc = PMIx_Commit()) != PMIX_SUCCESS) return fail("commit", rc);
        if ((rc = fence_all()) != PMIX_SUCCESS) return fail("fence", rc);
        if (me.rank == 1) {
            bad = expect_peer_nb("seg.k", value);
            if (!bad) bad = expect_peer_nb(key, value);
        }
        if (!bad && (rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) return fail("barrier", rc);
    }
    return bad;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: segment_client failed_write|reinit|get_nb\n");
        return 2;
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) return fail("init", rc);
    int bad = strcmp(argv[1], "failed_write") == 0 ? failed_write()
              : strcmp(argv[1], "reinit") == 0     ? reinit()
              : strcmp(argv[1], "get_nb") == 0     ? get_nb()
                                                   : fail("unknown mode", PMIX_ERR_BAD_PARAM);
    if (!bad) printf("rank %u ok\n", me.rank);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return bad;
}
