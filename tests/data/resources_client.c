/* tests/data/resources_client.c - PMIx_Compute_distances, PMIx_Allocation_request and
 * PMIx_Fabric_* from a client of pmixrun, printing one line per answer so that the run on
 * pmixrun-openpmix (this file built against OpenPMIx 4.2.2) and the run on ours can be diffed.
 *   resources_client            the comparable part
 *   resources_client --errors   bad input (ours only: OpenPMIx dereferences some NULLs)
 * Exit status 0 unless PMIx_Init/Finalize fail or a --errors check fails. */
#include <pmix.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Loads `info` after releasing what it held (every info here starts constructed). */
static void set(pmix_info_t* info, const char* key, const void* value, pmix_data_type_t type) {
    PMIX_INFO_DESTRUCT(info);
    PMIX_INFO_LOAD(info, key, value, type);
}

static void print_infos(const char* what, pmix_status_t rc, const pmix_info_t* info, size_t n) {
    printf("%s: %s", what, PMIx_Error_string(rc));
    for (size_t i = 0; i < n; ++i) {
        char* v = PMIx_Value_string(&info[i].value);
        printf(" | %s=%s", info[i].key, v != NULL ? v : "?");
        free(v);
    }
    printf("\n");
}

static char g_first_device[64] = "";

static void distances(const char* what, pmix_topology_t* topo, const char* cpus, pmix_info_t* info,
                      size_t ninfo) {
    pmix_cpuset_t cpuset = {NULL, NULL};
    pmix_cpuset_t* cp = NULL;
    if (cpus != NULL) {
        char copy[64]; /* OpenPMIx writes into the string it parses */
        snprintf(copy, sizeof copy, "%s", cpus);
        if (PMIx_Parse_cpuset_string(copy, &cpuset) != PMIX_SUCCESS) {
            printf("%s: cannot parse %s\n", what, cpus);
            return;
        }
        cp = &cpuset;
    }
    pmix_device_distance_t* d = NULL;
    size_t nd = 0;
    pmix_status_t rc = PMIx_Compute_distances(topo, cp, info, ninfo, &d, &nd);
    printf("distances %s: %s n=%zu\n", what, PMIx_Error_string(rc), nd);
    if (nd > 0 && g_first_device[0] == '\0')
        snprintf(g_first_device, sizeof g_first_device, "%s", d[0].osname);
    for (size_t i = 0; i < nd; ++i)
        printf("distances %s: %s %s %s min=%u max=%u\n", what, d[i].osname, d[i].uuid,
               PMIx_Device_type_string(d[i].type), (unsigned)d[i].mindist, (unsigned)d[i].maxdist);
    if (d != NULL) PMIX_DEVICE_DIST_FREE(d, nd);
    if (cp != NULL) PMIx_Cpuset_destruct(&cpuset);
}

struct dwaiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    pmix_status_t rc;
    size_t n;
};

static void dist_cb(pmix_status_t rc, pmix_device_distance_t* d, size_t n, void* cbdata,
                    pmix_release_cbfunc_t release, void* release_data) {
    struct dwaiter* w = cbdata;
    (void)d;
    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    w->n = n;
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (release != NULL) release(release_data);
}

static void op_done(pmix_status_t rc, void* cbdata) {
    struct dwaiter* w = cbdata;
    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

static void wait_for(struct dwaiter* w) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&w->mu);
    while (!w->done && pthread_cond_timedwait(&w->cv, &w->mu, &until) == 0) {
    }
    pthread_mutex_unlock(&w->mu);
}

/* The non-blocking form with this process's own topology and binding (both NULL). */
static void distances_nb(void) {
    struct dwaiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PMIX_ERROR, 0};
    pmix_status_t rc = PMIx_Compute_distances_nb(NULL, NULL, NULL, 0, dist_cb, &w);
    if (rc != PMIX_SUCCESS) {
        printf("distances_nb own binding: returned %s\n", PMIx_Error_string(rc));
        return;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 30;
    pthread_mutex_lock(&w.mu);
    while (!w.done && pthread_cond_timedwait(&w.cv, &w.mu, &until) == 0) {
    }
    pthread_mutex_unlock(&w.mu);
    printf("distances_nb own binding: %s n=%zu\n", w.done ? PMIx_Error_string(w.rc) : "NO-CALLBACK",
           w.n);
}

