/* fence_subset: ranks split into evens and odds; each group runs a collecting Fence over its own
 * members only, then reads every group member's key. A final Fence joins everybody. Needs >= 2
 * ranks. Exit 0 when every group member's value was right. */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>

int main(void) {
    pmix_proc_t me, job, *group;
    pmix_value_t v, *val = NULL;
    pmix_info_t collect;
    bool yes = true;
    uint32_t size, r, n = 0, good = 0;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "fence_subset: init failed\n");
        return 1;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val)) {
        fprintf(stderr, "fence_subset: no job size\n");
        return 1;
    }
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    group = calloc(size, sizeof(*group));
    for (r = me.rank % 2; r < size; r += 2) {
        PMIX_LOAD_PROCID(&group[n], me.nspace, r);
        n++;
    }
    r = me.rank * 3 + 1;
    PMIX_VALUE_LOAD(&v, &r, PMIX_UINT32);
    PMIx_Put(PMIX_GLOBAL, "subset.val", &v);
    PMIx_Commit();
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != PMIx_Fence(group, n, &collect, 1)) {
        fprintf(stderr, "fence_subset: rank %u: subset fence failed\n", me.rank);
        return 1;
    }
    for (r = 0; r < n; r++) {
        val = NULL;
        if (PMIX_SUCCESS == PMIx_Get(&group[r], "subset.val", NULL, 0, &val) && NULL != val &&
            PMIX_UINT32 == val->type && val->data.uint32 == group[r].rank * 3 + 1) {
            good++;
        } else {
            fprintf(stderr, "fence_subset: rank %u: bad value from rank %u\n", me.rank,
                    group[r].rank);
        }
        if (NULL != val) {
            PMIX_VALUE_RELEASE(val);
        }
    }
    printf("fence_subset: rank %u fenced with %u %s ranks, %u values OK\n", me.rank, n,
           me.rank % 2 ? "odd" : "even", good);
    if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) {
        fprintf(stderr, "fence_subset: rank %u: full fence failed\n", me.rank);
        good = 0;
    }
    free(group);
    PMIx_Finalize(NULL, 0);
    return good == n ? 0 : 1;
}
