/* Sample values, equality and release for every PMIx data type (see the header). */
#define _GNU_SOURCE
#include "debian_headers_data_samples.h"

#include <hwloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ fixed-size types */

#define SCALAR(fn, ctype, v0, v1)                                                         \
    static void make_##fn(void* e, int v) { *(ctype*)e = v ? (ctype)(v1) : (ctype)(v0); } \
    static bool eq_##fn(const void* a, const void* b) { return memcmp(a, b, sizeof(ctype)) == 0; }

SCALAR(bool, bool, true, false)
SCALAR(byte, uint8_t, 0xA5, 0)
SCALAR(size, size_t, 123456789012ULL, 0)
SCALAR(pid, pid_t, 4242, 1)
SCALAR(int, int, -7, INT32_MAX)
SCALAR(i8, int8_t, -8, INT8_MAX)
SCALAR(i16, int16_t, -16, INT16_MIN)
SCALAR(i32, int32_t, -32, INT32_MIN)
SCALAR(i64, int64_t, -64, INT64_MAX)
SCALAR(uint, unsigned int, 7, UINT32_MAX)
SCALAR(u8, uint8_t, 8, UINT8_MAX)
SCALAR(u16, uint16_t, 16, UINT16_MAX)
SCALAR(u32, uint32_t, 32, UINT32_MAX)
SCALAR(u64, uint64_t, 64, UINT64_MAX)
SCALAR(flt, float, 1.5f, -0.25f)
SCALAR(dbl, double, 2.25, -1.0e300)
SCALAR(time, time_t, 1234567, 0)
SCALAR(status, pmix_status_t, PMIX_ERR_NOT_FOUND, PMIX_SUCCESS)
SCALAR(persist, pmix_persistence_t, PMIX_PERSIST_SESSION, PMIX_PERSIST_INDEF)
SCALAR(scope, pmix_scope_t, PMIX_LOCAL, PMIX_GLOBAL)
SCALAR(range, pmix_data_range_t, PMIX_RANGE_NAMESPACE, PMIX_RANGE_SESSION)
SCALAR(cmd, uint8_t, 3, 7)
SCALAR(directives, pmix_info_directives_t, PMIX_INFO_REQD, 0)
SCALAR(dtype, pmix_data_type_t, PMIX_STRING, PMIX_DATA_ARRAY)
SCALAR(pstate, pmix_proc_state_t, PMIX_PROC_STATE_RUNNING, PMIX_PROC_STATE_ABORTED)
SCALAR(rank, pmix_rank_t, 5, PMIX_RANK_WILDCARD)
SCALAR(adir, pmix_alloc_directive_t, PMIX_ALLOC_NEW, PMIX_ALLOC_RELEASE)
SCALAR(iof, pmix_iof_channel_t, PMIX_FWD_STDOUT_CHANNEL, PMIX_FWD_ALL_CHANNELS)
SCALAR(jstate, pmix_job_state_t, PMIX_JOB_STATE_RUNNING, PMIX_JOB_STATE_TERMINATED)
SCALAR(lstate, pmix_link_state_t, PMIX_LINK_UP, PMIX_LINK_DOWN)
SCALAR(devtype, pmix_device_type_t, PMIX_DEVTYPE_NETWORK, PMIX_DEVTYPE_GPU)
SCALAR(loc, pmix_locality_t, PMIX_LOCALITY_SHARE_NODE, PMIX_LOCALITY_SHARE_CORE)
SCALAR(smed, pmix_storage_medium_t, PMIX_STORAGE_MEDIUM_SSD, PMIX_STORAGE_MEDIUM_TAPE)
SCALAR(sacc, pmix_storage_accessibility_t, PMIX_STORAGE_ACCESSIBILITY_NODE,
       PMIX_STORAGE_ACCESSIBILITY_RACK)
SCALAR(spers, pmix_storage_persistence_t, PMIX_STORAGE_PERSISTENCE_JOB,
       PMIX_STORAGE_PERSISTENCE_ARCHIVE)
SCALAR(sacct, pmix_storage_access_type_t, PMIX_STORAGE_ACCESS_RD, PMIX_STORAGE_ACCESS_RDWR)

static void make_tv(void* e, int v) {
    struct timeval* tv = e;
    tv->tv_sec = v ? 0 : 10;
    tv->tv_usec = v ? 999999 : 20;
}
static bool eq_tv(const void* a, const void* b) {
    const struct timeval *x = a, *y = b;
    return x->tv_sec == y->tv_sec && x->tv_usec == y->tv_usec;
}

static void no_release(void* e) { (void)e; }

/* ------------------------------------------------------------------ strings */