static void all_distances(void) {
    pmix_topology_t topo = {NULL, NULL};
    if (PMIx_Load_topology(&topo) != PMIX_SUCCESS) {
        printf("distances: no topology\n");
        return;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    char all[64];
    snprintf(all, sizeof all, "hwloc:0-%ld", ncpu - 1);
    pmix_info_t type;
    pmix_device_type_t net = PMIX_DEVTYPE_NETWORK;
    PMIX_INFO_LOAD(&type, PMIX_DEVICE_TYPE, &net, PMIX_DEVTYPE);
    distances("network pu0", &topo, "hwloc:0", &type, 1);
    distances("network all", &topo, all, &type, 1);
    distances("any pu0", &topo, "hwloc:0", NULL, 0);
    if (g_first_device[0] != '\0') {
        /* With its type too: OpenPMIx 4.2.2 reads info without PMIX_DEVICE_TYPE as no type. */
        pmix_info_t id[2];
        PMIX_INFO_LOAD(&id[0], PMIX_DEVICE_ID, g_first_device, PMIX_STRING);
        pmix_device_type_t any = PMIX_DEVTYPE_NETWORK | PMIX_DEVTYPE_OPENFABRICS | PMIX_DEVTYPE_GPU;
        PMIX_INFO_LOAD(&id[1], PMIX_DEVICE_TYPE, &any, PMIX_DEVTYPE);
        distances("first device by id", &topo, all, id, 2);
        PMIX_INFO_DESTRUCT(&id[0]);
        PMIX_INFO_DESTRUCT(&id[1]);
    }
    distances_nb();
    pmix_device_type_t block = PMIX_DEVTYPE_BLOCK;
    PMIX_INFO_LOAD(&type, PMIX_DEVICE_TYPE, &block, PMIX_DEVTYPE);
    distances("block pu0", &topo, "hwloc:0", &type, 1);
    free(topo.source); /* not PMIx_Topology_destruct: OpenPMIx would destroy its own copy */
}

static pmix_status_t allocate(const char* what, pmix_alloc_directive_t dir, pmix_info_t* info,
                              size_t n, char* id_out) {
    pmix_info_t* res = NULL;
    size_t nres = 0;
    pmix_status_t rc = PMIx_Allocation_request(dir, info, n, &res, &nres);
    print_infos(what, rc, res, nres);
    for (size_t i = 0; i < nres && id_out != NULL; ++i)
        if (strcmp(res[i].key, PMIX_ALLOC_ID) == 0)
            snprintf(id_out, 64, "%s", res[i].value.data.string);
    if (res != NULL) PMIX_INFO_FREE(res, nres);
    return rc;
}

struct waiter {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done;
    pmix_status_t rc;
    char line[512];
};

static void alloc_cb(pmix_status_t rc, pmix_info_t* info, size_t n, void* cbdata,
                     pmix_release_cbfunc_t release, void* release_data) {
    struct waiter* w = cbdata;
    pthread_mutex_lock(&w->mu);
    w->rc = rc;
    snprintf(w->line, sizeof w->line, "%zu infos", n);
    for (size_t i = 0; i < n; ++i)
        if (strcmp(info[i].key, PMIX_ALLOC_NUM_NODES) == 0)
            snprintf(w->line, sizeof w->line, "%zu infos, nodes %llu", n,
                     (unsigned long long)info[i].value.data.uint64);
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (release != NULL) release(release_data);
}

static void allocations(void) {
    char id[64] = "", host[256] = "";
    gethostname(host, sizeof host - 1);
    uint64_t one = 1, many = 1000, cpus = 1, lots = 1000000;
    pmix_info_t info[3];
    for (int i = 0; i < 3; ++i) PMIX_INFO_CONSTRUCT(&info[i]);
    set(&info[0], PMIX_ALLOC_NUM_NODES, &one, PMIX_UINT64);
    set(&info[1], PMIX_ALLOC_NUM_CPUS, &cpus, PMIX_UINT64);
    set(&info[2], PMIX_ALLOC_REQ_ID, "req-1", PMIX_STRING);
    allocate("alloc new 1 node 1 cpu", PMIX_ALLOC_NEW, info, 3, id);
    set(&info[0], PMIX_ALLOC_NUM_NODES, &many, PMIX_UINT64);
    allocate("alloc new 1000 nodes", PMIX_ALLOC_NEW, info, 1, NULL);
    set(&info[0], PMIX_ALLOC_NUM_CPUS, &lots, PMIX_UINT64);
    allocate("alloc new 1000000 cpus", PMIX_ALLOC_NEW, info, 1, NULL);
    set(&info[0], PMIX_ALLOC_NODE_LIST, "no-such-node", PMIX_STRING);
    allocate("alloc new unknown node", PMIX_ALLOC_NEW, info, 1, NULL);
    set(&info[0], PMIX_ALLOC_NODE_LIST, host, PMIX_STRING);
    char id2[64] = "";
    allocate("alloc new own node by name", PMIX_ALLOC_NEW, info, 1, id2);
    set(&info[0], PMIX_ALLOC_ID, id, PMIX_STRING);
    set(&info[1], PMIX_ALLOC_NUM_NODES, &one, PMIX_UINT64);
    allocate("alloc extend by 1 node", PMIX_ALLOC_EXTEND, info, 2, NULL);
    uint32_t secs = 60;
    set(&info[1], PMIX_ALLOC_TIME, &secs, PMIX_UINT32);
    allocate("alloc extend time", PMIX_ALLOC_EXTEND, info, 2, NULL);
    set(&info[2], PMIX_ALLOC_NUM_NODES, &one, PMIX_UINT64);
    allocate("alloc extend job by 1 node", PMIX_ALLOC_EXTEND, &info[2], 1, NULL);
    allocate("alloc release", PMIX_ALLOC_RELEASE, info, 1, NULL);
    allocate("alloc release again", PMIX_ALLOC_RELEASE, info, 1, NULL);
    allocate("alloc release the job", PMIX_ALLOC_RELEASE, NULL, 0, NULL);
    allocate("alloc reacquire", PMIX_ALLOC_REAQUIRE, info, 1, NULL);
    struct waiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PMIX_ERROR, ""};
    set(&info[0], PMIX_ALLOC_NUM_NODES, &one, PMIX_UINT64);
    pmix_status_t rc = PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, info, 1, alloc_cb, &w);
    if (rc == PMIX_SUCCESS) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += 30;
        pthread_mutex_lock(&w.mu);
        while (!w.done && pthread_cond_timedwait(&w.cv, &w.mu, &until) == 0) {
        }
        pthread_mutex_unlock(&w.mu);
        printf("alloc_nb new 1 node: %s %s\n", w.done ? PMIx_Error_string(w.rc) : "NO-CALLBACK",
               w.line);
    } else {
        printf("alloc_nb new 1 node: returned %s\n", PMIx_Error_string(rc));
    }
    for (int i = 0; i < 3; ++i) PMIX_INFO_DESTRUCT(&info[i]);
}

