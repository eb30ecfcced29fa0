/* killed: while the others wait in a fence, rank 1 SIGKILLs itself before contributing. Every
 * other rank must get an error from its Fence instead of hanging; each prints whether it did.
 * Needs >= 2 ranks. Exit 0 on a rank that saw the error (the job still fails: rank 1 died). */
#include <pmix.h>

#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
    pmix_proc_t me;
    pmix_status_t rc;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "killed: init failed\n");
        return 1;
    }
    /* a first fence that everybody completes: from here on all ranks are up and connected */
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "killed: rank %u: first fence failed: %s\n", me.rank,
                PMIx_Error_string(rc));
        return 1;
    }
    if (1 == me.rank) {
        /* let the others block in the fence, then die without a trace (a contribution already
         * sent would let the fence complete, so rank 1 never sends one) */
        usleep(200 * 1000);
        printf("killed: rank 1 kills itself while the others wait in the fence\n");
        fflush(stdout);
        raise(SIGKILL);
    }
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    if (PMIX_SUCCESS == rc) {
        printf("killed: rank %u: fence unexpectedly succeeded\n", me.rank);
        return 1;
    }
    printf("killed: rank %u: fence failed as expected: %s\n", me.rank, PMIx_Error_string(rc));
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}
