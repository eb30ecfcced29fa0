/* qualified_all: PMIx_Get with key = NULL and a data qualifier returns every key of the node,
 * app or job the qualifier names (run by tests/data under pmixrun -n 2 on one node). OpenPMIx
 * 4.2.2 answers PMIX_ERR_BAD_PARAM to a NULL key for a non-process rank whatever the qualifiers;
 * we answer what its keyed Gets read. Prints one line per check and "qualified_all: ok" at the
 * end when every check held. */
#include <pmix.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(bool ok, const char* what) {
    printf("%s: %s\n", what, ok ? "yes" : "FAILED");
    if (!ok) ++failures;
}

/* The value of `key` among the infos of a PMIX_DATA_ARRAY answer, or NULL. */
static const pmix_value_t* find(const pmix_value_t* all, const char* key) {
    if (all == NULL || all->type != PMIX_DATA_ARRAY || all->data.darray == NULL ||
        all->data.darray->type != PMIX_INFO)
        return NULL;
    const pmix_info_t* info = (const pmix_info_t*)all->data.darray->array;
    for (size_t i = 0; i < all->data.darray->size; ++i)
        if (PMIX_CHECK_KEY(&info[i], key)) return &info[i].value;
    return NULL;
}

static bool is_u32(const pmix_value_t* v, uint32_t want) {
    return v != NULL && v->type == PMIX_UINT32 && v->data.uint32 == want;
}

/* PMIx_Get(job, NULL, {flag, id}) with id of `id_type` (NULL id: the flag alone). */
static pmix_status_t get_all(const char* flag, const char* id_key, const void* id,
                             pmix_data_type_t id_type, pmix_value_t** out) {
    pmix_proc_t job;
    pmix_info_t q[2];
    bool yes = true;
    size_t n = 1;
    PMIX_LOAD_PROCID(&job, NULL, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&q[0], flag, &yes, PMIX_BOOL);
    if (id_key != NULL) {
        PMIX_INFO_LOAD(&q[1], id_key, id, id_type);
        n = 2;
    }
    *out = NULL;
    pmix_status_t rc = PMIx_Get(&job, NULL, q, n, out);
    for (size_t i = 0; i < n; ++i) PMIX_INFO_DESTRUCT(&q[i]);
    return rc;
}

int main(void) {
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    pmix_value_t* all = NULL;
    uint32_t zero = 0, absent = 99;
    pmix_status_t rc = get_all(PMIX_NODE_INFO, PMIX_NODEID, &zero, PMIX_UINT32, &all);
    check(rc == PMIX_SUCCESS, "node 0: found");
    check(is_u32(find(all, PMIX_NODEID), 0), "node 0: its PMIX_NODEID is 0");
    check(find(all, PMIX_HOSTNAME) != NULL, "node 0: has PMIX_HOSTNAME");
    check(find(all, PMIX_LOCAL_SIZE) != NULL, "node 0: has PMIX_LOCAL_SIZE");
    check(find(all, PMIX_JOB_SIZE) == NULL, "node 0: no job-level key");
    PMIX_VALUE_RELEASE(all);
    rc = get_all(PMIX_NODE_INFO, NULL, NULL, PMIX_UNDEF, &all);
    check(rc == PMIX_SUCCESS && find(all, PMIX_HOSTNAME) != NULL, "own node: has PMIX_HOSTNAME");
    if (all != NULL) PMIX_VALUE_RELEASE(all);
    rc = get_all(PMIX_NODE_INFO, PMIX_NODEID, &absent, PMIX_UINT32, &all);
    check(rc == PMIX_ERR_NOT_FOUND, "node 99: NOT_FOUND");
    rc = get_all(PMIX_APP_INFO, PMIX_APPNUM, &zero, PMIX_UINT32, &all);
    check(rc == PMIX_SUCCESS && is_u32(find(all, PMIX_APP_SIZE), 2), "app 0: PMIX_APP_SIZE 2");
    check(find(all, PMIX_JOB_SIZE) == NULL, "app 0: no job-level key");
    if (all != NULL) PMIX_VALUE_RELEASE(all);
    rc = get_all(PMIX_JOB_INFO, NULL, NULL, PMIX_UNDEF, &all);
    check(rc == PMIX_SUCCESS && is_u32(find(all, PMIX_JOB_SIZE), 2), "job: PMIX_JOB_SIZE 2");
    if (all != NULL) PMIX_VALUE_RELEASE(all);
    PMIx_Finalize(NULL, 0);
    if (failures == 0) printf("qualified_all: ok\n");
    return failures == 0 ? 0 : 1;
}
