// server/tool_admission.h - the library's own answer to a tool's connection request, and the
// server side of a PMIX_LAUNCHER tool, which has no host module to ask.
//
// A launcher is a tool that other tools must be able to find and reach (the Standard's
// PMIX_LAUNCHER), so PMIx_tool_init gives it the server side too, in the same process and under
// its tool identity: a listener and the rendezvous files (tools.cpp), and tool_connected =
// admit_tool below. Hosts with a module of their own (pmixrun included) decide in their hook.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace pmix::server {

// The rule: only a tool of this process's effective uid (PMIX_USERID as the listener saw it:
// SO_PEERCRED, or the secret of a remote tool); tools of other users could signal or inspect
// this user's jobs. It keeps the PMIX_TOOL_NSPACE (and PMIX_TOOL_RANK, else rank 0) it asked
// for; otherwise it is named "<server_nspace>.tool.<number>", rank 0. PMIX_ERR_NO_PERMISSIONS
// for another user or a missing uid, PMIX_ERR_BAD_PARAM for a name that does not fit.
pmix_status_t admit_tool(const pmix_info_t* info, std::size_t ninfo, std::string_view server_nspace,
                         unsigned number, pmix_proc_t* tool);

// Starts the server side of the launcher tool `me`: tool support, PMIX_SERVER_NSPACE/RANK = me,
// tool_connected = admit_tool (tools numbered from 1), and from `info` the caller's
// PMIX_SERVER_TMPDIR, PMIX_SYSTEM_TMPDIR, PMIX_LAUNCHER_RENDEZVOUS_FILE,
// PMIX_SERVER_REMOTE_CONNECTIONS and PMIX_TCP_IPV4_PORT. Does nothing (PMIX_SUCCESS) when a server
// already runs in this process: a host's own, or the one an earlier launcher init started.
pmix_status_t start_launcher_server(const pmix_proc_t& me, const pmix_info_t* info,
                                    std::size_t ninfo);
// Finalizes the server start_launcher_server started; nothing when it started none.
void stop_launcher_server();
// The URI of this process's server ("<nspace>.<rank>;<socket>"), what PMIX_MYSERVER_URI answers
// a launcher tool; empty when none runs.
std::string launcher_server_uri();

}  // namespace pmix::server
