// The multi-node head's spawn for tools: debugger daemons and co-spawn; pause / resume
// (head_debug_spawn.h).
#include "head_debug_spawn.h"

#include "debug_daemons.h"

#include <signal.h>

#include <cstring>
#include <memory>

namespace pmix::launcher {
namespace {

HeadSpawner* g_spawner = nullptr;  // loop thread only
std::function<void(const std::string&)>& spawned_hook() {
    static auto* started = new std::function<void(const std::string&)>();
    return *started;
}
std::function<void(const std::vector<std::string>&)>& signal_sender() {
    static auto* send = new std::function<void(const std::vector<std::string>&)>();
    return *send;
}
constexpr size_t kMostProcs = 4096;  // pmixrun's -n bound

// How many processes `target` names on each node of the head's view (node order).
std::vector<uint32_t> targets_per_node(const Launcher& view, const pmix_proc_t& target) {
    std::vector<uint32_t> counts(view.layout.nodes.size(), 0);
    const std::string nspace(target.nspace, strnlen(target.nspace, PMIX_MAX_NSLEN));
    for (const Proc& p : view.procs) {
        if (p.nspace != nspace || (target.rank != PMIX_RANK_WILDCARD && p.rank != target.rank))
            continue;
        for (size_t n = 0; n < counts.size(); ++n)
            if (view.layout.nodes[n].name == p.host) ++counts[n];
    }
    return counts;
}

// `total` in blocks of equal size over the nodes `use` marks (the first take one more).
std::vector<uint32_t> blocks(size_t total, const std::vector<bool>& use) {
    std::vector<uint32_t> counts(use.size(), 0);
    size_t nodes = 0;
    for (bool u : use) nodes += u;
    for (size_t n = 0, k = 0; n < use.size() && nodes > 0; ++n)
        if (use[n]) counts[n] = static_cast<uint32_t>(total / nodes + (k++ < total % nodes));
    return counts;
}

// Where a debugger-daemon job runs (the rules in head_debug_spawn.h); adds PMIX_DEBUG_TARGET to
// its job info.
pmix_status_t place_daemons(const Launcher& view, const DebugRequest& debug, AppSpec& app,
                            std::vector<uint32_t>& counts) {
    if ((debug.per_proc > 0 || debug.per_node > 0) && !debug.has_target) return PMIX_ERR_BAD_PARAM;
    const size_t nodes = view.layout.nodes.size();
    if (!debug.has_target) {
        counts = blocks(debug.app_maxprocs > 0 ? static_cast<size_t>(debug.app_maxprocs) : 1,
                        std::vector<bool>(nodes, true));
        return PMIX_SUCCESS;
    }
    const std::vector<uint32_t> targets = targets_per_node(view, debug.target);
    std::vector<bool> used(nodes);
    size_t total = 0;
    for (size_t n = 0; n < nodes; ++n) used[n] = targets[n] > 0;
    counts.assign(nodes, 0);
    for (size_t n = 0; n < nodes; ++n) {
        if (debug.per_proc > 0) counts[n] = debug.per_proc * targets[n];
        else if (debug.per_node > 0 || debug.app_maxprocs <= 0)
            counts[n] = used[n] ? std::max<uint32_t>(debug.per_node, 1) : 0;
        total += counts[n];
    }
    if (debug.per_proc == 0 && debug.per_node == 0 && debug.app_maxprocs > 0) {
        counts = blocks(static_cast<size_t>(debug.app_maxprocs), used);
        total = static_cast<size_t>(debug.app_maxprocs);
    }
    size_t named = 0;
    for (uint32_t t : targets) named += t;
    if (named == 0) return PMIX_ERR_NOT_FOUND;
    if (total > kMostProcs) return PMIX_ERR_OUT_OF_RESOURCE;
    pmix_info_t target;
    PMIX_INFO_LOAD(&target, PMIX_DEBUG_TARGET, &debug.target, PMIX_PROC);
    app.directives.push_back(std::make_shared<const OwnedInfo>(target));
    PMIX_INFO_DESTRUCT(&target);
    return PMIX_SUCCESS;
}

// One spawn in progress: the application (or the daemon job alone), then each co-spawned app.
struct SpawnTask {
    pmix_proc_t parent{};
    AppSpec app;
    DebugRequest debug;
    std::vector<CospawnApp> cospawned;
    size_t next = 0;          // the co-spawned app to start next
    std::string application;  // its namespace, what the requester gets
    pmix_spawn_cbfunc_t cbfunc = nullptr;
    void* cbdata = nullptr;
};

void answer(const SpawnTask& task, pmix_status_t status) {
    pmix_nspace_t spawned;  // the callback takes a (non-const) pmix_nspace_t
    PMIX_LOAD_NSPACE(spawned, status == PMIX_SUCCESS ? task.application.c_str() : nullptr);
    task.cbfunc(status, spawned, task.cbdata);
}

// Starts `app` (placed as `debug` asks when it is a debugger job); `then` gets its namespace.
void start(const std::shared_ptr<SpawnTask>& task, AppSpec app, const DebugRequest& debug,
           HeadSpawner::Done then) {
    const Launcher& view = *g_launcher;
    std::vector<uint32_t> counts =
        blocks(app.nprocs, std::vector<bool>(view.layout.nodes.size(), true));
    if (debug.placed() || debug.has_target)
        if (const pmix_status_t rc = place_daemons(view, debug, app, counts); rc != PMIX_SUCCESS) {
            answer(*task, rc);
            return;
        }
    g_spawner->spawn_here(task->parent, app, counts,
                          [then = std::move(then)](pmix_status_t rc, const std::string& nspace) {
                              if (rc == PMIX_SUCCESS && spawned_hook()) spawned_hook()(nspace);
                              then(rc, nspace);
                          });
}

void start_cospawned(const std::shared_ptr<SpawnTask>& task) {
    if (task->next == task->cospawned.size()) {
        answer(*task, PMIX_SUCCESS);
        return;
    }
    CospawnApp& c = task->cospawned[task->next++];
    if (c.debug.placed() && !c.debug.has_target) {  // aimed at the application
        c.debug.has_target = true;
        PMIX_LOAD_PROCID(&c.debug.target, task->application.c_str(), PMIX_RANK_WILDCARD);
    }
    start(task, c.app, c.debug, [task](pmix_status_t rc, const std::string&) {
        if (rc != PMIX_SUCCESS) answer(*task, rc);
        else start_cospawned(task);
    });
}

// The job-level directives: the debugger's, the lifecycle requests (the head raises the jobs'
// events: to the requester as it asks), the stops (the application's alone, as on one node:
// they travel in its job info to every node, debug_nodes.h), the environment's (kept by
// plan_spawn).
pmix_status_t check_job_info(const pmix_info_t job_info[], size_t ninfo, DebugRequest& debug,
                             LifecycleRequest& lifecycle, StopRequest& stops) {
    for (size_t i = 0; i < ninfo; ++i) {
        if (lifecycle_directive(job_info[i], lifecycle)) continue;
        if (stop_directive(job_info[i], stops)) continue;
        const pmix_status_t rc = debug_directive(job_info[i], debug);
        if (rc != PMIX_ERR_NOT_FOUND && rc != PMIX_SUCCESS) return rc;
        if (rc == PMIX_ERR_NOT_FOUND && PMIX_CHECK_KEY(&job_info[i], PMIX_FWD_STDIN))
            return PMIX_ERR_NOT_SUPPORTED;
    }
    return PMIX_SUCCESS;
}

}  // namespace

void head_debug_spawner(HeadSpawner* spawner) { g_spawner = spawner; }

void head_debug_spawned(std::function<void(const std::string&)> started) {
    spawned_hook() = std::move(started);
}

bool head_spawn_takes(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                      size_t napps) {
    if (apps == nullptr || napps == 0) return false;
    DebugRequest debug;
    LifecycleRequest lifecycle;
    StopRequest stops;
    AppSpec app;
    std::vector<CospawnApp> cospawned;
    // A refusal here is head_spawn_fn's too: it answers it for the requests that name a debugger.
    if (check_job_info(job_info, ninfo, debug, lifecycle, stops) != PMIX_SUCCESS ||
        plan_spawn(job_info, ninfo, apps, napps, lifecycle, app, debug, cospawned) != PMIX_SUCCESS)
        return debug.placed() || debug.has_target || napps > 1;
    return debug.placed() || debug.has_target || !cospawned.empty();
}

void head_job_control_sender(std::function<void(const std::vector<std::string>&)> send) {
    signal_sender() = std::move(send);
}

pmix_status_t head_job_control(const pmix_proc_t*, const pmix_proc_t targets[], size_t ntargets,
                               const pmix_info_t directives[], size_t ndirs,
                               pmix_info_cbfunc_t cbfunc, void* cbdata) {
    int sig = 0;
    for (size_t i = 0; i < ndirs; ++i) {
        if (PMIX_CHECK_KEY(&directives[i], PMIX_JOB_CTRL_PAUSE) && PMIX_INFO_TRUE(&directives[i]))
            sig = SIGSTOP;
        else if (PMIX_CHECK_KEY(&directives[i], PMIX_JOB_CTRL_RESUME) &&
                 PMIX_INFO_TRUE(&directives[i]))
            sig = SIGCONT;
        else if (is_directive(directives[i].key) && PMIX_INFO_IS_REQUIRED(&directives[i]))
            return PMIX_ERR_NOT_SUPPORTED;
    }
    if (sig == 0 || targets == nullptr || ntargets == 0 || !signal_sender())
        return PMIX_ERR_NOT_SUPPORTED;
    std::vector<std::string> fields{std::to_string(sig)};
    for (size_t i = 0; i < ntargets; ++i) {
        fields.emplace_back(targets[i].nspace, strnlen(targets[i].nspace, PMIX_MAX_NSLEN));
        fields.push_back(std::to_string(targets[i].rank));
    }
    g_launcher->queue.post([fields, cbfunc, cbdata] {
        signal_sender()(fields);
        if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, cbdata, nullptr, nullptr);
    });
    return PMIX_SUCCESS;
}

