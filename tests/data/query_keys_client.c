/* tests/data/query_keys_client.c - every query key a launcher answers, asked by a rank of a
 * pmixrun job, each answer checked for real content.
 *
 *   query_keys_client PSETS TIMEOUT NODES [noget]
 * PSETS: the job's process-set names, comma-separated in app order, or "default" (the launcher's
 * names, "<nspace>.app<N>"); TIMEOUT: pmixrun's --timeout in seconds (0: none); NODES: how many
 * nodes the job runs on. Rank 0 asks every key; every rank checks its own PMIX_PSET_NAMES, except
 * with "noget" (OpenPMIx 4.2.2's library, under the same launcher, keeps no per-process
 * PMIX_PSET_NAMES). Prints "ok <what>" per check, "FAIL: <what>" per failure, exits 1 on any
 * failure. Built against our library and against OpenPMIx 4.2.2 (query_keys_client-openpmix). */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
static pmix_proc_t me;

static void check(int ok, const char* what, const char* detail) {
    if (ok) {
        printf("ok %s\n", what);
    } else {
        printf("FAIL: rank %u: %s%s%s\n", me.rank, what, detail ? ": " : "", detail ? detail : "");
        ++failures;
    }
}

/* One query of one key with up to two qualifiers; *status its status. */
static pmix_info_t* ask(const char* key, pmix_info_t* quals, size_t nquals, pmix_status_t* status,
                        size_t* n) {
    pmix_query_t q;
    pmix_info_t* results = NULL;
    PMIX_QUERY_CONSTRUCT(&q);
    q.keys = (char**)calloc(2, sizeof(char*));
    q.keys[0] = strdup(key);
    q.qualifiers = quals;
    q.nqual = nquals;
    *n = 0;
    *status = PMIx_Query_info(&q, 1, &results, n);
    q.qualifiers = NULL;
    q.nqual = 0;
    PMIX_QUERY_DESTRUCT(&q);
    return results;
}

static const pmix_value_t* answer(pmix_info_t* r, size_t n, const char* key) {
    for (size_t i = 0; i < n; ++i)
        if (strncmp(r[i].key, key, PMIX_MAX_KEYLEN) == 0) return &r[i].value;
    return NULL;
}

static const char* string_answer(const char* key, pmix_info_t** keep, size_t* n) {
    pmix_status_t st;
    *keep = ask(key, NULL, 0, &st, n);
    const pmix_value_t* v = answer(*keep, *n, key);
    if (st != PMIX_SUCCESS || v == NULL || v->type != PMIX_STRING) return NULL;
    return v->data.string != NULL ? v->data.string : "";
}

/* An info array's member `key` (NULL if none). */
static const pmix_value_t* member(const pmix_value_t* array, const char* key) {
    if (array == NULL || array->type != PMIX_DATA_ARRAY || array->data.darray == NULL ||
        array->data.darray->type != PMIX_INFO)
        return NULL;
    return answer((pmix_info_t*)array->data.darray->array, array->data.darray->size, key);
}

static double my_rss_mb(void) {
    FILE* f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = -1;
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "VmRSS: %lf", &kb) == 1) break;
    if (f != NULL) fclose(f);
    return kb / 1024.0;
}

