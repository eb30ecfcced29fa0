// launcher/debug.cpp - the debugger stops of the Standard's Tools chapter, on one node (see
// launcher.h). A stop-in-init process raises PMIX_READY_FOR_DEBUG with range RM (OpenPMIx 4.2's
// client does; its breakpoint "pmix-init"); the library hands client events to pmixrun's own
// handlers, and this file passes each on to the job's requester (PMIX_RANGE_CUSTOM; pmixrun's own
// job: PMIX_RANGE_SESSION, non-default, for attached tools), with PMIX_NSPACE,
// PMIX_EVENT_AFFECTED_PROC and the process's PMIX_BREAKPOINT. The tool's PMIX_DEBUGGER_RELEASE
// reaches the stopped clients through the library; pmixrun hears it too and continues the
// processes it stopped on exec (SIGCONT). A process that reports ready after its job was released
// (a tool that released on the first report) is released again at once, so that none waits.
#include "launcher.h"

#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <set>
#include <thread>

namespace pmix::launcher {

namespace {

struct DebugJob {
    std::shared_ptr<const OwnedInfo> on_exec, in_init, in_app;
    std::set<pmix_rank_t> ready;  // held processes that reported PMIX_READY_FOR_DEBUG
    bool job_ready_sent = false;  // the job-level PMIX_READY_FOR_DEBUG (ready_job)
    bool has_requester = false;
    pmix_proc_t requester{};
    std::set<pmix_rank_t> exec_stopped;  // started stopped, not continued yet
    std::set<pmix_rank_t> released;
    bool all_released = false;
    size_t nodes_started = 0;      // the head: daemons that reported their part started
    bool launch_reported = false;  // the head: LAUNCH_COMPLETE raised while held on exec
};

// Across nodes (debug_set_uplink / debug_set_release_forward): where pmixd's reports go, and
// where the head's releases go. Empty on one node.
DebugUplink& uplink() {
    static auto* link = new DebugUplink();  // loop thread only
    return *link;
}
std::function<void(const std::vector<pmix_proc_t>&)>& release_forward() {
    static auto* forward = new std::function<void(const std::vector<pmix_proc_t>&)>();
    return *forward;
}
// The multi-node head: an event for a requester on a daemon's node (a rank's spawn), sent to the
// daemons, whose servers deliver it (debug_set_event_forward).
DebugEventForward& event_forward() {
    static auto* forward = new DebugEventForward();
    return *forward;
}

std::map<std::string, DebugJob>& jobs() {
    static auto* all = new std::map<std::string, DebugJob>();  // loop thread only
    return *all;
}

bool rank_hits(pmix_rank_t wanted, pmix_rank_t rank) {
    return wanted == rank || wanted == PMIX_RANK_WILDCARD;
}

bool proc_hits(const pmix_proc_t& p, const std::string& nspace, pmix_rank_t rank) {
    return (p.nspace[0] == '\0' || nspace == p.nspace) && rank_hits(p.rank, rank);
}

// Whether a PMIX_DEBUG_STOP_* value names rank `rank` of `nspace` (a proc of no namespace names
// that rank of the job being started: its namespace is not known before the spawn).
bool names(const pmix_value_t& v, const std::string& nspace, pmix_rank_t rank) {
    switch (v.type) {
        case PMIX_BOOL:
            return v.data.flag;
        case PMIX_UNDEF:
            return true;
        case PMIX_PROC_RANK:
            return rank_hits(v.data.rank, rank);
        case PMIX_UINT32:
            return rank_hits(v.data.uint32, rank);
        case PMIX_PROC:
            return v.data.proc != nullptr && proc_hits(*v.data.proc, nspace, rank);
        case PMIX_DATA_ARRAY:
            break;
        default:
            return false;
    }
    const pmix_data_array_t* a = v.data.darray;
    for (size_t i = 0; a != nullptr && a->array != nullptr && i < a->size; ++i) {
        if (a->type == PMIX_PROC &&
            proc_hits(static_cast<const pmix_proc_t*>(a->array)[i], nspace, rank))
            return true;
        if (a->type == PMIX_PROC_RANK &&
            rank_hits(static_cast<const pmix_rank_t*>(a->array)[i], rank))
            return true;
    }
    return false;
}

Proc* find(Launcher& launcher, const std::string& nspace, pmix_rank_t rank) {
    for (Proc& p : launcher.procs)
        if (p.nspace == nspace && p.rank == rank) return &p;
    return nullptr;
}

// The multi-node head's view has every node's pids: only a process of this node (no host) is
// signalled; the others are their daemons' (debug_release_here).
void cont(Launcher& launcher, const std::string& nspace, pmix_rank_t rank) {
    if (Proc* p = find(launcher, nspace, rank);
        p != nullptr && p->pid > 0 && !p->exited && p->host.empty())
        ::kill(p->pid, SIGCONT);
}

// Marks the events pmixrun raises itself, so that its own handler leaves them alone should the
// library hand them to it too (prte marks its own the same way, "prte.notify.donotloop").
constexpr char kOwnEvent[] = "pmixrun.dbg.own";

void release_debug_notice(pmix_status_t, void* cbdata) { delete static_cast<InfoList*>(cbdata); }

// Raises `code` from `source` (nullptr: pmixrun) with `list` (taken), reaching `to` (nullptr:
// the session's non-default handlers).
void raise(pmix_status_t code, const pmix_proc_t* source, const pmix_proc_t* to, InfoList* list) {
    const bool yes = true;
    if (to != nullptr) list->add(PMIX_EVENT_CUSTOM_RANGE, to, PMIX_PROC);
    list->add(PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    list->add(kOwnEvent, &yes, PMIX_BOOL);
    const time_t now = std::time(nullptr);
    list->add(PMIX_EVENT_TIMESTAMP, &now, PMIX_TIME);
    pmix_status_t rc = list->convert();
    if (rc == PMIX_SUCCESS && to != nullptr && event_forward() && g_launcher != nullptr) {
        // The head's view lists every node's processes with their host: a requester there is
        // no client of the head's server, its daemon's server delivers the event.
        const Proc* requester = find(*g_launcher, to->nspace, to->rank);
        if (requester != nullptr && !requester->host.empty()) {
            event_forward()(code, source, list->info(), list->size());
            delete list;
            return;
        }
    }
    if (rc == PMIX_SUCCESS) {
        rc = PMIx_Notify_event(code, source, to != nullptr ? PMIX_RANGE_CUSTOM : PMIX_RANGE_SESSION,
                               list->info(), list->size(), release_debug_notice, list);
        if (rc == PMIX_SUCCESS) return;
    }
    delete list;
    if (rc != PMIX_OPERATION_SUCCEEDED)
        std::fprintf(stderr, "pmixrun: event %s not raised: %s\n", PMIx_Error_string(code),
                     PMIx_Error_string(rc));
}

void release_one(const pmix_proc_t& proc) {
    auto* list = new InfoList();
    list->add(PMIX_EVENT_AFFECTED_PROC, &proc, PMIX_PROC);
    raise(PMIX_DEBUGGER_RELEASE, nullptr, &proc, list);
}

// Once every held process of the job reported, one PMIX_READY_FOR_DEBUG for the whole job from
// the launcher (no PMIX_EVENT_AFFECTED_PROC: a handler filtered on the launcher's own proc gets
// it, as OpenPMIx delivers), as prte does: its example debugger (examples/debugger/direct.c)
// waits for that one. The per-process events stay (the Standard's stop-in-init notification).
void ready_job(Launcher& launcher, const std::string& nspace, DebugJob& job, pmix_rank_t rank,
               const std::string& breakpoint) {
    if (job.job_ready_sent) return;
    job.ready.insert(rank);
    size_t held = 0;
    for (const Proc& p : launcher.procs) {
        if (p.nspace != nspace) continue;
        const bool in_init = job.in_init && names(job.in_init->info.value, nspace, p.rank);
        const bool in_app = job.in_app && names(job.in_app->info.value, nspace, p.rank);
        held += in_init || in_app;
    }
    if (held == 0 || job.ready.size() < held) return;
    job.job_ready_sent = true;
    auto* list = new InfoList();
    list->add(PMIX_NSPACE, nspace);
    if (!breakpoint.empty()) list->add(PMIX_BREAKPOINT, breakpoint);
    raise(PMIX_READY_FOR_DEBUG, nullptr, job.has_requester ? &job.requester : nullptr, list);
}

// A process reported PMIX_READY_FOR_DEBUG: passed on to whoever debugs its job.
void ready(Launcher& launcher, const pmix_proc_t& source, const std::string& breakpoint) {
    const std::string nspace = source.nspace;
    auto it = jobs().find(nspace);
    DebugJob* job = it != jobs().end() ? &it->second : nullptr;
    const bool late = job != nullptr && (job->all_released || job->released.count(source.rank) > 0);
    if (uplink().ready) {  // pmixd: the head tells the tools
        if (late) release_one(source);
        uplink().ready(source, breakpoint);
        return;
    }
    auto* list = new InfoList();
    list->add(PMIX_NSPACE, nspace);
    list->add(PMIX_EVENT_AFFECTED_PROC, &source, PMIX_PROC);
    if (!breakpoint.empty()) list->add(PMIX_BREAKPOINT, breakpoint);
    raise(PMIX_READY_FOR_DEBUG, &source,
          job != nullptr && job->has_requester ? &job->requester : nullptr, list);
    if (late && release_forward()) release_forward()({source});  // the head: to its daemon
    else if (late) release_one(source);
    if (job != nullptr) ready_job(launcher, nspace, *job, source.rank, breakpoint);
}

void add_targets(const pmix_value_t& v, std::vector<pmix_proc_t>& out) {
    if (v.type == PMIX_PROC && v.data.proc != nullptr) out.push_back(*v.data.proc);
    if (v.type == PMIX_DATA_ARRAY && v.data.darray != nullptr && v.data.darray->type == PMIX_PROC &&
        v.data.darray->array != nullptr) {
        const auto* p = static_cast<const pmix_proc_t*>(v.data.darray->array);
        out.insert(out.end(), p, p + v.data.darray->size);
    }
}

// PMIX_DEBUGGER_RELEASE for `targets` (empty: every job): the processes held on exec go on.
void released(Launcher& launcher, const std::vector<pmix_proc_t>& targets) {
    if (release_forward()) release_forward()(targets);  // the head: every daemon
    for (auto& [nspace, job] : jobs()) {
        for (const pmix_proc_t& t : targets) {
            if (!targets.empty() && nspace != t.nspace) continue;
            if (t.rank == PMIX_RANK_WILDCARD) job.all_released = true;
            else job.released.insert(t.rank);
        }
        if (targets.empty()) job.all_released = true;
        for (auto r = job.exec_stopped.begin(); r != job.exec_stopped.end();) {
            if (job.all_released || job.released.count(*r) > 0) {
                cont(launcher, nspace, *r);
                r = job.exec_stopped.erase(r);
            } else {
                ++r;
            }
        }
    }
}

// pmixrun's own handler (the library's thread): the work goes to the loop.
void on_event(size_t, pmix_status_t code, const pmix_proc_t* source, pmix_info_t info[],
              size_t ninfo, pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
              void* cbdata) {
    std::string breakpoint;
    std::vector<pmix_proc_t> targets;
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], kOwnEvent)) {
            if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
            return;
        }
        if (PMIX_CHECK_KEY(&info[i], PMIX_BREAKPOINT) && info[i].value.type == PMIX_STRING &&
            info[i].value.data.string != nullptr)
            breakpoint = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE) ||
            PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC) ||
            PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROCS))
            add_targets(info[i].value, targets);
    }
    pmix_proc_t from{};
    if (source != nullptr) from = *source;
    g_launcher->queue.post([code, from, breakpoint, targets] {
        if (code == PMIX_READY_FOR_DEBUG) {
            ready(*g_launcher, from, breakpoint);
            return;
        }
        released(*g_launcher, targets);
        // pmixd: a release from a process of this node (the requester of a rank's spawn) goes
        // to the head, which releases the targets on every node; one from elsewhere came from
        // the head already.
        const Proc* sender = find(*g_launcher, from.nspace, from.rank);
        if (uplink().release && sender != nullptr && sender->host.empty())
            uplink().release(targets);
    });
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

