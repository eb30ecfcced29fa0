// tests/load/tool_load.cpp - many tools querying one running server at once.
//
//   tool_load --pid P [--tools K] [--queries Q] [--tmpdir D]
//
// Forks K tool processes that start together (released by closing a pipe); each connects to the
// server of pid P (PMIx_tool_init with PMIX_SERVER_PIDINFO), asks Q proc-table queries of the
// server's first namespace, and finalizes, writing its latencies (connect and each query, in
// microseconds) to a pipe. Meanwhile this process samples the server's resident memory every 5 ms.
// Prints the server's RSS (before, peak, after) and descriptors (before, after), and the connect
// and query latencies (median, 99th percentile, max). Exits 1 if a tool failed or the server's
// descriptors did not come back to where they were. Timings are reported, never asserted.
#include <pmix_tool.h>

#include <dirent.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
    long pid = 0;
    int tools = 256;
    int queries = 20;
};

long count_fds(long pid) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return -1;
    long n = 0;
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.' ? 1 : 0;
    closedir(d);
    return n;
}

long rss_kib(long pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    }
    return -1;
}

double micros_since(Clock::time_point start) {
    return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// One query of the proc table of the server's namespace: what a debugger asks first.
bool query_proc_table(const char* nspace) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    pmix_status_t appended;
    PMIX_ARGV_APPEND(appended, query.keys, PMIX_QUERY_PROC_TABLE);
    if (appended != PMIX_SUCCESS) return false;
    PMIX_INFO_CREATE(query.qualifiers, 1);
    query.nqual = 1;
    PMIX_INFO_LOAD(&query.qualifiers[0], PMIX_NSPACE, nspace, PMIX_STRING);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Query_info(&query, 1, &results, &nresults);
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return rc == PMIX_SUCCESS;
}

// PMIX_QUERY_NAMESPACES answers a comma-separated list; the job's is the first.
std::string first_namespace() {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    pmix_status_t appended;
    PMIX_ARGV_APPEND(appended, query.keys, PMIX_QUERY_NAMESPACES);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    std::string first;
    if (appended == PMIX_SUCCESS && PMIx_Query_info(&query, 1, &results, &nresults) == PMIX_SUCCESS &&
        nresults > 0 && results[0].value.type == PMIX_STRING && results[0].value.data.string) {
        first = results[0].value.data.string;
        first = first.substr(0, first.find(','));
    }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return first;
}

// The body of one tool process: waits for the start, then connect, queries, finalize.
int run_tool(const Options& options, int start_fd, int result_fd) {
    char byte;
    while (read(start_fd, &byte, 1) < 0) {
    }
    std::vector<double> latencies;  // [0] connect, then one per query
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_PIDINFO, &options.pid, PMIX_PID);
    const uint32_t seconds = 30;
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &seconds, PMIX_UINT32);
    pmix_proc_t me;
    Clock::time_point t = Clock::now();
    if (PMIx_tool_init(&me, info, 2) != PMIX_SUCCESS) return 2;
    latencies.push_back(micros_since(t));
    const std::string nspace = first_namespace();  // the job pmixrun runs
    if (nspace.empty()) return 5;
    int failures = 0;
    for (int q = 0; q < options.queries; ++q) {
        t = Clock::now();
        failures += query_proc_table(nspace.c_str()) ? 0 : 1;
        latencies.push_back(micros_since(t));
    }
    PMIx_tool_finalize();
    const size_t bytes = latencies.size() * sizeof(double);
    if (write(result_fd, latencies.data(), bytes) != static_cast<ssize_t>(bytes)) return 3;
    return failures == 0 ? 0 : 4;
}

double percentile(std::vector<double> values, double p) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const size_t index = std::min(values.size() - 1, static_cast<size_t>(p * values.size()));
    return values[index];
}

bool parse(int argc, char** argv, Options& options) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--pid") options.pid = std::atol(argv[i + 1]);
        else if (flag == "--tools") options.tools = std::atoi(argv[i + 1]);
        else if (flag == "--queries") options.queries = std::atoi(argv[i + 1]);
        else if (flag == "--tmpdir") setenv("TMPDIR", argv[i + 1], 1);
        else return false;
    }
    return options.pid > 0 && options.tools > 0 && options.queries > 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parse(argc, argv, options)) {
        std::fprintf(stderr, "usage: tool_load --pid P [--tools K] [--queries Q] [--tmpdir D]\n");
        return 2;
    }
    const long fds_before = count_fds(options.pid);
    const long rss_before = rss_kib(options.pid);
    int start[2], results[2];
    if (pipe(start) != 0 || pipe(results) != 0) return 2;
    std::vector<pid_t> children;
    for (int i = 0; i < options.tools; ++i) {
        const pid_t child = fork();
        if (child == 0) {
            close(start[1]);
            close(results[0]);
            _exit(run_tool(options, start[0], results[1]));
        }
        if (child < 0) break;
        children.push_back(child);
    }
    close(start[0]);
    close(results[1]);
    close(start[1]);  // go: every tool's read returns 0 at once
    std::vector<double> connect, query;
    long rss_peak = rss_before;
    std::vector<double> chunk(static_cast<size_t>(options.queries) + 1);
    const size_t chunk_bytes = chunk.size() * sizeof(double);
    for (;;) {
        pollfd p{results[0], POLLIN, 0};
        if (poll(&p, 1, 5) == 0) {
            rss_peak = std::max(rss_peak, rss_kib(options.pid));
            continue;
        }
        // Each tool writes its whole record at once (less than PIPE_BUF bytes for Q <= 500).
        const ssize_t got = read(results[0], chunk.data(), chunk_bytes);
        if (got <= 0) break;
        if (static_cast<size_t>(got) != chunk_bytes) continue;
        connect.push_back(chunk[0]);
        query.insert(query.end(), chunk.begin() + 1, chunk.end());
        rss_peak = std::max(rss_peak, rss_kib(options.pid));
    }
    int failed = 0;
    for (pid_t child : children) {
        int status = 0;
        waitpid(child, &status, 0);
        failed += WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
    }
    long fds_after = count_fds(options.pid);
    for (int i = 0; i < 500 && fds_after > fds_before; ++i) {  // closed on the server's thread
        usleep(10000);
        fds_after = count_fds(options.pid);
    }
    std::printf("tools %d (failed %d), queries %zu\n", options.tools, failed, query.size());
    std::printf("server rss KiB: before %ld, peak %ld, after %ld\n", rss_before, rss_peak,
                rss_kib(options.pid));
    std::printf("server fds: before %ld, after %ld\n", fds_before, fds_after);
    std::printf("connect us: median %.0f, p99 %.0f, max %.0f\n", percentile(connect, 0.5),
                percentile(connect, 0.99), percentile(connect, 1.0));
    std::printf("query us: median %.0f, p99 %.0f, max %.0f\n", percentile(query, 0.5),
                percentile(query, 0.99), percentile(query, 1.0));
    return failed == 0 && fds_after <= fds_before ? 0 : 1;
}