static void check_strings(int nodes) {
    pmix_info_t* r;
    size_t n;
    const char* s = string_answer(PMIX_QUERY_SPAWN_SUPPORT, &r, &n);
    if (nodes == 1)
        check(s != NULL && strstr(s, PMIX_SET_ENVAR) != NULL, "spawn support lists PMIX_SET_ENVAR",
              s);
    else /* pmixd spawns through the head: no PMIX_FWD_STDIN across the nodes */
        check(s != NULL && strstr(s, PMIX_SET_ENVAR) != NULL && strstr(s, PMIX_FWD_STDIN) == NULL,
              "spawn support under pmixd lists PMIX_SET_ENVAR, not PMIX_FWD_STDIN", s);
    PMIX_INFO_FREE(r, n);
    s = string_answer(PMIX_QUERY_DEBUG_SUPPORT, &r, &n);
    check(s != NULL, "debug support answered (a list, empty when none is acted on)", NULL);
    PMIX_INFO_FREE(r, n);
    s = string_answer(PMIX_QUERY_ALLOC_STATUS, &r, &n);
    check(s != NULL && strcmp(s, "active") == 0, "allocation status is active", s);
    PMIX_INFO_FREE(r, n);
    s = string_answer(PMIX_QUERY_SUPPORTED_KEYS, &r, &n);
    check(s != NULL && strstr(s, PMIX_QUERY_MEMORY_USAGE) && strstr(s, PMIX_LOCAL_PROCS) &&
              strstr(s, PMIX_QUERY_PSET_MEMBERSHIP) && strstr(s, PMIX_TIME_REMAINING),
          "supported keys list memory, local procs, pset membership, time remaining", s);
    PMIX_INFO_FREE(r, n);
    /* ABI levels: the library's own answer (OpenPMIx 4.2.2: "0.0" both). */
    s = string_answer(PMIX_QUERY_STABLE_ABI_VERSION, &r, &n);
    check(s != NULL && strcmp(s, "0.0") == 0, "stable ABI version 0.0", s);
    PMIX_INFO_FREE(r, n);
    s = string_answer(PMIX_QUERY_PROVISIONAL_ABI_VERSION, &r, &n);
    check(s != NULL && strcmp(s, "0.0") == 0, "provisional ABI version 0.0", s);
    PMIX_INFO_FREE(r, n);
}

static void check_qualifiers_and_queues(void) {
    pmix_query_t q[1];
    pmix_info_t* r = NULL;
    size_t n = 0;
    PMIX_QUERY_CONSTRUCT(&q[0]);
    q[0].keys = (char**)calloc(3, sizeof(char*));
    q[0].keys[0] = strdup(PMIX_QUERY_SUPPORTED_QUALIFIERS);
    q[0].keys[1] = strdup(PMIX_QUERY_MEMORY_USAGE);
    pmix_status_t st = PMIx_Query_info(q, 1, &r, &n);
    const pmix_value_t* v = answer(r, n, PMIX_QUERY_SUPPORTED_QUALIFIERS);
    check(st == PMIX_SUCCESS && n == 1 && v != NULL && v->type == PMIX_STRING &&
              strstr(v->data.string, PMIX_QUERY_REPORT_MINMAX) != NULL &&
              strstr(v->data.string, PMIX_PSET_NAME) == NULL,
          "supported qualifiers of the memory query (and the query itself not performed)",
          v && v->type == PMIX_STRING ? v->data.string : PMIx_Error_string(st));
    PMIX_INFO_FREE(r, n);
    PMIX_QUERY_DESTRUCT(&q[0]);
    /* No scheduler queues: an empty list; the status of every queue empty, of a named one not
     * found. */
    r = ask(PMIX_QUERY_QUEUE_LIST, NULL, 0, &st, &n);
    v = answer(r, n, PMIX_QUERY_QUEUE_LIST);
    check(st == PMIX_SUCCESS && v != NULL && v->type == PMIX_STRING && v->data.string[0] == '\0',
          "queue list: empty (no queues)", PMIx_Error_string(st));
    PMIX_INFO_FREE(r, n);
    r = ask(PMIX_QUERY_QUEUE_STATUS, NULL, 0, &st, &n);
    v = answer(r, n, PMIX_QUERY_QUEUE_STATUS);
    check(st == PMIX_SUCCESS && v != NULL && v->type == PMIX_STRING && v->data.string[0] == '\0',
          "queue status of every queue: empty", PMIx_Error_string(st));
    PMIX_INFO_FREE(r, n);
    pmix_info_t queue;
    PMIX_INFO_LOAD(&queue, PMIX_ALLOC_QUEUE, "batch", PMIX_STRING);
    r = ask(PMIX_QUERY_QUEUE_STATUS, &queue, 1, &st, &n);
    check(st == PMIX_ERR_NOT_FOUND && n == 0, "queue status of queue 'batch': PMIX_ERR_NOT_FOUND",
          PMIx_Error_string(st));
    PMIX_INFO_FREE(r, n);
    PMIX_INFO_DESTRUCT(&queue);
}

