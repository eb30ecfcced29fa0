/* jobctl_kill: rank 0 asks the host, through PMIx_Job_control with PMIX_JOB_CTRL_KILL, to kill the
 * last rank, which meanwhile sleeps (60 s at most). On several nodes the request must reach the
 * node the last rank runs on. The job then fails with that rank killed by SIGKILL. */
#include <pmix.h>

#include <stdio.h>
#include <unistd.h>

int main(void) {
    pmix_proc_t me, job, target;
    pmix_value_t* size = NULL;
    pmix_info_t kill;
    pmix_status_t rc;
    bool yes = true;
    uint32_t n;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "jobctl_kill: init failed\n");
        return 1;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &size) || NULL == size) {
        fprintf(stderr, "jobctl_kill: no job size\n");
        return 1;
    }
    n = size->data.uint32;
    PMIX_VALUE_RELEASE(size);
    if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, NULL, 0)) { /* everybody is up */
        fprintf(stderr, "jobctl_kill: rank %u: fence failed\n", me.rank);
        return 1;
    }
    if (0 == me.rank) {
        PMIX_LOAD_PROCID(&target, me.nspace, n - 1);
        PMIX_INFO_LOAD(&kill, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
        rc = PMIx_Job_control(&target, 1, &kill, 1, NULL, NULL);
        printf("jobctl_kill: rank 0 asked to kill rank %u: %s\n", n - 1, PMIx_Error_string(rc));
        fflush(stdout);
    }
    if (n - 1 == me.rank) {
        sleep(60);
        printf("jobctl_kill: rank %u was not killed\n", me.rank);
        return 1;
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
