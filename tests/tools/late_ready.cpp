// tests/tools/late_ready.cpp MODE PROGRAM DIR - a debugger like prte's examples/debugger/direct.c
// against pmixrun --dvm: it spawns 2 of PROGRAM (a bare name found only in DIR, the app's cwd)
// with a stop (MODE exec: PMIX_DEBUG_STOP_ON_EXEC; init: PMIX_DEBUG_STOP_IN_INIT), and registers
// for PMIX_READY_FOR_DEBUG only after PMIx_Spawn returned, filtered on its server's proc. It must
// get the job-level event (PMIX_NSPACE of the job, no PMIX_EVENT_AFFECTED_PROC), see the
// processes held (exec: 'T' in /proc), release them, and get JOB_END with status 0; a handler
// registered after the release gets no READY_FOR_DEBUG (the server drops it on release).
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
#include <vector>

namespace {

struct Seen {
    std::mutex mutex;
    std::condition_variable cv;
    int ready = 0;
    bool ready_had_affected = false;
    bool ended = false;
    int end_status = -1;
    std::string job;
} g_seen;

std::string nspace_in(const pmix_info_t info[], size_t ninfo, const char* key) {
    for (size_t i = 0; i < ninfo; ++i)
        if (PMIX_CHECK_KEY(&info[i], key) && info[i].value.type == PMIX_STRING)
            return info[i].value.data.string;
    return "";
}

void on_ready(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
              pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_seen.mutex);
        if (nspace_in(info, ninfo, PMIX_NSPACE) == g_seen.job) {
            ++g_seen.ready;
            for (size_t i = 0; i < ninfo; ++i)
                if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC))
                    g_seen.ready_had_affected = true;
        }
    }
    g_seen.cv.notify_all();
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

void on_end(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
            pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_seen.mutex);
        for (size_t i = 0; i < ninfo; ++i) {
            if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) &&
                info[i].value.type == PMIX_PROC && g_seen.job == info[i].value.data.proc->nspace)
                g_seen.ended = true;
            if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS))
                g_seen.end_status = info[i].value.data.status;
        }
    }
    g_seen.cv.notify_all();
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

int fail(const std::string& why) {
    std::printf("FAIL: %s\n", why.c_str());
    PMIx_tool_finalize();
    return 1;
}

std::vector<pid_t> pids_of(const std::string& nspace) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    char* keys[] = {const_cast<char*>(PMIX_QUERY_PROC_TABLE), nullptr};
    query.keys = keys;
    pmix_info_t qualifier;
    PMIX_INFO_LOAD(&qualifier, PMIX_NSPACE, nspace.c_str(), PMIX_STRING);
    query.qualifiers = &qualifier;
    query.nqual = 1;
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Query_info(&query, 1, &results, &nresults);
    PMIX_INFO_DESTRUCT(&qualifier);
    std::vector<pid_t> pids;
    if (rc == PMIX_SUCCESS && nresults == 1 && results[0].value.type == PMIX_DATA_ARRAY) {
        const pmix_data_array_t* array = results[0].value.data.darray;
        const auto* table = static_cast<const pmix_proc_info_t*>(array->array);
        for (size_t i = 0; i < array->size; ++i) pids.push_back(table[i].pid);
    }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    return pids;
}

char state_of(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const size_t after = line.rfind(')');
    return after == std::string::npos || after + 2 >= line.size() ? '?' : line[after + 2];
}

pmix_status_t spawn(bool on_exec, char* program, char* dir, std::string& job) {
    char* argv[] = {program, nullptr};
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = program;
    app.argv = argv;
    app.cwd = dir;
    app.maxprocs = 2;
    pmix_info_t stop;
    PMIX_INFO_LOAD(&stop, on_exec ? PMIX_DEBUG_STOP_ON_EXEC : PMIX_DEBUG_STOP_IN_INIT, nullptr,
                   PMIX_BOOL);
    pmix_nspace_t spawned;
    const pmix_status_t rc = PMIx_Spawn(&stop, 1, &app, 1, spawned);
    PMIX_INFO_DESTRUCT(&stop);
    if (rc == PMIX_SUCCESS) job = spawned;
    return rc;
}

// The READY_FOR_DEBUG handler, registered as direct.c does: filtered on the connected server.
pmix_status_t register_ready(const pmix_proc_t& server) {
    pmix_info_t filter;
    PMIX_INFO_LOAD(&filter, PMIX_EVENT_AFFECTED_PROC, &server, PMIX_PROC);
    pmix_status_t code = PMIX_READY_FOR_DEBUG;
    const pmix_status_t rc =
        PMIx_Register_event_handler(&code, 1, &filter, 1, on_ready, nullptr, nullptr);
    PMIX_INFO_DESTRUCT(&filter);
    return rc < 0 ? rc : PMIX_SUCCESS;
}

