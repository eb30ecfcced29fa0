// launcher/debug_daemons.h - debugger daemons and co-spawned apps of a PMIx_Spawn (one node).
//
// A spawn whose job info (or, with one app, app info) carries PMIX_DEBUGGER_DAEMONS starts a
// debugger-daemon job in a namespace of its own, placed by PMIX_DEBUG_TARGET (a process, or a
// namespace's PMIX_RANK_WILDCARD) and PMIX_DEBUG_DAEMONS_PER_PROC / _PER_NODE; the daemons get
// PMIX_DEBUG_TARGET in their job-level info and find their targets themselves (their
// PMIX_LOCAL_RANK against the target's, the target's proc table). An app of a spawn of several
// apps whose own info sets PMIX_COSPAWN_APP or PMIX_DEBUGGER_DAEMONS is co-spawned: started as a
// job of its own, next to the application, kept out of the application's job info.
#pragma once

#include "launcher.h"

#include <cstdint>
#include <string>
#include <vector>

namespace pmix::launcher {

// What a spawn asked for about debugger daemons (job info, then the app's own info).
struct DebugRequest {
    bool daemons = false;  // PMIX_DEBUGGER_DAEMONS
    bool has_target = false;
    pmix_proc_t target{};   // PMIX_DEBUG_TARGET
    uint16_t per_proc = 0;  // PMIX_DEBUG_DAEMONS_PER_PROC (0: not given)
    uint16_t per_node = 0;  // PMIX_DEBUG_DAEMONS_PER_NODE (0: not given)
    int app_maxprocs = 0;   // the app's maxprocs: the count when no per-* count is given
    bool placed() const { return daemons || per_proc > 0 || per_node > 0; }
};

// Records `info` when it is one of the keys above: PMIX_SUCCESS; PMIX_ERR_BAD_PARAM for a wrong
// type, a count of 0, or both counts; PMIX_ERR_NOT_FOUND (nothing recorded) for any other key.
pmix_status_t debug_directive(const pmix_info_t& info, DebugRequest& request);

// The app's own debugger keys and maxprocs, added to `request` (errors as debug_directive's).
pmix_status_t app_debug_request(const pmix_app_t& app, DebugRequest& request);

// True when the app's own info sets PMIX_COSPAWN_APP or PMIX_DEBUGGER_DAEMONS (to true).
bool cospawned_app(const pmix_app_t& app);

// A co-spawned app: its own job, with the debugger request of the spawn's job info completed by
// its app info.
struct CospawnApp {
    AppSpec app;
    DebugRequest debug;
};

// On the launcher's loop. Starts `app` (a debugger-daemon job when `debug` asks for one), then
// every co-spawned app (the debugger ones aimed at the application unless they name a target);
// *nspace is the application's namespace. An unknown target: PMIX_ERR_NOT_FOUND before anything
// starts.
pmix_status_t spawn_with_debuggers(Launcher& launcher, const pmix_proc_t& parent, AppSpec app,
                                   const DebugRequest& debug, std::vector<CospawnApp> cospawned,
                                   std::string* nspace);

// A spawn's apps as the single-node host reads them (host.cpp): the one application with its
// debugger keys, and the co-spawned apps; for the multi-node head's spawn (head_debug_spawn.cpp).
pmix_status_t plan_spawn(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                         size_t napps, const LifecycleRequest& lifecycle, AppSpec& app,
                         DebugRequest& debug, std::vector<CospawnApp>& cospawned);

}  // namespace pmix::launcher
