// server/publish.h - the server's one store of job and modex data (gds/): what it writes and how
// it reads its own data back.
//
// Everything the server knows about a namespace's values lives in the store it publishes for
// its clients: registration (registration.h), each client's commit, each fence or direct-modex
// result, Store_internal and what setup_local_support adds. The server answers its own
// PMIx_Get, its clients' Gets that miss in shared memory, direct-modex requests and the fence's
// modex blob by reading the same store through a gds::StoreReader of its own (shm: the segments
// mapped read-only, exactly as a client maps them), so there is one lookup order and one copy.
// Loop thread only: the writer and the server's reader are used by the progress thread alone.
#pragma once

#include "server/registration.h"

#include "gds/qualified.h"

#include <pmix_common.h>

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pmix::gds {
class StoreWriter;
class StoreReader;
}  // namespace pmix::gds

namespace pmix::server {

// Creates the store the server publishes into: PMIX_GDS_MODULE selects shared memory (default)
// or the heap ("hash"); PMIX_CPP_GDS_PREFIX names its segments. Never null (heap fallback).
std::unique_ptr<gds::StoreWriter> make_client_store();

// A value of a type the store cannot hold (PMIX_ERR_UNKNOWN_DATA_TYPE: not a PMIx data type) is
// skipped with an error-level log line naming the key, so that the rest of a registration or
// commit lands; no client could have decoded it anyway. Other statuses pass through.
pmix_status_t tolerate_unstorable(pmix_status_t rc, std::string_view key, pmix_data_type_t type);

// Commits what was staged when `staged` is PMIX_SUCCESS; a failure is logged with `what`.
pmix_status_t commit_or_log(gds::StoreWriter& w, pmix_status_t staged, const std::string& what);

// One modex value with its scope (a client's commit, or what a fence / direct modex brought in).
struct ModexItem {
    pmix_scope_t scope = PMIX_GLOBAL;
    const pmix_info_t* info = nullptr;
};

// One process's modex values; a later item of the same key replaces an earlier one.
pmix_status_t publish_modex(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                            const std::vector<ModexItem>& items);

// One value (Store_internal, setup_local_support): rank WILDCARD = job level.
pmix_status_t publish_value(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                            const std::string& key, const pmix_value_t& value);

// The value of `key` for a process (its own keys and modex, then the job level), or at the job
// level for rank WILDCARD. PMIX_ERR_NOT_FOUND when absent.
pmix_status_t read_value(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                         std::string_view key, Value& out);

// read_value for a Get with data qualifiers (PMIX_NODE_INFO, PMIX_APP_INFO, ...; gds/qualified.h):
// the node, app, job or session they name, and for q.kind none the requester's node or app when
// a node- or app-level key is absent from the job level. `requester`: whose node and app "own"
// means.
pmix_status_t read_qualified(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                             std::string_view key, const gds::Qualifiers& q,
                             const pmix_proc_t& requester, Value& out);

// Whether the process itself has `key` (its own keys and modex, not the job level).
bool holds_proc_value(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                      std::string_view key);

// Infos owned by the list (each value released with it): what read_all returns.
class InfoList {
public:
    InfoList() = default;
    InfoList(InfoList&&) = default;
    InfoList& operator=(InfoList&&) = delete;
    InfoList(const InfoList&) = delete;
    InfoList& operator=(const InfoList&) = delete;
    ~InfoList();
    void add(std::string_view key, const pmix_value_t& value);
    const pmix_info_t* data() const noexcept { return infos_.data(); }
    std::size_t size() const noexcept { return infos_.size(); }
    bool empty() const noexcept { return infos_.empty(); }

private:
    std::vector<pmix_info_t> infos_;
};

// Every key of a process (or of the job for WILDCARD) whose scope is in `scopes` (a mask of
// gds::scope_bit). Empty when there is none or the namespace is unknown.
// `fresher`, when given, is read first and wins for the keys it has (a client's own segment:
// own_segments.h).
InfoList read_all(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                  unsigned scopes, gds::StoreReader* fresher = nullptr);

// Every key of the one place a Get qualified by `q` (node, app, job or session; gds/qualified.h)
// reads first: PMIx_Get(job, NULL, qualifiers). Empty when there is no such place or it holds
// nothing.
InfoList read_all_qualified(gds::StoreReader& r, const std::string& nspace, pmix_rank_t rank,
                            const pmix_proc_t& requester, const gds::Qualifiers& q);

// The scopes a fence or direct modex ships to other nodes: what clients committed, except
// PMIX_LOCAL (registration data has no scope and is not modex).
unsigned modex_export_scopes();

}  // namespace pmix::server
