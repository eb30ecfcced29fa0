// capi/compose.h - where the library's roles meet in one process.
//
// client/ and server/ do not know each other (the layering); the C API composes them, here and
// only here. The policy stays in the two halves; these functions only call them in order:
// - a host (PMIx_server_init): the server hands the events meant for the host to the client
//   library's handler registry, and the client API answers the host's own PMIx_Get,
//   PMIx_Store_internal, PMIx_Notify_event and handler calls from that server
//   (client/host_mode.h);
// - a launcher tool (PMIx_tool_init with PMIX_LAUNCHER): the tool gets a server side too
//   (server/tool_admission.h), stopped by its last PMIx_tool_finalize.
#pragma once

#include <pmix_server.h>

#include <cstddef>

namespace pmix::capi {

pmix_status_t server_init(const pmix_server_module_t* module, const pmix_info_t* info,
                          std::size_t ninfo);
pmix_status_t tool_init(pmix_proc_t* proc, const pmix_info_t* info, std::size_t ninfo);
pmix_status_t tool_finalize();

// What a call this library does not implement yet answers: PMIX_ERR_INIT before any init (the
// Standard's answer), PMIX_ERR_NOT_SUPPORTED once a client, tool or server runs here, never a
// false success.
pmix_status_t not_implemented_status();

}  // namespace pmix::capi