static void check_memory(void) {
    pmix_status_t st;
    size_t n;
    pmix_info_t quals[2];
    PMIX_INFO_LOAD(&quals[0], PMIX_QUERY_REPORT_MINMAX, NULL, PMIX_BOOL);
    pmix_info_t* r = ask(PMIX_QUERY_MEMORY_USAGE, quals, 1, &st, &n);
    const pmix_value_t* mem = answer(r, n, PMIX_QUERY_MEMORY_USAGE);
    const pmix_value_t* d = member(mem, PMIX_DAEMON_MEMORY);
    const pmix_value_t* avg = member(mem, PMIX_CLIENT_AVG_MEMORY);
    const pmix_value_t* lo = member(mem, "pmix.cpp.cl.mem.min");
    const pmix_value_t* hi = member(mem, "pmix.cpp.cl.mem.max");
    char detail[160];
    snprintf(detail, sizeof detail, "daemon %.2f avg %.2f min %.2f max %.2f MB",
             d && d->type == PMIX_FLOAT ? d->data.fval : -1.0,
             avg && avg->type == PMIX_FLOAT ? avg->data.fval : -1.0,
             lo && lo->type == PMIX_FLOAT ? lo->data.fval : -1.0,
             hi && hi->type == PMIX_FLOAT ? hi->data.fval : -1.0);
    printf("memory: %s\n", detail);
    check(st == PMIX_SUCCESS && d && d->type == PMIX_FLOAT && d->data.fval > 0.5 &&
              d->data.fval < 4096,
          "launcher's own memory plausible (0.5 MB .. 4 GB)", detail);
    check(avg && avg->type == PMIX_FLOAT && avg->data.fval > 0.1 && avg->data.fval < 4096 && lo &&
              hi && lo->data.fval <= avg->data.fval + 1e-3 &&
              avg->data.fval <= hi->data.fval + 1e-3,
          "ranks' average memory plausible, min <= avg <= max", detail);
    PMIX_INFO_FREE(r, n);
    /* This rank alone: what its own /proc says (within 50%, it moves while we look). */
    PMIX_INFO_LOAD(&quals[1], PMIX_PROCID, &me, PMIX_PROC);
    r = ask(PMIX_QUERY_MEMORY_USAGE, &quals[1], 1, &st, &n);
    avg = member(answer(r, n, PMIX_QUERY_MEMORY_USAGE), PMIX_CLIENT_AVG_MEMORY);
    const double mine = my_rss_mb();
    snprintf(detail, sizeof detail, "answered %.2f MB, /proc/self says %.2f MB",
             avg && avg->type == PMIX_FLOAT ? avg->data.fval : -1.0, mine);
    check(avg && avg->type == PMIX_FLOAT && avg->data.fval > mine * 0.5 &&
              avg->data.fval < mine * 1.5,
          "memory of this rank (PMIX_PROCID) matches its own VmRSS", detail);
    PMIX_INFO_FREE(r, n);
    PMIX_INFO_DESTRUCT(&quals[0]);
    PMIX_INFO_DESTRUCT(&quals[1]);
}

static void check_namespace_and_time(double timeout_s, const char* argv0) {
    pmix_status_t st;
    size_t n;
    pmix_info_t* r = ask(PMIX_QUERY_NAMESPACE_INFO, NULL, 0, &st, &n);
    const pmix_value_t* v = answer(r, n, PMIX_QUERY_NAMESPACE_INFO);
    int found = 0;
    const char* base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
    if (v && v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_INFO) {
        pmix_info_t* rows = (pmix_info_t*)v->data.darray->array;
        for (size_t i = 0; i < v->data.darray->size; ++i) {
            const pmix_value_t* ns = member(&rows[i].value, PMIX_NSPACE);
            const pmix_value_t* cmd = member(&rows[i].value, PMIX_CMD_LINE);
            if (ns && cmd && ns->type == PMIX_STRING && cmd->type == PMIX_STRING &&
                strcmp(ns->data.string, me.nspace) == 0 && strstr(cmd->data.string, base))
                found = 1;
        }
    }
    check(st == PMIX_SUCCESS && found, "namespace info lists this job with its command line",
          PMIx_Error_string(st));
    PMIX_INFO_FREE(r, n);
    r = ask(PMIX_TIME_REMAINING, NULL, 0, &st, &n);
    v = answer(r, n, PMIX_TIME_REMAINING);
    char detail[64];
    snprintf(detail, sizeof detail, "%u", v && v->type == PMIX_UINT32 ? v->data.uint32 : 0);
    if (timeout_s > 0)
        check(v && v->type == PMIX_UINT32 && v->data.uint32 > 0 && v->data.uint32 <= timeout_s,
              "time remaining within --timeout", detail);
    else
        check(v && v->type == PMIX_UINT32 && v->data.uint32 == UINT32_MAX,
              "time remaining UINT32_MAX (no limit)", detail);
    PMIX_INFO_FREE(r, n);
    r = ask(PMIX_QUERY_AUTHORIZATIONS, NULL, 0, &st, &n);
    v = answer(r, n, PMIX_QUERY_AUTHORIZATIONS);
    found = 0;
    if (v && v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_STRING)
        for (size_t i = 0; i < v->data.darray->size; ++i)
            found |= strcmp(((char**)v->data.darray->array)[i], "PMIx_Job_control") == 0;
    check(found, "authorizations include PMIx_Job_control", PMIx_Error_string(st));
    PMIX_INFO_FREE(r, n);
}

