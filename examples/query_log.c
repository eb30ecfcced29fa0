/* query_log: asks the host (through PMIx_Query_info) which namespaces are running and how big the
 * job is, checks the answers against what PMIx_Init/Get said, then rank 0 sends a line to the
 * host's log with PMIx_Log. Exit 0 when the answers matched and the log call succeeded. */
#include <pmix.h>

#include <stdio.h>
#include <string.h>

static int check_answers(const pmix_proc_t* me, pmix_info_t* res, size_t nres, uint32_t size) {
    int saw_ns = 0, saw_size = 0;
    size_t i;
    for (i = 0; i < nres; i++) {
        if (0 == strcmp(res[i].key, PMIX_QUERY_NAMESPACES) && PMIX_STRING == res[i].value.type) {
            saw_ns = NULL != strstr(res[i].value.data.string, me->nspace);
            printf("query_log: rank %u: namespaces \"%s\"\n", me->rank, res[i].value.data.string);
        } else if (0 == strcmp(res[i].key, PMIX_JOB_SIZE) && PMIX_UINT32 == res[i].value.type) {
            saw_size = res[i].value.data.uint32 == size;
            printf("query_log: rank %u: job size %u\n", me->rank, res[i].value.data.uint32);
        }
    }
    return saw_ns && saw_size;
}

int main(void) {
    pmix_proc_t me, job;
    pmix_value_t* val = NULL;
    pmix_query_t* q = NULL;
    pmix_info_t *res = NULL, msg;
    size_t nres = 0;
    uint32_t size;
    pmix_status_t rc;
    int ok = 1;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "query_log: init failed\n");
        return 1;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val)) {
        fprintf(stderr, "query_log: no job size\n");
        return 1;
    }
    size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);

    PMIX_QUERY_CREATE(q, 2);
    PMIX_ARGV_APPEND(rc, q[0].keys, PMIX_QUERY_NAMESPACES);
    PMIX_ARGV_APPEND(rc, q[1].keys, PMIX_JOB_SIZE);
    PMIX_QUERY_QUALIFIERS_CREATE(&q[1], 1);
    PMIX_INFO_LOAD(&q[1].qualifiers[0], PMIX_NSPACE, me.nspace, PMIX_STRING);
    rc = PMIx_Query_info(q, 2, &res, &nres);
    if (PMIX_SUCCESS != rc || !check_answers(&me, res, nres, size)) {
        fprintf(stderr, "query_log: rank %u: query gave %s / wrong answers\n", me.rank,
                PMIx_Error_string(rc));
        ok = 0;
    }
    PMIX_INFO_FREE(res, nres);
    PMIX_QUERY_FREE(q, 2);

    if (0 == me.rank) {
        PMIX_INFO_LOAD(&msg, PMIX_LOG_MSG, "query_log says hello to the host", PMIX_STRING);
        rc = PMIx_Log(&msg, 1, NULL, 0);
        PMIX_INFO_DESTRUCT(&msg);
        printf("query_log: rank 0: PMIx_Log: %s\n", PMIx_Error_string(rc));
        ok &= PMIX_SUCCESS == rc;
    }
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}
