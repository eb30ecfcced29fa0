/* qualified_get: PMIx_Get with the Standard's qualifiers (PMIX_NODE_INFO + PMIX_NODEID or
 * PMIX_HOSTNAME, PMIX_APP_INFO + PMIX_APPNUM, PMIX_JOB_INFO + PMIX_NSPACE, PMIX_SESSION_INFO +
 * PMIX_SESSION_ID) for this process's node and app, another node and another app, and the same
 * keys without qualifiers. One line per Get: "[rank] what: status type value". The same source is
 * built against our library and OpenPMIx; tests/data compares the two outputs line by line. */
#include <pmix.h>

#include <stdio.h>
#include <string.h>

static pmix_proc_t me;

static void print_value(const pmix_value_t* v) {
    switch (v->type) {
        case PMIX_STRING:
            printf("%s", v->data.string ? v->data.string : "(null)");
            break;
        case PMIX_UINT32:
            printf("%u", v->data.uint32);
            break;
        case PMIX_UINT16:
            printf("%u", (unsigned)v->data.uint16);
            break;
        case PMIX_PROC_RANK:
            printf("%u", v->data.rank);
            break;
        case PMIX_INT:
            printf("%d", v->data.integer);
            break;
        case PMIX_BOOL:
            printf("%s", v->data.flag ? "true" : "false");
            break;
        case PMIX_DATA_ARRAY:
            printf("array of %zu", v->data.darray ? v->data.darray->size : (size_t)0);
            break;
        default:
            printf("(type %d)", (int)v->type);
            break;
    }
}

/* Gets `key` of rank `rank` with the qualifiers and prints the answer. */
static void get(const char* what, pmix_rank_t rank, const char* key, pmix_info_t* info,
                size_t ninfo) {
    pmix_proc_t p;
    pmix_value_t* val = NULL;
    pmix_status_t rc;
    PMIX_LOAD_PROCID(&p, me.nspace, rank);
    rc = PMIx_Get(&p, key, info, ninfo, &val);
    printf("%s: %s", what, PMIx_Error_string(rc));
    if (PMIX_SUCCESS == rc && NULL != val) {
        printf(" %s ", PMIx_Data_type_string(val->type));
        print_value(val);
        PMIX_VALUE_RELEASE(val);
    }
    printf("\n");
}

static void node_by_id(const char* what, const char* key, uint32_t id) {
    pmix_info_t q[3];
    bool yes = true;
    int limit_s = 1; /* a node the job lacks: OpenPMIx 4.2.2 asks its server and waits */
    PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_NODEID, &id, PMIX_UINT32);
    PMIX_INFO_LOAD(&q[2], PMIX_TIMEOUT, &limit_s, PMIX_INT);
    get(what, PMIX_RANK_WILDCARD, key, q, 3);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
}

