// launcher/query_keys.cpp - see query_keys.h. Built on the launcher's loop, like query.cpp.
#include "query_keys.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace pmix::launcher {

const pmix_info_t* qualifier(const pmix_query_t& query, const char* key) {
    for (size_t i = 0; query.qualifiers != nullptr && i < query.nqual; ++i)
        if (std::strncmp(query.qualifiers[i].key, key, PMIX_MAX_KEYLEN) == 0)
            return &query.qualifiers[i];
    return nullptr;
}

namespace {

bool is(const char* key, const char* name) { return std::strcmp(key, name) == 0; }

std::string join(const std::vector<std::string>& items, const char* separator = ",") {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
    return out;
}

const char* string_qualifier(const pmix_query_t& query, const char* key) {
    const pmix_info_t* q = qualifier(query, key);
    return q != nullptr && q->value.type == PMIX_STRING ? q->value.data.string : nullptr;
}

bool flag_qualifier(const pmix_query_t& query, const char* key) {
    const pmix_info_t* q = qualifier(query, key);
    return q != nullptr && (q->value.type != PMIX_BOOL || q->value.data.flag);
}

bool single_node(const Launcher& launcher) {
    return launcher.remote == nullptr && launcher.options.hosts.empty() &&
           launcher.options.hostfile.empty();
}

// The persistent launcher's head across nodes: the only one that places tools' spawns itself
// (dvm_head.h sets spawn_placement); its Remote is the DvmHead.
bool is_dvm_head(const Launcher& launcher) { return static_cast<bool>(launcher.spawn_placement); }

// What spawn_fn (host.cpp) acts on: the environment directives of the job and app info,
// PMIX_ENVARS_HARVESTED accepted, the app's PMIX_PSET_NAME, PMIX_FWD_STDIN and the lifecycle
// requests (lifecycle.cpp), co-spawn and the debugger-daemon keys (debug_daemons.cpp), PMIX_WDIR
// (pmix_app_t.cwd too) and the agents (start_as.cpp). pmixd hands spawns to the head
// (remote_spawn.h), which places the job across the nodes, held by the stops on every node
// (debug_nodes.h): not PMIX_FWD_STDIN, the requester's lifecycle events, co-spawn nor debugger
// daemons. The multi-node head spawns for its tools
// debugger daemons and co-spawned apps (head_debug_spawn.h), with the environment directives, the
// process set and the lifecycle requests; as a persistent launcher (dvm_head.h) it takes tools'
// jobs with the lifecycle requests, the stops and PMIX_HOST / PMIX_HOSTFILE placement, and
// debugger daemons and co-spawn as the other head (dvm.cpp's spawn hands those to
// head_debug_spawn.h).
std::string spawn_support(const Launcher& launcher) {
    if (is_dvm_head(launcher))
        return join({PMIX_SET_ENVAR,
                     PMIX_ADD_ENVAR,
                     PMIX_UNSET_ENVAR,
                     PMIX_PREPEND_ENVAR,
                     PMIX_APPEND_ENVAR,
                     PMIX_FIRST_ENVAR,
                     PMIX_ENVARS_HARVESTED,
                     PMIX_PSET_NAME,
                     PMIX_NOTIFY_JOB_EVENTS,
                     PMIX_NOTIFY_COMPLETION,
                     PMIX_NOTIFY_PROC_TERMINATION,
                     PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION,
                     PMIX_HOST,
                     PMIX_HOSTFILE,
                     PMIX_COSPAWN_APP,
                     PMIX_DEBUGGER_DAEMONS,
                     PMIX_DEBUG_TARGET,
                     PMIX_DEBUG_DAEMONS_PER_PROC,
                     PMIX_DEBUG_DAEMONS_PER_NODE,
                     PMIX_DEBUG_STOP_IN_INIT,
                     PMIX_DEBUG_STOP_ON_EXEC,
                     PMIX_DEBUG_STOP_IN_APP});
    if (launcher.remote != nullptr)
        return join({PMIX_SET_ENVAR, PMIX_ADD_ENVAR, PMIX_UNSET_ENVAR, PMIX_PREPEND_ENVAR,
                     PMIX_APPEND_ENVAR, PMIX_FIRST_ENVAR, PMIX_ENVARS_HARVESTED, PMIX_PSET_NAME,
                     PMIX_DEBUG_STOP_IN_INIT, PMIX_DEBUG_STOP_ON_EXEC, PMIX_DEBUG_STOP_IN_APP,
                     PMIX_WDIR, PMIX_EXEC_AGENT});  // no fork/exec agent across nodes
    if (!single_node(launcher))
        return join({PMIX_SET_ENVAR, PMIX_ADD_ENVAR, PMIX_UNSET_ENVAR, PMIX_PREPEND_ENVAR,
                     PMIX_APPEND_ENVAR, PMIX_FIRST_ENVAR, PMIX_ENVARS_HARVESTED, PMIX_PSET_NAME,
                     PMIX_NOTIFY_JOB_EVENTS, PMIX_NOTIFY_COMPLETION, PMIX_NOTIFY_PROC_TERMINATION,
                     PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION, PMIX_COSPAWN_APP, PMIX_DEBUGGER_DAEMONS,
                     PMIX_DEBUG_TARGET, PMIX_DEBUG_DAEMONS_PER_PROC, PMIX_DEBUG_DAEMONS_PER_NODE});
    return join({PMIX_SET_ENVAR,
                 PMIX_ADD_ENVAR,
                 PMIX_UNSET_ENVAR,
                 PMIX_PREPEND_ENVAR,
                 PMIX_APPEND_ENVAR,
                 PMIX_FIRST_ENVAR,
                 PMIX_ENVARS_HARVESTED,
                 PMIX_PSET_NAME,
                 PMIX_FWD_STDIN,
                 PMIX_NOTIFY_JOB_EVENTS,
                 PMIX_NOTIFY_COMPLETION,
                 PMIX_NOTIFY_PROC_TERMINATION,
                 PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION,
                 PMIX_COSPAWN_APP,
                 PMIX_DEBUGGER_DAEMONS,
                 PMIX_DEBUG_TARGET,
                 PMIX_DEBUG_DAEMONS_PER_PROC,
                 PMIX_DEBUG_DAEMONS_PER_NODE,
                 PMIX_DEBUG_STOP_IN_INIT,
                 PMIX_DEBUG_STOP_ON_EXEC,
                 PMIX_DEBUG_STOP_IN_APP,
                 PMIX_WDIR,
                 PMIX_FORKEXEC_AGENT,
                 PMIX_EXEC_AGENT});
}

// The debugger attributes acted on: debugger-daemon jobs, their target and counts
// (debug_daemons.cpp); the stops of a spawned job, the events that report and release them, and
// the job-control pause / resume (debug.cpp). The multi-node head: the debugger daemons
// (head_debug_spawn.h), the breakpoints its job's held processes report (debug_nodes.h), pause /
// resume (head_debug_spawn.h); the persistent launcher's head: the debugger daemons (the same)
// and its tools' jobs stopped in init, on exec or in the application (debug_nodes.h, held on
// every node); pmixd: a rank's spawn with the stops (the head holds it on every node), no
// debugger daemons.
std::string debug_support(const Launcher& launcher) {
    if (is_dvm_head(launcher))
        return join({PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_TARGET, PMIX_DEBUG_DAEMONS_PER_PROC,
                     PMIX_DEBUG_DAEMONS_PER_NODE, PMIX_DEBUG_STOP_IN_INIT, PMIX_DEBUG_STOP_ON_EXEC,
                     PMIX_DEBUG_STOP_IN_APP, PMIX_BREAKPOINT});
    if (launcher.remote != nullptr)
        return join({PMIX_DEBUG_STOP_IN_INIT, PMIX_DEBUG_STOP_ON_EXEC, PMIX_DEBUG_STOP_IN_APP,
                     PMIX_BREAKPOINT});
    if (launcher.remote == nullptr && !single_node(launcher))
        return join({PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_TARGET, PMIX_DEBUG_DAEMONS_PER_PROC,
                     PMIX_DEBUG_DAEMONS_PER_NODE, PMIX_BREAKPOINT, PMIX_JOB_CTRL_PAUSE,
                     PMIX_JOB_CTRL_RESUME});
    if (!single_node(launcher)) return "";
    return join({PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_TARGET, PMIX_DEBUG_DAEMONS_PER_PROC,
                 PMIX_DEBUG_DAEMONS_PER_NODE, PMIX_DEBUG_STOP_IN_INIT, PMIX_DEBUG_STOP_ON_EXEC,
                 PMIX_DEBUG_STOP_IN_APP, PMIX_BREAKPOINT, PMIX_JOB_CTRL_PAUSE, PMIX_JOB_CTRL_RESUME,
                 PMIX_FORKEXEC_AGENT, PMIX_EXEC_AGENT});
}

void load_array(pmix_info_t& out, const char* key, std::vector<pmix_info_t>& items) {
    pmix_data_array_t darray{PMIX_INFO, items.size(), items.empty() ? nullptr : items.data()};
    PMIx_Info_load(&out, key, &darray, PMIX_DATA_ARRAY);
    for (pmix_info_t& item : items) PMIX_INFO_DESTRUCT(&item);
    items.clear();
}

// PMIX_QUERY_NAMESPACE_INFO as prte answers it: per namespace an element of the same key holding
// [PMIX_NSPACE, PMIX_CMD_LINE]; PMIX_NSPACE qualifier: that namespace only (unknown: false).
bool namespace_info(const Launcher& launcher, const pmix_query_t& query, pmix_info_t& out) {
    std::vector<std::pair<std::string, std::string>> jobs;
    std::vector<std::string> apps;
    for (const AppContext& app : launcher.options.apps) apps.push_back(join(app.argv, " "));
    if (apps.empty()) apps.push_back(join(launcher.options.argv, " "));
    jobs.emplace_back(launcher.nspace, join(apps, " : "));
    for (const std::string& spawned : launcher.spawned_nspaces) {
        std::string command;
        for (const Proc& process : launcher.procs)
            if (process.nspace == spawned) command = process.executable;
        jobs.emplace_back(spawned, command);
    }
    const char* want = string_qualifier(query, PMIX_NSPACE);
    std::vector<pmix_info_t> rows;
    for (const auto& [nspace, command] : jobs) {
        if (want != nullptr && nspace != want) continue;
        std::vector<pmix_info_t> fields(2);
        PMIx_Info_load(&fields[0], PMIX_NSPACE, nspace.c_str(), PMIX_STRING);
        PMIx_Info_load(&fields[1], PMIX_CMD_LINE, command.c_str(), PMIX_STRING);
        load_array(rows.emplace_back(), PMIX_QUERY_NAMESPACE_INFO, fields);
    }
    if (want != nullptr && rows.empty()) return false;
    load_array(out, PMIX_QUERY_NAMESPACE_INFO, rows);
    return true;
}

// Resident memory of a process in MB (VmRSS of /proc/<pid>/status); negative if unreadable.
double resident_mb(pid_t pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string word;
    while (status >> word) {
        if (word == "VmRSS:") {
            double kb = -1;
            status >> kb;
            return kb >= 0 ? kb / 1024.0 : -1;
        }
    }
    return -1;
}

// The processes a memory query is about: PMIX_PROCID, or PMIX_NSPACE (+ PMIX_RANK), else every
// process; only running ones on this node (their /proc is here).
bool selected(const Launcher& launcher, const Proc& process, const pmix_query_t& query) {
    if (process.pid <= 0 || process.exited) return false;
    if (!process.host.empty() && process.host != launcher.hostname) return false;
    if (const pmix_info_t* id = qualifier(query, PMIX_PROCID);
        id != nullptr && id->value.type == PMIX_PROC && id->value.data.proc != nullptr) {
        const pmix_proc_t& p = *id->value.data.proc;
        return process.nspace == p.nspace &&
               (p.rank == PMIX_RANK_WILDCARD || p.rank == process.rank);
    }
    const char* nspace = string_qualifier(query, PMIX_NSPACE);
    if (nspace != nullptr && process.nspace != nspace) return false;
    const pmix_info_t* rank = qualifier(query, PMIX_RANK);
    return rank == nullptr || rank->value.type != PMIX_PROC_RANK ||
           rank->value.data.rank == PMIX_RANK_WILDCARD || rank->value.data.rank == process.rank;
}

// PMIX_QUERY_MEMORY_USAGE: an info array of PMIX_DAEMON_MEMORY (this launcher) and
// PMIX_CLIENT_AVG_MEMORY (the selected processes), in MB of resident memory; with
// PMIX_QUERY_REPORT_MINMAX also "pmix.cpp.cl.mem.min" / ".max" (the Standard names no keys for
// them). Averages are what is reported in any case (PMIX_QUERY_REPORT_AVG asks for just that).
// Only this node's processes can be measured: that is what PMIX_QUERY_LOCAL_ONLY asks, and what a
// query without it gets too (the multi-node head measures itself only).
bool memory_usage(const Launcher& launcher, const pmix_query_t& query, pmix_info_t& out) {
    std::vector<double> clients;
    for (const Proc& process : launcher.procs) {
        if (!selected(launcher, process, query)) continue;
        if (const double mb = resident_mb(process.pid); mb >= 0) clients.push_back(mb);
    }
    std::vector<pmix_info_t> fields;
    const float daemon = static_cast<float>(resident_mb(::getpid()));
    PMIx_Info_load(&fields.emplace_back(), PMIX_DAEMON_MEMORY, &daemon, PMIX_FLOAT);
    if (!clients.empty()) {
        double sum = 0;
        for (double mb : clients) sum += mb;
        const float average = static_cast<float>(sum / static_cast<double>(clients.size()));
        PMIx_Info_load(&fields.emplace_back(), PMIX_CLIENT_AVG_MEMORY, &average, PMIX_FLOAT);
        if (flag_qualifier(query, PMIX_QUERY_REPORT_MINMAX)) {
            const auto [low, high] = std::minmax_element(clients.begin(), clients.end());
            const float min = static_cast<float>(*low), max = static_cast<float>(*high);
            PMIx_Info_load(&fields.emplace_back(), "pmix.cpp.cl.mem.min", &min, PMIX_FLOAT);
            PMIx_Info_load(&fields.emplace_back(), "pmix.cpp.cl.mem.max", &max, PMIX_FLOAT);
        }
    }
    load_array(out, PMIX_QUERY_MEMORY_USAGE, fields);
    return true;
}

// PMIX_TIME_REMAINING: seconds left of --timeout (pmixd: the head's, counted from pmixd's own
// start); UINT32_MAX when the job has no time limit.
uint32_t time_remaining(const Launcher& launcher) {
    const double limit =
        launcher.remote != nullptr ? launcher.time_limit_s : launcher.options.timeout_s;
    if (limit <= 0) return UINT32_MAX;
    const double used = std::chrono::duration<double>(Clock::now() - launcher.times.start).count();
    return static_cast<uint32_t>(std::max(0.0, std::ceil(limit - used)));
}

// PMIX_QUERY_AUTHORIZATIONS: the operations this launcher performs for a requester (only this
// user's clients and tools get in at all: host_tool_connected), as PMIx function names.
void authorizations(const Launcher& launcher, pmix_info_t& out) {
    std::vector<std::string> ops = {"PMIx_Query_info", "PMIx_Job_control", "PMIx_Log",
                                    "PMIx_Notify_event", "PMIx_Abort"};
    if (single_node(launcher) || launcher.remote != nullptr) {
        for (const char* op : {"PMIx_Spawn", "PMIx_Publish", "PMIx_Lookup", "PMIx_Unpublish"})
            ops.emplace_back(op);
    }
    if (launcher.remote != nullptr) {  // pmixd, through the head (remote_connect.h)
        ops.emplace_back("PMIx_Connect");
        ops.emplace_back("PMIx_Disconnect");
    }
    std::vector<char*> names;
    for (std::string& op : ops) names.push_back(op.data());
    pmix_data_array_t darray{PMIX_STRING, names.size(), names.data()};
    PMIx_Info_load(&out, PMIX_QUERY_AUTHORIZATIONS, &darray, PMIX_DATA_ARRAY);
}

// The node a query names by PMIX_NODEID or PMIX_HOSTNAME (this one when neither); npos if none.
size_t node_of_query(const Launcher& launcher, const pmix_query_t& query) {
    const Layout& layout = launcher.layout;
    if (const pmix_info_t* id = qualifier(query, PMIX_NODEID); id != nullptr) {
        if (id->value.type != PMIX_UINT32 || id->value.data.uint32 >= layout.nodes.size())
            return SIZE_MAX;
        return id->value.data.uint32;
    }
    if (const char* host = string_qualifier(query, PMIX_HOSTNAME); host != nullptr) {
        for (size_t n = 0; n < layout.nodes.size(); ++n)
            if (layout.nodes[n].name == host) return n;
        return SIZE_MAX;
    }
    return layout.here < layout.nodes.size() ? layout.here : SIZE_MAX;
}

// PMIX_LOCAL_PROCS of a node (PMIX_NODEID / PMIX_HOSTNAME; default this one): a PMIX_PROC array
// of the main job's ranks there (PMIX_NSPACE: that job's only), and on this node the spawned jobs'.
bool local_procs(const Launcher& launcher, const pmix_query_t& query, pmix_info_t& out) {
    const size_t node = node_of_query(launcher, query);
    if (node == SIZE_MAX) return false;
    const char* want = string_qualifier(query, PMIX_NSPACE);
    std::vector<pmix_proc_t> procs;
    auto add = [&](const std::string& nspace, pmix_rank_t rank) {
        if (want != nullptr && nspace != want) return;
        PMIX_LOAD_PROCID(&procs.emplace_back(), nspace.c_str(), rank);
    };
    const Layout& layout = launcher.layout;
    for (uint32_t i = 0; i < layout.rank_count[node]; ++i)
        add(launcher.nspace, layout.first_rank[node] + i);
    if (node == layout.here)
        for (const Proc& process : launcher.procs)
            if (process.job != 0) add(process.nspace, process.rank);
    pmix_data_array_t darray{PMIX_PROC, procs.size(), procs.empty() ? nullptr : procs.data()};
    PMIx_Info_load(&out, PMIX_LOCAL_PROCS, &darray, PMIX_DATA_ARRAY);
    return true;
}

// The process-set keys, as prte answers them: the count (size_t), the names comma-separated, the
// members of the set named by PMIX_PSET_NAME (a PMIX_PROC array).
bool pset_answer(const Launcher& launcher, const char* key, const pmix_query_t& query,
                 pmix_info_t& out) {
    if (is(key, PMIX_QUERY_NUM_PSETS)) {
        const size_t count = launcher.psets.size();
        PMIx_Info_load(&out, key, &count, PMIX_SIZE);
        return true;
    }
    if (is(key, PMIX_QUERY_PSET_NAMES)) {
        std::vector<std::string> names;
        for (const ProcessSetDef& set : launcher.psets) names.push_back(set.name);
        PMIx_Info_load(&out, key, join(names).c_str(), PMIX_STRING);
        return true;
    }
    const char* name = string_qualifier(query, PMIX_PSET_NAME);
    for (const ProcessSetDef& set : launcher.psets) {
        if (name == nullptr || set.name != name) continue;
        pmix_data_array_t darray{PMIX_PROC, set.members.size(),
                                 const_cast<pmix_proc_t*>(set.members.data())};
        PMIx_Info_load(&out, key, &darray, PMIX_DATA_ARRAY);
        return true;
    }
    return false;
}

// Every key this launcher answers (query.cpp's and these), and the qualifiers each acts on.
const std::vector<std::pair<const char*, const char*>>& supported() {
    static const std::vector<std::pair<const char*, const char*>> keys = {
        {PMIX_QUERY_NAMESPACES, ""},
        {PMIX_QUERY_NAMESPACE_INFO, PMIX_NSPACE},
        {PMIX_QUERY_JOB_STATUS, PMIX_NSPACE},
        {PMIX_QUERY_PROC_TABLE, PMIX_NSPACE},
        {PMIX_QUERY_LOCAL_PROC_TABLE, PMIX_NSPACE},
        {PMIX_JOB_SIZE, ""},
        {PMIX_UNIV_SIZE, ""},
        {PMIX_MAX_PROCS, ""},
        {PMIX_HOSTNAME, ""},
        {PMIX_NUM_NODES, ""},
        {PMIX_QUERY_SPAWN_SUPPORT, ""},
        {PMIX_QUERY_DEBUG_SUPPORT, ""},
        {PMIX_QUERY_MEMORY_USAGE,
         PMIX_PROCID "," PMIX_NSPACE "," PMIX_RANK "," PMIX_QUERY_LOCAL_ONLY
                     "," PMIX_QUERY_REPORT_AVG "," PMIX_QUERY_REPORT_MINMAX},
        {PMIX_QUERY_ALLOC_STATUS, ""},
        {PMIX_TIME_REMAINING, ""},
        {PMIX_QUERY_AUTHORIZATIONS, ""},
        {PMIX_LOCAL_PROCS, PMIX_NODEID "," PMIX_HOSTNAME "," PMIX_NSPACE},
        {PMIX_QUERY_NUM_PSETS, ""},
        {PMIX_QUERY_PSET_NAMES, ""},
        {PMIX_QUERY_PSET_MEMBERSHIP, PMIX_PSET_NAME},
        {PMIX_QUERY_NUM_GROUPS, ""},  // groups.cpp
        {PMIX_QUERY_GROUP_NAMES, ""},
        {PMIX_QUERY_GROUP_MEMBERSHIP, PMIX_GROUP_ID},
        {PMIX_QUERY_QUEUE_LIST, ""},
        {PMIX_QUERY_QUEUE_STATUS, PMIX_ALLOC_QUEUE},
        {PMIX_QUERY_SUPPORTED_KEYS, ""},
        {PMIX_QUERY_SUPPORTED_QUALIFIERS, ""},
    };
    return keys;
}

// PMIX_QUERY_SUPPORTED_QUALIFIERS: the qualifiers the other keys of the same query act on (every
// key's, when it names no other), comma-separated, each once.
std::string supported_qualifiers(const pmix_query_t& query) {
    std::vector<std::string> out;
    bool other = false;
    auto add = [&](const char* list) {
        std::string rest = list;
        while (!rest.empty()) {
            const size_t comma = rest.find(',');
            const std::string item = rest.substr(0, comma);
            if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
            rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
        }
    };
    for (size_t k = 0; query.keys != nullptr && query.keys[k] != nullptr; ++k) {
        if (is(query.keys[k], PMIX_QUERY_SUPPORTED_QUALIFIERS)) continue;
        other = true;
        for (const auto& [key, quals] : supported())
            if (is(query.keys[k], key)) add(quals);
    }
    if (!other)
        for (const auto& entry : supported()) add(entry.second);
    return join(out);
}

}  // namespace

