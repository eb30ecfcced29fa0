// launcher/lifecycle.cpp - the job-lifecycle events of the Standard's Tools chapter, raised by
// the host with PMIx_Notify_event: PMIX_EVENT_JOB_START and PMIX_LAUNCH_COMPLETE once every
// process of a job started, PMIX_EVENT_PROC_TERMINATED per process (when asked for),
// PMIX_ERR_PROC_TERM_WO_SYNC for a process that connected and exited without PMIx_Finalize, and
// PMIX_EVENT_JOB_END after the job's last process, with PMIX_JOB_TERM_STATUS (PMIX_SUCCESS or the
// PMIX_ERR_JOB_* reason of its first failure) and that failed process's PMIX_PROCID and
// PMIX_EXIT_CODE. Every event carries PMIX_EVENT_TIMESTAMP, PMIX_NSPACE and
// PMIX_EVENT_AFFECTED_PROC (the job's wildcard rank, or the process).
//
// Targets, as prte sends them: a spawned job whose requester asked (PMIX_NOTIFY_JOB_EVENTS: job
// start, launch complete, job end; PMIX_NOTIFY_COMPLETION: job end; PMIX_NOTIFY_PROC_TERMINATION
// / _ABNORMAL_TERMINATION: process ends) gets them with PMIX_RANGE_CUSTOM aimed at the requester;
// the main job and spawned jobs that asked nothing raise the job events and TERM_WO_SYNC with
// PMIX_RANGE_SESSION and PMIX_EVENT_NON_DEFAULT, so that only handlers naming the code (a tool
// attached to pmixrun) hear them, not the default handlers an MPI library treats as fatal. The
// library caches the job events (server/events.h), so a handler registered after a short job
// ended still gets its JOB_END. pmixd raises nothing for the main job: each daemon sees only its
// node's processes; the multi-node head raises them (head.cpp) from its daemons' reports, for the
// tools attached to it.
#include "launcher.h"

#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <mutex>

