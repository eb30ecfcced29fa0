// server/tools.h - tool support set up at PMIx_server_init and torn down at finalize.
#pragma once

#include <pmix_common.h>

namespace pmix::server {

class State;

// Reads PMIX_SERVER_TOOL_SUPPORT / SYSTEM_SUPPORT / SESSION_SUPPORT / SCHEDULER /
// SYS_CONTROLLER, PMIX_SYSTEM_TMPDIR and PMIX_LAUNCHER_RENDEZVOUS_FILE; when any asks for tool
// support, writes the rendezvous files (wire/rendezvous.h). Fails (having removed what it
// wrote) when a file cannot be written or belongs to another live server.
pmix_status_t start_tool_support(State& st, const pmix_info_t* info, size_t ninfo);
// Removes the rendezvous files and the directories made for them.
void stop_tool_support(State& st);

}  // namespace pmix::server
