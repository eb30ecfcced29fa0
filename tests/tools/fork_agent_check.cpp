// fork_agent_check: the application and the spawning tool of tests/tools/fork_agent.sh (the
// Standard's fork/exec agent, launcher/fork_agent.h), public API only.
//   fork_agent_check app DIR CODE    PMIx_Init, a fence over its job, then writes
//       DIR/app.<nspace>.<rank>: "<job size> <local rank> <local size> <local peers> <pid>
//       <ppid> <namespaces> <cwd> <proc table pid>" (namespaces: PMIX_QUERY_NAMESPACES' answer;
//       the pid PMIX_QUERY_PROC_TABLE gives for it), PMIx_Finalize, exits CODE
//   fork_agent_check spawner DIR FEA N CODE   a tool of the system server (pmixrun --dvm) that
//       spawns N "app DIR CODE" with PMIX_FORKEXEC_AGENT = FEA (required) and
//       PMIX_NOTIFY_COMPLETION, waits (30 s at most) for the job's JOB_END and prints
//       "spawned <nspace>" and "job_end <nspace> <PMIX_JOB_TERM_STATUS> <PMIX_EXIT_CODE or none>"
#include <pmix.h>
#include <pmix_tool.h>

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>

namespace {

std::string get_string(const pmix_proc_t& proc, const char* key) {
    pmix_value_t* val = nullptr;
    std::string out = "?";
    if (PMIx_Get(&proc, key, nullptr, 0, &val) != PMIX_SUCCESS || val == nullptr) return out;
    if (val->type == PMIX_STRING) out = val->data.string;
    else if (val->type == PMIX_UINT32) out = std::to_string(val->data.uint32);
    else if (val->type == PMIX_UINT16) out = std::to_string(val->data.uint16);
    PMIX_VALUE_RELEASE(val);
    return out;
}

std::string namespaces() {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    [[maybe_unused]] pmix_status_t appended;
    PMIX_ARGV_APPEND(appended, query.keys, PMIX_QUERY_NAMESPACES);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    std::string answer = "?";
    if (PMIx_Query_info(&query, 1, &results, &nresults) == PMIX_SUCCESS && nresults == 1 &&
        results[0].value.type == PMIX_STRING)
        answer = results[0].value.data.string;
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return answer;
}

// The pid PMIX_QUERY_PROC_TABLE gives for `me` (0 if none).
long table_pid(const pmix_proc_t& me) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    [[maybe_unused]] pmix_status_t appended;
    PMIX_ARGV_APPEND(appended, query.keys, PMIX_QUERY_PROC_TABLE);
    PMIX_QUERY_QUALIFIERS_CREATE(&query, 1);
    PMIX_INFO_LOAD(&query.qualifiers[0], PMIX_NSPACE, me.nspace, PMIX_STRING);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    long pid = 0;
    if (PMIx_Query_info(&query, 1, &results, &nresults) == PMIX_SUCCESS && nresults == 1 &&
        results[0].value.type == PMIX_DATA_ARRAY &&
        results[0].value.data.darray->type == PMIX_PROC_INFO) {
        const pmix_data_array_t* table = results[0].value.data.darray;
        const auto* procs = static_cast<const pmix_proc_info_t*>(table->array);
        for (size_t i = 0; i < table->size; ++i)
            if (procs[i].proc.rank == me.rank) pid = procs[i].pid;
    }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return pid;
}

int app(const std::string& dir, int code) {
    pmix_proc_t me;
    // Failures exit 1: below the code the job is asked to end with, since the launcher's status
    // is its worst rank's (across nodes, a rank that exits CODE first can fail the others' fence).
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) {
        std::fprintf(stderr, "fork_agent_check: PMIx_Init failed\n");
        return 1;
    }
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
    if (PMIx_Fence(&job, 1, nullptr, 0) != PMIX_SUCCESS) {
        std::fprintf(stderr, "fork_agent_check: rank %u: PMIx_Fence failed\n", me.rank);
        PMIx_Finalize(nullptr, 0);
        return 1;
    }
    char cwd[4096] = "?";
    if (::getcwd(cwd, sizeof cwd) == nullptr) cwd[0] = '?';
    const std::string path = dir + "/app." + me.nspace + "." + std::to_string(me.rank);
    {
        std::ofstream out(path + ".tmp");
        out << get_string(job, PMIX_JOB_SIZE) << " " << get_string(me, PMIX_LOCAL_RANK) << " "
            << get_string(job, PMIX_LOCAL_SIZE) << " " << get_string(job, PMIX_LOCAL_PEERS) << " "
            << ::getpid() << " " << ::getppid() << " " << namespaces() << " " << cwd << " " << table_pid(me) << "\n";
    }
    std::rename((path + ".tmp").c_str(), path.c_str());
    PMIx_Finalize(nullptr, 0);
    return code;
}