// 'T' (stopped) or 't' (traced) in /proc/<pid>/stat, or gone.
bool stopped_or_gone(pid_t pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    FILE* file = std::fopen(path, "re");
    if (file == nullptr) return true;
    char line[1024] = {};
    const bool read = std::fgets(line, sizeof line, file) != nullptr;
    std::fclose(file);
    const char* after = read ? std::strrchr(line, ')') : nullptr;
    char state = 0;
    if (after == nullptr || std::sscanf(after + 1, " %c", &state) != 1) return false;
    return state == 'T' || state == 't' || state == 'Z' || state == 'X';
}

}  // namespace

bool stop_directive(const pmix_info_t& info, StopRequest& request) {
    std::shared_ptr<const OwnedInfo>* slot =
        PMIX_CHECK_KEY(&info, PMIX_DEBUG_STOP_IN_INIT)   ? &request.in_init
        : PMIX_CHECK_KEY(&info, PMIX_DEBUG_STOP_ON_EXEC) ? &request.on_exec
        : PMIX_CHECK_KEY(&info, PMIX_DEBUG_STOP_IN_APP)  ? &request.in_app
                                                         : nullptr;
    if (slot == nullptr) return false;
    // false is a request not to stop: nothing kept.
    if (info.value.type == PMIX_BOOL && !info.value.data.flag) slot->reset();
    else *slot = std::make_shared<const OwnedInfo>(info);
    return true;
}

