// dvm_tool: a tool of the persistent launcher (launcher/dvm.cpp), public API only.
//   dvm_tool run JOBS AT_ONCE EXIT NPROCS PROG [ARGS...]
//       attaches to the system server (PMIX_CONNECT_TO_SYSTEM), spawns JOBS jobs of NPROCS
//       processes of PROG, AT_ONCE of them at a time (PMIx_Spawn_nb, all started before any is
//       waited for), each with PMIX_NOTIFY_COMPLETION; waits (at most 30 s) for each one's
//       PMIX_EVENT_JOB_END and checks it: EXIT 0 wants PMIX_JOB_TERM_STATUS PMIX_SUCCESS, any
//       other EXIT wants PMIX_ERR_JOB_NON_ZERO_TERM with that PMIX_EXIT_CODE; EXIT with the
//       suffix "a" (3a) wants PMIX_ERR_JOB_ABORTED (a rank called PMIx_Abort), with "s" (137s)
//       PMIX_ERR_JOB_ABORTED_BY_SIG (a rank was killed by a signal); a further "@R" (3a@3) wants
//       rank R as the failed process (PMIX_PROCID). With
//       DVM_TOOL_HOST set, its value is every job's PMIX_HOST.
//   dvm_tool stop
//       attaches to the system server and sends PMIx_Job_control(PMIX_JOB_CTRL_TERMINATE) with
//       no targets, as PRRTE's pterm does.
//   dvm_tool connect
//       a client: PMIx_Connect then PMIx_Disconnect with every process of its job.
// Prints "dvm_tool: <mode> ok" and exits 0 when every check held; "FAIL: ..." and 1 otherwise.
#include <pmix.h>
#include <pmix_tool.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

struct JobEnd {
    pmix_status_t status = PMIX_ERROR;
    int exit_code = 0;
    long failed_rank = -1;  // PMIX_PROCID's rank, -1 without one
};

std::mutex g_mu;
std::condition_variable g_cv;
std::map<std::string, JobEnd> g_ended;  // by namespace

void on_job_end(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
                pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    std::string nspace;
    JobEnd end;
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
            nspace = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS) && info[i].value.type == PMIX_STATUS)
            end.status = info[i].value.data.status;
        if (PMIX_CHECK_KEY(&info[i], PMIX_EXIT_CODE) && info[i].value.type == PMIX_INT)
            end.exit_code = info[i].value.data.integer;
        if (PMIX_CHECK_KEY(&info[i], PMIX_PROCID) && info[i].value.type == PMIX_PROC &&
            info[i].value.data.proc != nullptr)
            end.failed_rank = info[i].value.data.proc->rank;
    }
    {
        std::lock_guard lock(g_mu);
        g_ended[nspace] = end;
    }
    g_cv.notify_all();
    if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

struct Spawned {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    pmix_status_t status = PMIX_ERROR;
    std::string nspace;
};

void spawned_cb(pmix_status_t status, pmix_nspace_t nspace, void* cbdata) {
    auto* s = static_cast<Spawned*>(cbdata);
    std::lock_guard lock(s->mu);
    s->status = status;
    if (status == PMIX_SUCCESS) s->nspace = nspace;
    s->done = true;
    s->cv.notify_all();
}

pmix_status_t attach() {
    pmix_info_t info;
    const bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    pmix_proc_t me;
    const pmix_status_t rc = PMIx_tool_init(&me, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) std::printf("FAIL: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
    return rc;
}

// Starts one job; false when the spawn could not even be asked.
bool start(Spawned& s, int nprocs, char** argv) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = argv[0];
    app.argv = argv;
    app.maxprocs = nprocs;
    pmix_info_t job_info[2];
    const bool yes = true;
    PMIX_INFO_LOAD(&job_info[0], PMIX_NOTIFY_COMPLETION, &yes, PMIX_BOOL);
    const char* hosts = std::getenv("DVM_TOOL_HOST");
    if (hosts != nullptr) PMIX_INFO_LOAD(&job_info[1], PMIX_HOST, hosts, PMIX_STRING);
    const size_t ninfo = hosts != nullptr ? 2 : 1;
    const pmix_status_t rc = PMIx_Spawn_nb(job_info, ninfo, &app, 1, spawned_cb, &s);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&job_info[i]);
    app.cmd = nullptr;  // ours, not the app's to free
    app.argv = nullptr;
    PMIX_APP_DESTRUCT(&app);
    if (rc != PMIX_SUCCESS) std::printf("FAIL: PMIx_Spawn_nb: %s\n", PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS;
}

// What a job's JOB_END must say: PMIX_JOB_TERM_STATUS and (when nonzero) PMIX_EXIT_CODE.
struct WantedEnd {
    pmix_status_t status = PMIX_SUCCESS;
    int exit = 0;
    long failed_rank = -1;  // -1: not checked
};

// "0", "N" (non-zero termination), "Na" (PMIx_Abort), "Ns" (killed by a signal).
WantedEnd parse_wanted_end(const char* text) {
    WantedEnd want;
    char* rest = nullptr;
    want.exit = static_cast<int>(std::strtol(text, &rest, 10));
    std::string suffix = rest != nullptr ? rest : "";
    if (const size_t at = suffix.find('@'); at != std::string::npos) {
        want.failed_rank = std::strtol(suffix.c_str() + at + 1, nullptr, 10);
        suffix.resize(at);
    }
    if (suffix == "a") want.status = PMIX_ERR_JOB_ABORTED;
    else if (suffix == "s") want.status = PMIX_ERR_JOB_ABORTED_BY_SIG;
    else if (want.exit != 0) want.status = PMIX_ERR_JOB_NON_ZERO_TERM;
    return want;
}