static void fabric(void) {
    pmix_fabric_t fab;
    PMIX_FABRIC_CONSTRUCT(&fab);
    pmix_status_t rc = PMIx_Fabric_register(&fab, NULL, 0);
    printf("fabric register: %s ninfo=%zu\n", PMIx_Error_string(rc), fab.ninfo);
    rc = PMIx_Fabric_update(&fab);
    printf("fabric update: %s\n", PMIx_Error_string(rc));
    rc = PMIx_Fabric_deregister(&fab);
    printf("fabric deregister: %s\n", PMIx_Error_string(rc));
}

/* --fabric: register with a directive, update, deregister; for a host that has a fabric upcall
 * (test_server_resources). */
static void fabric_with_host(void) {
    pmix_fabric_t fab;
    PMIX_FABRIC_CONSTRUCT(&fab);
    pmix_info_t plane;
    PMIX_INFO_LOAD(&plane, PMIX_FABRIC_PLANE, "plane-a", PMIX_STRING);
    pmix_status_t rc = PMIx_Fabric_register(&fab, &plane, 1);
    print_infos("fabric register", rc, fab.info, fab.ninfo);
    printf("fabric index %zu\n", fab.index);
    rc = PMIx_Fabric_update(&fab);
    print_infos("fabric update", rc, fab.info, fab.ninfo);
    rc = PMIx_Fabric_deregister(&fab);
    printf("fabric deregister: %s ninfo=%zu\n", PMIx_Error_string(rc), fab.ninfo);
    struct dwaiter w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, PMIX_ERROR, 0};
    rc = PMIx_Fabric_register_nb(&fab, &plane, 1, op_done, &w);
    if (rc == PMIX_SUCCESS) wait_for(&w);
    printf("fabric register_nb: %s %s ninfo=%zu\n", PMIx_Error_string(rc),
           w.done ? PMIx_Error_string(w.rc) : "NO-CALLBACK", fab.ninfo);
    PMIx_Fabric_deregister(&fab);
    uint64_t two = 2;
    pmix_info_t nodes;
    PMIX_INFO_LOAD(&nodes, PMIX_ALLOC_NUM_NODES, &two, PMIX_UINT64);
    allocate("alloc new 2 nodes", PMIX_ALLOC_NEW, &nodes, 1, NULL);
    PMIX_INFO_DESTRUCT(&plane);
}

static int failures = 0;
static void expect(const char* what, pmix_status_t got, pmix_status_t want) {
    printf("error %s: %s\n", what, PMIx_Error_string(got));
    if (got != want) {
        printf("FAIL: %s: got %s, want %s\n", what, PMIx_Error_string(got),
               PMIx_Error_string(want));
        ++failures;
    }
}