static void make_string(void* e, int v) { *(char**)e = strdup(v ? "" : "hello, world"); }
static bool eq_string(const void* a, const void* b) {
    return dh_streq(*(char* const*)a, *(char* const*)b);
}
static void release_string(void* e) {
    free(*(char**)e);
    *(char**)e = NULL;
}

static void make_regex(void* e, int v) {
    char* regex = NULL;
    const char* nodes = v ? "c1,c2" : "node01,node02,node03";
    if (PMIx_generate_regex(nodes, &regex) != PMIX_SUCCESS || regex == NULL) regex = strdup(nodes);
    *(char**)e = regex;
}

static void make_nspace(void* e, int v) {
    memset(e, 0, sizeof(pmix_nspace_t));
    PMIX_LOAD_NSPACE(*(pmix_nspace_t*)e, v ? "other-ns" : "sample-ns");
}
static bool eq_nspace(const void* a, const void* b) {
    return strncmp((const char*)a, (const char*)b, PMIX_MAX_NSLEN) == 0;
}

/* ------------------------------------------------------------------ small structs */

static void make_proc(void* e, int v) {
    PMIX_PROC_CONSTRUCT((pmix_proc_t*)e);
    PMIX_LOAD_PROCID((pmix_proc_t*)e, v ? "nsB" : "nsA", v ? PMIX_RANK_WILDCARD : 3);
}
static bool eq_proc(const void* a, const void* b) { return dh_proc_eq(a, b); }

static void make_bo(void* e, int v) {
    pmix_byte_object_t* bo = e;
    PMIX_BYTE_OBJECT_CONSTRUCT(bo);
    if (v == 0) {
        bo->bytes = malloc(5);
        memcpy(bo->bytes, "\x01\x00\x02\xff\x7f", 5);
        bo->size = 5;
    }
}
static bool eq_bo(const void* a, const void* b) { return dh_bo_eq(a, b); }
static void release_bo(void* e) { PMIX_BYTE_OBJECT_DESTRUCT((pmix_byte_object_t*)e); }

static void make_value(void* e, int v) {
    pmix_value_t* val = e;
    PMIX_VALUE_CONSTRUCT(val);
    if (v == 0) {
        val->type = PMIX_INT32;
        val->data.int32 = -5;
    } else {
        val->type = PMIX_STRING;
        val->data.string = strdup("val");
    }
}
static bool eq_value(const void* a, const void* b) { return dh_value_eq(a, b); }
static void release_value(void* e) { PMIX_VALUE_DESTRUCT((pmix_value_t*)e); }

static void make_info(void* e, int v) {
    pmix_info_t* info = e;
    PMIX_INFO_CONSTRUCT(info);
    PMIX_LOAD_KEY(info->key, v ? "pmix.test.str" : "pmix.test.u32");
    if (v == 0) {
        info->value.type = PMIX_UINT32;
        info->value.data.uint32 = 7;
    } else {
        info->value.type = PMIX_STRING;
        info->value.data.string = strdup("x");
        PMIX_INFO_REQUIRED(info);
    }
}
static bool eq_info(const void* a, const void* b) { return dh_info_eq(a, b); }
static void release_info(void* e) { PMIX_INFO_DESTRUCT((pmix_info_t*)e); }

static void make_pdata(void* e, int v) {
    pmix_pdata_t* pd = e;
    PMIX_PDATA_CONSTRUCT(pd);
    make_proc(&pd->proc, v);
    PMIX_LOAD_KEY(pd->key, "pmix.test.pdata");
    make_value(&pd->value, v);
}
static bool eq_pdata(const void* a, const void* b) {
    const pmix_pdata_t *x = a, *y = b;
    return dh_proc_eq(&x->proc, &y->proc) && strcmp(x->key, y->key) == 0 &&
           dh_value_eq(&x->value, &y->value);
}
static void release_pdata(void* e) { PMIX_PDATA_DESTRUCT((pmix_pdata_t*)e); }

static char** argv_of(const char* a, const char* b) {
    char** argv = calloc(3, sizeof(char*));
    argv[0] = strdup(a);
    argv[1] = b ? strdup(b) : NULL;
    return argv;
}

