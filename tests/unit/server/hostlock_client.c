/* hostlock_client: a client of hostlock_host (see there). Public pmix.h API only. Every rank
 * runs every operation that reaches the host's module, so that each upcall is made at least
 * once; each result is printed and a wrong one makes the exit status non-zero.
 *
 * Mode "finalize-stuck" (hostlock_host --stuck): put, then one collecting fence the host never
 * answers; the process waits there until the server goes away.
 * Mode "tool TMPDIR PID": a tool that the host admits (tool_connected), one query, finalize. */
#include <pmix.h>
#include <pmix_tool.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static int failures = 0;

static void expect(const char* what, pmix_status_t got, pmix_status_t want) {
    printf("hostlock-client[%u]: %s -> %s\n", me.rank, what, PMIx_Error_string(got));
    if (got != want) {
        fprintf(stderr, "hostlock-client[%u]: %s: expected %s\n", me.rank, what,
                PMIx_Error_string(want));
        ++failures;
    }
    fflush(stdout);
}

// One query of the host's test key, answered by the host's query upcall.
static void query_once(const char* what) {
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char* qkeys[] = {"hl.query", NULL};
    q.keys = qkeys;
    pmix_info_t* results = NULL;
    size_t nresults = 0;
    expect(what, PMIx_Query_info(&q, 1, &results, &nresults), PMIX_SUCCESS);
    if (results != NULL) PMIX_INFO_FREE(results, nresults);
    q.keys = NULL;
    PMIX_QUERY_DESTRUCT(&q);
}

static void put_and_commit(void) {
    char key[PMIX_MAX_KEYLEN];
    snprintf(key, sizeof key, "hl.%u", me.rank);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, &me.rank, PMIX_UINT32);
    expect("put", PMIx_Put(PMIX_GLOBAL, key, &v), PMIX_SUCCESS);
    expect("commit", PMIx_Commit(), PMIX_SUCCESS);
}

static void fences(uint32_t size) {
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    expect("fence with data", PMIx_Fence(NULL, 0, &collect, 1), PMIX_SUCCESS);
    /* a peer's value, which came through the host's fence_nb */
    pmix_proc_t peer;
    char key[PMIX_MAX_KEYLEN];
    PMIX_LOAD_PROCID(&peer, me.nspace, (me.rank + 1) % size);
    snprintf(key, sizeof key, "hl.%u", peer.rank);
    pmix_value_t* got = NULL;
    expect("get a peer's key", PMIx_Get(&peer, key, NULL, 0, &got), PMIX_SUCCESS);
    if (got != NULL) PMIX_VALUE_RELEASE(got);
    expect("fence without data", PMIx_Fence(NULL, 0, NULL, 0), PMIX_SUCCESS);
    if (me.rank < 2) { /* a subset: ranks 0 and 1 */
        pmix_proc_t two[2];
        PMIX_LOAD_PROCID(&two[0], me.nspace, 0);
        PMIX_LOAD_PROCID(&two[1], me.nspace, 1);
        expect("subset fence", PMIx_Fence(two, 2, &collect, 1), PMIX_SUCCESS);
    }
    PMIX_INFO_DESTRUCT(&collect);
}

/* A key of a process of another node: the server asks the host's direct_modex, which answers
 * "not found" (and hands a release function). */