// Waits for a started job's namespace, then for its JOB_END, and checks it.
bool finish(Spawned& s, const WantedEnd& want) {
    const auto limit = std::chrono::seconds(30);
    {
        std::unique_lock lock(s.mu);
        if (!s.cv.wait_for(lock, limit, [&] { return s.done; })) {
            std::printf("FAIL: no spawn answer in 30 s\n");
            return false;
        }
    }
    if (s.status != PMIX_SUCCESS) {
        std::printf("FAIL: spawn: %s\n", PMIx_Error_string(s.status));
        return false;
    }
    std::unique_lock lock(g_mu);
    if (!g_cv.wait_for(lock, limit, [&] { return g_ended.count(s.nspace) != 0; })) {
        std::printf("FAIL: no JOB_END for %s in 30 s\n", s.nspace.c_str());
        return false;
    }
    const JobEnd end = g_ended[s.nspace];
    g_ended.erase(s.nspace);
    std::printf("job %s: JOB_END %s exit %d", s.nspace.c_str(), PMIx_Error_string(end.status),
                end.exit_code);
    if (end.failed_rank >= 0) std::printf(" failed rank %ld", end.failed_rank);
    std::printf("\n");
    if (end.status != want.status || (want.exit != 0 && end.exit_code != want.exit) ||
        (want.failed_rank >= 0 && end.failed_rank != want.failed_rank)) {
        std::printf("FAIL: %s ended with %s exit %d rank %ld, want %s exit %d rank %ld\n",
                    s.nspace.c_str(), PMIx_Error_string(end.status), end.exit_code, end.failed_rank,
                    PMIx_Error_string(want.status), want.exit, want.failed_rank);
        return false;
    }
    return true;
}

int run(int jobs, int at_once, const WantedEnd& want, int nprocs, char** argv) {
    if (attach() != PMIX_SUCCESS) return 1;
    pmix_status_t code = PMIX_EVENT_JOB_END;
    const pmix_status_t id =
        PMIx_Register_event_handler(&code, 1, nullptr, 0, on_job_end, nullptr, nullptr);
    bool ok = id >= 0;
    if (!ok) std::printf("FAIL: PMIx_Register_event_handler: %s\n", PMIx_Error_string(id));
    for (int done = 0; ok && done < jobs; done += at_once) {
        const int now = std::min(at_once, jobs - done);
        std::vector<Spawned> batch(static_cast<size_t>(now));
        int started = 0;
        for (Spawned& s : batch) started += start(s, nprocs, argv) ? 1 : 0;
        for (int i = 0; i < started; ++i) ok = finish(batch[static_cast<size_t>(i)], want) && ok;
        ok = ok && started == now;
    }
    PMIx_tool_finalize();
    if (ok) std::printf("dvm_tool: run ok\n");
    return ok ? 0 : 1;
}

int stop() {
    if (attach() != PMIX_SUCCESS) return 1;
    pmix_info_t directive;
    PMIX_INFO_LOAD(&directive, PMIX_JOB_CTRL_TERMINATE, nullptr, PMIX_BOOL);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Job_control(nullptr, 0, &directive, 1, &results, &nresults);
    PMIX_INFO_DESTRUCT(&directive);
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIx_tool_finalize();
    if (rc != PMIX_SUCCESS) {
        std::printf("FAIL: PMIx_Job_control: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    std::printf("dvm_tool: stop ok\n");
    return 0;
}

int connect_all() {
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        std::printf("FAIL: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Connect(&all, 1, nullptr, 0);
    if (rc != PMIX_SUCCESS)
        std::printf("FAIL: rank %u: PMIx_Connect: %s\n", me.rank, PMIx_Error_string(rc));
    pmix_status_t drc = rc == PMIX_SUCCESS ? PMIx_Disconnect(&all, 1, nullptr, 0) : rc;
    if (rc == PMIX_SUCCESS && drc != PMIX_SUCCESS)
        std::printf("FAIL: rank %u: PMIx_Disconnect: %s\n", me.rank, PMIx_Error_string(drc));
    PMIx_Finalize(nullptr, 0);
    if (drc == PMIX_SUCCESS) std::printf("dvm_tool: connect ok\n");
    return drc == PMIX_SUCCESS ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "run" && argc >= 7) {
        const int jobs = std::atoi(argv[2]), at_once = std::atoi(argv[3]);
        const int nprocs = std::atoi(argv[5]);
        if (jobs > 0 && at_once > 0 && nprocs > 0)
            return run(jobs, at_once, parse_wanted_end(argv[4]), nprocs, argv + 6);
    }
    if (mode == "stop") return stop();
    if (mode == "connect") return connect_all();
    std::fprintf(stderr,
                 "usage: dvm_tool run JOBS AT_ONCE EXIT NPROCS PROG [ARGS...] | stop | connect\n");
    return 2;
}
