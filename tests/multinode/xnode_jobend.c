/* xnode_jobend PID NSPACE: a tool attached to the multi-node head (pmixrun PID) waits up to 10 s
 * for PMIX_EVENT_JOB_END of the spawned job NSPACE (the server caches it: the tool may attach
 * after the job ended) and prints "jobend NSPACE status STATUS"; exit 0 when it came with
 * PMIX_JOB_TERM_STATUS success. */
#include <pmix_tool.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char* wanted;
static int seen = 0;
static pmix_status_t term = PMIX_ERR_NOT_FOUND;

static void on_job_end(size_t id, pmix_status_t status, const pmix_proc_t* source,
                       pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                       pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    (void)id, (void)status, (void)source, (void)results, (void)nresults;
    const char* nspace = NULL;
    pmix_status_t job_status = PMIX_ERR_NOT_FOUND;
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && PMIX_STRING == info[i].value.type)
            nspace = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS) && PMIX_STATUS == info[i].value.type)
            job_status = info[i].value.data.status;
    }
    pthread_mutex_lock(&lock);
    if (nspace != NULL && 0 == strcmp(nspace, wanted)) {
        seen = 1;
        term = job_status;
    }
    pthread_mutex_unlock(&lock);
    if (cbfunc != NULL) cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: xnode_jobend PID NSPACE\n");
        return 2;
    }
    wanted = argv[2];
    pid_t pid = (pid_t)atoi(argv[1]);
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    ++ninfo;
    const char* tmpdir = getenv("TMPDIR");
    if (tmpdir != NULL) {
        PMIX_INFO_LOAD(&info[ninfo], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
        ++ninfo;
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, ninfo);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (PMIX_SUCCESS != rc) {
        printf("FAIL: tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_status_t code = PMIX_EVENT_JOB_END;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, on_job_end, NULL, NULL);
    int got = 0;
    for (int i = 0; i < 200 && !got; ++i) { /* 10 s */
        struct timespec pause = {0, 50 * 1000 * 1000};
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&lock);
        got = seen;
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    const pmix_status_t job_status = term;
    pthread_mutex_unlock(&lock);
    if (got) printf("jobend %s status %s\n", wanted, PMIx_Error_string(job_status));
    else printf("FAIL: no JOB_END for %s (register: %s)\n", wanted, PMIx_Error_string(rc));
    PMIx_tool_finalize();
    return got && PMIX_SUCCESS == job_status ? 0 : 1;
}
