/* xnode_spawn_stop: a rank's PMIx_Spawn held by the debugger stops across nodes
 * (launcher/debug_nodes.h), under pmixrun --host a:1,b:1.
 *   xnode_spawn_stop STOP DEBUG_STOP DIR      STOP: init | exec | app
 * Rank 1 (node 1) spawns 4 copies of `DEBUG_STOP hello DIR` (tests/tools/debug_stop.cpp: each
 * writes DIR/init.<rank> once past PMIx_Init, and stops itself after it when its job info has
 * PMIX_DEBUG_STOP_IN_APP) with PMIX_DEBUG_STOP_IN_INIT / _ON_EXEC / _IN_APP; the head places 2 on
 * each node. Rank 1 then checks what a debugger would see from there:
 *  - PMIX_READY_FOR_DEBUG for the job (its source is not a process of the job), and for init and
 *    app one from each of the 4 processes with its PMIX_BREAKPOINT ("pmix-init", "app-main");
 *  - exec: every one of the 4 processes (found by its command line: the simulated nodes share the
 *    pid namespace) is stopped, 'T' in /proc;
 *  - none of them went past its stop (no DIR/init.*), still 300 ms later;
 * then raises PMIX_DEBUGGER_RELEASE for the namespace (range custom) and waits (at most 20 s) for
 * the 4 markers. Rank 0 waits in a fence. Each check prints "rank R: ok WHAT" or "rank R: FAIL
 * WHAT"; the last line of each rank is "done failures=N"; exit 0 when N is 0. */
#include <pmix.h>

#include <dirent.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NCHILD 4

static pmix_proc_t me;
static int failures = 0;
/* Every PMIX_READY_FOR_DEBUG heard (the handler may run before PMIx_Spawn returned the name):
 * its PMIX_NSPACE, whether its source is a process of that namespace, its PMIX_BREAKPOINT. */
struct Ready {
    char nspace[PMIX_MAX_NSLEN + 1];
    int from_process;
    char breakpoint[32];
};
static struct Ready heard[64];
static int nheard = 0;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void check(int ok, const char* what) {
    if (ok) printf("rank %u: ok %s\n", me.rank, what);
    else printf("rank %u: FAIL %s\n", me.rank, what), ++failures;
    fflush(stdout);
}

static void on_ready(size_t id, pmix_status_t code, const pmix_proc_t* source, pmix_info_t info[],
                     size_t ninfo, pmix_info_t* results, size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    (void)id, (void)code, (void)results, (void)nresults;
    pthread_mutex_lock(&mu);
    if (nheard < 64) {
        struct Ready* r = &heard[nheard++];
        memset(r, 0, sizeof *r);
        for (size_t i = 0; i < ninfo; ++i) {
            if (info[i].value.type != PMIX_STRING || info[i].value.data.string == NULL) continue;
            if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE))
                snprintf(r->nspace, sizeof r->nspace, "%s", info[i].value.data.string);
            if (PMIX_CHECK_KEY(&info[i], PMIX_BREAKPOINT))
                snprintf(r->breakpoint, sizeof r->breakpoint, "%s", info[i].value.data.string);
        }
        r->from_process = source != NULL && PMIX_CHECK_NSPACE(source->nspace, r->nspace);
    }
    pthread_mutex_unlock(&mu);
    if (cbfunc != NULL) cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* The READY_FOR_DEBUG events of `nspace`: the job's (*job), the processes' (returned), and how
 * many processes' breakpoints are not `breakpoint` (*bad). */
static int count_ready(const char* nspace, const char* breakpoint, int* job, int* bad) {
    int procs = 0;
    *job = *bad = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nheard; ++i) {
        if (strcmp(heard[i].nspace, nspace) != 0) continue;
        if (!heard[i].from_process) {
            ++*job;
            continue;
        }
        ++procs;
        if (strcmp(heard[i].breakpoint, breakpoint) != 0) ++*bad;
    }
    pthread_mutex_unlock(&mu);
    return procs;
}

static int count_markers(const char* dir) {
    int n = 0;
    char path[4096];
    for (int r = 0; r < NCHILD; ++r) {
        snprintf(path, sizeof path, "%s/init.%d", dir, r);
        n += access(path, F_OK) == 0;
    }
    return n;
}