namespace pmix::launcher {

namespace {

// Events handed to the library whose completion has not come back; lifecycle_flush waits on it.
std::mutex g_flight_mu;
std::condition_variable g_flight_cv;
int g_in_flight = 0;  // under g_flight_mu

void add_in_flight(int delta) {
    std::lock_guard lock(g_flight_mu);
    g_in_flight += delta;
    if (g_in_flight == 0) g_flight_cv.notify_all();
}

void notified(pmix_status_t, void* cbdata) {
    delete static_cast<InfoList*>(cbdata);
    add_in_flight(-1);
}

bool reports(const Launcher& launcher, const Proc& process) {
    return launcher.remote == nullptr || process.job != 0;
}

pmix_proc_t proc_of(const std::string& nspace, pmix_rank_t rank);

// Raises `code` about `affected` of `nspace` for `job`; `extra` adds the event's own keys.
template <typename Extra>
void raise(const JobLifecycle& job, const std::string& nspace, pmix_status_t code,
           const pmix_proc_t& affected, Extra extra) {
    auto* list = new InfoList();
    const time_t now = std::time(nullptr);
    list->add(PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
    list->add(PMIX_NSPACE, nspace);
    list->add(PMIX_EVENT_AFFECTED_PROC, &affected, PMIX_PROC);
    extra(*list);
    const bool custom = job.has_requester && job.request.any();
    const bool yes = true;
    if (custom && !job.debugger_jobs.empty()) {
        std::vector<pmix_proc_t> range{job.requester};
        for (const std::string& daemons : job.debugger_jobs)
            range.push_back(proc_of(daemons, PMIX_RANK_WILDCARD));
        pmix_data_array_t array{PMIX_PROC, range.size(), range.data()};
        list->add(PMIX_EVENT_CUSTOM_RANGE, &array, PMIX_DATA_ARRAY);
    } else if (custom) {
        list->add(PMIX_EVENT_CUSTOM_RANGE, &job.requester, PMIX_PROC);
    } else {
        list->add(PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    }
    pmix_status_t rc = list->convert();
    // The source is the job (its wildcard rank), as prte raises them: handlers such as prte's
    // example debugger daemon tell their target's JOB_END by the source's namespace.
    pmix_proc_t source;
    PMIX_LOAD_PROCID(&source, nspace.c_str(), PMIX_RANK_WILDCARD);
    if (rc == PMIX_SUCCESS) {
        add_in_flight(1);
        rc = PMIx_Notify_event(code, &source, custom ? PMIX_RANGE_CUSTOM : PMIX_RANGE_SESSION,
                               list->info(), list->size(), notified, list);
        if (rc == PMIX_SUCCESS) return;
        add_in_flight(-1);
    }
    delete list;
    if (rc != PMIX_OPERATION_SUCCEEDED)
        std::fprintf(stderr, "pmixrun: event %s for %s not raised: %s\n", PMIx_Error_string(code),
                     nspace.c_str(), PMIx_Error_string(rc));
}

void no_extra(InfoList&) {}

pmix_proc_t proc_of(const std::string& nspace, pmix_rank_t rank) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace.c_str(), rank);
    return proc;
}

// The PMIX_ERR_JOB_* reason a process's end gives its job (PMIX_SUCCESS: it ended well).
pmix_status_t end_reason(const Launcher& launcher, const JobLifecycle& job, const Proc& process,
                         int wait_status) {
    if (std::find(job.aborted.begin(), job.aborted.end(), process.rank) != job.aborted.end())
        return PMIX_ERR_JOB_ABORTED;
    if (WIFSIGNALED(wait_status))
        return launcher.kill_stage > 0 ? PMIX_ERR_JOB_KILLED_BY_CMD : PMIX_ERR_JOB_ABORTED_BY_SIG;
    if (process.exit_code != 0) return PMIX_ERR_JOB_NON_ZERO_TERM;
    if (process.connected && !process.finalized) return PMIX_ERR_JOB_TERM_WO_SYNC;
    return PMIX_SUCCESS;
}

void raise_job_end(const Launcher& launcher, const JobLifecycle& job, const std::string& nspace) {
    if (job.has_requester && job.request.any() && !job.request.job_events &&
        !job.request.completion)
        return;
    pmix_status_t status = job.failed ? job.reason : PMIX_SUCCESS;
    if (!job.failed && launcher.failing && launcher.fail_code != 0)
        status = PMIX_ERR_JOB_CANCELED;  // ended by pmixrun (timeout, signal, another's failure)
    raise(job, nspace, PMIX_EVENT_JOB_END, proc_of(nspace, PMIX_RANK_WILDCARD),
          [&](InfoList& list) {
              list.add(PMIX_JOB_TERM_STATUS, &status, PMIX_STATUS);
              if (!job.failed) return;
              const pmix_proc_t failed = proc_of(nspace, job.failed_rank);
              list.add(PMIX_PROCID, &failed, PMIX_PROC);
              list.add(PMIX_EXIT_CODE, &job.failed_exit_code, PMIX_INT);
          });
}

}  // namespace

bool lifecycle_directive(const pmix_info_t& info, LifecycleRequest& request) {
    bool* flag = PMIX_CHECK_KEY(&info, PMIX_NOTIFY_JOB_EVENTS)         ? &request.job_events
                 : PMIX_CHECK_KEY(&info, PMIX_NOTIFY_COMPLETION)       ? &request.completion
                 : PMIX_CHECK_KEY(&info, PMIX_NOTIFY_PROC_TERMINATION) ? &request.proc_ended
                 : PMIX_CHECK_KEY(&info, PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION)
                     ? &request.proc_failed
                     : nullptr;
    if (flag == nullptr) return false;
    *flag = PMIX_INFO_TRUE(&info);
    return true;
}

void lifecycle_watch(Launcher& launcher, const std::string& nspace, size_t nprocs,
                     const pmix_proc_t* requester, const LifecycleRequest& request) {
    JobLifecycle& job = launcher.lifecycles[nspace];
    job.nprocs = nprocs;
    job.has_requester = requester != nullptr;
    if (requester != nullptr) job.requester = *requester;
    job.request = request;
}

void lifecycle_started(Launcher& launcher, const std::string& nspace) {
    auto it = launcher.lifecycles.find(nspace);
    if (it == launcher.lifecycles.end()) return;
    JobLifecycle& job = it->second;
    if (launcher.remote != nullptr && nspace == launcher.nspace) return;
    if (job.start_raised) return;
    job.start_raised = true;
    if (job.has_requester && job.request.any() && !job.request.job_events) return;
    const pmix_proc_t all = proc_of(nspace, PMIX_RANK_WILDCARD);
    raise(job, nspace, PMIX_EVENT_JOB_START, all, no_extra);
    raise(job, nspace, PMIX_LAUNCH_COMPLETE, all, no_extra);
}

void lifecycle_aborted(Launcher& launcher, const pmix_proc_t& proc, int status) {
    auto it = launcher.lifecycles.find(proc.nspace);
    if (it == launcher.lifecycles.end()) return;
    JobLifecycle& job = it->second;
    job.aborted.push_back(proc.rank);
    if (job.failed) return;
    job.failed = true;
    job.failed_rank = proc.rank;
    job.failed_exit_code = (status & 0xff) != 0 ? status & 0xff : 1;  // pmixrun's exit rule
    job.reason = PMIX_ERR_JOB_ABORTED;
}

void lifecycle_remote_aborted(Launcher& launcher, const std::vector<std::string>& fields) {
    if (fields.size() != 3) {
        std::fprintf(stderr, "pmixrun: a malformed abort report from a daemon\n");
        return;
    }
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, fields[0].c_str(),
                     static_cast<pmix_rank_t>(std::strtoul(fields[1].c_str(), nullptr, 10)));
    lifecycle_aborted(launcher, proc, std::atoi(fields[2].c_str()));
}

