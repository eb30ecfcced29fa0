// gds/qualified.h - where a PMIx_Get qualified by PMIX_NODE_INFO, PMIX_APP_INFO, PMIX_JOB_INFO or
// PMIX_SESSION_INFO looks in the store, as OpenPMIx 4.2.2 answers it (the client's store path
// and the server's Get both use it, so the two answer alike).
//
// The rules, measured against OpenPMIx 4.2.2 with examples/qualified_get.c (tests/data):
//  - The qualifiers apply to requests for a non-process rank (WILDCARD, UNDEF) only; a valid rank
//    reads that process's keys as without them.
//  - PMIX_NODE_INFO + PMIX_NODEID or PMIX_HOSTNAME: that node's registered array
//    (PMIX_NODE_INFO_ARRAY, which holds PMIX_HOSTNAME and PMIX_NODEID themselves). Without either,
//    the requester's node (by its PMIX_HOSTNAME), then the job level.
//  - PMIX_APP_INFO + PMIX_APPNUM (else the requester's PMIX_APPNUM): that app's array
//    (PMIX_APP_INFO_ARRAY), then the job level; PMIX_APPNUM itself from the job level only.
//  - PMIX_JOB_INFO (+ PMIX_NSPACE): the job level of that namespace.
//  - PMIX_SESSION_INFO + PMIX_SESSION_ID: that session's array (PMIX_SESSION_INFO_ARRAY), then
//    the job level when the job's PMIX_SESSION_ID is that id.
//  - Without a qualifier, a node-level key (PMIX_LOCAL_SIZE, ...) or app-level key (PMIX_APP_SIZE,
//    ...) the job level lacks is read from the requester's node or app.
#pragma once

#include "gds/store.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace pmix::gds {

enum class Qualifier : std::uint8_t { none, node, app, job, session };

struct Qualifiers {
    Qualifier kind = Qualifier::none;
    bool has_nodeid = false, has_appnum = false, has_session = false;
    std::uint32_t nodeid = 0, appnum = 0, session = 0;
    std::string_view hostname{};  // PMIX_HOSTNAME's string, into the caller's info
    std::string_view nspace{};    // PMIX_NSPACE's string, into the caller's info
};

// True for the qualifier keys above (the flags and their identifiers).
bool is_data_qualifier(const pmix_info_t& info) noexcept;

// The data qualifiers of a Get (kind none when no flag is set true). PMIX_ERR_BAD_PARAM for an
// identifier of the wrong type (a PMIX_NODEID that is not a number, ...).
pmix_status_t parse_qualifiers(const pmix_info_t* info, std::size_t ninfo, Qualifiers& out);

// Where to look, in order; `host` keeps the requester's host name the node entity names.
struct Place {
    std::string_view nspace;
    Entity entity;
};
struct Places {
    Place at[2];
    int count = 0;
    std::string host;
    void add(std::string_view ns, const Entity& e) noexcept { at[count++] = {ns, e}; }
};

// The places a Get of `key` from (`nspace`, `rank`) with `q` reads, `requester` being the process
// whose node and app "own" means. Places::count 0: nowhere (the answer is PMIX_ERR_NOT_FOUND).
// For kind none this is the fallback after the usual proc/job lookup missed: the requester's node
// or app for a node- or app-level key, nothing for others. Places::host must outlive the use.
void qualified_places(StoreReader& r, std::string_view nspace, pmix_rank_t rank,
                      const pmix_proc_t& requester, std::string_view key, const Qualifiers& q,
                      Places& out);

// True when the Standard makes `key` a node-level or app-level key.
bool is_node_key(std::string_view key) noexcept;
bool is_app_key(std::string_view key) noexcept;

}  // namespace pmix::gds
