// client/debug_stop.h - the Standard's stop-in-init (Tools chapter): a process whose job info
// carries PMIX_DEBUG_STOP_IN_INIT for it waits in PMIx_Init until a debugger releases it.
#pragma once

#include <pmix_common.h>

#include <chrono>

namespace pmix::client {

// Called by PMIx_Init once connected (lifecycle mutex held, not on the progress thread). When the
// job's PMIX_DEBUG_STOP_IN_INIT names `me` (true, its rank or PMIX_RANK_WILDCARD, or a proc/rank
// array holding it): registers for PMIX_DEBUGGER_RELEASE, raises PMIX_READY_FOR_DEBUG (range RM,
// PMIX_BREAKPOINT "pmix-init", non-default, as OpenPMIx 4.2 does) and waits for the release.
// PMIX_SUCCESS when not asked or released; PMIX_ERR_LOST_CONNECTION when the server went away
// meanwhile; PMIX_ERR_TIMEOUT after `limit`.
pmix_status_t stop_in_init_if_asked(const pmix_proc_t& me, std::chrono::milliseconds limit);

// Whether a PMIX_DEBUG_STOP_* value (bool, pmix_rank_t, proc, or an array of procs or ranks)
// names `me`.
bool debug_value_names(const pmix_value_t& value, const pmix_proc_t& me);

}  // namespace pmix::client
