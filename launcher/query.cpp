// launcher/query.cpp - what pmixrun / pmixd tell tools: PMIx_Query_info answers and tool admission.
//
// Answers are built on the launcher's loop (the only thread that touches Launcher) from what it
// knows of its own processes: namespace, rank, host, executable, pid, state and exit code. A
// query it cannot answer is left out of the results (PMIX_QUERY_PARTIAL_SUCCESS, or
// PMIX_ERR_NOT_FOUND when nothing was answered), as the Standard describes.
#include "launcher.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

namespace pmix::launcher {

namespace {

const pmix_info_t* qualifier(const pmix_query_t& q, const char* key) {
    for (size_t i = 0; q.qualifiers != nullptr && i < q.nqual; ++i)
        if (std::strncmp(q.qualifiers[i].key, key, PMIX_MAX_KEYLEN) == 0) return &q.qualifiers[i];
    return nullptr;
}

std::string nspace_qualifier(const pmix_query_t& q) {
    const pmix_info_t* ns = qualifier(q, PMIX_NSPACE);
    if (ns != nullptr && ns->value.type == PMIX_STRING && ns->value.data.string != nullptr)
        return ns->value.data.string;
    return {};
}

pmix_proc_state_t state_of(const Proc& p) {
    if (p.exited) {
        if (p.exit_code == 0) return PMIX_PROC_STATE_TERMINATED;
        return p.exit_code > 128 ? PMIX_PROC_STATE_ABORTED_BY_SIG : PMIX_PROC_STATE_TERM_NON_ZERO;
    }
    if (p.connected) return PMIX_PROC_STATE_CONNECTED;
    return p.pid > 0 ? PMIX_PROC_STATE_RUNNING : PMIX_PROC_STATE_LAUNCH_UNDERWAY;
}

// PMIX_QUERY_PROC_TABLE / LOCAL_PROC_TABLE: every process of the namespace this launcher runs,
// in rank order. pmixrun and pmixd run theirs on their own node; the multi-node head (head.cpp)
// knows every node's processes from its daemons' reports, each with its node's name.
bool proc_table(const Launcher& L, const char* key, const std::string& nspace, pmix_info_t& out) {
    const bool local_only = std::strcmp(key, PMIX_QUERY_LOCAL_PROC_TABLE) == 0;
    std::vector<const Proc*> mine;
    for (const Proc& p : L.procs)
        if (p.nspace == nspace && !(local_only && !p.host.empty() && p.host != L.hostname))
            mine.push_back(&p);
    if (mine.empty()) return false;
    std::sort(mine.begin(), mine.end(),
              [](const Proc* a, const Proc* b) { return a->rank < b->rank; });
    pmix_data_array_t darray;
    PMIX_DATA_ARRAY_CONSTRUCT(&darray, mine.size(), PMIX_PROC_INFO);
    auto* table = static_cast<pmix_proc_info_t*>(darray.array);
    for (size_t i = 0; i < mine.size(); ++i) {
        const Proc& p = *mine[i];
        PMIX_LOAD_PROCID(&table[i].proc, p.nspace.c_str(), p.rank);
        table[i].hostname = strdup((p.host.empty() ? L.hostname : p.host).c_str());
        table[i].executable_name = strdup(p.executable.c_str());
        table[i].pid = p.pid;
        table[i].exit_code = p.exited ? p.exit_code : 0;
        table[i].state = state_of(p);
    }
    PMIx_Info_load(&out, key, &darray, PMIX_DATA_ARRAY);
    PMIX_DATA_ARRAY_DESTRUCT(&darray);
    return true;
}

bool known_nspace(const Launcher& L, const std::string& ns) {
    if (ns == L.nspace) return true;
    return std::find(L.spawned_nspaces.begin(), L.spawned_nspaces.end(), ns) !=
           L.spawned_nspaces.end();
}

// One key of one query; false when this launcher cannot answer it.
bool answer(const Launcher& L, const char* key, const pmix_query_t& q, pmix_info_t& out) {
    const uint32_t n = static_cast<uint32_t>(L.opt.nprocs);
    const std::string ns = nspace_qualifier(q);
    if (std::strcmp(key, PMIX_QUERY_NAMESPACES) == 0) {
        std::string all = L.nspace;  // comma-separated, as OpenPMIx answers
        for (const std::string& s : L.spawned_nspaces) all += "," + s;
        PMIx_Info_load(&out, key, all.c_str(), PMIX_STRING);
    } else if (std::strcmp(key, PMIX_QUERY_PROC_TABLE) == 0 ||
               std::strcmp(key, PMIX_QUERY_LOCAL_PROC_TABLE) == 0) {
        return proc_table(L, key, ns.empty() ? L.nspace : ns, out);
    } else if (std::strcmp(key, PMIX_QUERY_JOB_STATUS) == 0) {
        if (!known_nspace(L, ns.empty() ? L.nspace : ns)) return false;
        // Running normally: PMIX_SUCCESS; failing: the reason the job is being torn down.
        pmix_status_t st = L.failing ? PMIX_ERR_JOB_TERMINATED : PMIX_SUCCESS;
        PMIx_Info_load(&out, key, &st, PMIX_STATUS);
    } else if (std::strcmp(key, PMIX_JOB_SIZE) == 0 || std::strcmp(key, PMIX_UNIV_SIZE) == 0 ||
               std::strcmp(key, PMIX_MAX_PROCS) == 0) {
        PMIx_Info_load(&out, key, &n, PMIX_UINT32);
    } else if (std::strcmp(key, PMIX_HOSTNAME) == 0) {
        PMIx_Info_load(&out, key, L.hostname.c_str(), PMIX_STRING);
    } else if (std::strcmp(key, PMIX_NUM_NODES) == 0) {
        uint32_t nodes = static_cast<uint32_t>(L.layout.count.size());
        PMIx_Info_load(&out, key, &nodes, PMIX_UINT32);
    } else {
        return false;
    }
    return true;
}

struct Answer {
    pmix_info_t* info = nullptr;
    size_t capacity = 0;
};

void release_answer(void* cbdata) {
    std::unique_ptr<Answer> a(static_cast<Answer*>(cbdata));
    PMIX_INFO_FREE(a->info, a->capacity);
}

// Deep copies of the queries, so that the loop can read them after the call returned.
struct Queries {
    std::vector<std::vector<std::string>> keys;
    std::vector<std::string> nspaces;
};

}  // namespace

pmix_status_t host_query(pmix_proc_t*, pmix_query_t* queries, size_t nqueries,
                         pmix_info_cbfunc_t cbfunc, void* cbdata) {
    auto copies = std::make_shared<Queries>();
    size_t total = 0;
    for (size_t q = 0; q < nqueries; ++q) {
        copies->keys.emplace_back();
        for (size_t k = 0; queries[q].keys != nullptr && queries[q].keys[k] != nullptr;
             ++k, ++total)
            copies->keys.back().emplace_back(queries[q].keys[k]);
        copies->nspaces.push_back(nspace_qualifier(queries[q]));
    }
    g_launcher->queue.post([copies, total, cbfunc, cbdata] {
        auto a = std::make_unique<Answer>();
        a->capacity = total == 0 ? 1 : total;
        PMIX_INFO_CREATE(a->info, a->capacity);
        size_t n = 0;
        for (size_t q = 0; q < copies->keys.size(); ++q) {
            pmix_query_t one;
            PMIX_QUERY_CONSTRUCT(&one);
            pmix_info_t ns_qual;
            if (!copies->nspaces[q].empty()) {
                PMIX_INFO_LOAD(&ns_qual, PMIX_NSPACE, copies->nspaces[q].c_str(), PMIX_STRING);
                one.qualifiers = &ns_qual;
                one.nqual = 1;
            }
            for (const std::string& k : copies->keys[q])
                n += answer(*g_launcher, k.c_str(), one, a->info[n]) ? 1 : 0;
            if (one.nqual > 0) PMIX_INFO_DESTRUCT(&ns_qual);
        }
        const pmix_status_t st = n == 0      ? PMIX_ERR_NOT_FOUND
                                 : n < total ? PMIX_QUERY_PARTIAL_SUCCESS
                                             : PMIX_SUCCESS;
        if (n == 0) {
            release_answer(a.release());
            cbfunc(st, nullptr, 0, cbdata, nullptr, nullptr);
            return;
        }
        pmix_info_t* info = a->info;
        cbfunc(st, info, n, cbdata, release_answer, a.release());
    });
    return PMIX_SUCCESS;
}

void host_tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                         void* cbdata) {
    static std::atomic<unsigned> tools{0};
    const pmix_info_t* uid = nullptr;
    const pmix_info_t* ns = nullptr;
    const pmix_info_t* rank = nullptr;
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strcmp(info[i].key, PMIX_USERID) == 0) uid = &info[i];
        else if (std::strcmp(info[i].key, PMIX_TOOL_NSPACE) == 0) ns = &info[i];
        else if (std::strcmp(info[i].key, PMIX_TOOL_RANK) == 0) rank = &info[i];
    }
    // Tools of other users could signal or inspect this user's job: never.
    if (uid == nullptr || uid->value.type != PMIX_UINT32 || uid->value.data.uint32 != ::geteuid()) {
        cbfunc(PMIX_ERR_NO_PERMISSIONS, nullptr, cbdata);
        return;
    }
    pmix_proc_t proc;
    if (ns != nullptr && ns->value.type == PMIX_STRING && ns->value.data.string != nullptr) {
        PMIX_LOAD_PROCID(
            &proc, ns->value.data.string,
            rank != nullptr && rank->value.type == PMIX_PROC_RANK ? rank->value.data.rank : 0);
    } else {
        const std::string assigned = g_launcher->nspace + ".tool." + std::to_string(++tools);
        PMIX_LOAD_PROCID(&proc, assigned.c_str(), 0);
    }
    cbfunc(PMIX_SUCCESS, &proc, cbdata);
}

}  // namespace pmix::launcher
