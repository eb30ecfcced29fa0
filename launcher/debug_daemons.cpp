// launcher/debug_daemons.cpp - see debug_daemons.h. The Standard's Tools chapter (co-location and
// co-spawn of debugger daemons) leaves the count to the launcher when neither per-proc nor
// per-node is given; as prte does then, the app's maxprocs decides, and without maxprocs one
// daemon per node of the target (the debugger examples of prte ask for "ppr:1:node" there).
// prte refuses both counts at once, a count of 0, and a count without a target: so do we.
#include "debug_daemons.h"

#include <cstring>
#include <memory>
#include <set>

namespace pmix::launcher {

namespace {

// The largest job pmixrun starts (its -n bound): a request for more daemons is refused.
constexpr size_t kMostDaemons = 4096;

// A count given as PMIX_UINT16 (the Standard's type) or another unsigned/int type in range.
bool count_value(const pmix_value_t& value, uint16_t& out) {
    long long n = -1;
    switch (value.type) {
        case PMIX_UINT16:
            n = value.data.uint16;
            break;
        case PMIX_UINT32:
            n = value.data.uint32;
            break;
        case PMIX_UINT8:
            n = value.data.uint8;
            break;
        case PMIX_INT:
            n = value.data.integer;
            break;
        case PMIX_INT32:
            n = value.data.int32;
            break;
        default:
            return false;
    }
    if (n <= 0 || n > UINT16_MAX) return false;
    out = static_cast<uint16_t>(n);
    return true;
}

std::string nspace_of(const pmix_proc_t& proc) {
    return std::string(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN));
}

struct Targets {
    size_t procs = 0, nodes = 0;
};

// The processes of this launcher that `target` names (a rank, or every rank of its namespace),
// and on how many nodes they run. None: PMIX_ERR_NOT_FOUND.
pmix_status_t find_targets(const Launcher& launcher, const pmix_proc_t& target, Targets& out) {
    const std::string nspace = nspace_of(target);
    std::set<std::string> nodes;
    out = {};
    for (const Proc& process : launcher.procs) {
        if (process.nspace != nspace) continue;
        if (target.rank != PMIX_RANK_WILDCARD && process.rank != target.rank) continue;
        ++out.procs;
        nodes.insert(process.host.empty() ? launcher.hostname : process.host);
    }
    out.nodes = nodes.size();
    return out.procs == 0 ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS;
}

// Sizes the daemon job `app` as `debug` asks and adds PMIX_DEBUG_TARGET to its job-level info.
pmix_status_t place_daemons(const Launcher& launcher, const DebugRequest& debug, AppSpec& app) {
    if ((debug.per_proc > 0 || debug.per_node > 0) && !debug.has_target) return PMIX_ERR_BAD_PARAM;
    Targets targets;
    if (debug.has_target)
        if (const pmix_status_t rc = find_targets(launcher, debug.target, targets);
            rc != PMIX_SUCCESS)
            return rc;
    size_t count = 1;
    if (debug.per_proc > 0) count = debug.per_proc * targets.procs;
    else if (debug.per_node > 0) count = debug.per_node * targets.nodes;
    else if (debug.app_maxprocs > 0) count = static_cast<size_t>(debug.app_maxprocs);
    else if (debug.has_target) count = targets.nodes;
    if (count > kMostDaemons) return PMIX_ERR_OUT_OF_RESOURCE;
    app.nprocs = count;
    if (debug.has_target) {
        pmix_info_t target;
        PMIX_INFO_LOAD(&target, PMIX_DEBUG_TARGET, &debug.target, PMIX_PROC);
        app.directives.push_back(std::make_shared<const OwnedInfo>(target));
        PMIX_INFO_DESTRUCT(&target);
    }
    return PMIX_SUCCESS;
}

// The daemon job `daemons` gets its target's lifecycle events (lifecycle.cpp).
void follow_target(Launcher& launcher, const pmix_proc_t& target, const std::string& daemons) {
    auto it = launcher.lifecycles.find(nspace_of(target));
    if (it != launcher.lifecycles.end()) it->second.debugger_jobs.push_back(daemons);
}

}  // namespace

