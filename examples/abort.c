/* abort: the last rank calls PMIx_Abort(3) while the others wait in a fence that can never
 * complete. The launcher must kill the whole job and exit with status 3. */
#include <pmix.h>

#include <stdio.h>
#include <unistd.h>

int main(void) {
    pmix_proc_t me, job;
    pmix_value_t* val = NULL;
    uint32_t size = 1;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "abort: init failed\n");
        return 1;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val) && NULL != val) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    if (me.rank == size - 1) {
        printf("abort: rank %u calls PMIx_Abort(3)\n", me.rank);
        fflush(stdout);
        PMIx_Abort(3, "abort example: giving up on purpose", NULL, 0);
        /* The host may let Abort return before it kills us; wait to be killed. */
        for (;;) {
            pause();
        }
    }
    printf("abort: rank %u waits in a fence\n", me.rank);
    fflush(stdout);
    PMIx_Fence(NULL, 0, NULL, 0);
    printf("abort: rank %u: fence returned\n", me.rank);
    PMIx_Finalize(NULL, 0);
    return 0;
}