void lifecycle_proc_ended(Launcher& launcher, const Proc& process, int wait_status) {
    auto it = launcher.lifecycles.find(process.nspace);
    if (it == launcher.lifecycles.end() || !reports(launcher, process)) return;
    JobLifecycle& job = it->second;
    const pmix_status_t reason = end_reason(launcher, job, process, wait_status);
    if (reason != PMIX_SUCCESS && !job.failed) {
        job.failed = true;
        job.failed_rank = process.rank;
        job.failed_exit_code = process.exit_code;
        job.reason = reason;
    }
    const pmix_proc_t me = proc_of(process.nspace, process.rank);
    const int exit_code = process.exit_code;
    auto with_code = [&](InfoList& list) {
        list.add(PMIX_PROCID, &me, PMIX_PROC);
        list.add(PMIX_EXIT_CODE, &exit_code, PMIX_INT);
    };
    if (reason == PMIX_ERR_JOB_TERM_WO_SYNC)
        raise(job, process.nspace, PMIX_ERR_PROC_TERM_WO_SYNC, me, with_code);
    if (job.has_requester &&
        (job.request.proc_ended || (job.request.proc_failed && reason != PMIX_SUCCESS)))
        raise(job, process.nspace, PMIX_EVENT_PROC_TERMINATED, me, with_code);
    if (++job.ended == job.nprocs) raise_job_end(launcher, job, process.nspace);
}

// Woken by the last completion: polling every 10 ms made a 2-process job's teardown 11 ms
// instead of 1 (the job's end events are still in flight when the loop ends). At most 2 s.
void lifecycle_flush() {
    std::unique_lock lock(g_flight_mu);
    g_flight_cv.wait_for(lock, std::chrono::seconds(2), [] { return g_in_flight <= 0; });
}

}  // namespace pmix::launcher
