// launcher/head_debug_spawn.h - PMIx_Spawn from a tool attached to the multi-node head: debugger
// daemons aimed at a job of this launcher (PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_TARGET,
// PMIX_DEBUG_DAEMONS_PER_PROC / _PER_NODE) and an application with co-spawned apps
// (PMIX_COSPAWN_APP, or PMIX_DEBUGGER_DAEMONS in an app's own info), as debug_daemons.h on one
// node. Each job is placed by the head's spawner (remote_spawn.h) and started by every pmixd:
// - debugger daemons on the nodes of their target: per node N on each node that runs a target
//   process, per proc N per target process on its node; neither: the app's maxprocs in blocks
//   over those nodes, else one on each. Each pmixd answers its daemons' PMIX_QUERY_PROC_TABLE
//   with its node's processes of the target (query.cpp), and PMIX_DEBUG_TARGET is in their job
//   info;
// - an application in blocks over every node, then each co-spawned app (debugger ones aimed at
//   the application unless they name a target); the spawn returns the application's namespace.
// The stops of the job info (PMIX_DEBUG_STOP_IN_INIT / _ON_EXEC / _IN_APP) hold the application
// alone, as on one node: they go in its job info to every node and the head watches it
// (HeadSpawner::hold, debug_nodes.h); the co-spawned jobs run unheld. The requester's
// PMIX_NOTIFY_* lifecycle requests are honoured (the head raises every job's events).
// An unknown target: PMIX_ERR_NOT_FOUND; counts as debug_daemons.h. What else a tool might ask of
// the head's spawn (a plain application at the head of pmixrun --host, PMIX_FWD_STDIN, another
// directive marked required):
// PMIX_ERR_NOT_SUPPORTED.
#pragma once

#include "launcher.h"
#include "remote_spawn.h"

#include <functional>
#include <string>
#include <vector>

namespace pmix::launcher {

// The head's job_control upcall for its tools: PMIX_JOB_CTRL_PAUSE / _RESUME of processes of its
// jobs, sent to every daemon (`send` takes the signal message's fields: the signal, then (nspace,
// rank) pairs), each of which signals its own targets (SIGSTOP / SIGCONT). Answered once sent: the
// processes stop as their daemons get it (a tool that needs them stopped reads their state).
// Anything else, or no targets: PMIX_ERR_NOT_SUPPORTED.
void head_job_control_sender(std::function<void(const std::vector<std::string>&)> send);
pmix_status_t head_job_control(const pmix_proc_t* requester, const pmix_proc_t targets[],
                               size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                               pmix_info_cbfunc_t cbfunc, void* cbdata);

// The head's spawn upcall; `spawner` is the head's (set before the server starts).
void head_debug_spawner(HeadSpawner* spawner);
// The persistent launcher's head (dvm_head.h): `started` gets each job head_spawn_fn placed, on
// the loop, so that the DVM retires it once it ended like the jobs it places itself.
void head_debug_spawned(std::function<void(const std::string&)> started);
// Whether head_spawn_fn takes this spawn (debugger daemons or co-spawned apps); the DVM's head
// places any other application itself.
bool head_spawn_takes(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                      size_t napps);
pmix_status_t head_spawn_fn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo,
                            const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                            void* cbdata);

}  // namespace pmix::launcher