StopRequest stop_main_request(const Options& options) {
    StopRequest request;
    const bool wanted[] = {options.stop_in_init, options.stop_on_exec, options.stop_in_app};
    const char* keys[] = {PMIX_DEBUG_STOP_IN_INIT, PMIX_DEBUG_STOP_ON_EXEC, PMIX_DEBUG_STOP_IN_APP};
    for (int i = 0; i < 3; ++i) {
        if (!wanted[i]) continue;
        pmix_info_t info;
        const bool yes = true;
        PMIX_INFO_LOAD(&info, keys[i], &yes, PMIX_BOOL);
        stop_directive(info, request);
        PMIX_INFO_DESTRUCT(&info);
    }
    return request;
}

void stop_add_job_info(const StopRequest& request, SharedInfos& job_info) {
    for (const auto& entry : {request.in_init, request.on_exec, request.in_app})
        if (entry) job_info.push_back(entry);
}

void debug_watch_job(Launcher&, const std::string& nspace, const pmix_proc_t* requester,
                     const StopRequest& request) {
    DebugJob job;
    job.on_exec = request.on_exec;
    job.in_init = request.in_init;
    job.in_app = request.in_app;
    job.has_requester = requester != nullptr;
    if (requester != nullptr) job.requester = *requester;
    jobs()[nspace] = std::move(job);
}