static void make_app(void* e, int v) {
    pmix_app_t* app = e;
    PMIX_APP_CONSTRUCT(app);
    if (v == 1) return;
    app->cmd = strdup("/bin/true");
    app->argv = argv_of("true", "-x");
    app->env = argv_of("A=1", NULL);
    app->cwd = strdup("/tmp");
    app->maxprocs = 2;
    PMIX_APP_INFO_CREATE(app, 1);
    make_info(&app->info[0], 1);
}
static bool eq_app(const void* a, const void* b) {
    const pmix_app_t *x = a, *y = b;
    if (!dh_streq(x->cmd, y->cmd) || !dh_argv_eq(x->argv, y->argv) || !dh_argv_eq(x->env, y->env) ||
        !dh_streq(x->cwd, y->cwd) || x->maxprocs != y->maxprocs || x->ninfo != y->ninfo)
        return false;
    for (size_t i = 0; i < x->ninfo; ++i)
        if (!dh_info_eq(&x->info[i], &y->info[i])) return false;
    return true;
}
/* The reference's copy leaves the flags of the copied info entries uninitialised. */
static bool eq_app_copied(const void* a, const void* b) {
    const pmix_app_t *x = a, *y = b;
    pmix_app_t tmp = *x;
    tmp.info = NULL;
    tmp.ninfo = 0;
    pmix_app_t ytmp = *y;
    ytmp.info = NULL;
    ytmp.ninfo = 0;
    if (!eq_app(&tmp, &ytmp) || x->ninfo != y->ninfo) return false;
    for (size_t i = 0; i < x->ninfo; ++i)
        if (strcmp(x->info[i].key, y->info[i].key) != 0 ||
            !dh_value_eq(&x->info[i].value, &y->info[i].value))
            return false;
    return true;
}
static void release_app(void* e) { PMIX_APP_DESTRUCT((pmix_app_t*)e); }

static void make_query(void* e, int v) {
    pmix_query_t* q = e;
    PMIX_QUERY_CONSTRUCT(q);
    q->keys = argv_of(v ? PMIX_QUERY_NAMESPACES : PMIX_QUERY_JOB_STATUS,
                      v ? NULL : PMIX_QUERY_PROC_TABLE);
    if (v == 0) {
        PMIX_QUERY_QUALIFIERS_CREATE(q, 1);
        make_info(&q->qualifiers[0], 0);
    }
}
static bool eq_query(const void* a, const void* b) {
    const pmix_query_t *x = a, *y = b;
    if (!dh_argv_eq(x->keys, y->keys) || x->nqual != y->nqual) return false;
    for (size_t i = 0; i < x->nqual; ++i)
        if (!dh_info_eq(&x->qualifiers[i], &y->qualifiers[i])) return false;
    return true;
}
static void release_query(void* e) { PMIX_QUERY_DESTRUCT((pmix_query_t*)e); }

static void make_pinfo(void* e, int v) {
    pmix_proc_info_t* p = e;
    PMIX_PROC_INFO_CONSTRUCT(p);
    make_proc(&p->proc, v);
    p->hostname = strdup(v ? "h2" : "h1");
    p->executable_name = v ? NULL : strdup("/bin/app");
    p->pid = v ? 2 : 1234;
    p->exit_code = v ? -1 : 0;
    p->state = v ? PMIX_PROC_STATE_TERMINATED : PMIX_PROC_STATE_RUNNING;
}
static bool eq_pinfo(const void* a, const void* b) {
    const pmix_proc_info_t *x = a, *y = b;
    return dh_proc_eq(&x->proc, &y->proc) && dh_streq(x->hostname, y->hostname) &&
           dh_streq(x->executable_name, y->executable_name) && x->pid == y->pid &&
           x->exit_code == y->exit_code && x->state == y->state;
}
/* The reference does not carry exit_code through pack/unpack (see dh_pack_skips). */
static bool eq_pinfo_packed(const void* a, const void* b) {
    pmix_proc_info_t x = *(const pmix_proc_info_t*)a;
    x.exit_code = ((const pmix_proc_info_t*)b)->exit_code;
    return eq_pinfo(&x, b);
}
static void release_pinfo(void* e) { PMIX_PROC_INFO_DESTRUCT((pmix_proc_info_t*)e); }

static void make_envar(void* e, int v) {
    pmix_envar_t* env = e;
    PMIX_ENVAR_CONSTRUCT(env);
    PMIX_ENVAR_LOAD(env, v ? "LD_PRELOAD" : "PATH", v ? "/x.so" : "/bin", v ? ' ' : ':');
}
static bool eq_envar(const void* a, const void* b) {
    const pmix_envar_t *x = a, *y = b;
    return dh_streq(x->envar, y->envar) && dh_streq(x->value, y->value) &&
           x->separator == y->separator;
}
static void release_envar(void* e) { PMIX_ENVAR_DESTRUCT((pmix_envar_t*)e); }