/* PMIX_LOCAL_PROCS of every node: together every rank once, this rank on its own node. */
static void check_local_procs(uint32_t nodes, uint32_t job_size) {
    uint32_t seen = 0;
    int mine = 0;
    for (uint32_t node = 0; node < nodes; ++node) {
        pmix_status_t st;
        size_t n;
        pmix_info_t q;
        PMIX_INFO_LOAD(&q, PMIX_NODEID, &node, PMIX_UINT32);
        pmix_info_t* r = ask(PMIX_LOCAL_PROCS, &q, 1, &st, &n);
        const pmix_value_t* v = answer(r, n, PMIX_LOCAL_PROCS);
        if (v && v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_PROC) {
            pmix_proc_t* p = (pmix_proc_t*)v->data.darray->array;
            for (size_t i = 0; i < v->data.darray->size; ++i) {
                if (strcmp(p[i].nspace, me.nspace) == 0) ++seen;
                if (PMIX_CHECK_PROCID(&p[i], &me)) mine = 1;
            }
        }
        PMIX_INFO_FREE(r, n);
        PMIX_INFO_DESTRUCT(&q);
    }
    char detail[64];
    snprintf(detail, sizeof detail, "%u of %u ranks", seen, job_size);
    check(seen == job_size && mine, "local procs by node id cover every rank once", detail);
}

/* The job's sets: count, names, membership of each (its app's ranks, in order). */
static void check_psets(char** names, uint32_t napps, const uint32_t* app_sizes) {
    pmix_status_t st;
    size_t n;
    pmix_info_t* r = ask(PMIX_QUERY_NUM_PSETS, NULL, 0, &st, &n);
    const pmix_value_t* v = answer(r, n, PMIX_QUERY_NUM_PSETS);
    check(v && v->type == PMIX_SIZE && v->data.size == napps, "number of process sets", NULL);
    PMIX_INFO_FREE(r, n);
    char joined[1024] = "";
    for (uint32_t a = 0; a < napps; ++a)
        snprintf(joined + strlen(joined), sizeof joined - strlen(joined), "%s%s", a ? "," : "",
                 names[a]);
    const char* s = string_answer(PMIX_QUERY_PSET_NAMES, &r, &n);
    check(s && strcmp(s, joined) == 0, "process set names", s);
    PMIX_INFO_FREE(r, n);
    uint32_t first = 0;
    for (uint32_t a = 0; a < napps; ++a) {
        pmix_info_t q;
        PMIX_INFO_LOAD(&q, PMIX_PSET_NAME, names[a], PMIX_STRING);
        r = ask(PMIX_QUERY_PSET_MEMBERSHIP, &q, 1, &st, &n);
        v = answer(r, n, PMIX_QUERY_PSET_MEMBERSHIP);
        int ok = v && v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_PROC &&
                 v->data.darray->size == app_sizes[a];
        for (size_t i = 0; ok && i < app_sizes[a]; ++i) {
            const pmix_proc_t* p = (pmix_proc_t*)v->data.darray->array + i;
            ok = strcmp(p->nspace, me.nspace) == 0 && p->rank == first + i;
        }
        check(ok, "membership of a process set is its app's ranks", names[a]);
        PMIX_INFO_FREE(r, n);
        PMIX_INFO_DESTRUCT(&q);
        first += app_sizes[a];
    }
}