pmix_status_t debug_directive(const pmix_info_t& info, DebugRequest& request) {
    if (PMIX_CHECK_KEY(&info, PMIX_DEBUGGER_DAEMONS)) {
        if (info.value.type != PMIX_BOOL && info.value.type != PMIX_UNDEF)
            return PMIX_ERR_BAD_PARAM;
        request.daemons = PMIX_INFO_TRUE(&info);
        return PMIX_SUCCESS;
    }
    if (PMIX_CHECK_KEY(&info, PMIX_DEBUG_TARGET)) {
        if (info.value.type != PMIX_PROC || info.value.data.proc == nullptr)
            return PMIX_ERR_BAD_PARAM;
        request.has_target = true;
        request.target = *info.value.data.proc;
        return PMIX_SUCCESS;
    }
    uint16_t* count = PMIX_CHECK_KEY(&info, PMIX_DEBUG_DAEMONS_PER_PROC)   ? &request.per_proc
                      : PMIX_CHECK_KEY(&info, PMIX_DEBUG_DAEMONS_PER_NODE) ? &request.per_node
                                                                           : nullptr;
    if (count == nullptr) return PMIX_ERR_NOT_FOUND;
    if (!count_value(info.value, *count)) return PMIX_ERR_BAD_PARAM;
    return request.per_proc > 0 && request.per_node > 0 ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS;
}

pmix_status_t app_debug_request(const pmix_app_t& app, DebugRequest& request) {
    request.app_maxprocs = app.maxprocs;
    for (size_t i = 0; app.info != nullptr && i < app.ninfo; ++i) {
        const pmix_status_t rc = debug_directive(app.info[i], request);
        if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) return rc;
    }
    return PMIX_SUCCESS;
}

bool cospawned_app(const pmix_app_t& app) {
    for (size_t i = 0; app.info != nullptr && i < app.ninfo; ++i)
        if ((PMIX_CHECK_KEY(&app.info[i], PMIX_COSPAWN_APP) ||
             PMIX_CHECK_KEY(&app.info[i], PMIX_DEBUGGER_DAEMONS)) &&
            PMIX_INFO_TRUE(&app.info[i]))
            return true;
    return false;
}

pmix_status_t spawn_with_debuggers(Launcher& launcher, const pmix_proc_t& parent, AppSpec app,
                                   const DebugRequest& debug, std::vector<CospawnApp> cospawned,
                                   std::string* nspace) {
    if (cospawned.empty()) {
        if (debug.placed() || debug.has_target)
            if (const pmix_status_t rc = place_daemons(launcher, debug, app); rc != PMIX_SUCCESS)
                return rc;
        const pmix_status_t rc = spawn_job(launcher, parent, app, nspace);
        if (rc == PMIX_SUCCESS && debug.has_target) follow_target(launcher, debug.target, *nspace);
        return rc;
    }
    Targets named;  // a target an app names itself must exist before anything starts
    for (const CospawnApp& c : cospawned)
        if (c.debug.has_target)
            if (const pmix_status_t rc = find_targets(launcher, c.debug.target, named);
                rc != PMIX_SUCCESS)
                return rc;
    if (const pmix_status_t rc = spawn_job(launcher, parent, app, nspace); rc != PMIX_SUCCESS)
        return rc;
    // The Standard: the spawn returns once every app started, with the application's namespace;
    // the debugger's is found by querying the launcher's namespaces.
    for (CospawnApp& c : cospawned) {
        if (c.debug.placed() && !c.debug.has_target) {
            c.debug.has_target = true;
            PMIX_LOAD_PROCID(&c.debug.target, nspace->c_str(), PMIX_RANK_WILDCARD);
        }
        if (c.debug.placed() || c.debug.has_target)
            if (const pmix_status_t rc = place_daemons(launcher, c.debug, c.app);
                rc != PMIX_SUCCESS)
                return rc;
        std::string started;
        if (const pmix_status_t rc = spawn_job(launcher, parent, c.app, &started);
            rc != PMIX_SUCCESS)
            return rc;
        if (c.debug.has_target) follow_target(launcher, c.debug.target, started);
    }
    return PMIX_SUCCESS;
}

}  // namespace pmix::launcher