void debug_forget(const std::string& nspace) { jobs().erase(nspace); }

bool debug_stops_on_exec(const Proc& process) {
    auto it = jobs().find(process.nspace);
    if (it == jobs().end() || !it->second.on_exec) return false;
    if (!names(it->second.on_exec->info.value, process.nspace, process.rank)) return false;
    it->second.exec_stopped.insert(process.rank);
    return true;
}

void debug_started(Launcher&, const std::string& nspace) {
    auto it = jobs().find(nspace);
    if (it != jobs().end() && it->second.on_exec && uplink().exec_held) {  // pmixd: to the head
        uplink().exec_held(nspace, it->second.exec_stopped.size());
        return;
    }
    if (it == jobs().end() || it->second.exec_stopped.empty()) return;
    // As ready_job's (and prte's job-level event): no affected proc, so that a handler filtered
    // on the launcher's own proc gets it; the server keeps it for handlers registered later.
    auto* list = new InfoList();
    list->add(PMIX_NSPACE, nspace);
    raise(PMIX_READY_FOR_DEBUG, nullptr, it->second.has_requester ? &it->second.requester : nullptr,
          list);
}

void debug_watch_events() {
    static bool watching = false;  // once: a second handler would pass every event on twice
    if (watching) return;
    watching = true;
    // The host level of PMIX_QUERY_ATTRIBUTE_SUPPORT: what the job_control upcall acts on
    // (host.cpp; pause / resume answered once done).
    char* controls[] = {
        const_cast<char*>("PMIX_JOB_CTRL_KILL"),   const_cast<char*>("PMIX_JOB_CTRL_TERMINATE"),
        const_cast<char*>("PMIX_JOB_CTRL_SIGNAL"), const_cast<char*>("PMIX_JOB_CTRL_PAUSE"),
        const_cast<char*>("PMIX_JOB_CTRL_RESUME"), nullptr};
    if (const pmix_status_t rc =
            PMIx_Register_attributes(const_cast<char*>("job_control"), controls);
        rc != PMIX_SUCCESS)
        std::fprintf(stderr, "pmixrun: job_control's attributes not registered: %s\n",
                     PMIx_Error_string(rc));
    pmix_status_t codes[] = {PMIX_READY_FOR_DEBUG, PMIX_DEBUGGER_RELEASE};
    const pmix_status_t rc =
        PMIx_Register_event_handler(codes, 2, nullptr, 0, on_event, nullptr, nullptr);
    if (rc < 0)
        std::fprintf(stderr, "pmixrun: no handler for the debugger's events: %s\n",
                     PMIx_Error_string(rc));
}

