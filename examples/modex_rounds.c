/* examples/modex_rounds.c - randomized modex rounds: Put + Commit + collecting Fence, checked.
 *
 *   modex_rounds ROUNDS SEED [KEYS]
 *
 * Every rank derives the same pseudo-random plan from SEED: in each round some ranks Put new or
 * changed values (sizes 1..2000 bytes) of some of their KEYS (default 8) keys and every rank
 * commits; then either the whole namespace or a random subset of it fences with
 * PMIX_COLLECT_DATA. Each member then Gets every key of every other member and compares it with
 * the latest value the plan gave it (the data a full fence delivers), and the members fence
 * again without data so that nobody changes a value before everyone has checked.
 * With SEED 0 the plan is the fixed benchmark loop instead: every rank puts all KEYS keys of 64
 * bytes in round 0, then changes one key per round, whole-namespace fences only.
 * Prints "modex_rounds: rank R checked N values in ROUNDS rounds"; exits 1 at the first
 * mismatch. Public API only. */
#include <pmix.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEYS 32
#define MAX_VALUE 2000

static uint64_t mix(uint64_t x) { /* splitmix64: the same plan on every rank */
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static uint64_t draw(uint64_t seed, uint64_t round, uint64_t a, uint64_t b) {
    return mix(seed ^ mix(round ^ mix(a ^ mix(b))));
}

/* The value rank `r` holds for `key` as of `version` (the round it last put it). */
static size_t make_value(uint64_t seed, uint32_t r, int key, uint64_t version, char* out) {
    const size_t len =
        seed == 0 ? 64 : 1 + draw(seed, version, r, (uint64_t)key + 1000) % MAX_VALUE;
    for (size_t i = 0; i < len; ++i) out[i] = (char)('a' + draw(seed, version, r, key + i) % 26);
    return len;
}

/* Whether rank r puts `key` in `round` (every key in round 0). */
static int puts_key(uint64_t seed, uint64_t round, uint32_t r, int key, int nkeys) {
    if (round == 0) return 1;
    if (seed == 0) return key == (int)(round % (uint64_t)nkeys);
    return draw(seed, round, r, (uint64_t)key + 5000) % 4 == 0;
}

/* Whether rank r is in the round's fence; *whole: the whole namespace fences (NULL procs). */
static int member(uint64_t seed, uint64_t round, uint32_t r, int* whole) {
    *whole = seed == 0 || draw(seed, round, 7, 7) % 3 == 0;
    return *whole || draw(seed, round, r, 9) % 2 == 0 || r == round % 2;
}

/* The job's plan: the round each rank last put each key. */
struct plan {
    uint64_t seed;
    int nkeys;
    uint32_t n;
    uint64_t* version;
    char value[MAX_VALUE + 1];
};

/* Every rank's puts of this round into the plan; this rank's own into PMIx. */
static int put_round(struct plan* p, const pmix_proc_t* me, uint64_t round) {
    char key[32];
    for (uint32_t r = 0; r < p->n; ++r) {
        for (int k = 0; k < p->nkeys; ++k) {
            if (!puts_key(p->seed, round, r, k, p->nkeys)) continue;
            p->version[r * MAX_KEYS + k] = round;
            if (r != me->rank) continue;
            pmix_byte_object_t bo = {p->value, make_value(p->seed, r, k, round, p->value)};
            pmix_value_t val;
            PMIX_VALUE_LOAD(&val, &bo, PMIX_BYTE_OBJECT);
            snprintf(key, sizeof key, "mr.key%d", k);
            const pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
            PMIX_VALUE_DESTRUCT(&val);
            if (rc != PMIX_SUCCESS) return 0;
        }
    }
    return PMIx_Commit() == PMIX_SUCCESS;
}

/* Gets every key of the other members and compares it with the plan; counts into *checked. */
static int check_members(struct plan* p, const pmix_proc_t* me, const pmix_proc_t* procs, size_t np,
                         uint64_t round, unsigned long* checked) {
    char key[32];
    pmix_value_t* v = NULL;
    for (size_t i = 0; i < np; ++i) {
        const uint32_t r = procs[i].rank;
        if (r == me->rank) continue;
        for (int k = 0; k < p->nkeys; ++k) {
            const size_t len = make_value(p->seed, r, k, p->version[r * MAX_KEYS + k], p->value);
            snprintf(key, sizeof key, "mr.key%d", k);
            const int ok = PMIx_Get(&procs[i], key, NULL, 0, &v) == PMIX_SUCCESS &&
                           v->type == PMIX_BYTE_OBJECT && v->data.bo.size == len &&
                           memcmp(v->data.bo.bytes, p->value, len) == 0;
            if (v != NULL) PMIX_VALUE_RELEASE(v);
            v = NULL;
            if (!ok) {
                fprintf(stderr, "modex_rounds: rank %u round %lu: rank %u's %s is wrong\n",
                        me->rank, (unsigned long)round, r, key);
                return 0;
            }
            ++*checked;
        }
    }
    return 1;
}

/* One round: puts, then (members only) the collecting fence, the checks and the fence that
 * keeps everyone's values until all have checked. */
static int run_round(struct plan* p, const pmix_proc_t* me, pmix_proc_t* procs, uint64_t round,
                     unsigned long* checked) {
    if (!put_round(p, me, round)) return 0;
    int whole = 0;
    size_t np = 0;
    for (uint32_t r = 0; r < p->n; ++r) {
        if (!member(p->seed, round, r, &whole)) continue;
        PMIX_LOAD_PROCID(&procs[np], me->nspace, r); /* a macro: its arguments run twice */
        ++np;
    }
    if (!member(p->seed, round, me->rank, &whole)) return 1;
    bool collect = true;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    const pmix_status_t rc = PMIx_Fence(whole ? NULL : procs, whole ? 0 : np, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "modex_rounds: rank %u round %lu: fence %d\n", me->rank,
                (unsigned long)round, rc);
        return 0;
    }
    if (p->seed == 0) return 1;
    if (!check_members(p, me, procs, np, round, checked)) return 0;
    return PMIx_Fence(whole ? NULL : procs, whole ? 0 : np, NULL, 0) == PMIX_SUCCESS;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: modex_rounds ROUNDS SEED [KEYS]\n");
        return 2;
    }
    static struct plan p;
    const uint64_t rounds = strtoull(argv[1], NULL, 10);
    p.seed = strtoull(argv[2], NULL, 10);
    p.nkeys = argc > 3 ? atoi(argv[3]) : 8;
    if (p.nkeys < 1 || p.nkeys > MAX_KEYS) return 2;
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    pmix_value_t* v = NULL;
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS) return 1;
    p.n = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    p.version = calloc((size_t)p.n * MAX_KEYS, sizeof *p.version);
    pmix_proc_t* procs = calloc(p.n, sizeof *procs);
    if (p.version == NULL || procs == NULL) return 1;
    unsigned long checked = 0;
    for (uint64_t round = 0; round < rounds; ++round) {
        if (!run_round(&p, &me, procs, round, &checked)) return 1;
    }
    printf("modex_rounds: rank %u checked %lu values in %lu rounds\n", me.rank, checked,
           (unsigned long)rounds);
    free(p.version);
    free(procs);
    PMIx_Finalize(NULL, 0);
    return 0;
}
