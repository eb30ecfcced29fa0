// server/setup_app.h - PMIx_server_setup_application / setup_local_support through the fabric
// plugins (fabric/plugins/plugin.h).
#pragma once

#include "server/registration.h"

#include <pmix_common.h>

#include <string>
#include <utility>
#include <vector>

namespace pmix::server {

class State;

// Launcher's node: every plugin's blob for the job, as info entries "pmix.cpp.fab.<plugin>"
// (byte objects), followed by copies of PMIX_NODE_MAP / PMIX_PROC_MAP when the host gave them.
// PMIX_ERR_NOT_SUPPORTED for an unknown directive marked required, PMIX_ERR_BAD_PARAM for a
// malformed one (`why` says which).
pmix_status_t collect_application_setup(const char* nspace, const pmix_info_t* info, size_t ninfo,
                                        std::vector<pmix_info_t>& out, std::string& why);

// Every node, on the server's thread: hands each plugin blob among `info` to its plugin and
// installs the result (environment for setup_fork, per-process values in the store).
pmix_status_t install_local_support(State& s, const std::string& nspace,
                                    const std::vector<std::pair<std::string, Value>>& info);

}  // namespace pmix::server
