// server/publish.cpp - mirroring the server's data into the clients' store (see publish.h).
#include "server/publish.h"
#include "server/board.h"

#include "base/env_names.h"
#include "exec/log.h"
#include "gds/store.h"

#include <cstdlib>
#include <cstring>

namespace pmix::server {

namespace {

// A value the store cannot hold is skipped (clients then ask the server, which has it); any
// other failure is reported.
pmix_status_t tolerate(pmix_status_t rc) {
    return rc == PMIX_ERR_UNKNOWN_DATA_TYPE ? PMIX_SUCCESS : rc;
}

pmix_status_t put_all(gds::StoreWriter& w, const std::string& ns, const gds::Entity& e,
                      const KeyMap& keys) {
    for (const auto& [key, value] : keys) {
        if (pmix_status_t rc = tolerate(w.put(ns, e, key, value.get())); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

bool u32_of(const KeyMap& m, const char* key, std::uint32_t* out) {
    auto it = m.find(key);
    if (it == m.end()) return false;
    const pmix_value_t& v = it->second.get();
    switch (v.type) {
        case PMIX_UINT32:
            *out = v.data.uint32;
            return true;
        case PMIX_UINT16:
            *out = v.data.uint16;
            return true;
        case PMIX_PROC_RANK:
            *out = v.data.rank;
            return true;
        case PMIX_INT:
            *out = static_cast<std::uint32_t>(v.data.integer);
            return true;
        default:
            return false;
    }
}

// Node arrays are named by PMIX_NODEID (else their position) and aliased by PMIX_HOSTNAME.
pmix_status_t put_nodes(gds::StoreWriter& w, const Namespace& ns) {
    for (std::size_t i = 0; i < ns.nodes.size(); ++i) {
        const KeyMap& node = ns.nodes[i];
        std::uint32_t id = static_cast<std::uint32_t>(i);
        u32_of(node, PMIX_NODEID, &id);
        if (pmix_status_t rc = put_all(w, ns.name, gds::Entity::node(id), node);
            rc != PMIX_SUCCESS) {
            return rc;
        }
        auto host = node.find(PMIX_HOSTNAME);
        if (host != node.end() && host->second.get().type == PMIX_STRING &&
            host->second.get().data.string != nullptr && *host->second.get().data.string) {
            if (pmix_status_t rc = w.alias_node(ns.name, host->second.get().data.string, id);
                rc != PMIX_SUCCESS) {
                return rc;
            }
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t stage_modex(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                          const std::map<std::string, ModexEntry>& entries) {
    for (const auto& [key, e] : entries) {
        if (pmix_status_t rc = tolerate(w.put_modex(nspace, rank, e.scope, key, e.value.get()));
            rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t stage_namespace(gds::StoreWriter& w, const Namespace& ns) {
    if (pmix_status_t rc = w.begin_namespace(ns.name); rc != PMIX_SUCCESS) return rc;
    if (pmix_status_t rc = put_all(w, ns.name, gds::Entity::job(), ns.job); rc != PMIX_SUCCESS) {
        return rc;
    }
    for (const auto& [appnum, keys] : ns.apps) {
        if (pmix_status_t rc = put_all(w, ns.name, gds::Entity::app(appnum), keys);
            rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    if (pmix_status_t rc = put_nodes(w, ns); rc != PMIX_SUCCESS) return rc;
    for (const auto& [rank, keys] : ns.ranks) {
        if (pmix_status_t rc = put_all(w, ns.name, gds::Entity::proc(rank), keys);
            rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    for (const auto& [rank, entries] : ns.modex) {
        if (pmix_status_t rc = stage_modex(w, ns.name, rank, entries); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t commit_or_log(gds::StoreWriter& w, pmix_status_t staged, const std::string& what) {
    pmix_status_t rc = staged == PMIX_SUCCESS ? w.commit() : staged;
    if (rc != PMIX_SUCCESS) {
        // Clients fall back to asking the server, which still has the data: log, do not fail.
        exec::log_warn("pmix-server", "could not publish " + what +
                                          " to the shared store (status " + std::to_string(rc) +
                                          "); clients will ask the server");
    }
    return rc;
}

}  // namespace

std::unique_ptr<gds::StoreWriter> make_client_store() {
    gds::StoreOptions options;
    options.prefix = shm_prefix();
    const char* module = std::getenv(env::kGdsModule);
    return gds::make_store(gds::select_store_kind(module), options);
}

pmix_status_t publish_namespace(gds::StoreWriter& w, const Namespace& ns) {
    return commit_or_log(w, stage_namespace(w, ns), "namespace " + ns.name);
}

pmix_status_t publish_modex(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                            const std::map<std::string, ModexEntry>& entries) {
    pmix_status_t rc = w.begin_namespace(nspace);
    if (rc == PMIX_SUCCESS) rc = stage_modex(w, nspace, rank, entries);
    return commit_or_log(w, rc, "modex of " + nspace + ":" + std::to_string(rank));
}

pmix_status_t publish_value(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                            const std::string& key, const pmix_value_t& value) {
    pmix_status_t rc = w.begin_namespace(nspace);
    if (rc == PMIX_SUCCESS) {
        const gds::Entity e =
            rank == PMIX_RANK_WILDCARD ? gds::Entity::job() : gds::Entity::proc(rank);
        rc = tolerate(w.put(nspace, e, key, value));
    }
    return commit_or_log(w, rc, "key " + key + " of " + nspace);
}

}  // namespace pmix::server
