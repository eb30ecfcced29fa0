// client/query_local.h - PMIx_Query keys this library answers itself, in the caller's process,
// with or without a server (as OpenPMIx does): PMIX_QUERY_AVAIL_SERVERS, from the rendezvous
// files this process can read, and PMIX_QUERY_ATTRIBUTE_SUPPORT (data/attr_support.h; its host
// level goes to the server when there is one), PMIX_QUERY_STABLE_ABI_VERSION and
// PMIX_QUERY_PROVISIONAL_ABI_VERSION (also before init, as the Standard allows when a query asks
// only for those). Everything else goes to the server and its host.
#pragma once

#include "wire/connection.h"

#include <pmix_common.h>

#include <vector>

namespace pmix::client {

bool answered_locally(const pmix_query_t& q, const char* key);

// One result info for `key` of `q` (a key answered_locally accepts); false if there is nothing
// to say (e.g. no server found).
bool answer_locally(const pmix_query_t& q, const char* key, pmix_info_t* out);

// Every key of every query is an ABI-version key: answerable before init.
bool only_abi_keys(const pmix_query_t* queries, std::size_t n);

// The queries split: `remote` borrows keys and qualifiers from the caller's array (valid while
// the caller's array is), `local` owns its results.
struct SplitQueries {
    std::vector<pmix_query_t> remote;
    std::vector<std::vector<char*>> remote_keys;
    std::vector<pmix_info_t> local;
    std::size_t local_asked = 0;  // keys answered locally, found or not
    ~SplitQueries();
};
void split_queries(const pmix_query_t* queries, std::size_t n, SplitQueries* out);

// A kQuery reply frame holding `status` and `infos` (what the server would have sent).
wire::Frame query_reply_frame(pmix_status_t status, const pmix_info_t* infos, std::size_t n);

}  // namespace pmix::client
