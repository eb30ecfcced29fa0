/* xnode_spawn: PMIx_Spawn from a rank of a job across nodes (pmixrun --host a:1,b:1).
 * Rank 1 (node 1) spawns 2 copies of this program with the argument "child"; the head places
 * one on each node. Each child checks PMIX_PARENT_ID and PMIX_JOB_SIZE, Puts a key, runs a
 * collecting fence over its namespace and Gets the other child's key and hostname, then Gets a
 * key the other child committed before a fence without data (direct modex across the nodes). The
 * parent checks the namespace it got and reads the new job's size. Each check prints "ok WHAT" or
 * "FAIL WHAT: why"; the last line of each process is "done failures=N"; exit 0 when N is 0. */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static int failures = 0;
static const char* role = "parent";

static void check(int ok, const char* what, pmix_status_t rc) {
    if (ok) printf("%s %u: ok %s\n", role, me.rank, what);
    else printf("%s %u: FAIL %s: %s\n", role, me.rank, what, PMIx_Error_string(rc)), ++failures;
    fflush(stdout);
}

static pmix_status_t put(const char* key, const char* text) {
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, text, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    return PMIX_SUCCESS == rc ? PMIx_Commit() : rc;
}

/* The string `key` of `proc` into out (empty on failure). */
static pmix_status_t get_string(const pmix_proc_t* proc, const char* key, char* out, size_t n) {
    pmix_value_t* val = NULL;
    out[0] = '\0';
    pmix_status_t rc = PMIx_Get(proc, key, NULL, 0, &val);
    if (PMIX_SUCCESS == rc && PMIX_STRING == val->type) snprintf(out, n, "%s", val->data.string);
    else if (PMIX_SUCCESS == rc) rc = PMIX_ERR_TYPE_MISMATCH;
    if (val != NULL) PMIX_VALUE_RELEASE(val);
    return rc;
}

static uint32_t job_size(const char* nspace, pmix_status_t* rc) {
    pmix_proc_t job;
    pmix_value_t* val = NULL;
    uint32_t size = 0;
    PMIX_LOAD_PROCID(&job, nspace, PMIX_RANK_WILDCARD);
    *rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val);
    if (PMIX_SUCCESS == *rc && PMIX_UINT32 == val->type) size = val->data.uint32;
    if (val != NULL) PMIX_VALUE_RELEASE(val);
    return size;
}

/* PMIx_Connect over both jobs, a key of the other job's rank 0 ("xs.key"), PMIx_Disconnect. */
static void connect_jobs(const char* parents, const char* children, const char* other) {
    pmix_proc_t set[2];
    char text[256];
    PMIX_LOAD_PROCID(&set[0], parents, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&set[1], children, PMIX_RANK_WILDCARD);
    pmix_info_t limit;
    int seconds = 10;
    PMIX_INFO_LOAD(&limit, PMIX_TIMEOUT, &seconds, PMIX_INT);
    pmix_status_t rc = PMIx_Connect(set, 2, &limit, 1);
    check(PMIX_SUCCESS == rc, "PMIx_Connect of both jobs across the nodes", rc);
    pmix_proc_t zero;
    PMIX_LOAD_PROCID(&zero, other, 0);
    rc = get_string(&zero, "xs.key", text, sizeof text);
    check(PMIX_SUCCESS == rc, "a key of the other job's rank 0", rc);
    rc = PMIx_Disconnect(set, 2, &limit, 1);
    check(PMIX_SUCCESS == rc, "PMIx_Disconnect", rc);
    PMIX_INFO_DESTRUCT(&limit);
}