static void make_coord(void* e, int v) {
    pmix_coord_t* c = e;
    PMIX_COORD_CONSTRUCT(c);
    c->view = v ? PMIX_COORD_PHYSICAL_VIEW : PMIX_COORD_LOGICAL_VIEW;
    c->dims = v ? 1 : 3;
    c->coord = calloc(c->dims, sizeof(uint32_t));
    for (size_t i = 0; i < c->dims; ++i) c->coord[i] = (uint32_t)(i + 1 + 10 * v);
}
static bool eq_coord(const void* a, const void* b) {
    const pmix_coord_t *x = a, *y = b;
    return x->view == y->view && x->dims == y->dims &&
           (x->dims == 0 || memcmp(x->coord, y->coord, x->dims * sizeof(uint32_t)) == 0);
}
static void release_coord(void* e) { PMIX_COORD_DESTRUCT((pmix_coord_t*)e); }

static void make_regattr(void* e, int v) {
    pmix_regattr_t* r = e;
    PMIX_REGATTR_CONSTRUCT(r);
    /* Filled by hand: the reference's PMIX_REGATTR_LOAD does not compile (see macros). */
    r->name = strdup(v ? "PMIX_JOB_SIZE" : "PMIX_HOSTNAME");
    PMIX_LOAD_KEY(r->string, v ? PMIX_JOB_SIZE : PMIX_HOSTNAME);
    r->type = v ? PMIX_UINT32 : PMIX_STRING;
    r->description = argv_of(v ? "size of the job" : "name of the host", NULL);
}
static bool eq_regattr(const void* a, const void* b) {
    const pmix_regattr_t *x = a, *y = b;
    return dh_streq(x->name, y->name) && strcmp(x->string, y->string) == 0 && x->type == y->type &&
           dh_argv_eq(x->description, y->description);
}
/* The reference corrupts the type field on unpack (its PMIX_DATA_TYPE codec is asymmetric). */
static bool eq_regattr_packed(const void* a, const void* b) {
    pmix_regattr_t x = *(const pmix_regattr_t*)a;
    x.type = ((const pmix_regattr_t*)b)->type;
    return eq_regattr(&x, b);
}
static void release_regattr(void* e) { PMIX_REGATTR_DESTRUCT((pmix_regattr_t*)e); }

static void make_geometry(void* e, int v) {
    pmix_geometry_t* g = e;
    PMIX_GEOMETRY_CONSTRUCT(g);
    g->fabric = v ? 0 : 3;
    g->uuid = strdup(v ? "uuid-b" : "uuid-a");
    g->osname = v ? NULL : strdup("eth0");
    g->ncoords = 1;
    g->coordinates = calloc(1, sizeof(pmix_coord_t));
    make_coord(&g->coordinates[0], v);
}
static bool eq_geometry(const void* a, const void* b) {
    const pmix_geometry_t *x = a, *y = b;
    if (x->fabric != y->fabric || !dh_streq(x->uuid, y->uuid) || !dh_streq(x->osname, y->osname) ||
        x->ncoords != y->ncoords)
        return false;
    for (size_t i = 0; i < x->ncoords; ++i)
        if (!eq_coord(&x->coordinates[i], &y->coordinates[i])) return false;
    return true;
}
static void release_geometry(void* e) { PMIX_GEOMETRY_DESTRUCT((pmix_geometry_t*)e); }

static void make_devdist(void* e, int v) {
    pmix_device_distance_t* d = e;
    PMIX_DEVICE_DIST_CONSTRUCT(d);
    d->uuid = strdup(v ? "dev-b" : "dev-a");
    d->osname = strdup(v ? "mlx5_0" : "ib0");
    d->type = v ? PMIX_DEVTYPE_OPENFABRICS : PMIX_DEVTYPE_NETWORK;
    d->mindist = v ? 0 : 1;
    d->maxdist = v ? 65535 : 5;
}
static bool eq_devdist(const void* a, const void* b) {
    const pmix_device_distance_t *x = a, *y = b;
    return dh_streq(x->uuid, y->uuid) && dh_streq(x->osname, y->osname) && x->type == y->type &&
           x->mindist == y->mindist && x->maxdist == y->maxdist;
}
static void release_devdist(void* e) { PMIX_DEVICE_DIST_DESTRUCT((pmix_device_distance_t*)e); }

static void make_endpoint(void* e, int v) {
    pmix_endpoint_t* ep = e;
    PMIX_ENDPOINT_CONSTRUCT(ep);
    ep->uuid = strdup(v ? "ep-b" : "ep-a");
    ep->osname = strdup("hsn0");
    make_bo(&ep->endpt, v);
}
static bool eq_endpoint(const void* a, const void* b) {
    const pmix_endpoint_t *x = a, *y = b;
    return dh_streq(x->uuid, y->uuid) && dh_streq(x->osname, y->osname) &&
           dh_bo_eq(&x->endpt, &y->endpt);
}
static void release_endpoint(void* e) { PMIX_ENDPOINT_DESTRUCT((pmix_endpoint_t*)e); }