static void direct_modex(void) {
    pmix_proc_t remote;
    PMIX_LOAD_PROCID(&remote, "hostlock-remote", 0);
    pmix_info_t t;
    int secs = 10;
    PMIX_INFO_LOAD(&t, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_value_t* got = NULL;
    expect("direct modex", PMIx_Get(&remote, "hl.remote", &t, 1, &got), PMIX_ERR_NOT_FOUND);
    if (got != NULL) PMIX_VALUE_RELEASE(got);
    PMIX_INFO_DESTRUCT(&t);
}

static void publish_lookup(void) {
    pmix_info_t pub;
    PMIX_INFO_LOAD(&pub, "hl.published", "yes", PMIX_STRING);
    expect("publish", PMIx_Publish(&pub, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&pub);
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, "hl.published");
    expect("lookup", PMIx_Lookup(&pd, 1, NULL, 0), PMIX_SUCCESS);
    PMIX_PDATA_DESTRUCT(&pd);
    char* keys[] = {"hl.published", NULL};
    expect("unpublish", PMIx_Unpublish(keys, NULL, 0), PMIX_SUCCESS);
}

/* The host's get_credential / validate_credential / monitor upcalls answer these. */
static void credential_monitor(void) {
    pmix_byte_object_t cred;
    PMIX_BYTE_OBJECT_CONSTRUCT(&cred);
    expect("get credential", PMIx_Get_credential(NULL, 0, &cred), PMIX_SUCCESS);
    pmix_info_t* results = NULL;
    size_t nresults = 0;
    expect("validate credential", PMIx_Validate_credential(&cred, NULL, 0, &results, &nresults),
           PMIX_SUCCESS);
    if (nresults != 1 || !PMIX_CHECK_KEY(&results[0], PMIX_USERID) ||
        results[0].value.data.uint32 != 4242) {
        expect("the host's validation result", PMIX_ERROR, PMIX_SUCCESS);
    }
    if (results != NULL) PMIX_INFO_FREE(results, nresults);
    if (cred.size > 0) cred.bytes[0] ^= 1;
    expect("validate altered credential",
           PMIx_Validate_credential(&cred, NULL, 0, &results, &nresults), PMIX_ERR_INVALID_CRED);
    PMIX_BYTE_OBJECT_DESTRUCT(&cred);
    /* A heartbeat monitor that trips (no beat for 1 s): its event, code -7001, reaches the host's
     * handlers from the server's timer. */
    pmix_info_t beat, dirs[3];
    uint32_t one = 1;
    PMIX_INFO_LOAD(&beat, PMIX_MONITOR_HEARTBEAT, NULL, PMIX_POINTER);
    PMIX_INFO_LOAD(&dirs[0], PMIX_MONITOR_HEARTBEAT_TIME, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[1], PMIX_MONITOR_HEARTBEAT_DROPS, &one, PMIX_UINT32);
    PMIX_INFO_LOAD(&dirs[2], PMIX_MONITOR_ID, "hl-beat", PMIX_STRING);
    expect("heartbeat monitor", PMIx_Process_monitor(&beat, -7001, dirs, 3, NULL, NULL),
           PMIX_SUCCESS);
    for (int i = 0; i < 3; ++i) PMIX_INFO_DESTRUCT(&dirs[i]);
    PMIX_INFO_DESTRUCT(&beat);
    usleep(1500000); /* the window passes without a beat */
    pmix_info_t mon;
    PMIX_INFO_LOAD(&mon, "hl.monitor", "x", PMIX_STRING); /* not the library's: the host's */
    expect("monitor", PMIx_Process_monitor(&mon, PMIX_SUCCESS, NULL, 0, NULL, NULL), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&mon);
}

static void spawn_query_log(void) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup("/bin/true");
    app.maxprocs = 1;
    pmix_nspace_t child;
    expect("spawn", PMIx_Spawn(NULL, 0, &app, 1, child), PMIX_SUCCESS);
    PMIX_APP_DESTRUCT(&app);
    query_once("query");
    pmix_info_t entry;
    PMIX_INFO_LOAD(&entry, PMIX_LOG_STDERR, "hostlock log line\n", PMIX_STRING);
    expect("log", PMIx_Log(&entry, 1, NULL, 0), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&entry);
    pmix_info_t ctl;
    bool yes = true;
    PMIX_INFO_LOAD(&ctl, PMIX_JOB_CTRL_PAUSE, &yes, PMIX_BOOL);
    expect("job control", PMIx_Job_control(NULL, 0, &ctl, 1, NULL, NULL), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&ctl);
    credential_monitor();
    expect("notify event",
           PMIx_Notify_event(-7001, NULL, PMIX_RANGE_NAMESPACE, NULL, 0, NULL, NULL), PMIX_SUCCESS);
    expect("abort (the host lets it return)", PMIx_Abort(5, "hostlock abort", NULL, 0),
           PMIX_SUCCESS);
}

static int tool(const char* tmpdir, const char* pid_text) {
    pmix_info_t info[2];
    pid_t pid = (pid_t)atoi(pid_text);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    pmix_status_t rc = PMIx_tool_init(&me, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    expect("tool init", rc, PMIX_SUCCESS);
    if (rc != PMIX_SUCCESS) return 1;
    query_once("tool query");
    expect("tool finalize", PMIx_tool_finalize(), PMIX_SUCCESS);
    return failures == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc > 3 && strcmp(argv[1], "tool") == 0) return tool(argv[2], argv[3]);
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "hostlock-client: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    put_and_commit();
    if (argc > 1 && strcmp(argv[1], "finalize-stuck") == 0) {
        pmix_info_t collect;
        bool yes = true;
        PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
        rc = PMIx_Fence(NULL, 0, &collect, 1); /* the host never answers; the server goes */
        printf("hostlock-client[%u]: stuck fence -> %s\n", me.rank, PMIx_Error_string(rc));
        return 0;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t* val = NULL;
    uint32_t size = 1;
    expect("job size", PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &val), PMIX_SUCCESS);
    if (val != NULL) {
        size = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    fences(size);
    direct_modex();
    /* With a process elsewhere (a namespace this server does not host), so that the server's one
     * upcall for its callers is made: over local processes only it completes without the host. */
    pmix_proc_t set[2];
    set[0] = job;
    PMIX_LOAD_PROCID(&set[1], "hostlock.elsewhere", 0);
    expect("connect", PMIx_Connect(set, 2, NULL, 0), PMIX_SUCCESS);
    expect("disconnect", PMIx_Disconnect(set, 2, NULL, 0), PMIX_SUCCESS);
    if (me.rank == 0) {
        publish_lookup();
        spawn_query_log();
    }
    expect("finalize", PMIx_Finalize(NULL, 0), PMIX_SUCCESS);
    return failures == 0 ? 0 : 1;
}
