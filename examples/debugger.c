/* examples/debugger.c - the smallest parallel-debugger front end on the public tool API.
 *
 *   pmix-debugger [-n N] PROGRAM [ARGS...]
 *
 * What a debugger vendor writes first, step by step (README "Debugging a job"):
 *  1. connect to the persistent launcher (`pmixrun --dvm`, the system server) as a tool;
 *  2. register for PMIX_READY_FOR_DEBUG and PMIX_EVENT_JOB_END;
 *  3. PMIx_Spawn the job with PMIX_DEBUG_STOP_IN_INIT: every process stops inside PMIx_Init;
 *  4. when all N processes said PMIX_READY_FOR_DEBUG, print the proc table (PMIX_QUERY_PROC_TABLE);
 *  5. PMIx_Spawn one debugger daemon per node aimed at the job (PMIX_DEBUGGER_DAEMONS,
 *     PMIX_DEBUG_TARGET, PMIX_DEBUG_DAEMONS_PER_NODE): this same program, which finds itself
 *     started as a daemon, reads its target and the target's processes on its node, and exits;
 *     the tool waits for the daemons' JOB_END (where a real debugger's daemons would report
 *     that they attached);
 *  6. release the job (PMIX_DEBUGGER_RELEASE aimed at its processes);
 *  7. exit with the job's status when its PMIX_EVENT_JOB_END arrives.
 * It forwards nothing else. Every wait is bounded (60 s). */
#define _POSIX_C_SOURCE 200809L
#include <pmix_tool.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WAIT_MS 60000

/* PMIX_READY_FOR_DEBUG may arrive before PMIx_Spawn has returned the job's namespace: every
 * sender's namespace is kept (under the lock) and counted once the namespace is known. */
#define MAX_READY 4096
static pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
static pmix_nspace_t ready_from[MAX_READY];
static int nready = 0;
static pmix_nspace_t job_nspace;    /* set by PMIx_Spawn, under ready_lock */
/* PMIX_EVENT_JOB_END of the job and of the daemons' job, with their exit codes (ready_lock). */
#define MAX_ENDED 16
static pmix_nspace_t ended[MAX_ENDED];
static int ended_code[MAX_ENDED];
static int nended = 0;

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int ready_of_job(void) {
    pthread_mutex_lock(&ready_lock);
    int count = 0;
    for (int i = 0; i < nready; ++i) count += PMIX_CHECK_NSPACE(ready_from[i], job_nspace);
    pthread_mutex_unlock(&ready_lock);
    return count;
}

static bool wait_for_ready(int nprocs) {
    for (int waited = 0; waited < WAIT_MS; waited += 10) {
        if (ready_of_job() >= nprocs) return true;
        sleep_ms(10);
    }
    return false;
}

/* Waits for the JOB_END of `nspace`: true and its exit code in *code, or false after WAIT_MS. */
static bool wait_for_end(const char* nspace, int* code) {
    for (int waited = 0; waited < WAIT_MS; waited += 10) {
        pthread_mutex_lock(&ready_lock);
        for (int i = 0; i < nended; ++i) {
            if (PMIX_CHECK_NSPACE(ended[i], nspace)) {
                *code = ended_code[i];
                pthread_mutex_unlock(&ready_lock);
                return true;
            }
        }
        pthread_mutex_unlock(&ready_lock);
        sleep_ms(10);
    }
    return false;
}

static void on_event(size_t id, pmix_status_t status, const pmix_proc_t* source,
                     pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                     pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    (void)id;
    (void)results;
    (void)nresults;
    if (status == PMIX_READY_FOR_DEBUG && source != NULL) {
        pthread_mutex_lock(&ready_lock);
        if (nready < MAX_READY) PMIX_LOAD_NSPACE(ready_from[nready++], source->nspace);
        pthread_mutex_unlock(&ready_lock);
    }
    if (status == PMIX_EVENT_JOB_END) {
        const char* nspace = NULL;
        int code = 0;
        for (size_t i = 0; i < ninfo; ++i) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
                info[i].value.type == PMIX_PROC) {
                nspace = info[i].value.data.proc->nspace;
            } else if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) &&
                       info[i].value.type == PMIX_INT) {
                code = info[i].value.data.integer;
            }
        }
        pthread_mutex_lock(&ready_lock);
        if (nspace != NULL && nended < MAX_ENDED) {
            PMIX_LOAD_NSPACE(ended[nended], nspace);
            ended_code[nended++] = code;
        }
        pthread_mutex_unlock(&ready_lock);
    }
    if (cbfunc != NULL) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static int fail(const char* what, pmix_status_t rc) {
    fprintf(stderr, "pmix-debugger: %s: %s\n", what, PMIx_Error_string(rc));
    return 1;
}

