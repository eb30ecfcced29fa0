// server/monitor.h - PMIx_Process_monitor requests served by the library (monitor.cpp), as
// OpenPMIx 4.2.2's psensor heartbeat and file sensors run in its server library.
//
// Contract: the server's loop thread only. A monitor belongs to the client that asked for it and
// watches that client: PMIX_MONITOR_HEARTBEAT counts the client's PMIX_SEND_HEARTBEAT beats per
// PMIX_MONITOR_HEARTBEAT_TIME window; PMIX_MONITOR_FILE samples a file every
// PMIX_MONITOR_FILE_CHECK_TIME seconds for a change of what PMIX_MONITOR_FILE_SIZE / _ACCESS /
// _MODIFY name (the first sample is the baseline). A window without a beat, or a sample without
// a change, is a miss; any beat or change clears the count. After max(1, _DROPS) misses in a row
// the monitor trips once and ends: the error code given to the call (PMIX_MONITOR_HEARTBEAT_ALERT
// / PMIX_MONITOR_FILE_ALERT when that is PMIX_SUCCESS) is raised with the client as source, in
// PMIX_RANGE (default PMIX_RANGE_NAMESPACE), with PMIX_MONITOR_ID (when given) and
// PMIX_EVENT_AFFECTED_PROC, to the local clients the range selects and to the host's handlers.
// PMIX_MONITOR_CANCEL ends the client's monitors of that id (every one when no id). A monitor
// ends without an event when its client disconnects.
#pragma once

#include "exec/executor.h"
#include "server/clients.h"

#include <pmix_common.h>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <ctime>
#include <map>
#include <string>

namespace pmix::server {

struct ProcessMonitor {
    enum class Kind { heartbeat, file };
    Kind kind = Kind::heartbeat;
    ProcKey requester;
    std::string id;  // PMIX_MONITOR_ID; empty when not given
    pmix_status_t code = PMIX_SUCCESS;
    pmix_data_range_t range = PMIX_RANGE_NAMESPACE;
    std::chrono::seconds period{0};
    std::uint32_t drops = 0;
    std::uint32_t misses = 0;
    std::uint32_t beats = 0;  // heartbeats in the current window
    // File monitors.
    std::string path;
    bool watch_size = false, watch_access = false, watch_modify = false;
    bool sampled = false;
    off_t last_size = 0;
    timespec last_access{}, last_modify{};
    exec::TimerId timer = exec::kInvalidTimer;
};

struct MonitorTable {
    std::map<std::uint64_t, ProcessMonitor> active;
    std::uint64_t next_id = 1;
};

}  // namespace pmix::server
