/* examples/spawn_fence.c - PMIx_Spawn, then two namespaces fencing together.
 *
 * Parent job (N ranks): rank 0 spawns M children (argv[1], default 2) running this program with
 * the argument "child"; it Puts the child namespace, and a collecting fence hands it to the other
 * parents. Children find the parent namespace in PMIX_PARENT_ID. Then every parent and child
 * Puts a key and calls PMIx_Fence over {parent:WILDCARD, child:WILDCARD} with PMIX_COLLECT_DATA,
 * reads the key of rank 0 of the other namespace, and prints
 *   "spawn_fence: <parent|child> rank R ok (read <value>)". Public API only. */
#include <pmix.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char* what, pmix_status_t rc) {
    fprintf(stderr, "spawn_fence: %s failed: %s\n", what, PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    return 1;
}

static pmix_status_t put_string(const char* key, const char* text) {
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, text, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    return rc;
}

static pmix_status_t fence(const pmix_proc_t* procs, size_t n) {
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(procs, n, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc;
}

/* The child namespace, as rank 0 of the parents spawned it. */
static int learn_child_ns(const pmix_proc_t* me, int nchildren, const char* self, char* out) {
    pmix_status_t rc;
    if (me->rank == 0) {
        pmix_app_t app;
        PMIX_APP_CONSTRUCT(&app);
        app.cmd = strdup(self);
        app.argv = calloc(3, sizeof(char*));
        app.argv[0] = strdup(self);
        app.argv[1] = strdup("child");
        app.maxprocs = nchildren;
        pmix_nspace_t child;
        rc = PMIx_Spawn(NULL, 0, &app, 1, child);
        PMIX_APP_DESTRUCT(&app);
        if (rc != PMIX_SUCCESS) return fail("PMIx_Spawn", rc);
        if ((rc = put_string("spawn_fence.child_ns", child)) != PMIX_SUCCESS)
            return fail("PMIx_Put", rc);
    }
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS) return fail("PMIx_Commit", rc);
    if ((rc = fence(NULL, 0)) != PMIX_SUCCESS) return fail("PMIx_Fence (parents)", rc);
    pmix_proc_t zero;
    pmix_value_t* val = NULL;
    PMIX_PROC_LOAD(&zero, me->nspace, 0);
    if ((rc = PMIx_Get(&zero, "spawn_fence.child_ns", NULL, 0, &val)) != PMIX_SUCCESS)
        return fail("PMIx_Get (child ns)", rc);
    snprintf(out, PMIX_MAX_NSLEN + 1, "%s", val->data.string);
    PMIX_VALUE_RELEASE(val);
    return 0;
}

static int learn_parent_ns(char* out) {
    pmix_value_t* val = NULL;
    pmix_status_t rc = PMIx_Get(NULL, PMIX_PARENT_ID, NULL, 0, &val);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Get (PMIX_PARENT_ID)", rc);
    if (val->type != PMIX_PROC) return fail("PMIX_PARENT_ID type", PMIX_ERR_TYPE_MISMATCH);
    snprintf(out, PMIX_MAX_NSLEN + 1, "%s", val->data.proc->nspace);
    PMIX_VALUE_RELEASE(val);
    return 0;
}

int main(int argc, char** argv) {
    bool child = argc > 1 && strcmp(argv[1], "child") == 0;
    int nchildren = !child && argc > 1 ? atoi(argv[1]) : 2;
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "spawn_fence: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    char other[PMIX_MAX_NSLEN + 1];
    int bad = child ? learn_parent_ns(other) : learn_child_ns(&me, nchildren, argv[0], other);
    if (bad) return bad;

    char text[128];
    snprintf(text, sizeof text, "%s-%u", child ? "child" : "parent", me.rank);
    if ((rc = put_string("spawn_fence.key", text)) != PMIX_SUCCESS) return fail("PMIx_Put", rc);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS) return fail("PMIx_Commit", rc);
    pmix_proc_t both[2];
    PMIX_PROC_LOAD(&both[0], me.nspace, PMIX_RANK_WILDCARD);
    PMIX_PROC_LOAD(&both[1], other, PMIX_RANK_WILDCARD);
    if ((rc = fence(both, 2)) != PMIX_SUCCESS) return fail("PMIx_Fence (both namespaces)", rc);
    pmix_proc_t peer;
    pmix_value_t* val = NULL;
    PMIX_PROC_LOAD(&peer, other, 0);
    if ((rc = PMIx_Get(&peer, "spawn_fence.key", NULL, 0, &val)) != PMIX_SUCCESS)
        return fail("PMIx_Get (other namespace)", rc);
    const char* want = child ? "parent-0" : "child-0";
    if (val->type != PMIX_STRING || strcmp(val->data.string, want) != 0) {
        fprintf(stderr, "spawn_fence: read %s, expected %s\n",
                val->type == PMIX_STRING ? val->data.string : "?", want);
        return 1;
    }
    printf("spawn_fence: %s rank %u ok (read %s)\n", child ? "child" : "parent", me.rank,
           val->data.string);
    fflush(stdout);
    PMIX_VALUE_RELEASE(val);
    PMIx_Finalize(NULL, 0);
    return 0;
}
