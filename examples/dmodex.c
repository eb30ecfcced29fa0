/* dmodex: every rank Puts a key and Commits, then joins a Fence that collects nothing, so no
 * rank holds its peers' data afterwards. Each then Gets the key of the rank half the job away
 * (on another node when the ranks are spread over nodes) and of the last rank: the server must
 * fetch it from the owner's server (direct modex). Exit 0 when every value matched. */
#include <pmix.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int check(const pmix_proc_t* me, pmix_rank_t r) {
    pmix_proc_t peer;
    pmix_value_t* val = NULL;
    char want[64];
    pmix_status_t rc;
    int ok;

    PMIX_LOAD_PROCID(&peer, me->nspace, r);
    snprintf(want, sizeof(want), "dmodex-value-of-%u", r);
    rc = PMIx_Get(&peer, "dmodex.key", NULL, 0, &val);
    ok = PMIX_SUCCESS == rc && NULL != val && PMIX_STRING == val->type &&
         0 == strcmp(val->data.string, want);
    if (!ok) {
        fprintf(stderr, "dmodex: rank %u: key of rank %u: %s\n", me->rank, r,
                PMIX_SUCCESS == rc ? "wrong value" : PMIx_Error_string(rc));
    }
    if (NULL != val) {
        PMIX_VALUE_RELEASE(val);
    }
    return ok;
}

int main(void) {
    pmix_proc_t me, job;
    pmix_value_t v, *size = NULL;
    pmix_info_t collect;
    bool yes = true;
    char str[64];
    uint32_t n;
    int ok;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "dmodex: init failed\n");
        return 1;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &size) || NULL == size) {
        fprintf(stderr, "dmodex: no job size\n");
        return 1;
    }
    n = size->data.uint32;
    PMIX_VALUE_RELEASE(size);
    snprintf(str, sizeof(str), "dmodex-value-of-%u", me.rank);
    PMIX_VALUE_LOAD(&v, str, PMIX_STRING);
    PMIx_Put(PMIX_GLOBAL, "dmodex.key", &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (PMIX_SUCCESS != PMIx_Commit() || PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) {
        fprintf(stderr, "dmodex: rank %u: commit or fence failed\n", me.rank);
        return 1;
    }
    ok = check(&me, (me.rank + n / 2) % n) && check(&me, n - 1);
    printf("dmodex: rank %u read ranks %u and %u by direct modex: %s\n", me.rank,
           (me.rank + n / 2) % n, n - 1, ok ? "OK" : "FAILED");
    /* Nobody leaves before everyone has read: a direct-modex request must reach the owner's
     * server while it still runs. The barrier collects data because Slurm's plugin (22.05)
     * completes a fence that collects nothing on each node without waiting for the others
     * (slurmd debug log: the node alone on n1 finished its step while the three ranks of n0
     * still asked it for rank 3's data; their requests met a closed connection and waited
     * forever, on OpenPMIx as on ours). */
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    PMIx_Fence(NULL, 0, &collect, 1);
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}