/* ------------------------------------------------------------------ hwloc-backed types */

/* Built with hwloc directly, so the sample does not depend on the library's own topology. */
static void make_cpuset(void* e, int v) {
    pmix_cpuset_t* cs = e;
    PMIX_CPUSET_CONSTRUCT(cs);
    cs->source = strdup("hwloc");
    hwloc_bitmap_t bm = hwloc_bitmap_alloc();
    hwloc_bitmap_set_range(bm, v ? 4 : 0, v ? 4 : 3);
    if (v == 0) hwloc_bitmap_set(bm, 9);
    cs->bitmap = bm;
}
static bool eq_cpuset(const void* a, const void* b) {
    const pmix_cpuset_t *x = a, *y = b;
    if (!dh_streq(x->source, y->source) || (x->bitmap == NULL) != (y->bitmap == NULL)) return false;
    return x->bitmap == NULL || hwloc_bitmap_isequal(x->bitmap, y->bitmap);
}
static void release_cpuset(void* e) {
    pmix_cpuset_t* cs = e;
    free(cs->source);
    if (cs->bitmap != NULL) hwloc_bitmap_free(cs->bitmap);
    PMIX_CPUSET_CONSTRUCT(cs);
}

static hwloc_topology_t dh_topo;

static void make_topo(void* e, int v) {
    pmix_topology_t* t = e;
    (void)v;
    PMIX_TOPOLOGY_CONSTRUCT(t);
    if (dh_topo == NULL) {
        hwloc_topology_init(&dh_topo);
        hwloc_topology_load(dh_topo);
    }
    t->source = strdup("hwloc");
    t->topology = dh_topo;
}
static bool eq_topo(const void* a, const void* b) {
    const pmix_topology_t *x = a, *y = b;
    if (!dh_streq(x->source, y->source) || x->topology == NULL || y->topology == NULL) return false;
    hwloc_topology_t tx = x->topology, ty = y->topology;
    return hwloc_get_nbobjs_by_type(tx, HWLOC_OBJ_PU) ==
               hwloc_get_nbobjs_by_type(ty, HWLOC_OBJ_PU) &&
           hwloc_topology_get_depth(tx) == hwloc_topology_get_depth(ty);
}
/* Our samples share one hwloc topology; copies made by the library own theirs. */
static void release_topo(void* e) {
    pmix_topology_t* t = e;
    if (t->topology != NULL && t->topology != (void*)dh_topo) hwloc_topology_destroy(t->topology);
    free(t->source);
    PMIX_TOPOLOGY_CONSTRUCT(t);
}

/* ------------------------------------------------------------------ statistics */

static void make_pstats(void* e, int v) {
    pmix_proc_stats_t* p = e;
    PMIX_PROC_STATS_CONSTRUCT(p);
    p->node = strdup(v ? "n2" : "n1");
    make_proc(&p->proc, v);
    p->pid = 77 + v;
    p->cmd = strdup("a.out");
    p->state = v ? 'S' : 'R';
    p->time.tv_sec = 5;
    p->percent_cpu = 12.5f;
    p->priority = 20;
    p->num_threads = 4;
    p->pss = 1.0f;
    p->vsize = 2.0f;
    p->rss = 3.0f;
    p->peak_vsize = 4.0f;
    p->processor = 3;
    p->sample_time.tv_sec = 100;
    p->sample_time.tv_usec = 5;
}
static bool eq_pstats(const void* a, const void* b) {
    const pmix_proc_stats_t *x = a, *y = b;
    return dh_streq(x->node, y->node) && dh_proc_eq(&x->proc, &y->proc) && x->pid == y->pid &&
           dh_streq(x->cmd, y->cmd) && x->state == y->state && eq_tv(&x->time, &y->time) &&
           x->percent_cpu == y->percent_cpu && x->priority == y->priority &&
           x->num_threads == y->num_threads && x->pss == y->pss && x->vsize == y->vsize &&
           x->rss == y->rss && x->peak_vsize == y->peak_vsize && x->processor == y->processor &&
           eq_tv(&x->sample_time, &y->sample_time);
}
/* The reference's copy drops percent_cpu (see dh_pack_skips). */
static bool eq_pstats_relaxed(const void* a, const void* b) {
    pmix_proc_stats_t x = *(const pmix_proc_stats_t*)a;
    x.percent_cpu = ((const pmix_proc_stats_t*)b)->percent_cpu;
    return eq_pstats(&x, b);
}
static void release_pstats(void* e) { PMIX_PROC_STATS_DESTRUCT((pmix_proc_stats_t*)e); }

