// server/publish.cpp - writing into and reading from the server's store (see publish.h).
#include "server/publish.h"
#include "gds/proc_segment.h"
#include "server/board.h"

#include "base/env_names.h"
#include "data/value.h"
#include "exec/log.h"
#include "gds/qualified.h"
#include "gds/store.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace pmix::server {

namespace {

gds::Entity entity_of(pmix_rank_t rank) {
    return rank == PMIX_RANK_WILDCARD ? gds::Entity::job() : gds::Entity::proc(rank);
}

bool is_process(pmix_rank_t rank) { return rank < PMIX_RANK_VALID; }

}  // namespace

std::unique_ptr<gds::StoreWriter> make_client_store() {
    gds::StoreOptions options;
    options.prefix = shm_prefix();
    const char* module = std::getenv(env::kGdsModule);
    if (gds::select_store_kind(module) == gds::StoreKind::shm) {
        pmix_status_t rc = PMIX_SUCCESS;
        if (auto store = gds::make_shm_store(options, &rc); store != nullptr) return store;
        // Still a working server, only slower: every client Get becomes a request.
        exec::log_warn("pmix-server",
                       "no shared-memory store (status " + std::to_string(rc) +
                           (rc == PMIX_ERR_OUT_OF_RESOURCE ? ", /dev/shm full?" : "") +
                           "): clients read their job's data through the server");
    }
    return gds::make_heap_store(options);
}

pmix_status_t tolerate_unstorable(pmix_status_t rc, std::string_view key, pmix_data_type_t type) {
    if (rc != PMIX_ERR_UNKNOWN_DATA_TYPE) return rc;
    exec::log_error("pmix-server", "key " + std::string(key) + " has data type " +
                                       std::to_string(type) +
                                       ", which is not a PMIx type: not stored, PMIx_Get will not "
                                       "find it");
    return PMIX_SUCCESS;
}

pmix_status_t commit_or_log(gds::StoreWriter& w, pmix_status_t staged, const std::string& what) {
    pmix_status_t rc = staged == PMIX_SUCCESS ? w.commit() : staged;
    if (rc != PMIX_SUCCESS) {
        // The store is the server's only copy: nobody can read what failed to land in it.
        exec::log_error(
            "pmix-server",
            "could not write " + what + " into the store (status " + std::to_string(rc) +
                (rc == PMIX_ERR_OUT_OF_RESOURCE ? ", out of resources: is /dev/shm full?)" : ")"));
    }
    return rc;
}

pmix_status_t publish_modex(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                            const std::vector<ModexItem>& items) {
    pmix_status_t rc = is_process(rank) ? w.begin_namespace(nspace) : PMIX_ERR_BAD_PARAM;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < items.size(); ++i) {
        const pmix_info_t& in = *items[i].info;
        const std::string_view key(in.key, strnlen(in.key, PMIX_MAX_KEYLEN));
        rc = tolerate_unstorable(w.put_modex(nspace, rank, items[i].scope, key, in.value), key,
                                 in.value.type);
    }
    return commit_or_log(w, rc, "modex of " + nspace + ":" + std::to_string(rank));
}

pmix_status_t publish_value(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                            const std::string& key, const pmix_value_t& value) {
    if (rank != PMIX_RANK_WILDCARD && !is_process(rank)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = w.begin_namespace(nspace);
    if (rc == PMIX_SUCCESS) {
        // Not tolerated: PMIx_Store_internal's caller hears PMIX_ERR_UNKNOWN_DATA_TYPE.
        rc = w.put(nspace, entity_of(rank), key, value);
    }
    return commit_or_log(w, rc, "key " + key + " of " + nspace);
}

pmix_status_t read_value(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                         std::string_view key, Value& out) {
    if (nspace.empty() || nspace.size() > PMIX_MAX_NSLEN || key.empty() ||
        key.size() > PMIX_MAX_KEYLEN) {
        return PMIX_ERR_NOT_FOUND;
    }
    if (is_process(rank)) {
        const pmix_status_t rc = r.get(nspace, gds::Entity::proc(rank), key, out.reset());
        if (rc != PMIX_ERR_NOT_FOUND) return rc;
    }
    return r.get(nspace, gds::Entity::job(), key, out.reset());
}

pmix_status_t read_qualified(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                             std::string_view key, const gds::Qualifiers& q,
                             const pmix_proc_t& requester, Value& out) {
    if (nspace.empty() || nspace.size() > PMIX_MAX_NSLEN || key.empty() ||
        key.size() > PMIX_MAX_KEYLEN) {
        return PMIX_ERR_NOT_FOUND;
    }
    const bool job = !is_process(rank);
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    if (!job || q.kind == gds::Qualifier::none) {
        rc = read_value(r, nspace, rank, key, out);
        if (rc != PMIX_ERR_NOT_FOUND || !job) return rc;
    }
    gds::Places places;
    gds::qualified_places(r, nspace, rank, requester, key, q, places);
    for (int i = 0; i < places.count && rc == PMIX_ERR_NOT_FOUND; ++i) {
        rc = r.get(places.at[i].nspace, places.at[i].entity, key, out.reset());
    }
    return rc;
}

bool holds_proc_value(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                      std::string_view key) {
    const void* source = nullptr;
    return is_process(rank) && !key.empty() && key.size() <= PMIX_MAX_KEYLEN &&
           r.locate(nspace, gds::Entity::proc(rank), key, &source) == PMIX_SUCCESS;
}

InfoList::~InfoList() {
    for (auto& i : infos_) data::info_destruct(&i);
}

void InfoList::add(std::string_view key, const pmix_value_t& value) {
    pmix_info_t& i = infos_.emplace_back();
    std::memset(&i, 0, sizeof i);
    std::memcpy(i.key, key.data(), std::min<std::size_t>(key.size(), PMIX_MAX_KEYLEN));
    if (data::value_xfer(&i.value, &value) != PMIX_SUCCESS) infos_.pop_back();
}

InfoList read_all(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                  unsigned scopes, gds::StoreReader* fresher) {
    InfoList out;
    if (nspace.empty() || nspace.size() > PMIX_MAX_NSLEN ||
        (rank != PMIX_RANK_WILDCARD && !is_process(rank))) {
        return out;
    }
    std::set<std::string, std::less<>> fresh;
    if (fresher != nullptr) {
        fresher->visit(
            nspace, entity_of(rank),
            [&](std::string_view key, const pmix_value_t& v) {
                out.add(key, v);
                fresh.emplace(key);
            },
            scopes);
    }
    r.visit(
        nspace, entity_of(rank),
        [&](std::string_view key, const pmix_value_t& v) {
            // kSegmentKey is internal: where its segment is.
            if (key != gds::kSegmentKey && fresh.find(key) == fresh.end()) out.add(key, v);
        },
        scopes);
    return out;
}

InfoList read_all_qualified(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                            const pmix_proc_t& requester, const gds::Qualifiers& q) {
    InfoList out;
    gds::Places places;
    gds::qualified_places(r, nspace, rank, requester, std::string_view(), q, places);
    if (places.count == 0) return out;
    const gds::Place& first = places.at[0];
    r.visit(first.nspace, first.entity,
            [&out](std::string_view key, const pmix_value_t& v) { out.add(key, v); });
    return out;
}

unsigned modex_export_scopes() {
    return gds::scope_bit(PMIX_REMOTE) | gds::scope_bit(PMIX_GLOBAL) |
           gds::scope_bit(PMIX_INTERNAL);
}

}  // namespace pmix::server
