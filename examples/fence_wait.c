/* fence_wait SECONDS [RANK]: RANK (default 0) sleeps SECONDS before the Fence, the others enter it
 * at once and print what it returned. For tests that break something (kill a node's daemon) while
 * ranks wait in a fence: they must get an error, never hang. Exit 0 when the fence succeeded. */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
    pmix_proc_t me;
    pmix_status_t rc;
    int wait = argc > 1 ? atoi(argv[1]) : 0;
    pmix_rank_t sleeper = argc > 2 ? (pmix_rank_t)atoi(argv[2]) : 0;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "fence_wait: init failed\n");
        return 1;
    }
    if (sleeper == me.rank && wait > 0) {
        sleep((unsigned)wait);
    }
    printf("fence_wait: rank %u enters the fence\n", me.rank);
    fflush(stdout);
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    printf("fence_wait: rank %u: fence returned %s\n", me.rank, PMIx_Error_string(rc));
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return PMIX_SUCCESS == rc ? 0 : 1;
}
