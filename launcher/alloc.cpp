// launcher/alloc.cpp - the host's allocate upcall: PMIx_Allocation_request answered from
// pmixrun's own host list (this node; the daemons of a multi-node job, pmixd, do not provide it
// yet, so there clients get PMIX_ERR_NOT_SUPPORTED).
//
// pmixrun is no scheduler: it holds a fixed list of nodes and can only hand out views of it.
// - PMIX_ALLOC_NEW: PMIX_ALLOC_NUM_NODES (default 1) nodes of the list, or the nodes named by
//   PMIX_ALLOC_NODE_LIST, with at most PMIX_ALLOC_NUM_CPUS CPUs over them (this node: its online
//   CPUs; another node: its slots). Granted: PMIX_ALLOC_ID "pmixrun-alloc-<n>",
//   PMIX_ALLOC_NODE_LIST, PMIX_ALLOC_NUM_NODES, PMIX_ALLOC_NUM_CPUS when asked, PMIX_ALLOC_REQ_ID
//   echoed. More than the list holds: PMIX_ERR_OUT_OF_RESOURCE.
// - PMIX_ALLOC_EXTEND of a granted PMIX_ALLOC_ID by PMIX_ALLOC_NUM_NODES: the next nodes of the
//   list, PMIX_ERR_OUT_OF_RESOURCE past its end. Without an id the job already holds the whole
//   list: PMIX_ERR_OUT_OF_RESOURCE. More time (PMIX_ALLOC_TIME): PMIX_ERR_NOT_SUPPORTED (pmixrun
//   sets no time limit on an allocation to extend).
// - PMIX_ALLOC_RELEASE of a granted id: forgotten, PMIX_SUCCESS; an unknown id
//   PMIX_ERR_NOT_FOUND; without an id (shrinking the running job) PMIX_ERR_NOT_SUPPORTED.
// - PMIX_ALLOC_REAQUIRE and external directives: PMIX_ERR_NOT_SUPPORTED (nothing is ever lent).
// The answer is computed and delivered on the launcher's loop, never inside the upcall.
#include "launcher.h"

#include <unistd.h>

#include <cstring>
#include <map>
#include <set>
#include <sstream>