pmix_status_t release(const std::string& job) {
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, job.c_str(), PMIX_RANK_WILDCARD);
    pmix_info_t info[2];
    const bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &all, PMIX_PROC);
    PMIX_INFO_LOAD(&info[1], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    const pmix_status_t rc = PMIx_Notify_event(PMIX_DEBUGGER_RELEASE, nullptr, PMIX_RANGE_CUSTOM,
                                               info, 2, nullptr, nullptr);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return rc;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: late_ready exec|init PROGRAM DIR\n");
        return 2;
    }
    const bool on_exec = std::strcmp(argv[1], "exec") == 0;
    pmix_info_t system;
    const bool yes = true;
    PMIX_INFO_LOAD(&system, PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, &system, 1);
    PMIX_INFO_DESTRUCT(&system);
    if (rc != PMIX_SUCCESS) {
        std::printf("FAIL: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t* servers = nullptr;
    size_t nservers = 0;
    if (PMIx_tool_get_servers(&servers, &nservers) != PMIX_SUCCESS || nservers == 0)
        return fail("no connected server");
    const pmix_proc_t server = servers[0];
    PMIX_PROC_FREE(servers, nservers);
    std::string job;
    if ((rc = spawn(on_exec, argv[2], argv[3], job)) != PMIX_SUCCESS)
        return fail(std::string("PMIx_Spawn: ") + PMIx_Error_string(rc));
    {
        std::lock_guard lock(g_seen.mutex);
        g_seen.job = job;
    }
    std::vector<pid_t> pids = pids_of(job);
    if (pids.size() != 2) return fail("proc table of " + job + ": " + std::to_string(pids.size()));
    if (!on_exec) usleep(1500 * 1000);  // both reach PMIx_Init: the READY is raised meanwhile
    for (pid_t pid : pids)              // held: stopped on exec ('T'), or waiting in PMIx_Init
        if (on_exec ? state_of(pid) != 'T' : state_of(pid) == '?')
            return fail("pid " + std::to_string(pid) + " in state " + state_of(pid));
    if ((rc = register_ready(server)) != PMIX_SUCCESS)
        return fail(std::string("READY_FOR_DEBUG registration: ") + PMIx_Error_string(rc));
    pmix_status_t end_code = PMIX_EVENT_JOB_END;
    if ((rc = PMIx_Register_event_handler(&end_code, 1, nullptr, 0, on_end, nullptr, nullptr)) < 0)
        return fail(std::string("JOB_END registration: ") + PMIx_Error_string(rc));
    std::unique_lock lock(g_seen.mutex);
    if (!g_seen.cv.wait_for(lock, std::chrono::seconds(10), [] { return g_seen.ready > 0; }))
        return lock.unlock(), fail("no READY_FOR_DEBUG for " + job + " in 10 s");
    if (g_seen.ready_had_affected)
        return lock.unlock(), fail("READY_FOR_DEBUG had an affected proc");
    std::printf("late_ready: READY_FOR_DEBUG for %s (%s)\n", job.c_str(), argv[1]);
    for (pid_t pid : pids)
        if (on_exec && state_of(pid) != 'T')
            return lock.unlock(), fail("pid " + std::to_string(pid) + " not held at READY");
    lock.unlock();
    if ((rc = release(job)) != PMIX_SUCCESS)
        return fail(std::string("release: ") + PMIx_Error_string(rc));
    lock.lock();
    if (!g_seen.cv.wait_for(lock, std::chrono::seconds(20), [] { return g_seen.ended; }))
        return lock.unlock(), fail("no JOB_END for " + job + " in 20 s after the release");
    const int status = g_seen.end_status;
    const int readies = g_seen.ready;
    lock.unlock();
    if (status != 0) return fail("JOB_END status " + std::to_string(status));
    if ((rc = register_ready(server)) != PMIX_SUCCESS)  // after the release: nothing replayed
        return fail(std::string("second registration: ") + PMIx_Error_string(rc));
    usleep(500 * 1000);
    lock.lock();
    const int after = g_seen.ready;
    lock.unlock();
    if (after != readies) return fail("READY_FOR_DEBUG replayed after the release");
    std::printf("late_ready: released, JOB_END status 0; PASS %s\n", argv[1]);
    PMIx_tool_finalize();
    return 0;
}
