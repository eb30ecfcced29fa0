// capi/self_spawn.h - PMIx_Spawn of a tool attached to no server: the Standard's self-spawn of an
// intermediate launcher (Tools chapter, indirect launch).
//
// Such a tool (typically PMIX_LAUNCHER with PMIX_TOOL_DO_NOT_CONNECT, so that it has a server
// side of its own) starts the one process of its one application itself, as OpenPMIx's pfexec
// does: app.cmd found on PATH, app.argv, app.cwd, this process's environment plus app.env, and
// PMIX_KEEPALIVE_PIPE (the read end of a pipe this process holds open until its last
// PMIx_tool_finalize, or until it dies) and PMIX_SERVER_NAMESPACE (the namespace returned: the
// launcher's server takes that name, so PMIx_tool_set_server on rank 0 of it reaches it). When
// the tool has a server side, the namespace is registered there with the job's
// PMIX_LAUNCH_DIRECTIVES, which the launcher reads (PMIx_Get on its namespace) once it called
// back through the PMIX_LAUNCHER_RNDZ_URI of app.env.
//
// Acted on in the job info: PMIX_LAUNCH_DIRECTIVES, PMIX_SPAWN_TOOL, PMIX_FWD_STDOUT / _STDERR
// (the launcher writes to this process's own stdout and stderr), PMIX_DEBUG_STOP_IN_INIT when
// app.env calls back (PMIX_LAUNCHER_RNDZ_URI / _FILE: the launcher waits for the release), and
// PMIX_TIMEOUT. Any other required directive: PMIX_ERR_NOT_SUPPORTED, nothing started. More than
// one application or process: PMIX_ERR_NOT_SUPPORTED.
#pragma once

#include <pmix.h>

#include <cstddef>

namespace pmix::capi {

// True when PMIx_Spawn of this process is a self-spawn (a tool attached to no server).
bool self_spawn_applies();
pmix_status_t self_spawn(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                         std::size_t napps, char* nspace);
// The same; `cbfunc` runs after the call, on the tool's progress thread.
pmix_status_t self_spawn_nb(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                            std::size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata);
// The last PMIx_tool_finalize: closes the keepalive pipes (the launchers end their jobs).
void self_spawn_finalize();

}  // namespace pmix::capi
