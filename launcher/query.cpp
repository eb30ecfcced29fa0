// launcher/query.cpp - what pmixrun / pmixd tell tools: PMIx_Query_info answers and tool admission.
//
// Answers are built on the launcher's loop (the only thread that touches Launcher) from what it
// knows of its own processes: namespace, rank, host, executable, pid, state and exit code, and
// the keys of query_keys.h. A
// query it cannot answer is left out of the results (PMIX_QUERY_PARTIAL_SUCCESS, or
// PMIX_ERR_NOT_FOUND when nothing was answered), as the Standard describes.
#include "fork_agent.h"
#include "launcher.h"
#include "query_keys.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

namespace pmix::launcher {

namespace {

std::string nspace_qualifier(const pmix_query_t& query) {
    const pmix_info_t* qualified = qualifier(query, PMIX_NSPACE);
    if (qualified != nullptr && qualified->value.type == PMIX_STRING &&
        qualified->value.data.string != nullptr)
        return qualified->value.data.string;
    return {};
}

pmix_proc_state_t state_of(const Proc& process) {
    if (process.exited) {
        if (process.exit_code == 0) return PMIX_PROC_STATE_TERMINATED;
        return process.exit_code > 128 ? PMIX_PROC_STATE_ABORTED_BY_SIG
                                       : PMIX_PROC_STATE_TERM_NON_ZERO;
    }
    if (process.connected) return PMIX_PROC_STATE_CONNECTED;
    return process.pid > 0 ? PMIX_PROC_STATE_RUNNING : PMIX_PROC_STATE_LAUNCH_UNDERWAY;
}

// PMIX_QUERY_PROC_TABLE / LOCAL_PROC_TABLE: every process of the namespace this launcher runs,
// in rank order. pmixrun and pmixd run theirs on their own node; the multi-node head (head.cpp)
// knows every node's processes from its daemons' reports, each with its node's name.
bool proc_table(const Launcher& launcher, const char* key, const std::string& nspace,
                pmix_info_t& out) {
    const bool local_only = std::strcmp(key, PMIX_QUERY_LOCAL_PROC_TABLE) == 0;
    std::vector<const Proc*> rows;
    for (const Proc& process : launcher.procs)
        if (process.nspace == nspace &&
            !(local_only && !process.host.empty() && process.host != launcher.hostname))
            rows.push_back(&process);
    if (rows.empty()) return false;
    std::sort(rows.begin(), rows.end(),
              [](const Proc* left, const Proc* right) { return left->rank < right->rank; });
    pmix_data_array_t darray;
    PMIX_DATA_ARRAY_CONSTRUCT(&darray, rows.size(), PMIX_PROC_INFO);
    auto* table = static_cast<pmix_proc_info_t*>(darray.array);
    for (size_t i = 0; i < rows.size(); ++i) {
        const Proc& process = *rows[i];
        PMIX_LOAD_PROCID(&table[i].proc, process.nspace.c_str(), process.rank);
        table[i].hostname =
            strdup((process.host.empty() ? launcher.hostname : process.host).c_str());
        table[i].executable_name = strdup(process.executable.c_str());
        table[i].pid = process.app_pid > 0 ? process.app_pid : process.pid;
        table[i].exit_code = process.exited ? process.exit_code : 0;
        table[i].state = state_of(process);
    }
    PMIx_Info_load(&out, key, &darray, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
    return true;
}

bool known_nspace(const Launcher& launcher, const std::string& nspace) {
    if (nspace == launcher.nspace) return true;
    const std::vector<std::string> agents = fea_nspaces();  // fork/exec agents' debugger jobs
    return std::find(launcher.spawned_nspaces.begin(), launcher.spawned_nspaces.end(), nspace) !=
               launcher.spawned_nspaces.end() ||
           std::find(agents.begin(), agents.end(), nspace) != agents.end();
}

// One key of one query; false when this launcher cannot answer it.
bool answer(const Launcher& launcher, const char* key, const pmix_query_t& query,
            pmix_info_t& out) {
    const uint32_t job_size = static_cast<uint32_t>(launcher.options.nprocs);
    const std::string nspace = nspace_qualifier(query);
    if (std::strcmp(key, PMIX_QUERY_NAMESPACES) == 0) {
        std::string all = launcher.nspace;  // comma-separated, as OpenPMIx answers
        for (const std::string& spawned : launcher.spawned_nspaces) all += "," + spawned;
        for (const std::string& agents : fea_nspaces()) all += "," + agents;
        PMIx_Info_load(&out, key, all.c_str(), PMIX_STRING);
    } else if (std::strcmp(key, PMIX_QUERY_PROC_TABLE) == 0 ||
               std::strcmp(key, PMIX_QUERY_LOCAL_PROC_TABLE) == 0) {
        return proc_table(launcher, key, nspace.empty() ? launcher.nspace : nspace, out);
    } else if (std::strcmp(key, PMIX_QUERY_JOB_STATUS) == 0) {
        if (!known_nspace(launcher, nspace.empty() ? launcher.nspace : nspace)) return false;
        // Running normally: PMIX_SUCCESS; failing: the reason the job is being torn down.
        pmix_status_t status = launcher.failing ? PMIX_ERR_JOB_TERMINATED : PMIX_SUCCESS;
        PMIx_Info_load(&out, key, &status, PMIX_STATUS);
    } else if (std::strcmp(key, PMIX_JOB_SIZE) == 0 || std::strcmp(key, PMIX_UNIV_SIZE) == 0 ||
               std::strcmp(key, PMIX_MAX_PROCS) == 0) {
        PMIx_Info_load(&out, key, &job_size, PMIX_UINT32);
    } else if (std::strcmp(key, PMIX_HOSTNAME) == 0) {
        PMIx_Info_load(&out, key, launcher.hostname.c_str(), PMIX_STRING);
    } else if (std::strcmp(key, PMIX_NUM_NODES) == 0) {
        uint32_t nodes = static_cast<uint32_t>(launcher.layout.nodes.size());
        PMIx_Info_load(&out, key, &nodes, PMIX_UINT32);
    } else {
        return answer_more(launcher, key, query, out) ||
               answer_group_query(key, query, out);  // groups.cpp
    }
    return true;
}

struct Answer {
    pmix_info_t* info = nullptr;
    size_t capacity = 0;
};

void release_answer(void* cbdata) {
    std::unique_ptr<Answer> answer(static_cast<Answer*>(cbdata));
    PMIX_INFO_FREE(answer->info, answer->capacity);
}

// Deep copies of the queries (keys and qualifiers), so that the loop can read them after the
// call returned.
struct QueryCopy {
    std::vector<std::string> keys;
    std::vector<pmix_info_t> qualifiers;
    QueryCopy() = default;
    QueryCopy(const QueryCopy&) = delete;
    QueryCopy& operator=(const QueryCopy&) = delete;
    ~QueryCopy() {
        for (pmix_info_t& info : qualifiers) PMIX_INFO_DESTRUCT(&info);
    }
    // PMIX_QUERY_SUPPORTED_QUALIFIERS is answered instead of the query's other keys (Standard).
    bool asks_qualifiers() const {
        return std::find(keys.begin(), keys.end(), PMIX_QUERY_SUPPORTED_QUALIFIERS) != keys.end();
    }
};

// Answers every copied query into `reply` on the launcher's loop; how many keys were answered.
size_t answer_all(const std::vector<std::unique_ptr<QueryCopy>>& copies, pmix_info_t* reply,
                  size_t* asked) {
    size_t answered = 0;
    for (const auto& copy : copies) {
        std::vector<char*> keys;
        for (const std::string& key : copy->keys) keys.push_back(const_cast<char*>(key.c_str()));
        keys.push_back(nullptr);
        pmix_query_t query;
        PMIX_QUERY_CONSTRUCT(&query);
        query.keys = keys.data();
        query.qualifiers =
            copy->qualifiers.empty() ? nullptr : const_cast<pmix_info_t*>(copy->qualifiers.data());
        query.nqual = copy->qualifiers.size();
        for (const std::string& key : copy->keys) {
            if (copy->asks_qualifiers() && key != PMIX_QUERY_SUPPORTED_QUALIFIERS) continue;
            ++*asked;
            answered += answer(*g_launcher, key.c_str(), query, reply[answered]) ? 1 : 0;
        }
    }
    return answered;
}

}  // namespace

pmix_status_t host_query(pmix_proc_t*, pmix_query_t* queries, size_t nqueries,
                         pmix_info_cbfunc_t cbfunc, void* cbdata) {
    auto copies = std::make_shared<std::vector<std::unique_ptr<QueryCopy>>>();
    size_t total = 0;
    for (size_t query_index = 0; query_index < nqueries; ++query_index) {
        const pmix_query_t& query = queries[query_index];
        auto& copy = *copies->emplace_back(std::make_unique<QueryCopy>());
        for (size_t key_index = 0; query.keys != nullptr && query.keys[key_index] != nullptr;
             ++key_index, ++total)
            copy.keys.emplace_back(query.keys[key_index]);
        for (size_t q = 0; query.qualifiers != nullptr && q < query.nqual; ++q)
            PMIx_Info_xfer(&copy.qualifiers.emplace_back(), &query.qualifiers[q]);
    }
    g_launcher->queue.post([copies, total, cbfunc, cbdata] {
        auto reply = std::make_unique<Answer>();
        reply->capacity = total == 0 ? 1 : total;
        PMIX_INFO_CREATE(reply->info, reply->capacity);
        size_t asked = 0;
        const size_t answered = answer_all(*copies, reply->info, &asked);
        const pmix_status_t status = answered == 0      ? PMIX_ERR_NOT_FOUND
                                     : answered < asked ? PMIX_QUERY_PARTIAL_SUCCESS
                                                        : PMIX_SUCCESS;
        if (answered == 0) {
            release_answer(reply.release());
            cbfunc(status, nullptr, 0, cbdata, nullptr, nullptr);
            return;
        }
        pmix_info_t* info = reply->info;
        cbfunc(status, info, answered, cbdata, release_answer, reply.release());
    });
    return PMIX_SUCCESS;
}

void host_tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                         void* cbdata) {
    static std::atomic<unsigned> tools_admitted{0};
    const pmix_info_t* user_id = nullptr;
    const pmix_info_t* tool_nspace = nullptr;
    const pmix_info_t* tool_rank = nullptr;
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strcmp(info[i].key, PMIX_USERID) == 0) user_id = &info[i];
        else if (std::strcmp(info[i].key, PMIX_TOOL_NSPACE) == 0) tool_nspace = &info[i];
        else if (std::strcmp(info[i].key, PMIX_TOOL_RANK) == 0) tool_rank = &info[i];
    }
    // Tools of other users could signal or inspect this user's job: never.
    if (user_id == nullptr || user_id->value.type != PMIX_UINT32 ||
        user_id->value.data.uint32 != ::geteuid()) {
        cbfunc(PMIX_ERR_NO_PERMISSIONS, nullptr, cbdata);
        return;
    }
    pmix_proc_t proc;
    if (tool_nspace != nullptr && tool_nspace->value.type == PMIX_STRING &&
        tool_nspace->value.data.string != nullptr) {
        PMIX_LOAD_PROCID(&proc, tool_nspace->value.data.string,
                         tool_rank != nullptr && tool_rank->value.type == PMIX_PROC_RANK
                             ? tool_rank->value.data.rank
                             : 0);
    } else {
        const std::string assigned =
            g_launcher->nspace + ".tool." + std::to_string(++tools_admitted);
        PMIX_LOAD_PROCID(&proc, assigned.c_str(), 0);
    }
    fea_tool_connected(proc);  // a fork/exec agent connecting back (fork_agent.h)
    cbfunc(PMIX_SUCCESS, &proc, cbdata);
}

}  // namespace pmix::launcher