static void sleep_ms(int ms) {
    struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* How many processes run `program hello dir`, and how many of them are stopped ('T'). */
static int children(const char* program, const char* dir, int* stopped) {
    DIR* proc = opendir("/proc");
    struct dirent* e;
    int n = 0;
    *stopped = 0;
    while (proc != NULL && (e = readdir(proc)) != NULL) {
        char path[300], cmd[4096] = "", stat[1024] = "";
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE* f = fopen(path, "r");
        size_t len = f != NULL ? fread(cmd, 1, sizeof cmd - 1, f) : 0;
        if (f != NULL) fclose(f);
        /* argv[0] NUL "hello" NUL dir NUL */
        size_t a = strlen(cmd);
        if (a >= len || strcmp(cmd, program) != 0 || strcmp(cmd + a + 1, "hello") != 0 ||
            strcmp(cmd + a + 7, dir) != 0)
            continue;
        ++n;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        f = fopen(path, "r");
        if (f != NULL && fgets(stat, sizeof stat, f) != NULL) {
            const char* after = strrchr(stat, ')');
            if (after != NULL && after[1] == ' ' && (after[2] == 'T' || after[2] == 't'))
                ++*stopped;
        }
        if (f != NULL) fclose(f);
    }
    if (proc != NULL) closedir(proc);
    return n;
}

static int wait_ready(const char* nspace, int want_procs, const char* breakpoint) {
    int job = 0, bad = 0;
    for (int i = 0; i < 1500; ++i) {
        if (count_ready(nspace, breakpoint, &job, &bad) >= want_procs && job >= 1) return 1;
        sleep_ms(10);
    }
    return 0;
}

static void release(const char* spawned) {
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, spawned, PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &all, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    pmix_status_t rc =
        PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, NULL, PMIX_RANGE_CUSTOM, info, 2, NULL, NULL);
    check(rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED, "PMIX_DEBUGGER_RELEASE raised");
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
}

static void requester(const char* stop, const char* program, const char* dir) {
    const int exec = strcmp(stop, "exec") == 0;
    const char* key = exec                       ? PMIX_DEBUG_STOP_ON_EXEC
                      : strcmp(stop, "app") == 0 ? PMIX_DEBUG_STOP_IN_APP
                                                 : PMIX_DEBUG_STOP_IN_INIT;
    const char* breakpoint = strcmp(stop, "app") == 0 ? "app-main" : "pmix-init";
    pmix_status_t code = PMIX_READY_FOR_DEBUG;
    pmix_status_t rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_ready, NULL, NULL);
    check(rc >= 0, "READY_FOR_DEBUG handler registered");
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(program);
    char* argv[] = {(char*)program, "hello", (char*)dir, NULL};
    app.argv = argv;
    app.maxprocs = NCHILD;
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, key, &yes, PMIX_BOOL);
    char nspace[PMIX_MAX_NSLEN + 1] = "";
    rc = PMIx_Spawn(&info, 1, &app, 1, nspace);
    app.argv = NULL;
    PMIX_APP_DESTRUCT(&app);
    PMIX_INFO_DESTRUCT(&info);
    printf("rank %u: spawned %s (%s): %s\n", me.rank, nspace, key, PMIx_Error_string(rc));
    check(rc == PMIX_SUCCESS, "PMIx_Spawn with the stop across the nodes");
    if (rc != PMIX_SUCCESS) return;
    check(wait_ready(nspace, exec ? 0 : NCHILD, breakpoint),
          exec ? "the job's READY_FOR_DEBUG" : "READY_FOR_DEBUG from the job and its 4 processes");
    int job = 0, bad = 0;
    const int procs = count_ready(nspace, breakpoint, &job, &bad);
    printf("rank %u: READY_FOR_DEBUG: job %d, processes %d\n", me.rank, job, procs);
    check(bad == 0, "every process's PMIX_BREAKPOINT as expected");
    int stopped = 0, n = 0;
    for (int i = 0; i < 300 && exec && (n != NCHILD || stopped != NCHILD); ++i) {
        n = children(program, dir, &stopped);
        sleep_ms(10);
    }
    if (exec) {
        printf("rank %u: %d processes, %d stopped\n", me.rank, n, stopped);
        check(n == NCHILD && stopped == NCHILD, "every process 'T' on exec");
    }
    sleep_ms(300);
    if (exec) {
        n = children(program, dir, &stopped);
        check(stopped == NCHILD, "still 'T' 300 ms later");
    }
    check(count_markers(dir) == 0, "no process past its stop before the release");
    release(nspace);
    for (int i = 0; i < 2000 && count_markers(dir) < NCHILD; ++i) sleep_ms(10);
    check(count_markers(dir) == NCHILD, "every process went on after the release");
}

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: xnode_spawn_stop init|exec|app DEBUG_STOP DIR\n");
        return 2;
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "xnode_spawn_stop: init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (me.rank == 1) requester(argv[1], argv[2], argv[3]);
    rc = PMIx_Fence(NULL, 0, NULL, 0);
    check(rc == PMIX_SUCCESS, "the closing fence");
    printf("rank %u: done failures=%d\n", me.rank, failures);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return failures == 0 ? 0 : 1;
}