struct JobEnd {
    std::mutex mutex;
    std::condition_variable cv;
    bool seen = false;
    std::string nspace, line;
} g_end;

void on_job_end(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
                pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    std::string nspace = "?", status = "?", exit_code = "none";
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
            nspace = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS) && info[i].value.type == PMIX_STATUS)
            status = PMIx_Error_string(info[i].value.data.status);
        if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) && info[i].value.type == PMIX_INT)
            exit_code = std::to_string(info[i].value.data.integer);
    }
    {
        std::lock_guard lock(g_end.mutex);
        if (!g_end.seen && (g_end.nspace.empty() || g_end.nspace == nspace)) {
            g_end.line = "job_end " + nspace + " " + status + " " + exit_code;
            g_end.seen = nspace == g_end.nspace;
        }
    }
    g_end.cv.notify_all();
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

int spawner(const std::string& self, const std::string& dir, const std::string& agent, int n,
            const std::string& code) {
    pmix_proc_t me;
    pmix_info_t connect;
    const bool yes = true;
    PMIX_INFO_LOAD(&connect, PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    if (PMIx_tool_init(&me, &connect, 1) != PMIX_SUCCESS) {
        std::printf("FAIL: tool_init\n");
        return 1;
    }
    pmix_status_t code_end = PMIX_EVENT_JOB_END;
    PMIx_Register_event_handler(&code_end, 1, nullptr, 0, on_job_end, nullptr, nullptr);
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = ::strdup(self.c_str());
    for (const char* arg : {self.c_str(), "app", dir.c_str(), code.c_str()}) {
        [[maybe_unused]] pmix_status_t appended;
        PMIX_ARGV_APPEND(appended, app.argv, arg);
    }
    app.maxprocs = n;
    pmix_info_t job_info[2];
    PMIX_INFO_LOAD(&job_info[0], PMIX_FORKEXEC_AGENT, agent.c_str(), PMIX_STRING);
    PMIX_INFO_REQUIRED(&job_info[0]);
    PMIX_INFO_LOAD(&job_info[1], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    pmix_nspace_t spawned = "";
    {
        std::lock_guard lock(g_end.mutex);
        g_end.nspace.clear();
    }
    const pmix_status_t rc = PMIx_Spawn(job_info, 2, &app, 1, spawned);
    std::printf("spawned %s %s\n", spawned, PMIx_Error_string(rc));
    bool ended = false;
    if (rc == PMIX_SUCCESS) {
        std::unique_lock lock(g_end.mutex);
        g_end.nspace = spawned;
        // The event may have come before we knew the name: it is cached for late handlers, and
        // a JOB_END for this name seen earlier is in `line`.
        g_end.seen = g_end.line.rfind("job_end " + g_end.nspace + " ", 0) == 0;
        ended = g_end.cv.wait_for(lock, std::chrono::seconds(30), [] { return g_end.seen; });
        std::printf("%s\n", ended ? g_end.line.c_str() : "no job_end in 30 s");
    }
    std::fflush(stdout);
    PMIX_APP_DESTRUCT(&app);
    PMIX_INFO_DESTRUCT(&job_info[0]);
    PMIX_INFO_DESTRUCT(&job_info[1]);
    PMIx_tool_finalize();
    return rc == PMIX_SUCCESS && ended ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "app" && argc == 4) return app(argv[2], std::atoi(argv[3]));
    if (mode == "spawner" && argc == 6) {
        char self[4096];
        const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return 1;
        self[n] = '\0';
        return spawner(self, argv[2], argv[3], std::atoi(argv[4]), argv[5]);
    }
    std::fprintf(stderr, "usage: fork_agent_check app DIR CODE | spawner DIR FEA N CODE\n");
    return 2;
}
