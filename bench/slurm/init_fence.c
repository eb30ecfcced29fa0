/* bench/slurm/init_fence.c - a PMIx client's start-up under `srun --mpi=pmix`: each rank times
 * PMIx_Init and one collecting fence (PMIX_COLLECT_DATA, after a Put and Commit of 64 bytes),
 * checks a peer's value and prints
 *   SLURMBENCH rank=R size=N init_us=T fence_us=F fence_in=A fence_out=B
 * (A and B: CLOCK_MONOTONIC in us, one clock for every process of this machine, the simulated
 * nodes included, so that run.py can tell the fence's own cost from the wait for late ranks).
 * Built against Debian's OpenPMIx (RUNPATH pmix2/lib), so that the same binary runs on both
 * clusters of bench/slurm/run.py: in our cluster's nodes that path holds our library. */
#include <pmix.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(void) {
    pmix_proc_t me, peer;
    double t0 = now_us();
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) {
        fprintf(stderr, "init_fence: PMIx_Init failed\n");
        return 1;
    }
    double init_us = now_us() - t0;
    pmix_value_t* v = NULL;
    PMIX_LOAD_PROCID(&peer, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Get(&peer, PMIX_JOB_SIZE, NULL, 0, &v) != PMIX_SUCCESS) return 1;
    uint32_t size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    char blob[64];
    memset(blob, 'a' + (int)(me.rank % 26), sizeof blob - 1);
    blob[sizeof blob - 1] = '\0';
    pmix_value_t put;
    PMIX_VALUE_LOAD(&put, blob, PMIX_STRING);
    PMIx_Put(PMIX_GLOBAL, "bench.blob", &put);
    PMIX_VALUE_DESTRUCT(&put);
    PMIx_Commit();
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    t0 = now_us();
    pmix_status_t rc = PMIx_Fence(NULL, 0, &collect, 1);
    double t1 = now_us(), fence_us = t1 - t0;
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
    int ok = rc == PMIX_SUCCESS && PMIx_Get(&peer, "bench.blob", NULL, 0, &v) == PMIX_SUCCESS &&
             v->data.string[0] == 'a' + (int)(peer.rank % 26);
    if (!ok) {
        fprintf(stderr, "init_fence: rank %u: fence or peer value failed\n", me.rank);
        PMIx_Finalize(NULL, 0);
        return 1;
    }
    PMIX_VALUE_RELEASE(v);
    printf("SLURMBENCH rank=%u size=%u init_us=%.1f fence_us=%.1f fence_in=%.1f fence_out=%.1f\n",
           me.rank, size, init_us, fence_us, t0, t1);
    PMIx_Finalize(NULL, 0);
    return 0;
}