static void child(int connect) {
    char text[320], host[256] = "", other_host[256], want[320];
    pmix_value_t* val = NULL;
    pmix_status_t rc = PMIx_Get(NULL, PMIX_PARENT_ID, NULL, 0, &val);
    check(PMIX_SUCCESS == rc && PMIX_PROC == val->type && 1 == val->data.proc->rank,
          "PMIX_PARENT_ID is rank 1 of the parent job", rc);
    if (val != NULL) PMIX_VALUE_RELEASE(val);
    check(2 == job_size(me.nspace, &rc), "PMIX_JOB_SIZE 2", rc);
    rc = get_string(&me, PMIX_HOSTNAME, host, sizeof host); /* its node's name, as registered */
    snprintf(text, sizeof text, "child-%u@%s", me.rank, host);
    rc = put("xs.key", text);
    check(PMIX_SUCCESS == rc, "put", rc);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    check(PMIX_SUCCESS == rc, "collecting fence of the spawned job", rc);
    pmix_proc_t other;
    PMIX_LOAD_PROCID(&other, me.nspace, 1 - me.rank);
    rc = get_string(&other, PMIX_HOSTNAME, other_host, sizeof other_host);
    check(PMIX_SUCCESS == rc, "PMIX_HOSTNAME of the other child", rc);
    printf("child %u: on %s, the other on %s\n", me.rank, host, other_host);
    snprintf(want, sizeof want, "child-%u@%s", other.rank, other_host);
    rc = get_string(&other, "xs.key", text, sizeof text);
    check(PMIX_SUCCESS == rc && 0 == strcmp(text, want), "the other child's key after the fence",
          rc);
    rc = put("xs.late", "late");
    rc = PMIX_SUCCESS == rc ? PMIx_Fence(NULL, 0, NULL, 0) : rc; /* a barrier: no data moves */
    rc = PMIX_SUCCESS == rc ? get_string(&other, "xs.late", text, sizeof text) : rc;
    check(PMIX_SUCCESS == rc && 0 == strcmp(text, "late"),
          "a key committed before a barrier without data (direct modex)", rc);
    rc = PMIx_Fence(NULL, 0, NULL, 0); /* neither leaves while the other may still ask */
    check(PMIX_SUCCESS == rc, "closing fence", rc);
    if (!connect) return;
    char parents[PMIX_MAX_NSLEN + 1];
    val = NULL;
    rc = PMIx_Get(NULL, PMIX_PARENT_ID, NULL, 0, &val);
    if (PMIX_SUCCESS != rc || PMIX_PROC != val->type) {
        check(0, "PMIX_PARENT_ID", rc);
        return;
    }
    snprintf(parents, sizeof parents, "%s", val->data.proc->nspace);
    PMIX_VALUE_RELEASE(val);
    connect_jobs(parents, me.nspace, parents);
}

/* Rank 1 spawns 2 children; *spawned gets their namespace. */
static void spawn_children(char* self, int connect, char* spawned) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = calloc(4, sizeof(char*));
    app.argv[0] = strdup(self);
    app.argv[1] = strdup("child");
    app.argv[2] = connect ? strdup("connect") : NULL;
    app.maxprocs = 2;
    pmix_status_t rc = PMIx_Spawn(NULL, 0, &app, 1, spawned);
    PMIX_APP_DESTRUCT(&app);
    check(PMIX_SUCCESS == rc && 0 == strncmp(spawned, me.nspace, strlen(me.nspace)) &&
              0 != strcmp(spawned, me.nspace),
          "PMIx_Spawn from node 1 returned a new namespace", rc);
    printf("parent %u: spawned %s\n", me.rank, spawned);
    check(2 == job_size(spawned, &rc), "the new job's PMIX_JOB_SIZE is 2", rc);
}

static void hold(void) {
    const char* path = getenv("XNODE_HOLD");
    for (int i = 0; path != NULL && i < 600 && access(path, F_OK) != 0; ++i) usleep(50000);
}

static void parent(char* self, int connect) {
    pmix_nspace_t spawned = "";
    pmix_status_t rc = put("xs.key", "parent");
    check(PMIX_SUCCESS == rc, "put", rc);
    if (1 == me.rank) spawn_children(self, connect, spawned);
    if (0 == me.rank) hold();
    if (!connect) return;
    /* Rank 0 learns the children's namespace from rank 1. */
    rc = 1 == me.rank ? put("xs.children", spawned) : PMIX_SUCCESS;
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIX_SUCCESS == rc ? PMIx_Fence(NULL, 0, &collect, 1) : rc;
    PMIX_INFO_DESTRUCT(&collect);
    pmix_proc_t one;
    PMIX_LOAD_PROCID(&one, me.nspace, 1);
    rc = PMIX_SUCCESS == rc ? get_string(&one, "xs.children", spawned, sizeof spawned) : rc;
    check(PMIX_SUCCESS == rc, "the children's namespace from rank 1", rc);
    connect_jobs(me.nspace, spawned, spawned);
}

int main(int argc, char** argv) {
    if (argc > 1 && 0 == strcmp(argv[1], "child")) role = "child";
    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "xnode_spawn: init failed\n");
        return 1;
    }
    const int connect =
        argc > 2 ? 0 == strcmp(argv[2], "connect") : argc > 1 && 0 == strcmp(argv[1], "connect");
    if (0 == strcmp(role, "child")) child(connect);
    else parent(argv[0], connect);
    printf("%s %u: done failures=%d\n", role, me.rank, failures);
    PMIx_Finalize(NULL, 0);
    return failures == 0 ? 0 : 1;
}
