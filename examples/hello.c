/* hello: the smallest PMIx program. Init, read the job size the launcher registered, Finalize.
 * Usage: hello [expected_size]  (checks the size when given). Exit 0 on success. */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    pmix_proc_t me, job;
    pmix_value_t* val = NULL;
    pmix_status_t rc;
    uint32_t size;
    int ok = 1;

    rc = PMIx_Init(&me, NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "hello: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    /* job-level keys are read with the wildcard rank */
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || NULL == val || PMIX_UINT32 != val->type) {
        fprintf(stderr, "hello: rank %u: PMIx_Get(PMIX_JOB_SIZE) failed: %s\n", me.rank,
                PMIx_Error_string(rc));
        ok = 0;
    } else {
        size = val->data.uint32;
        printf("hello from rank %u of %u (namespace %s)\n", me.rank, size, me.nspace);
        if (argc > 1 && (uint32_t)strtoul(argv[1], NULL, 10) != size) {
            fprintf(stderr, "hello: rank %u: job size %u, expected %s\n", me.rank, size, argv[1]);
            ok = 0;
        }
        if (me.rank >= size) {
            fprintf(stderr, "hello: rank %u is not below the job size %u\n", me.rank, size);
            ok = 0;
        }
    }
    if (NULL != val) {
        PMIX_VALUE_RELEASE(val);
    }
    rc = PMIx_Finalize(NULL, 0);
    if (PMIX_SUCCESS != rc) {
        fprintf(stderr, "hello: PMIx_Finalize failed: %s\n", PMIx_Error_string(rc));
        ok = 0;
    }
    return ok ? 0 : 1;
}
