// launcher/fork_agent.h - how a job's processes start, and the Standard's fork/exec agent
// (PMIX_FORKEXEC_AGENT, pmixrun --fork-agent; Tools chapter, "Debugger Agents").
//
// The launcher starts the agent (FEA) in place of each application process. The FEA is no client:
// it is never registered as one, and no job-level value of the application counts it. The FEAs
// of a job form a debugger job of their own namespace, "<application nspace>.fea", as a
// co-spawned job: registered with the server of each node (with that node's agents' data) but
// with no local client, its job info naming the application as PMIX_DEBUG_TARGET; agent rank r
// stands for application rank r (every node names its agents alike). Each FEA starts with, in
// its environment,
//   PMIX_FEA_SERVER_URI   the server's URI (for PMIx_tool_init's PMIX_SERVER_URI)
//   PMIX_FEA_NSPACE       its namespace in the debugger job (PMIX_TOOL_NSPACE)
//   PMIX_FEA_RANK         its rank there (PMIX_TOOL_RANK)
// connects back as a tool under that identity and reads its spawn description with PMIx_Get of
// its own process:
//   PMIX_DEBUG_TARGET  (pmix_proc_t) the application process it replaces
//   PMIX_APP_ARGV      (char*) that process's command line, words joined by spaces (display)
//   kForkAgentArgv     (PMIX_DATA_ARRAY of PMIX_STRING) the exact argv to execute (an exec
//                      agent's words first, when one is given too)
//   kForkAgentEnv      (PMIX_DATA_ARRAY of PMIX_STRING) the process's environment, "NAME=value":
//                      the launcher's, the spawn's, and PMIx_server_setup_fork's for that rank
//   PMIX_WDIR          (char*) the directory to start in, when one was given
// then forks and execs that process (which connects as the registered client), waits for it and
// exits with its status (killed by a signal: the same signal). The launcher accounts the
// application process's end by the FEA's: exit code, PROC_TERMINATED, JOB_END. An FEA that ends
// without having connected back fails its rank (status 1 if it exited 0), with a message.
// examples/fork_agent.c is such an agent, on the public API alone.
#pragma once

#include "launcher.h"

#include <functional>
#include <string>
#include <vector>

namespace pmix::launcher {

inline constexpr char kForkAgentArgv[] = "pmix.fea.argv";
inline constexpr char kForkAgentEnv[] = "pmix.fea.env";

// Starts `procs` (ranks of `nspace` on this node) as `how` says: each executes the exec agent's
// words (if any) then argv_of(process), in how.wdir; with how.fork_agent through one FEA each.
// False once one could not start (the caller gives up on the job; the rest are not started).
bool start_procs(Launcher& launcher, const std::string& nspace, const std::vector<Proc*>& procs,
                 const std::function<std::vector<std::string>(const Proc&)>& argv_of,
                 const StartAs& how, char** base_env);

// job.cpp: setup_fork (when `client_env`) and spawn of one process with its output on pipes.
bool start_proc(Launcher& launcher, Proc& process, std::vector<char*>& argv, char** base_env,
                const char* program, const char* wdir, bool client_env = true);
std::vector<char*> c_strings(std::vector<std::string>& strings);

// The host's tool_connected admitted `tool` (any thread): an FEA connecting back is recorded.
void fea_tool_connected(const pmix_proc_t& tool);
// A process was reaped with `wait_status` (loop thread): if an FEA stood in for it and never
// connected back, says so and makes the status a failure (exit 1 if it exited 0).
void fea_check_ended(Proc& process, int& wait_status);
// The application process an FEA started connected: its pid (the FEA's one child, from
// /proc/<pid>/task/<pid>/children) goes into `process.app_pid` for the proc tables.
void fea_app_connected(Proc& process);
// The debugger namespaces of the FEA jobs, in start order (PMIX_QUERY_NAMESPACES lists them).
std::vector<std::string> fea_nspaces();
// App job `nspace` is retired (dvm.cpp) or the launcher ends: its FEA job's namespace is
// deregistered (every one with an empty `nspace`).
void fea_forget(const std::string& nspace);

}  // namespace pmix::launcher