namespace pmix::launcher {

namespace {

struct Request {
    pmix_alloc_directive_t directive = 0;
    std::string alloc_id, req_id, node_list;
    uint64_t nodes = 0, cpus = 0;
    bool has_nodes = false, has_cpus = false, has_time = false;
};

struct Grant {
    std::vector<size_t> nodes;  // indexes into the layout
};

std::map<std::string, Grant> g_grants;  // launcher loop only
unsigned g_next_grant = 1;

uint64_t as_u64(const pmix_value_t& value) {
    switch (value.type) {
        case PMIX_UINT64:
            return value.data.uint64;
        case PMIX_UINT32:
            return value.data.uint32;
        case PMIX_SIZE:
            return value.data.size;
        case PMIX_INT:
            return value.data.integer < 0 ? 0 : static_cast<uint64_t>(value.data.integer);
        default:
            return 0;
    }
}

Request parse(pmix_alloc_directive_t directive, const pmix_info_t info[], size_t ninfo) {
    Request req;
    req.directive = directive;
    for (size_t i = 0; i < ninfo; ++i) {
        const char* key = info[i].key;
        const pmix_value_t& v = info[i].value;
        const char* text = v.type == PMIX_STRING && v.data.string != nullptr ? v.data.string : "";
        if (std::strcmp(key, PMIX_ALLOC_ID) == 0) req.alloc_id = text;
        else if (std::strcmp(key, PMIX_ALLOC_REQ_ID) == 0) req.req_id = text;
        else if (std::strcmp(key, PMIX_ALLOC_NODE_LIST) == 0) req.node_list = text;
        else if (std::strcmp(key, PMIX_ALLOC_NUM_NODES) == 0) {
            req.nodes = as_u64(v);
            req.has_nodes = true;
        } else if (std::strcmp(key, PMIX_ALLOC_NUM_CPUS) == 0) {
            req.cpus = as_u64(v);
            req.has_cpus = true;
        } else if (std::strcmp(key, PMIX_ALLOC_TIME) == 0) {
            req.has_time = true;
        }
    }
    return req;
}

uint64_t node_cpus(const Launcher& launcher, size_t node) {
    if (node == launcher.layout.here) {
        const long online = ::sysconf(_SC_NPROCESSORS_ONLN);
        return online > 0 ? static_cast<uint64_t>(online) : 1;
    }
    return static_cast<uint64_t>(launcher.layout.nodes[node].slots);
}

// The nodes a NEW request names or counts; PMIX_ERR_OUT_OF_RESOURCE beyond the list.
pmix_status_t choose_nodes(const Launcher& launcher, const Request& req,
                           std::vector<size_t>& chosen) {
    const auto& nodes = launcher.layout.nodes;
    if (!req.node_list.empty()) {
        std::stringstream names(req.node_list);
        std::string name;
        std::set<size_t> seen;
        while (std::getline(names, name, ',')) {
            size_t k = 0;
            while (k < nodes.size() && nodes[k].name != name) ++k;
            if (k == nodes.size()) return PMIX_ERR_OUT_OF_RESOURCE;  // not one of ours
            if (seen.insert(k).second) chosen.push_back(k);
        }
        return PMIX_SUCCESS;
    }
    const uint64_t want = req.has_nodes ? req.nodes : 1;
    if (want == 0) return PMIX_ERR_BAD_PARAM;
    if (want > nodes.size()) return PMIX_ERR_OUT_OF_RESOURCE;
    for (size_t k = 0; k < want; ++k) chosen.push_back(k);
    return PMIX_SUCCESS;
}

void describe(const Launcher& launcher, const std::string& id, const Grant& grant,
              const Request& req, InfoList& out) {
    std::string list;
    for (size_t k : grant.nodes) {
        if (!list.empty()) list += ',';
        list += launcher.layout.nodes[k].name;
    }
    const uint64_t nnodes = grant.nodes.size();
    out.add(PMIX_ALLOC_ID, id);
    out.add(PMIX_ALLOC_NODE_LIST, list);
    out.add(PMIX_ALLOC_NUM_NODES, &nnodes, PMIX_UINT64);
    if (req.has_cpus) out.add(PMIX_ALLOC_NUM_CPUS, &req.cpus, PMIX_UINT64);
    if (!req.req_id.empty()) out.add(PMIX_ALLOC_REQ_ID, req.req_id);
}

pmix_status_t allocate_new(const Launcher& launcher, const Request& req, InfoList& out) {
    Grant grant;
    if (pmix_status_t rc = choose_nodes(launcher, req, grant.nodes); rc != PMIX_SUCCESS) return rc;
    uint64_t capacity = 0;
    for (size_t k : grant.nodes) capacity += node_cpus(launcher, k);
    if (req.has_cpus && req.cpus > capacity) return PMIX_ERR_OUT_OF_RESOURCE;
    const std::string id = "pmixrun-alloc-" + std::to_string(g_next_grant++);
    describe(launcher, id, grant, req, out);
    g_grants[id] = grant;
    return PMIX_SUCCESS;
}

pmix_status_t allocate_extend(const Launcher& launcher, const Request& req, InfoList& out) {
    if (req.alloc_id.empty())
        return req.has_nodes || req.has_cpus ? PMIX_ERR_OUT_OF_RESOURCE : PMIX_ERR_NOT_SUPPORTED;
    auto it = g_grants.find(req.alloc_id);
    if (it == g_grants.end()) return PMIX_ERR_NOT_FOUND;
    if (req.has_time || !req.has_nodes) return PMIX_ERR_NOT_SUPPORTED;
    Grant grown = it->second;
    for (size_t k = 0; k < launcher.layout.nodes.size() &&
                       grown.nodes.size() < it->second.nodes.size() + req.nodes;
         ++k) {
        bool held = false;
        for (size_t h : grown.nodes) held = held || h == k;
        if (!held) grown.nodes.push_back(k);
    }
    if (grown.nodes.size() < it->second.nodes.size() + req.nodes) return PMIX_ERR_OUT_OF_RESOURCE;
    it->second = grown;
    describe(launcher, it->first, grown, req, out);
    return PMIX_SUCCESS;
}

pmix_status_t answer(const Launcher& launcher, const Request& req, InfoList& out) {
    switch (req.directive) {
        case PMIX_ALLOC_NEW:
            return allocate_new(launcher, req, out);
        case PMIX_ALLOC_EXTEND:
            return allocate_extend(launcher, req, out);
        case PMIX_ALLOC_RELEASE:
            if (req.alloc_id.empty()) return PMIX_ERR_NOT_SUPPORTED;
            return g_grants.erase(req.alloc_id) == 1 ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
        default:
            return PMIX_ERR_NOT_SUPPORTED;
    }
}

void release_alloc_answer(void* cbdata) { delete static_cast<InfoList*>(cbdata); }

}  // namespace

pmix_status_t allocate_fn(const pmix_proc_t*, pmix_alloc_directive_t directive,
                          const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
                          void* cbdata) {
    if (cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    Request req = parse(directive, data, ndata);
    g_launcher->queue.post([req, cbfunc, cbdata] {
        auto* out = new InfoList;
        pmix_status_t rc = answer(*g_launcher, req, *out);
        if (rc == PMIX_SUCCESS && req.directive == PMIX_ALLOC_RELEASE) {  // nothing to describe
            delete out;
            cbfunc(PMIX_SUCCESS, nullptr, 0, cbdata, nullptr, nullptr);
            return;
        }
        if (rc == PMIX_SUCCESS) rc = out->convert();
        if (rc != PMIX_SUCCESS) {
            delete out;
            cbfunc(rc, nullptr, 0, cbdata, nullptr, nullptr);
            return;
        }
        cbfunc(PMIX_SUCCESS, out->info(), out->size(), cbdata, release_alloc_answer, out);
    });
    return PMIX_SUCCESS;
}

}  // namespace pmix::launcher
