/*
 * maps_probe: prints the observable results of the cpuset / topology / locality API for the
 * machine (or the HWLOC_SYNTHETIC topology) it runs on. Built twice - against our libpmix and
 * against Debian's OpenPMIx 4.2.2 - and compare_with_openpmix.sh diffs the two outputs: these
 * strings travel between hosts and clients, so they must be identical.
 *
 * Usage: maps_probe <scratch dir>. OpenPMIx answers only after an init, so the probe initialises
 * a server first (ours reports PMIX_ERR_NOT_SUPPORTED, which is fine: our functions need none).
 * Exit status 77 means "cannot run here" (the OpenPMIx server would not start).
 */
#include <pmix.h>
#include <pmix_server.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PUS 64

static char* cpuset_string_of(const char* text) {
    pmix_cpuset_t cpuset;
    char* copy = strdup(text); /* OpenPMIx writes into the string it parses */
    char* out = NULL;

    memset(&cpuset, 0, sizeof(cpuset));
    if (PMIX_SUCCESS != PMIx_Parse_cpuset_string(copy, &cpuset)) {
        free(copy);
        return strdup("(parse error)");
    }
    free(copy);
    if (PMIX_SUCCESS != PMIx_server_generate_cpuset_string(&cpuset, &out)) {
        out = strdup("(generate error)");
    }
    PMIx_Cpuset_destruct(&cpuset);
    return out;
}

static char* locality_of(const char* text) {
    pmix_cpuset_t cpuset;
    char* copy = strdup(text);
    char* loc = NULL;
    pmix_status_t rc;

    memset(&cpuset, 0, sizeof(cpuset));
    rc = PMIx_Parse_cpuset_string(copy, &cpuset);
    free(copy);
    if (PMIX_SUCCESS != rc) {
        return strdup("(parse error)");
    }
    rc = PMIx_server_generate_locality_string(&cpuset, &loc);
    PMIx_Cpuset_destruct(&cpuset);
    if (PMIX_SUCCESS != rc) {
        return strdup("(error)");
    }
    return NULL == loc ? strdup("NULL") : loc;
}

static void show(const char* cpus) {
    char* cs = cpuset_string_of(cpus);
    char* loc = locality_of(cpus);
    printf("cpuset %-12s -> %-14s locality %s\n", cpus, cs, loc);
    free(cs);
    free(loc);
}

/* Expand the "hwloc:<list>" of the current binding into PU indices (list syntax "0-3,8"). */
static int bound_pus(const char* binding, int pus[MAX_PUS]) {
    const char* p = strchr(binding, ':');
    int n = 0;

    p = (NULL == p) ? binding : p + 1;
    while (*p && n < MAX_PUS) {
        char* end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p) {
            break;
        }
        if ('-' == *end) {
            p = end + 1;
            last = strtol(p, &end, 10);
        }
        for (long i = first; i <= last && n < MAX_PUS; i++) {
            pus[n++] = (int)i;
        }
        p = (',' == *end) ? end + 1 : end;
    }
    return n;
}

int main(int argc, char** argv) {
    pmix_server_module_t module;
    pmix_info_t info;
    pmix_topology_t topo;
    pmix_cpuset_t cpuset;
    char *binding = NULL, text[64];
    int pus[MAX_PUS], npus, i, j, initialised;
    pmix_status_t rc;

    if (argc < 2) {
        fprintf(stderr, "usage: %s <scratch dir>\n", argv[0]);
        return 2;
    }
    memset(&module, 0, sizeof(module));
    PMIX_INFO_CONSTRUCT(&info);
    PMIX_INFO_LOAD(&info, PMIX_SERVER_TMPDIR, argv[1], PMIX_STRING);
    rc = PMIx_server_init(&module, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (PMIX_SUCCESS != rc && PMIX_ERR_NOT_SUPPORTED != rc) {
        fprintf(stderr, "PMIx_server_init failed: %d\n", rc);
        return 77;
    }
    initialised = (PMIX_SUCCESS == rc);

    /* The shared topology: only its source is comparable. Not passed to PMIx_Topology_destruct:
     * OpenPMIx would destroy its own copy. The source is a plain strdup'd string in both. */
    memset(&topo, 0, sizeof(topo));
    rc = PMIx_Load_topology(&topo);
    printf("load_topology rc=%d source=%s\n", rc, topo.source ? topo.source : "NULL");
    free(topo.source);

    memset(&cpuset, 0, sizeof(cpuset));
    rc = PMIx_Get_cpuset(&cpuset, PMIX_CPUBIND_PROCESS);
    if (PMIX_SUCCESS == rc) {
        PMIx_server_generate_cpuset_string(&cpuset, &binding);
        PMIx_Cpuset_destruct(&cpuset);
    }
    printf("get_cpuset rc=%d binding=%s\n", rc, binding ? binding : "NULL");
    if (NULL == binding) {
        return 1;
    }
    npus = bound_pus(binding, pus);

    show(binding);
    show("hwloc:");
    show("hwloc:4095");
    for (i = 0; i < npus; i++) {
        snprintf(text, sizeof(text), "hwloc:%d", pus[i]);
        show(text);
    }
    for (i = 0; i + 1 < npus; i++) {
        snprintf(text, sizeof(text), "hwloc:%d,%d", pus[i], pus[i + 1]);
        show(text);
    }
    if (npus > 2) {
        snprintf(text, sizeof(text), "hwloc:%d,%d", pus[0], pus[npus - 1]);
        show(text);
    }
    /* Forms both parsers accept and normalise. */
    show("HWLOC:0");
    show("hwloc:0,1");

    /* Relative locality of every pair of single-PU locality strings. OpenPMIx needs the "hwloc:"
     * prefix and reports its answer with a stray status, so only the bits are compared. */
    for (i = 0; i < npus && i < 16; i++) {
        for (j = i; j < npus && j < 16; j++) {
            char a[32], b[32], la[256], lb[256];
            char *l1, *l2;
            pmix_locality_t loc = 0;
            snprintf(a, sizeof(a), "hwloc:%d", pus[i]);
            snprintf(b, sizeof(b), "hwloc:%d", pus[j]);
            l1 = locality_of(a);
            l2 = locality_of(b);
            snprintf(la, sizeof(la), "hwloc:%s", l1);
            snprintf(lb, sizeof(lb), "hwloc:%s", l2);
            (void)PMIx_Get_relative_locality(la, lb, &loc);
            printf("relative %d %d -> 0x%04x\n", pus[i], pus[j], (unsigned)loc);
            free(l1);
            free(l2);
        }
    }
    free(binding);
    if (initialised) {
        PMIx_server_finalize();
    }
    return 0;
}