/* PMIX_PSET_NAMES of this rank (the store) and PMIX_PSET_NAME of its app (the app array). */
static void check_own_pset(char** names, uint32_t appnum) {
    pmix_value_t* v = NULL;
    pmix_status_t st = PMIx_Get(&me, PMIX_PSET_NAMES, NULL, 0, &v);
    int ok = st == PMIX_SUCCESS && v->type == PMIX_DATA_ARRAY &&
             v->data.darray->type == PMIX_STRING && v->data.darray->size == 1 &&
             strcmp(((char**)v->data.darray->array)[0], names[appnum]) == 0;
    check(ok, "PMIX_PSET_NAMES of this rank names its app's set", PMIx_Error_string(st));
    if (v) PMIX_VALUE_RELEASE(v);
    pmix_proc_t wild;
    pmix_info_t q[2];
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    PMIX_INFO_LOAD(&q[0], PMIX_APP_INFO, NULL, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_APPNUM, &appnum, PMIX_UINT32);
    v = NULL;
    st = PMIx_Get(&wild, PMIX_PSET_NAME, q, 2, &v);
    ok = st == PMIX_SUCCESS && v->type == PMIX_STRING && strcmp(v->data.string, names[appnum]) == 0;
    check(ok, "PMIX_PSET_NAME in its app's info array", PMIx_Error_string(st));
    if (v) PMIX_VALUE_RELEASE(v);
}

static uint32_t get_u32(const pmix_proc_t* p, const char* key) {
    pmix_value_t* v = NULL;
    uint32_t out = 0;
    if (PMIx_Get(p, key, NULL, 0, &v) == PMIX_SUCCESS && v->type == PMIX_UINT32)
        out = v->data.uint32;
    if (v) PMIX_VALUE_RELEASE(v);
    return out;
}

int main(int argc, char** argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: query_keys_client PSETS TIMEOUT NODES [noget]\n");
        return 2;
    }
    /* Before init: the ABI levels only (the Standard's one exception). */
    pmix_status_t st;
    size_t n;
    pmix_info_t* r = ask(PMIX_QUERY_STABLE_ABI_VERSION, NULL, 0, &st, &n);
    const pmix_value_t* v = answer(r, n, PMIX_QUERY_STABLE_ABI_VERSION);
    int pre_init = st == PMIX_SUCCESS && v && v->type == PMIX_STRING;
    PMIX_INFO_FREE(r, n);
    if ((st = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
        fprintf(stderr, "FAIL: PMIx_Init: %s\n", PMIx_Error_string(st));
        return 1;
    }
    check(pre_init, "stable ABI version answered before PMIx_Init", NULL);
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    const uint32_t job_size = get_u32(&wild, PMIX_JOB_SIZE);
    const uint32_t appnum = get_u32(&me, PMIX_APPNUM);
    char* names[16];
    char defaults[16][PMIX_MAX_NSLEN + 16];
    uint32_t napps = 0, sizes[16];
    if (strcmp(argv[1], "default") == 0) {
        const uint32_t total = get_u32(&wild, PMIX_JOB_NUM_APPS);
        for (; napps < total && napps < 16; ++napps) {
            snprintf(defaults[napps], sizeof defaults[napps], "%s.app%u", me.nspace, napps);
            names[napps] = defaults[napps];
        }
    } else {
        for (char* tok = strtok(argv[1], ","); tok && napps < 16; tok = strtok(NULL, ","))
            names[napps++] = tok;
    }
    for (uint32_t a = 0; a < napps; ++a) {
        pmix_info_t q[2];
        PMIX_INFO_LOAD(&q[0], PMIX_APP_INFO, NULL, PMIX_BOOL);
        PMIX_INFO_LOAD(&q[1], PMIX_APPNUM, &a, PMIX_UINT32);
        pmix_value_t* size = NULL;
        sizes[a] = PMIx_Get(&wild, PMIX_APP_SIZE, q, 2, &size) == PMIX_SUCCESS ? size->data.uint32
                                                                               : job_size;
        if (size) PMIX_VALUE_RELEASE(size);
    }
    if (argc == 4) check_own_pset(names, appnum);
    if (me.rank == 0) {
        check_strings(atoi(argv[3]));
        check_qualifiers_and_queues();
        check_memory();
        check_namespace_and_time(atof(argv[2]), argv[0]);
        check_local_procs((uint32_t)atoi(argv[3]), job_size);
        check_psets(names, napps, sizes);
    }
    PMIx_Fence(NULL, 0, NULL, 0); /* every rank stays alive while rank 0 measures them */
    PMIx_Finalize(NULL, 0);
    return failures == 0 ? 0 : 1;
}