bool answer_more(const Launcher& launcher, const char* key, const pmix_query_t& query,
                 pmix_info_t& out) {
    if (is(key, PMIX_QUERY_SPAWN_SUPPORT) || is(key, PMIX_QUERY_DEBUG_SUPPORT)) {
        const std::string list =
            is(key, PMIX_QUERY_SPAWN_SUPPORT) ? spawn_support(launcher) : debug_support(launcher);
        PMIx_Info_load(&out, key, list.c_str(), PMIX_STRING);
    } else if (is(key, PMIX_QUERY_NAMESPACE_INFO)) {
        return namespace_info(launcher, query, out);
    } else if (is(key, PMIX_QUERY_MEMORY_USAGE)) {
        return memory_usage(launcher, query, out);
    } else if (is(key, PMIX_QUERY_ALLOC_STATUS)) {
        // The allocation is the job's nodes, held until the job ends.
        PMIx_Info_load(&out, key, launcher.failing ? "terminating" : "active", PMIX_STRING);
    } else if (is(key, PMIX_TIME_REMAINING)) {
        const uint32_t seconds = time_remaining(launcher);
        PMIx_Info_load(&out, key, &seconds, PMIX_UINT32);
    } else if (is(key, PMIX_QUERY_AUTHORIZATIONS)) {
        authorizations(launcher, out);
    } else if (is(key, PMIX_LOCAL_PROCS)) {
        return local_procs(launcher, query, out);
    } else if (is(key, PMIX_QUERY_NUM_PSETS) || is(key, PMIX_QUERY_PSET_NAMES) ||
               is(key, PMIX_QUERY_PSET_MEMBERSHIP)) {
        return pset_answer(launcher, key, query, out);
    } else if (is(key, PMIX_QUERY_QUEUE_LIST) || is(key, PMIX_QUERY_QUEUE_STATUS)) {
        // pmixrun is no scheduler: it has no queues. The list is empty; the status of a named
        // queue (PMIX_ALLOC_QUEUE) is not found, of "every queue" empty as well.
        if (is(key, PMIX_QUERY_QUEUE_STATUS) && qualifier(query, PMIX_ALLOC_QUEUE) != nullptr)
            return false;
        PMIx_Info_load(&out, key, "", PMIX_STRING);
    } else if (is(key, PMIX_QUERY_SUPPORTED_KEYS)) {
        std::vector<std::string> keys;
        for (const auto& entry : supported()) keys.emplace_back(entry.first);
        PMIx_Info_load(&out, key, join(keys).c_str(), PMIX_STRING);
    } else if (is(key, PMIX_QUERY_SUPPORTED_QUALIFIERS)) {
        PMIx_Info_load(&out, key, supported_qualifiers(query).c_str(), PMIX_STRING);
    } else {
        return false;
    }
    return true;
}

void register_spawn_attributes(const Launcher& launcher) {
    std::vector<std::string> names;
    const std::string keys = spawn_support(launcher);
    for (size_t at = 0; at < keys.size();) {
        const size_t comma = std::min(keys.find(',', at), keys.size());
        if (const char* name = PMIx_Get_attribute_name(keys.substr(at, comma - at).c_str());
            name != nullptr)
            names.emplace_back(name);
        at = comma + 1;
    }
    if (names.empty()) return;  // the multi-node head serves no spawn
    std::vector<char*> attrs;
    for (std::string& name : names) attrs.push_back(name.data());
    attrs.push_back(nullptr);
    if (const pmix_status_t rc =
            PMIx_Register_attributes(const_cast<char*>("PMIx_Spawn"), attrs.data());
        rc != PMIX_SUCCESS)
        std::fprintf(stderr, "pmixrun: PMIx_Spawn's attributes not registered: %s\n",
                     PMIx_Error_string(rc));
}

}  // namespace pmix::launcher