/* The daemon side: started by the launcher as a client of the debugger-daemon job. */
static int run_daemon(void) {
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) return fail("daemon PMIx_Init", rc);
    pmix_value_t* target = NULL;
    pmix_proc_t job = me;
    job.rank = PMIX_RANK_WILDCARD;
    rc = PMIx_Get(&job, PMIX_DEBUG_TARGET, NULL, 0, &target);
    if (rc != PMIX_SUCCESS || target->type != PMIX_PROC) {
        PMIx_Finalize(NULL, 0);
        return fail("daemon: no PMIX_DEBUG_TARGET", rc);
    }
    pmix_proc_t aim = *target->data.proc;
    PMIX_VALUE_RELEASE(target);
    pmix_value_t* peers = NULL;
    pmix_proc_t whole = aim;
    whole.rank = PMIX_RANK_WILDCARD;
    rc = PMIx_Get(&whole, PMIX_LOCAL_PEERS, NULL, 0, &peers);
    printf("pmix-debugger daemon %s.%u: target %s, its processes on this node: %s\n", me.nspace,
           me.rank, aim.nspace,
           rc == PMIX_SUCCESS && peers->type == PMIX_STRING ? peers->data.string : "?");
    if (peers != NULL) PMIX_VALUE_RELEASE(peers);
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}

static pmix_status_t print_proc_table(void) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    pmix_status_t rc = PMIX_SUCCESS;
    PMIX_ARGV_APPEND(rc, query.keys, PMIX_QUERY_PROC_TABLE);
    PMIX_INFO_CREATE(query.qualifiers, 1);
    query.nqual = 1;
    PMIX_INFO_LOAD(&query.qualifiers[0], PMIX_NSPACE, job_nspace, PMIX_STRING);
    pmix_info_t* results = NULL;
    size_t nresults = 0;
    rc = PMIx_Query_info(&query, 1, &results, &nresults);
    PMIX_QUERY_DESTRUCT(&query);
    if (rc != PMIX_SUCCESS) return rc;
    for (size_t i = 0; i < nresults; ++i) {
        if (!PMIX_CHECK_KEY(&results[i], PMIX_QUERY_PROC_TABLE) ||
            results[i].value.type != PMIX_DATA_ARRAY) {
            continue;
        }
        const pmix_data_array_t* table = results[i].value.data.darray;
        const pmix_proc_info_t* procs = (const pmix_proc_info_t*)table->array;
        printf("pmix-debugger: proc table of %s (%zu processes)\n", job_nspace, table->size);
        for (size_t p = 0; p < table->size; ++p) {
            printf("  rank %u  host %s  pid %d  %s\n", procs[p].proc.rank, procs[p].hostname,
                   (int)procs[p].pid, procs[p].executable_name);
        }
    }
    PMIX_INFO_FREE(results, nresults);
    fflush(stdout);
    return PMIX_SUCCESS;
}

static pmix_status_t spawn_job(int nprocs, char** argv) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(argv[0]);
    pmix_status_t rc = PMIX_SUCCESS;
    for (int i = 0; argv[i] != NULL; ++i) PMIX_ARGV_APPEND(rc, app.argv, argv[i]);
    app.maxprocs = nprocs;
    pmix_info_t info[2];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_DEBUG_STOP_IN_INIT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    pmix_nspace_t spawned;
    rc = PMIx_Spawn(info, 2, &app, 1, spawned);
    PMIX_APP_DESTRUCT(&app);
    for (int i = 0; i < 2; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    pthread_mutex_lock(&ready_lock);
    if (rc == PMIX_SUCCESS) PMIX_LOAD_NSPACE(job_nspace, spawned);
    pthread_mutex_unlock(&ready_lock);
    return rc;
}