static void make_dkstats(void* e, int v) {
    pmix_disk_stats_t* d = e;
    PMIX_DISK_STATS_CONSTRUCT(d);
    d->disk = strdup(v ? "sdb" : "sda");
    uint64_t* f = &d->num_reads_completed;
    for (int i = 0; i < 11; ++i) f[i] = (uint64_t)(i + 1) * (v ? 1000 : 1);
}
static bool eq_dkstats(const void* a, const void* b) {
    const pmix_disk_stats_t *x = a, *y = b;
    return dh_streq(x->disk, y->disk) &&
           memcmp(&x->num_reads_completed, &y->num_reads_completed, 11 * sizeof(uint64_t)) == 0;
}
static void release_dkstats(void* e) { PMIX_DISK_STATS_DESTRUCT((pmix_disk_stats_t*)e); }

static void make_netstats(void* e, int v) {
    pmix_net_stats_t* n = e;
    PMIX_NET_STATS_CONSTRUCT(n);
    n->net_interface = strdup(v ? "eth1" : "eth0");
    uint64_t* f = &n->num_bytes_recvd;
    for (int i = 0; i < 6; ++i) f[i] = (uint64_t)(i + 7) * (v ? 3 : 1);
}
static bool eq_netstats(const void* a, const void* b) {
    const pmix_net_stats_t *x = a, *y = b;
    return dh_streq(x->net_interface, y->net_interface) &&
           memcmp(&x->num_bytes_recvd, &y->num_bytes_recvd, 6 * sizeof(uint64_t)) == 0;
}
static void release_netstats(void* e) { PMIX_NET_STATS_DESTRUCT((pmix_net_stats_t*)e); }

static void make_ndstats(void* e, int v) {
    pmix_node_stats_t* n = e;
    PMIX_NODE_STATS_CONSTRUCT(n);
    n->node = strdup(v ? "n2" : "n1");
    float* f = &n->la;
    for (int i = 0; i < 11; ++i) f[i] = (float)i + 0.5f;
    n->sample_time.tv_sec = 9;
    if (v == 0) {
        n->ndiskstats = 1;
        n->diskstats = calloc(1, sizeof(pmix_disk_stats_t));
        make_dkstats(n->diskstats, 0);
        n->nnetstats = 1;
        n->netstats = calloc(1, sizeof(pmix_net_stats_t));
        make_netstats(n->netstats, 0);
    }
}
static bool eq_ndstats(const void* a, const void* b) {
    const pmix_node_stats_t *x = a, *y = b;
    if (!dh_streq(x->node, y->node) || memcmp(&x->la, &y->la, 11 * sizeof(float)) != 0 ||
        !eq_tv(&x->sample_time, &y->sample_time) || x->ndiskstats != y->ndiskstats ||
        x->nnetstats != y->nnetstats)
        return false;
    for (size_t i = 0; i < x->ndiskstats; ++i)
        if (!eq_dkstats(&x->diskstats[i], &y->diskstats[i])) return false;
    for (size_t i = 0; i < x->nnetstats; ++i)
        if (!eq_netstats(&x->netstats[i], &y->netstats[i])) return false;
    return true;
}
static void release_ndstats(void* e) { PMIX_NODE_STATS_DESTRUCT((pmix_node_stats_t*)e); }

static void make_dbuf(void* e, int v) {
    pmix_data_buffer_t* b = e;
    PMIX_DATA_BUFFER_CONSTRUCT(b);
    size_t n = v ? 3 : 8;
    char* bytes = malloc(n);
    memcpy(bytes, "payload!", n);
    PMIX_DATA_BUFFER_LOAD(b, bytes, n);
}
static bool eq_dbuf(const void* a, const void* b) {
    const pmix_data_buffer_t *x = a, *y = b;
    size_t nx = (size_t)(x->pack_ptr - x->unpack_ptr), ny = (size_t)(y->pack_ptr - y->unpack_ptr);
    return nx == ny && (nx == 0 || memcmp(x->unpack_ptr, y->unpack_ptr, nx) == 0);
}
static void release_dbuf(void* e) { PMIX_DATA_BUFFER_DESTRUCT((pmix_data_buffer_t*)e); }

/* ------------------------------------------------------------------ pointers */

/* 8 bytes: the reference compares PMIX_POINTER values by reading pointer-sized data behind them */
static uint64_t dh_pointee;
static void make_ptr(void* e, int v) { *(void**)e = v ? NULL : (void*)&dh_pointee; }
static bool eq_ptr(const void* a, const void* b) { return *(void* const*)a == *(void* const*)b; }

