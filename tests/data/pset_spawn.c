/* tests/data/pset_spawn.c - a spawned job's process set (pset_spawn.sh runs one rank of it).
 * The parent spawns two copies of itself with PMIX_PSET_NAME "kids" in the app info, then asks
 * pmixrun for the sets (its own app's and "kids") and their members; each child checks its
 * PMIX_PSET_NAMES. A second spawn naming "kids" again is refused (PMIX_ERR_EXISTS).
 * Prints "parent ok" / "child ok" or "FAIL: ..." lines. */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char* what, const char* detail) {
    printf("FAIL: %s: %s\n", what, detail);
    return 1;
}

static int child(const pmix_proc_t* me) {
    pmix_value_t* v = NULL;
    pmix_status_t rc = PMIx_Get(me, PMIX_PSET_NAMES, NULL, 0, &v);
    if (rc != PMIX_SUCCESS) return fail("child PMIX_PSET_NAMES", PMIx_Error_string(rc));
    int ok = v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_STRING &&
             v->data.darray->size == 1 && strcmp(((char**)v->data.darray->array)[0], "kids") == 0;
    PMIX_VALUE_RELEASE(v);
    if (!ok) return fail("child PMIX_PSET_NAMES", "not [kids]");
    printf("child ok\n");
    return 0;
}

static pmix_status_t spawn_kids(const char* self, pmix_nspace_t out) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = (char**)calloc(3, sizeof(char*));
    app.argv[0] = strdup(self);
    app.argv[1] = strdup("child");
    app.maxprocs = 2;
    PMIX_INFO_CREATE(app.info, 1);
    app.ninfo = 1;
    PMIX_INFO_LOAD(&app.info[0], PMIX_PSET_NAME, "kids", PMIX_STRING);
    pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, out);
    PMIX_APP_DESTRUCT(&app);
    return rc;
}

static int parent(const pmix_proc_t* me, const char* self) {
    pmix_nspace_t kids;
    pmix_status_t rc = spawn_kids(self, kids);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Spawn", PMIx_Error_string(rc));
    pmix_nspace_t again;
    rc = spawn_kids(self, again);
    if (rc != PMIX_ERR_EXISTS) return fail("second spawn naming kids", PMIx_Error_string(rc));
    pmix_query_t q[2];
    PMIX_QUERY_CONSTRUCT(&q[0]);
    PMIX_QUERY_CONSTRUCT(&q[1]);
    char* keys0[] = {(char*)PMIX_QUERY_PSET_NAMES, NULL};
    char* keys1[] = {(char*)PMIX_QUERY_PSET_MEMBERSHIP, NULL};
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_PSET_NAME, "kids", PMIX_STRING);
    q[0].keys = keys0;
    q[1].keys = keys1;
    q[1].qualifiers = &qual;
    q[1].nqual = 1;
    pmix_info_t* res = NULL;
    size_t n = 0;
    rc = PMIx_Query_info(q, 2, &res, &n);
    char want[PMIX_MAX_NSLEN + 32];
    snprintf(want, sizeof want, "%s.app0,kids", me->nspace);
    if (rc != PMIX_SUCCESS || n != 2) return fail("pset query", PMIx_Error_string(rc));
    if (res[0].value.type != PMIX_STRING || strcmp(res[0].value.data.string, want) != 0)
        return fail("pset names",
                    res[0].value.type == PMIX_STRING ? res[0].value.data.string : "?");
    pmix_data_array_t* members = res[1].value.data.darray;
    pmix_proc_t* p = members != NULL ? (pmix_proc_t*)members->array : NULL;
    if (res[1].value.type != PMIX_DATA_ARRAY || members->size != 2 ||
        strcmp(p[0].nspace, kids) != 0 || p[0].rank != 0 || p[1].rank != 1)
        return fail("kids' members", "not the spawned job's two ranks");
    PMIX_INFO_FREE(res, n);
    PMIX_INFO_DESTRUCT(&qual);
    printf("parent ok\n");
    return 0;
}

int main(int argc, char** argv) {
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Init", PMIx_Error_string(rc));
    const int code = argc > 1 && strcmp(argv[1], "child") == 0 ? child(&me) : parent(&me, argv[0]);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return code;
}
