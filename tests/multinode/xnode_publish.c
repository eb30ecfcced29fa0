/* xnode_publish: PMIx_Publish / PMIx_Lookup / PMIx_Unpublish between ranks of different nodes
 * (pmixrun --host a:1,b:1: rank 0 on node 0, rank 1 on node 1; the head keeps the directory).
 * Each check prints "ok NAME" or "FAIL NAME: why"; the last line is "done failures=N" and the
 * exit status is 0 only when N is 0. */
#include <pmix.h>

#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static int failures = 0;

static void check(int ok, const char* name, pmix_status_t rc) {
    if (ok) {
        printf("rank %u: ok %s\n", me.rank, name);
    } else {
        printf("rank %u: FAIL %s: %s\n", me.rank, name, PMIx_Error_string(rc));
        ++failures;
    }
    fflush(stdout);
}

static pmix_status_t publish(const char* key, const char* value, pmix_data_range_t range,
                             pmix_persistence_t persistence) {
    pmix_info_t info[3];
    PMIX_INFO_LOAD(&info[0], key, value, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_RANGE, &range, PMIX_DATA_RANGE);
    PMIX_INFO_LOAD(&info[2], PMIX_PERSISTENCE, &persistence, PMIX_PERSIST);
    pmix_status_t rc = PMIx_Publish(info, 3);
    for (int i = 0; i < 3; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    return rc;
}

/* Looks `key` up (waiting up to `wait_s` seconds when > 0); *found tells whether it came back
 * with `want` from rank `owner` of our namespace. */
static pmix_status_t lookup(const char* key, int wait_s, const char* want, pmix_rank_t owner,
                            int* found) {
    pmix_pdata_t pd;
    pmix_info_t info[2];
    bool yes = true;
    int seconds = wait_s;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_KEY(pd.key, key);
    PMIX_INFO_LOAD(&info[0], PMIX_WAIT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &seconds, PMIX_INT);
    pmix_status_t rc = PMIx_Lookup(&pd, 1, wait_s > 0 ? info : NULL, wait_s > 0 ? 2 : 0);
    *found = PMIX_SUCCESS == rc && PMIX_STRING == pd.value.type &&
             0 == strcmp(pd.value.data.string, want) && pd.proc.rank == owner &&
             PMIX_CHECK_NSPACE(pd.proc.nspace, me.nspace);
    PMIX_PDATA_DESTRUCT(&pd);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return rc;
}

static pmix_status_t unpublish(const char* key) {
    char* keys[] = {(char*)key, NULL};
    return PMIx_Unpublish(keys, NULL, 0);
}

static void fence(void) { PMIx_Fence(NULL, 0, NULL, 0); }

static void rank0(void) {
    int found = 0;
    /* Asked before rank 1 publishes (it waits 300 ms first): answered when the publish lands. */
    pmix_status_t rc = lookup("xn.a", 10, "from-node-1", 1, &found);
    check(found, "lookup with PMIX_WAIT gets the key another node published later", rc);
    fence(); /* 1: rank 1 published xn.local and xn.once */
    rc = lookup("xn.local", 0, "local", 1, &found);
    check(PMIX_ERR_NOT_FOUND == rc, "PMIX_RANGE_LOCAL value of another node is not found", rc);
    rc = lookup("xn.once", 0, "once", 1, &found);
    check(found, "first-read value found once", rc);
    rc = lookup("xn.proc", 0, "proc", 1, &found);
    check(found, "PMIX_PERSIST_PROC value found while its publisher lives", rc);
    rc = lookup("xn.never", 1, "", 1, &found);
    check(PMIX_SUCCESS != rc && !found,
          "PMIX_WAIT with PMIX_TIMEOUT 1 for a key never published ends", rc);
    rc = unpublish("xn.a");
    check(PMIX_ERR_NOT_FOUND == rc, "unpublish of another process's key refused", rc);
    fence(); /* 2: rank 1 checks xn.once is gone, then unpublishes xn.a */
    fence(); /* 3 */
    rc = lookup("xn.a", 0, "from-node-1", 1, &found);
    check(PMIX_ERR_NOT_FOUND == rc, "lookup after unpublish on the other node is NOT_FOUND", rc);
    /* Rank 1 ends now: the head drops its PMIX_PERSIST_PROC value once its daemon reports the
     * exit (polled for at most 10 s). */
    for (int i = 0; i < 200; ++i) {
        rc = lookup("xn.proc", 0, "proc", 1, &found);
        if (PMIX_ERR_NOT_FOUND == rc) break;
        usleep(50000);
    }
    check(PMIX_ERR_NOT_FOUND == rc, "PMIX_PERSIST_PROC value gone once its publisher exited", rc);
}

static void rank1(void) {
    int found = 0;
    pmix_status_t rc = lookup("xn.a", 0, "from-node-1", 1, &found);
    check(PMIX_ERR_NOT_FOUND == rc, "lookup before any publish is NOT_FOUND", rc);
    usleep(300000); /* rank 0's waiting lookup reaches the head first */
    rc = publish("xn.a", "from-node-1", PMIX_RANGE_SESSION, PMIX_PERSIST_SESSION);
    check(PMIX_SUCCESS == rc, "publish", rc);
    rc = publish("xn.a", "again", PMIX_RANGE_SESSION, PMIX_PERSIST_SESSION);
    check(PMIX_ERR_DUPLICATE_KEY == rc, "second publish of a key is PMIX_ERR_DUPLICATE_KEY", rc);
    rc = publish("xn.local", "local", PMIX_RANGE_LOCAL, PMIX_PERSIST_SESSION);
    rc |= publish("xn.once", "once", PMIX_RANGE_SESSION, PMIX_PERSIST_FIRST_READ);
    rc |= publish("xn.proc", "proc", PMIX_RANGE_SESSION, PMIX_PERSIST_PROC);
    check(PMIX_SUCCESS == rc, "publish with range local, persistence first-read and proc", rc);
    rc = lookup("xn.local", 0, "local", 1, &found);
    check(found, "PMIX_RANGE_LOCAL value found on its own node", rc);
    fence(); /* 1 */
    fence(); /* 2 */
    rc = lookup("xn.once", 0, "once", 1, &found);
    check(PMIX_ERR_NOT_FOUND == rc, "first-read value gone after the other node read it", rc);
    rc = unpublish("xn.a");
    check(PMIX_SUCCESS == rc, "unpublish own key", rc);
    fence(); /* 3 */
}

int main(void) {
    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "xnode_publish: init failed\n");
        return 1;
    }
    if (0 == me.rank) rank0();
    else if (1 == me.rank) rank1();
    else fence(), fence(), fence();
    printf("rank %u: done failures=%d\n", me.rank, failures);
    PMIx_Finalize(NULL, 0);
    return failures == 0 ? 0 : 1;
}