pmix_status_t head_spawn_fn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo,
                            const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                            void* cbdata) {
    if (apps == nullptr || napps == 0 || proc == nullptr || cbfunc == nullptr)
        return PMIX_ERR_BAD_PARAM;
    auto task = std::make_shared<SpawnTask>();
    LifecycleRequest lifecycle;
    StopRequest stops;
    if (const pmix_status_t rc = check_job_info(job_info, ninfo, task->debug, lifecycle, stops);
        rc != PMIX_SUCCESS)
        return rc;
    if (const pmix_status_t rc = plan_spawn(job_info, ninfo, apps, napps, lifecycle, task->app,
                                            task->debug, task->cospawned);
        rc != PMIX_SUCCESS)
        return rc;
    // Held: the apps whose stops plan_spawn took (the job info's: the application's alone;
    // HeadSpawner::spawn_here watches each); the others run.
    const bool debugger = task->debug.placed() || task->debug.has_target;
    if (g_spawner == nullptr || (!debugger && task->cospawned.empty()))
        return PMIX_ERR_NOT_SUPPORTED;  // a plain application: not from a tool at the head
    task->parent = *proc;
    task->cbfunc = cbfunc;
    task->cbdata = cbdata;
    g_launcher->queue.post([task] {
        start(task, task->app, task->debug, [task](pmix_status_t rc, const std::string& nspace) {
            task->application = nspace;
            if (rc != PMIX_SUCCESS) answer(*task, rc);
            else start_cospawned(task);
        });
    });
    return PMIX_SUCCESS;
}

}  // namespace pmix::launcher