/* ------------------------------------------------------------------ data arrays */

static void make_darray_of(void* e, int v, pmix_data_type_t elem) {
    pmix_data_array_t* d = e;
    const dh_type_t* t = dh_type_find(elem);
    size_t n = v ? 1 : 3;
    d->type = elem;
    d->size = n;
    d->array = calloc(n, t->size);
    for (size_t i = 0; i < n; ++i) t->make((char*)d->array + i * t->size, (int)(i % 2));
}
static bool eq_darray(const void* a, const void* b) {
    const pmix_data_array_t *x = a, *y = b;
    if (x->type != y->type || x->size != y->size) return false;
    const dh_type_t* t = dh_type_find(x->type);
    if (t == NULL) return false;
    for (size_t i = 0; i < x->size; ++i)
        if (!t->eq((char*)x->array + i * t->size, (char*)y->array + i * t->size)) return false;
    return true;
}
static void release_darray(void* e) { PMIX_DATA_ARRAY_DESTRUCT((pmix_data_array_t*)e); }

#define DARRAY(tag, elem) \
    static void make_darray_##tag(void* e, int v) { make_darray_of(e, v, elem); }
DARRAY(u32, PMIX_UINT32)
DARRAY(str, PMIX_STRING)
DARRAY(proc, PMIX_PROC)
DARRAY(info, PMIX_INFO)
DARRAY(value, PMIX_VALUE)
DARRAY(bo, PMIX_BYTE_OBJECT)
DARRAY(envar, PMIX_ENVAR)

/* ------------------------------------------------------------------ the table */

