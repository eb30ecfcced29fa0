// bench/scale/server_mem.cpp - the server's memory for one large registration, through the public
// API only (so the same source measures any build of the library): PMIx_server_init, then
// PMIx_server_register_nspace of P processes over H nodes as a host such as pmixrun registers
// them (job-level keys and PMIX_NODE_MAP / PMIX_PROC_MAP regexes; with "proc-data", also one
// PMIX_PROC_DATA array per process of this node), then PMIx_Get of a few keys in the server
// process. Prints VmRSS, VmHWM, RssAnon, RssShmem and the bytes of this process's store
// segments in /dev/shm, after init and after the registration (the host's info array freed;
// again after malloc_trim, which returns memory freed but kept by glibc's allocator).
// Usage: bench-server-mem [procs] [nodes] [proc-data]   (defaults 1000000 1000)
#include <pmix.h>
#include <pmix_server.h>

#include <dirent.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace {

std::atomic<bool> g_done{false};
std::atomic<int> g_status{PMIX_SUCCESS};

void op_done(pmix_status_t status, void*) {
    g_status = status;
    g_done = true;
}

long status_kb(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(field);
    while (std::getline(in, line)) {
        if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') {
            return std::strtol(line.c_str() + n + 1, nullptr, 10);
        }
    }
    return -1;
}

// Bytes of the shared-memory objects this process created (segments are named -<pid>-).
long long shm_bytes() {
    const std::string mine = "-" + std::to_string(::getpid()) + "-";
    long long total = 0;
    if (DIR* d = ::opendir("/dev/shm")) {
        while (dirent* e = ::readdir(d)) {
            if (std::strstr(e->d_name, mine.c_str()) == nullptr) continue;
            struct stat st {};
            const std::string path = std::string("/dev/shm/") + e->d_name;
            if (::stat(path.c_str(), &st) == 0) total += static_cast<long long>(st.st_blocks) * 512;
        }
        ::closedir(d);
    }
    return total;
}

void report(const char* when) {
    std::printf(
        "%-22s VmRSS %8ld kB  VmHWM %8ld kB  RssAnon %8ld kB  RssShmem %8ld kB  "
        "/dev/shm %8lld kB\n",
        when, status_kb("VmRSS"), status_kb("VmHWM"), status_kb("RssAnon"), status_kb("RssShmem"),
        shm_bytes() / 1024);
}

std::string ppn_map(unsigned procs, unsigned nodes) {
    std::string out;
    const unsigned per = procs / nodes;
    for (unsigned n = 0; n < nodes; ++n) {
        const unsigned first = n * per, last = n + 1 == nodes ? procs - 1 : first + per - 1;
        out += (n ? ";" : "") + std::to_string(first) + "-" + std::to_string(last);
    }
    return out;
}

void proc_data(pmix_info_t& out, pmix_rank_t r, std::uint16_t local, std::uint32_t node,
               const char* host) {
    pmix_data_array_t* da = nullptr;
    PMIX_DATA_ARRAY_CREATE(da, 6, PMIX_INFO);
    auto* in = static_cast<pmix_info_t*>(da->array);
    PMIx_Info_load(&in[0], PMIX_RANK, &r, PMIX_PROC_RANK);
    PMIx_Info_load(&in[1], PMIX_GLOBAL_RANK, &r, PMIX_PROC_RANK);
    PMIx_Info_load(&in[2], PMIX_LOCAL_RANK, &local, PMIX_UINT16);
    PMIx_Info_load(&in[3], PMIX_NODE_RANK, &local, PMIX_UINT16);
    PMIx_Info_load(&in[4], PMIX_NODEID, &node, PMIX_UINT32);
    PMIx_Info_load(&in[5], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIX_INFO_LOAD(&out, PMIX_PROC_DATA, da, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_FREE(da);
}

}  // namespace

int main(int argc, char** argv) {
    const unsigned procs = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 1000000;
    const unsigned nodes = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 1000;
    const bool with_proc_data = argc > 3 && std::strcmp(argv[3], "proc-data") == 0;
    if (procs == 0 || nodes == 0 || nodes > procs) return 2;
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);

    pmix_server_module_t module{};
    report("start");
    if (PMIx_server_init(&module, nullptr, 0) != PMIX_SUCCESS) return 1;
    report("after server_init");

    // This host is node 0; the others are node1..node<H-1>.
    std::string names = host;
    for (unsigned n = 1; n < nodes; ++n) names += ",node" + std::to_string(n);
    char *nodemap = nullptr, *procmap = nullptr;
    if (PMIx_generate_regex(names.c_str(), &nodemap) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ppn_map(procs, nodes).c_str(), &procmap) != PMIX_SUCCESS) {
        return 1;
    }
    const unsigned local = procs / nodes;
    const std::size_t njob = 6, ninfo = njob + (with_proc_data ? local : 0);
    pmix_info_t* info = nullptr;
    PMIX_INFO_CREATE(info, ninfo);
    std::uint32_t size = procs, nnodes = nodes, nlocal = local, zero = 0;
    PMIx_Info_load(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIx_Info_load(&info[1], PMIX_NUM_NODES, &nnodes, PMIX_UINT32);
    PMIx_Info_load(&info[2], PMIX_LOCAL_SIZE, &nlocal, PMIX_UINT32);
    PMIx_Info_load(&info[3], PMIX_NODEID, &zero, PMIX_UINT32);
    PMIx_Info_load(&info[4], PMIX_NODE_MAP, nodemap, PMIX_STRING);
    PMIx_Info_load(&info[5], PMIX_PROC_MAP, procmap, PMIX_STRING);
    std::free(nodemap);
    std::free(procmap);
    for (unsigned r = 0; with_proc_data && r < local; ++r) {
        proc_data(info[njob + r], r, static_cast<std::uint16_t>(r), 0, host);
    }

    const auto t0 = std::chrono::steady_clock::now();
    pmix_status_t rc = PMIx_server_register_nspace("bench.mem", static_cast<int>(local), info,
                                                   ninfo, op_done, nullptr);
    if (rc == PMIX_SUCCESS) {
        while (!g_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        rc = g_status;
    } else if (rc == PMIX_OPERATION_SUCCEEDED) {
        rc = PMIX_SUCCESS;
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    PMIX_INFO_FREE(info, ninfo);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "register_nspace: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    std::printf("registered %u procs over %u nodes%s in %.0f ms\n", procs, nodes,
                with_proc_data ? " (+PMIX_PROC_DATA of the local procs)" : "", ms);
    report("after registration");
    // What the allocator still holds of freed memory is not the server's data: return it.
    malloc_trim(0);
    report("after malloc_trim");

    // The server's own PMIx_Get of a remote proc's derived keys (the last rank).
    pmix_proc_t last;
    PMIX_PROC_LOAD(&last, "bench.mem", procs - 1);
    pmix_value_t* v = nullptr;
    rc = PMIx_Get(&last, PMIX_NODEID, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS || v == nullptr || v->type != PMIX_UINT32 ||
        v->data.uint32 != nodes - 1) {
        std::fprintf(stderr, "PMIx_Get(NODEID of rank %u): %s\n", procs - 1, PMIx_Error_string(rc));
        return 1;
    }
    PMIX_VALUE_RELEASE(v);
    report("after PMIx_Get");
    PMIx_server_finalize();
    return 0;
}
