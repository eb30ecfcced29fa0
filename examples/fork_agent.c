/* fork_agent: a fork/exec agent (the Standard's FEA, PMIX_FORKEXEC_AGENT; pmixrun --fork-agent)
 * on the public tool API alone. The launcher starts it in place of an application process; it
 * connects back to the launcher's PMIx server as a tool, reads the spawn description of the
 * process it stands for, forks and execs that process, waits for it and ends as it ended.
 *
 * The launcher (launcher/fork_agent.h) puts in the agent's environment the server's URI and
 * the agent's identity in its debugger job (PMIX_FEA_SERVER_URI, PMIX_FEA_NSPACE, PMIX_FEA_RANK),
 * and registers, for each agent process, PMIX_DEBUG_TARGET (the application process),
 * "pmix.fea.argv" and "pmix.fea.env" (string arrays: what to execute, in which environment) and
 * PMIX_WDIR (where, if given).
 *
 * Usage: fork_agent [--record DIR]. With --record, it writes DIR/fea.<target nspace>.<rank>:
 * "<agent nspace> <agent rank> <agent pid> <target nspace> <target rank> <app pid>". A debugger
 * would do its own work where the comment "the debugger's part" stands. */
#include <pmix_tool.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

/* A NULL-terminated copy of a PMIX_DATA_ARRAY of PMIX_STRING (the strings are not copied). */
static char** string_list(const pmix_value_t* val) {
    const pmix_data_array_t* array;
    char** out;
    size_t i;
    if (val == NULL || val->type != PMIX_DATA_ARRAY || val->data.darray == NULL ||
        val->data.darray->type != PMIX_STRING)
        return NULL;
    array = val->data.darray;
    out = calloc(array->size + 1, sizeof(char*));
    if (out == NULL) return NULL;
    for (i = 0; i < array->size; ++i) out[i] = ((char**)array->array)[i];
    return out;
}

static pmix_value_t* get_own(const pmix_proc_t* me, const char* key, int required) {
    pmix_value_t* val = NULL;
    pmix_status_t rc = PMIx_Get(me, key, NULL, 0, &val);
    if (rc != PMIX_SUCCESS) {
        if (required)
            fprintf(stderr, "fork_agent: PMIx_Get(%s) failed: %s\n", key, PMIx_Error_string(rc));
        return NULL;
    }
    return val;
}

/* Starts the application: its directory, its environment, its argv. */
static pid_t start_app(char** argv, char** env, const char* wdir) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    if (wdir != NULL && chdir(wdir) != 0) {
        fprintf(stderr, "fork_agent: cannot enter %s: %s\n", wdir, strerror(errno));
        _exit(126);
    }
    environ = env; /* execvp searches the application's PATH */
    execvp(argv[0], argv);
    fprintf(stderr, "fork_agent: cannot execute '%s': %s\n", argv[0], strerror(errno));
    _exit(127);
}

static void record(const char* dir, const pmix_proc_t* me, const pmix_proc_t* target, pid_t app) {
    char path[4096], tmp[4200];
    FILE* f;
    snprintf(path, sizeof path, "%s/fea.%s.%u", dir, target->nspace, target->rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "w");
    if (f == NULL) return;
    fprintf(f, "%s %u %d %s %u %d\n", me->nspace, me->rank, (int)getpid(), target->nspace,
            target->rank, (int)app);
    fclose(f);
    rename(tmp, path);
}

/* Connects back as the tool the launcher named. */
static int connect_back(pmix_proc_t* me) {
    const char* uri = getenv("PMIX_FEA_SERVER_URI");
    const char* nspace = getenv("PMIX_FEA_NSPACE");
    const char* rank_text = getenv("PMIX_FEA_RANK");
    pmix_rank_t rank;
    pmix_info_t info[3];
    pmix_status_t rc;
    if (uri == NULL || nspace == NULL || rank_text == NULL) {
        fprintf(stderr, "fork_agent: not started as a fork/exec agent (no PMIX_FEA_* variables)\n");
        return 0;
    }
    rank = (pmix_rank_t)strtoul(rank_text, NULL, 10);
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_TOOL_NSPACE, nspace, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_TOOL_RANK, &rank, PMIX_PROC_RANK);
    rc = PMIx_tool_init(me, info, 3);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    PMIX_INFO_DESTRUCT(&info[2]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "fork_agent: PMIx_tool_init failed: %s\n", PMIx_Error_string(rc));
        return 0;
    }
    return 1;
}

/* Ends as the application ended: its exit status, or its signal. */
static int end_as(int status) {
    if (WIFSIGNALED(status)) {
        signal(WTERMSIG(status), SIG_DFL);
        raise(WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char** argv) {
    const char* record_dir = (argc > 2 && strcmp(argv[1], "--record") == 0) ? argv[2] : NULL;
    pmix_proc_t me, target;
    pmix_value_t *target_val, *argv_val, *env_val, *wdir_val;
    char **app_argv, **app_env;
    pid_t app;
    int status = 0;

    if (!connect_back(&me)) return 1;
    target_val = get_own(&me, PMIX_DEBUG_TARGET, 1);
    argv_val = get_own(&me, "pmix.fea.argv", 1);
    env_val = get_own(&me, "pmix.fea.env", 1);
    wdir_val = get_own(&me, PMIX_WDIR, 0); /* only when the launcher was given one */
    app_argv = string_list(argv_val);
    app_env = string_list(env_val);
    if (target_val == NULL || target_val->type != PMIX_PROC || app_argv == NULL ||
        app_argv[0] == NULL || app_env == NULL) {
        fprintf(stderr, "fork_agent: %s:%u: no usable spawn description\n", me.nspace, me.rank);
        PMIx_tool_finalize();
        return 1;
    }
    target = *target_val->data.proc;
    /* the debugger's part: prepare whatever it needs before the application starts */
    app = start_app(app_argv, app_env,
                    wdir_val != NULL && wdir_val->type == PMIX_STRING ? wdir_val->data.string
                                                                       : NULL);
    if (app < 0) {
        fprintf(stderr, "fork_agent: fork failed: %s\n", strerror(errno));
        PMIx_tool_finalize();
        return 1;
    }
    if (record_dir != NULL) record(record_dir, &me, &target, app);
    while (waitpid(app, &status, 0) < 0 && errno == EINTR) {
    }
    free(app_argv);
    free(app_env);
    PMIX_VALUE_RELEASE(target_val);
    PMIX_VALUE_RELEASE(argv_val);
    PMIX_VALUE_RELEASE(env_val);
    if (wdir_val != NULL) PMIX_VALUE_RELEASE(wdir_val);
    PMIx_tool_finalize();
    return end_as(status);
}