static void errors(void) {
    pmix_info_t* res = NULL;
    size_t nres = 0;
    pmix_device_distance_t* d = NULL;
    size_t nd = 0;
    expect("alloc NULL results", PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 0, NULL, &nres),
           PMIX_ERR_BAD_PARAM);
    expect("alloc directive 0", PMIx_Allocation_request(0, NULL, 0, &res, &nres),
           PMIX_ERR_BAD_PARAM);
    expect("alloc directive 77", PMIx_Allocation_request(77, NULL, 0, &res, &nres),
           PMIX_ERR_BAD_PARAM);
    expect("alloc info NULL n=2", PMIx_Allocation_request(PMIX_ALLOC_NEW, NULL, 2, &res, &nres),
           PMIX_ERR_BAD_PARAM);
    expect("alloc external", PMIx_Allocation_request(PMIX_ALLOC_EXTERNAL, NULL, 0, &res, &nres),
           PMIX_ERR_NOT_SUPPORTED);
    expect("alloc_nb NULL callback",
           PMIx_Allocation_request_nb(PMIX_ALLOC_NEW, NULL, 0, NULL, NULL), PMIX_ERR_BAD_PARAM);
    expect("fabric register NULL", PMIx_Fabric_register(NULL, NULL, 0), PMIX_ERR_BAD_PARAM);
    expect("fabric update NULL", PMIx_Fabric_update(NULL), PMIX_ERR_BAD_PARAM);
    expect("fabric deregister NULL", PMIx_Fabric_deregister(NULL), PMIX_ERR_BAD_PARAM);
    expect("distances NULL out", PMIx_Compute_distances(NULL, NULL, NULL, 0, NULL, &nd),
           PMIX_ERR_BAD_PARAM);
    expect("distances_nb NULL callback", PMIx_Compute_distances_nb(NULL, NULL, NULL, 0, NULL, NULL),
           PMIX_ERR_BAD_PARAM);
    pmix_topology_t empty = {NULL, NULL};
    expect("distances no topology", PMIx_Compute_distances(&empty, NULL, NULL, 0, &d, &nd),
           PMIX_ERR_BAD_PARAM);
    pmix_topology_t topo = {NULL, NULL};
    PMIx_Load_topology(&topo);
    pmix_cpuset_t far;
    char text[] = "hwloc:100000";
    PMIx_Parse_cpuset_string(text, &far);
    expect("distances cpuset outside the topology",
           PMIx_Compute_distances(&topo, &far, NULL, 0, &d, &nd), PMIX_ERR_BAD_PARAM);
    pmix_cpuset_t none = {NULL, NULL};
    expect("distances cpuset without bitmap",
           PMIx_Compute_distances(&topo, &none, NULL, 0, &d, &nd), PMIX_ERR_BAD_PARAM);
    char other[] = "other";
    char* saved = far.source;
    far.source = other;
    expect("distances cpuset of another provider",
           PMIx_Compute_distances(&topo, &far, NULL, 0, &d, &nd), PMIX_ERR_NOT_SUPPORTED);
    far.source = saved;
    PMIx_Cpuset_destruct(&far);
    pmix_info_t wrong;
    PMIX_INFO_LOAD(&wrong, PMIX_DEVICE_TYPE, "network", PMIX_STRING);
    expect("distances PMIX_DEVICE_TYPE as a string",
           PMIx_Compute_distances(&topo, NULL, &wrong, 1, &d, &nd), PMIX_ERR_TYPE_MISMATCH);
    PMIX_INFO_DESTRUCT(&wrong);
    PMIX_INFO_LOAD(&wrong, PMIX_DEVICE_ID, "no-such-device", PMIX_STRING);
    expect("distances unknown PMIX_DEVICE_ID",
           PMIx_Compute_distances(&topo, NULL, &wrong, 1, &d, &nd), PMIX_ERR_NOT_FOUND);
    PMIX_INFO_DESTRUCT(&wrong);
    if (d != NULL || nd != 0) {
        printf("FAIL: a failed PMIx_Compute_distances left output\n");
        ++failures;
    }
    free(topo.source); /* not PMIx_Topology_destruct: OpenPMIx would destroy its own copy */
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IOLBF, 0); /* every line out, even if the library crashes later */
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--errors") == 0) {
        errors();
    } else if (argc > 1 && strcmp(argv[1], "--fabric") == 0) {
        fabric_with_host();
    } else {
        all_distances();
        allocations();
        fabric();
    }
    fflush(stdout);
    rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Finalize: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    return failures == 0 ? 0 : 1;
}