/* The daemons inspect the held job and exit; the job is released once they all have. */
static pmix_status_t run_daemons(const char* self) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    pmix_status_t rc = PMIX_SUCCESS;
    PMIX_ARGV_APPEND(rc, app.argv, self);
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, job_nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info[4];
    bool yes = true;
    uint16_t one = 1;
    PMIX_INFO_LOAD(&info[0], PMIX_DEBUGGER_DAEMONS, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_DEBUG_TARGET, &target, PMIX_PROC);
    PMIX_INFO_LOAD(&info[2], PMIX_DEBUG_DAEMONS_PER_NODE, &one, PMIX_UINT16);
    PMIX_INFO_LOAD(&info[3], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    pmix_nspace_t daemons;
    rc = PMIx_Spawn(info, 4, &app, 1, daemons);
    PMIX_APP_DESTRUCT(&app);
    for (int i = 0; i < 4; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) return rc;
    printf("pmix-debugger: daemons started as %s\n", daemons);
    int code = 0;
    if (!wait_for_end(daemons, &code)) return PMIX_ERR_TIMEOUT;
    return code == 0 ? PMIX_SUCCESS : PMIX_ERROR;
}

static pmix_status_t release_job(void) {
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, job_nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &all, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    pmix_status_t rc =
        PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, NULL, PMIX_RANGE_CUSTOM, info, 2, NULL, NULL);
    for (int i = 0; i < 2; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    return rc;
}

static int parse(int argc, char** argv, int* nprocs) {
    int first = 1;
    *nprocs = 1;
    if (argc > 2 && strcmp(argv[1], "-n") == 0) {
        *nprocs = atoi(argv[2]);
        first = 3;
    }
    if (first >= argc || *nprocs < 1) {
        fprintf(stderr, "usage: pmix-debugger [-n N] PROGRAM [ARGS...]\n");
        return -1;
    }
    return first;
}

int main(int argc, char** argv) {
    if (getenv("PMIX_NAMESPACE") != NULL) return run_daemon();  /* started by the launcher */
    int nprocs = 0;
    const int first = parse(argc, argv, &nprocs);
    if (first < 0) return 2;
    pmix_info_t conn[1];
    bool yes = true;
    PMIX_INFO_LOAD(&conn[0], PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, conn, 1);
    if (rc != PMIX_SUCCESS) return fail("no persistent launcher (start pmixrun --dvm)", rc);
    pmix_status_t codes[] = {PMIX_READY_FOR_DEBUG, PMIX_EVENT_JOB_END};
    rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_event, NULL, NULL);
    int status = 1;
    if (rc < 0) {
        status = fail("event registration", rc);
    } else if ((rc = spawn_job(nprocs, argv + first)) != PMIX_SUCCESS) {
        status = fail("spawn", rc);
    } else if (printf("pmix-debugger: job %s started, stopped in PMIx_Init\n", job_nspace) < 0 ||
               !wait_for_ready(nprocs)) {
        fprintf(stderr, "pmix-debugger: only %d of %d processes ready for debug\n",
                ready_of_job(), nprocs);
    } else if ((rc = print_proc_table()) != PMIX_SUCCESS) {
        status = fail("proc table", rc);
    } else if ((rc = run_daemons(argv[0])) != PMIX_SUCCESS) {
        status = fail("daemons", rc);
    } else if ((rc = release_job()) != PMIX_SUCCESS) {
        status = fail("release", rc);
    } else if (!wait_for_end(job_nspace, &status)) {
        fprintf(stderr, "pmix-debugger: no JOB_END within %d s\n", WAIT_MS / 1000);
        status = 1;
    } else {
        printf("pmix-debugger: job %s ended, exit code %d\n", job_nspace, status);
    }
    fflush(stdout);
    PMIx_tool_finalize();
    return status;
}