#define T(type, ctype, fn, rel, inl) \
    { type, #type, sizeof(ctype), make_##fn, eq_##fn, rel, inl, NULL, NULL }
#define DA(elem, tag)                                                             \
    {                                                                             \
        PMIX_DATA_ARRAY, "PMIX_DATA_ARRAY(" #elem ")", sizeof(pmix_data_array_t), \
            make_darray_##tag, eq_darray, release_darray, false, NULL, NULL       \
    }

static const dh_type_t dh_table[] = {
    T(PMIX_BOOL, bool, bool, no_release, true),
    T(PMIX_BYTE, uint8_t, byte, no_release, true),
    T(PMIX_STRING, char*, string, release_string, true),
    T(PMIX_SIZE, size_t, size, no_release, true),
    T(PMIX_PID, pid_t, pid, no_release, true),
    T(PMIX_INT, int, int, no_release, true),
    T(PMIX_INT8, int8_t, i8, no_release, true),
    T(PMIX_INT16, int16_t, i16, no_release, true),
    T(PMIX_INT32, int32_t, i32, no_release, true),
    T(PMIX_INT64, int64_t, i64, no_release, true),
    T(PMIX_UINT, unsigned int, uint, no_release, true),
    T(PMIX_UINT8, uint8_t, u8, no_release, true),
    T(PMIX_UINT16, uint16_t, u16, no_release, true),
    T(PMIX_UINT32, uint32_t, u32, no_release, true),
    T(PMIX_UINT64, uint64_t, u64, no_release, true),
    T(PMIX_FLOAT, float, flt, no_release, true),
    T(PMIX_DOUBLE, double, dbl, no_release, true),
    T(PMIX_TIMEVAL, struct timeval, tv, no_release, true),
    T(PMIX_TIME, time_t, time, no_release, true),
    T(PMIX_STATUS, pmix_status_t, status, no_release, true),
    T(PMIX_VALUE, pmix_value_t, value, release_value, false),
    T(PMIX_PROC, pmix_proc_t, proc, no_release, false),
    {PMIX_APP, "PMIX_APP", sizeof(pmix_app_t), make_app, eq_app, release_app, false, NULL,
     eq_app_copied},
    T(PMIX_INFO, pmix_info_t, info, release_info, false),
    T(PMIX_PDATA, pmix_pdata_t, pdata, release_pdata, false),
    T(PMIX_BYTE_OBJECT, pmix_byte_object_t, bo, release_bo, true),
    T(PMIX_PERSIST, pmix_persistence_t, persist, no_release, true),
    T(PMIX_POINTER, void*, ptr, no_release, true),
    T(PMIX_SCOPE, pmix_scope_t, scope, no_release, true),
    T(PMIX_DATA_RANGE, pmix_data_range_t, range, no_release, true),
    T(PMIX_COMMAND, uint8_t, cmd, no_release, true),
    T(PMIX_INFO_DIRECTIVES, pmix_info_directives_t, directives, no_release, true),
    T(PMIX_DATA_TYPE, pmix_data_type_t, dtype, no_release, true),
    T(PMIX_PROC_STATE, pmix_proc_state_t, pstate, no_release, true),
    {PMIX_PROC_INFO, "PMIX_PROC_INFO", sizeof(pmix_proc_info_t), make_pinfo, eq_pinfo,
     release_pinfo, false, eq_pinfo_packed, NULL},
    T(PMIX_PROC_RANK, pmix_rank_t, rank, no_release, true),
    T(PMIX_QUERY, pmix_query_t, query, release_query, false),
    T(PMIX_COMPRESSED_STRING, pmix_byte_object_t, bo, release_bo, true),
    T(PMIX_ALLOC_DIRECTIVE, pmix_alloc_directive_t, adir, no_release, true),
    T(PMIX_IOF_CHANNEL, pmix_iof_channel_t, iof, no_release, true),
    T(PMIX_ENVAR, pmix_envar_t, envar, release_envar, true),
    T(PMIX_COORD, pmix_coord_t, coord, release_coord, false),
    {PMIX_REGATTR, "PMIX_REGATTR", sizeof(pmix_regattr_t), make_regattr, eq_regattr,
     release_regattr, false, eq_regattr_packed, NULL},
    {PMIX_REGEX, "PMIX_REGEX", sizeof(char*), make_regex, eq_string, release_string, true, NULL,
     NULL},
    T(PMIX_JOB_STATE, pmix_job_state_t, jstate, no_release, true),
    T(PMIX_LINK_STATE, pmix_link_state_t, lstate, no_release, true),
    T(PMIX_PROC_CPUSET, pmix_cpuset_t, cpuset, release_cpuset, false),
    T(PMIX_GEOMETRY, pmix_geometry_t, geometry, release_geometry, false),
    T(PMIX_DEVICE_DIST, pmix_device_distance_t, devdist, release_devdist, false),
    T(PMIX_ENDPOINT, pmix_endpoint_t, endpoint, release_endpoint, false),
    T(PMIX_TOPO, pmix_topology_t, topo, release_topo, false),
    T(PMIX_DEVTYPE, pmix_device_type_t, devtype, no_release, true),
    T(PMIX_LOCTYPE, pmix_locality_t, loc, no_release, true),
    T(PMIX_COMPRESSED_BYTE_OBJECT, pmix_byte_object_t, bo, release_bo, true),
    T(PMIX_PROC_NSPACE, pmix_nspace_t, nspace, no_release, false),
    {PMIX_PROC_STATS, "PMIX_PROC_STATS", sizeof(pmix_proc_stats_t), make_pstats, eq_pstats,
     release_pstats, false, NULL, eq_pstats_relaxed},
    T(PMIX_DISK_STATS, pmix_disk_stats_t, dkstats, release_dkstats, false),
    T(PMIX_NET_STATS, pmix_net_stats_t, netstats, release_netstats, false),
    T(PMIX_NODE_STATS, pmix_node_stats_t, ndstats, release_ndstats, false),
    T(PMIX_DATA_BUFFER, pmix_data_buffer_t, dbuf, release_dbuf, false),
    T(PMIX_STOR_MEDIUM, pmix_storage_medium_t, smed, no_release, true),
    T(PMIX_STOR_ACCESS, pmix_storage_accessibility_t, sacc, no_release, true),
    T(PMIX_STOR_PERSIST, pmix_storage_persistence_t, spers, no_release, true),
    T(PMIX_STOR_ACCESS_TYPE, pmix_storage_access_type_t, sacct, no_release, true),
    DA(PMIX_UINT32, u32),
    DA(PMIX_STRING, str),
    DA(PMIX_PROC, proc),
    DA(PMIX_INFO, info),
    DA(PMIX_VALUE, value),
    DA(PMIX_BYTE_OBJECT, bo),
    DA(PMIX_ENVAR, envar),
};

const dh_type_t* dh_types(size_t* count) {
    *count = sizeof dh_table / sizeof dh_table[0];
    return dh_table;
}

const dh_type_t* dh_type_find(pmix_data_type_t type) {
    for (size_t i = 0; i < sizeof dh_table / sizeof dh_table[0]; ++i)
        if (dh_table[i].type == type) return &dh_table[i];
    return NULL;
}

bool dh_is_scalar(const dh_type_t* t) {
    return t->release == no_release && t->type != PMIX_POINTER;
}

bool dh_elem_eq(pmix_data_type_t type, const void* a, const void* b) {
    const dh_type_t* t = dh_type_find(type);
    return t != NULL && t->eq(a, b);
}