void debug_set_uplink(DebugUplink link) { uplink() = std::move(link); }

void debug_set_release_forward(std::function<void(const std::vector<pmix_proc_t>&)> forward) {
    release_forward() = std::move(forward);
}

void debug_set_event_forward(DebugEventForward forward) { event_forward() = std::move(forward); }

bool debug_forwards_releases() { return static_cast<bool>(release_forward()); }

void debug_remote_release(Launcher& launcher, const std::vector<pmix_proc_t>& targets) {
    released(launcher, targets);
}

void debug_remote_ready(Launcher& launcher, const pmix_proc_t& source,
                        const std::string& breakpoint) {
    ready(launcher, source, breakpoint);
}

bool debug_remote_started(Launcher& launcher, const std::string& nspace, size_t held,
                          size_t nodes) {
    auto it = jobs().find(nspace);
    if (it == jobs().end() || it->second.launch_reported) return false;
    DebugJob& job = it->second;
    job.nodes_started += 1;
    job.launch_reported = job.nodes_started >= nodes;
    if (held > 0) job.exec_stopped.insert(PMIX_RANK_INVALID);  // some are held (cont skips it)
    if (!job.launch_reported) return false;
    debug_started(launcher, nspace);
    return true;
}

bool debug_launch_reported(const std::string& nspace) {
    auto it = jobs().find(nspace);
    return it != jobs().end() && it->second.launch_reported;
}

void debug_release_here(Launcher& launcher, const std::vector<pmix_proc_t>& targets) {
    released(launcher, targets);
    for (const Proc& p : launcher.procs) {
        auto it = jobs().find(p.nspace);
        if (it == jobs().end() || p.exited) continue;
        const DebugJob& job = it->second;
        const bool held = (job.in_init && names(job.in_init->info.value, p.nspace, p.rank)) ||
                          (job.in_app && names(job.in_app->info.value, p.nspace, p.rank));
        bool named = targets.empty();
        for (const pmix_proc_t& t : targets)
            named = named || (p.nspace == t.nspace && rank_hits(t.rank, p.rank));
        if (!held || !named) continue;
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, p.nspace.c_str(), p.rank);
        release_one(proc);
    }
}

pmix_status_t debug_wait_stopped(Launcher& launcher, const std::vector<pmix_proc_t>& targets) {
    const auto deadline = Clock::now() + std::chrono::seconds(2);
    for (Proc& process : launcher.procs) {
        bool hit = targets.empty();
        for (const pmix_proc_t& t : targets)
            hit = hit || (process.nspace == t.nspace && rank_hits(t.rank, process.rank));
        if (!hit || process.exited || process.pid <= 0) continue;
        while (!stopped_or_gone(process.pid)) {
            if (Clock::now() > deadline) return PMIX_ERR_TIMEOUT;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    return PMIX_SUCCESS;
}

}  // namespace pmix::launcher
