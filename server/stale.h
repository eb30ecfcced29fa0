// server/stale.h - removal of what dead servers left behind (stale.cpp).
#pragma once

#include <sys/types.h>

#include <map>
#include <string>

namespace pmix::server {

class State;

// At init, once the session directory is made: unlinks the shared-memory segments and removes
// the session and socket directories and the rendezvous files (in the server's and the system
// tmpdir) of this uid whose owner pid no longer exists.
void remove_stale_leftovers(const State& st, const std::string& system_tmpdir);

// A client lost without PMIx_Finalize: unlinks the shared-memory objects named after its pid
// with this server's prefix and owned by its uid (its own modex segment, gds/proc_segment.h).
int remove_client_segments(pid_t pid, uid_t uid);
// The same for several clients (one pass over /dev/shm): pid -> uid.
int remove_client_segments(const std::map<pid_t, uid_t>& owners);

}  // namespace pmix::server
