/* putget: every rank Puts two keys (a string and a number), Commits, joins a collecting Fence and
 * then Gets both keys of every peer, checking the values. Exit 0 when every value matched. */
#include <pmix.h>

#include <stdio.h>
#include <string.h>

static int get_job_size(const pmix_proc_t* me, uint32_t* size) {
    pmix_proc_t job;
    pmix_value_t* val = NULL;
    PMIX_LOAD_PROCID(&job, me->nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS != PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val) || NULL == val) {
        return 0;
    }
    *size = val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    return 1;
}

static int check_peer(const pmix_proc_t* me, pmix_rank_t r) {
    pmix_proc_t peer;
    pmix_value_t* val = NULL;
    char want[64];
    int ok = 1;

    PMIX_LOAD_PROCID(&peer, me->nspace, r);
    snprintf(want, sizeof(want), "value-from-rank-%u", r);
    if (PMIX_SUCCESS != PMIx_Get(&peer, "putget.str", NULL, 0, &val) || NULL == val ||
        PMIX_STRING != val->type || 0 != strcmp(val->data.string, want)) {
        fprintf(stderr, "putget: rank %u: bad putget.str from rank %u\n", me->rank, r);
        ok = 0;
    }
    if (NULL != val) {
        PMIX_VALUE_RELEASE(val);
    }
    if (PMIX_SUCCESS != PMIx_Get(&peer, "putget.num", NULL, 0, &val) || NULL == val ||
        PMIX_UINT64 != val->type || val->data.uint64 != 1000u + r) {
        fprintf(stderr, "putget: rank %u: bad putget.num from rank %u\n", me->rank, r);
        ok = 0;
    }
    if (NULL != val) {
        PMIX_VALUE_RELEASE(val);
    }
    return ok;
}

int main(void) {
    pmix_proc_t me;
    pmix_value_t v;
    pmix_info_t collect;
    bool yes = true;
    uint64_t num;
    uint32_t size = 0, r, good = 0;
    char str[64];

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0) || !get_job_size(&me, &size)) {
        fprintf(stderr, "putget: init or job size failed\n");
        return 1;
    }
    snprintf(str, sizeof(str), "value-from-rank-%u", me.rank);
    num = 1000u + me.rank;
    PMIX_VALUE_LOAD(&v, str, PMIX_STRING);
    PMIx_Put(PMIX_GLOBAL, "putget.str", &v);
    PMIX_VALUE_DESTRUCT(&v);
    PMIX_VALUE_LOAD(&v, &num, PMIX_UINT64);
    PMIx_Put(PMIX_GLOBAL, "putget.num", &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (PMIX_SUCCESS != PMIx_Commit()) {
        fprintf(stderr, "putget: rank %u: commit failed\n", me.rank);
        return 1;
    }
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != PMIx_Fence(NULL, 0, &collect, 1)) {
        fprintf(stderr, "putget: rank %u: fence failed\n", me.rank);
        return 1;
    }
    for (r = 0; r < size; r++) {
        good += (uint32_t)check_peer(&me, r);
    }
    printf("putget: rank %u checked 2 keys of %u/%u ranks\n", me.rank, good, size);
    PMIx_Finalize(NULL, 0);
    return good == size ? 0 : 1;
}
