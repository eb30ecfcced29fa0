// launcher/indirect.h - pmixrun as the intermediate launcher of an indirect launch (the
// Standard's Tools chapter): a tool (the initiator) starts pmixrun itself and passes, in its
// environment, PMIX_LAUNCHER_RNDZ_URI (the initiator's server, to call back), or
// PMIX_LAUNCHER_RNDZ_FILE (a rendezvous file: connect to it when it exists, else write ours
// there), and PMIX_KEEPALIVE_PIPE (the read end of a pipe the initiator holds open). The rules
// are in indirect.cpp.
#pragma once

#include "launcher.h"

#include <string>
#include <utility>
#include <vector>

namespace pmix::launcher {

// Reads the three variables (and PMIX_SERVER_NAMESPACE, the name the initiator gave this
// launcher) and removes them from the environment, so the job's processes never see them.
// Sets launcher.before_job when there is something to do once the server runs. False, with
// `error`, on a value that cannot be used (pmixrun exits 2).
bool indirect_from_env(Launcher& launcher, std::string& error);

// What PMIx_server_init gets besides pmixrun's own attributes: our server's namespace when an
// initiator calls us back, the rendezvous file to write when it named one that does not exist.
std::vector<std::pair<const char*, std::string>> indirect_server_info();

// Across nodes (head.cpp): what before_job does, on the head's view of the job, once the head's
// server runs; true when there is no indirect launch. The directives land in view.options,
// view.main_requester and view.main_lifecycle; false: the job must not start (view.fail said why).
bool indirect_before_head(Launcher& view);

// Stops the keepalive watcher (after the job, before pmixrun exits).
void indirect_stop();

}  // namespace pmix::launcher