static void node_by_name(const char* what, const char* key, const char* host) {
    pmix_info_t q[3];
    bool yes = true;
    int limit_s = 1;
    PMIX_INFO_LOAD(&q[0], PMIX_NODE_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIX_INFO_LOAD(&q[2], PMIX_TIMEOUT, &limit_s, PMIX_INT);
    get(what, PMIX_RANK_WILDCARD, key, q, 3);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
}

static void app_by_num(const char* what, const char* key, uint32_t appnum) {
    pmix_info_t q[2];
    bool yes = true;
    PMIX_INFO_LOAD(&q[0], PMIX_APP_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_APPNUM, &appnum, PMIX_UINT32);
    get(what, PMIX_RANK_WILDCARD, key, q, 2);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
}

static void flag_only(const char* what, const char* flag, const char* key) {
    pmix_info_t q;
    bool yes = true;
    PMIX_INFO_LOAD(&q, flag, &yes, PMIX_BOOL);
    get(what, PMIX_RANK_WILDCARD, key, &q, 1);
    PMIX_INFO_DESTRUCT(&q);
}

static void job_by_nspace(const char* what, const char* key, const char* nspace) {
    pmix_info_t q[2];
    bool yes = true;
    PMIX_INFO_LOAD(&q[0], PMIX_JOB_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_NSPACE, nspace, PMIX_STRING);
    get(what, PMIX_RANK_WILDCARD, key, q, 2);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
}

static void session_by_id(const char* what, const char* key, uint32_t sid) {
    pmix_info_t q[2];
    bool yes = true;
    PMIX_INFO_LOAD(&q[0], PMIX_SESSION_INFO, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&q[1], PMIX_SESSION_ID, &sid, PMIX_UINT32);
    get(what, PMIX_RANK_WILDCARD, key, q, 2);
    PMIX_INFO_DESTRUCT(&q[0]);
    PMIX_INFO_DESTRUCT(&q[1]);
}

static const char* node_keys[] = {PMIX_HOSTNAME, PMIX_NODEID,      PMIX_LOCAL_SIZE,  PMIX_NODE_SIZE,
                                  PMIX_LOCALLDR, PMIX_LOCAL_PEERS, "qget.nosuchkey", NULL};
static const char* app_keys[] = {PMIX_APPNUM, PMIX_APP_SIZE, PMIX_APPLDR, "qget.nosuchkey", NULL};

int main(void) {
    pmix_value_t* val = NULL;
    pmix_proc_t job;
    char host[256] = "";
    char what[128];
    uint32_t nodeid = 0, nnodes = 1;
    size_t k;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "qualified_get: PMIx_Init failed\n");
        return 1;
    }
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_HOSTNAME, NULL, 0, &val) && PMIX_STRING == val->type) {
        snprintf(host, sizeof(host), "%s", val->data.string);
        PMIX_VALUE_RELEASE(val);
    }
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_NODEID, NULL, 0, &val)) {
        nodeid = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    if (PMIX_SUCCESS == PMIx_Get(&job, PMIX_NUM_NODES, NULL, 0, &val)) {
        nnodes = val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    /* Unqualified: what every client reads today. */
    get("hostname", PMIX_RANK_WILDCARD, PMIX_HOSTNAME, NULL, 0);
    get("nodeid", PMIX_RANK_WILDCARD, PMIX_NODEID, NULL, 0);
    get("appnum", PMIX_RANK_WILDCARD, PMIX_APPNUM, NULL, 0);
    get("my appnum", me.rank, PMIX_APPNUM, NULL, 0);
    get("app size", PMIX_RANK_WILDCARD, PMIX_APP_SIZE, NULL, 0);
    /* Every node of the job, by id and by name, and one past the last. */
    for (uint32_t n = 0; n <= nnodes; ++n) {
        for (k = 0; node_keys[k] != NULL; ++k) {
            snprintf(what, sizeof(what), "node %s%u %s", n == nodeid ? "(own) " : "", n,
                     node_keys[k]);
            node_by_id(what, node_keys[k], n);
        }
    }
    for (k = 0; node_keys[k] != NULL; ++k) {
        snprintf(what, sizeof(what), "node (own name) %s", node_keys[k]);
        node_by_name(what, node_keys[k], host);
        snprintf(what, sizeof(what), "node (unknown name) %s", node_keys[k]);
        node_by_name(what, node_keys[k], "qget-no-such-host");
        snprintf(what, sizeof(what), "node (no id) %s", node_keys[k]);
        flag_only(what, PMIX_NODE_INFO, node_keys[k]);
    }
    /* Own app (0) and another one (1, absent: pmixrun runs one app), and without a number. */
    for (uint32_t a = 0; a <= 1; ++a) {
        for (k = 0; app_keys[k] != NULL; ++k) {
            snprintf(what, sizeof(what), "app %u %s", a, app_keys[k]);
            app_by_num(what, app_keys[k], a);
        }
    }
    for (k = 0; app_keys[k] != NULL; ++k) {
        snprintf(what, sizeof(what), "app (no number) %s", app_keys[k]);
        flag_only(what, PMIX_APP_INFO, app_keys[k]);
    }
    job_by_nspace("job (own nspace) job size", PMIX_JOB_SIZE, me.nspace);
    job_by_nspace("job (own nspace) num apps", PMIX_JOB_NUM_APPS, me.nspace);
    session_by_id("session 0 univ size", PMIX_UNIV_SIZE, 0);
    session_by_id("session 1 univ size", PMIX_UNIV_SIZE, 1);
    PMIx_Finalize(NULL, 0);
    return 0;
}
