// launcher/query_keys.h - the query keys pmixrun / pmixd answer beyond namespaces, job status and
// proc tables (query.cpp): what a launcher knows about its job, its node and itself.
#pragma once

#include "launcher.h"

namespace pmix::launcher {

// The qualifier `key` of `query`, nullptr when absent.
const pmix_info_t* qualifier(const pmix_query_t& query, const char* key);

// One key of one query; false when this launcher cannot answer it (left out of the results:
// PMIX_QUERY_PARTIAL_SUCCESS, or PMIX_ERR_NOT_FOUND when nothing was answered). Keys:
//  PMIX_QUERY_SPAWN_SUPPORT / PMIX_QUERY_DEBUG_SUPPORT: comma-separated attributes acted on;
//  PMIX_QUERY_NAMESPACE_INFO: per namespace an info array of PMIX_NSPACE and PMIX_CMD_LINE;
//  PMIX_QUERY_MEMORY_USAGE: PMIX_DAEMON_MEMORY and PMIX_CLIENT_AVG_MEMORY (MB, VmRSS);
//  PMIX_QUERY_ALLOC_STATUS, PMIX_TIME_REMAINING, PMIX_QUERY_AUTHORIZATIONS, PMIX_LOCAL_PROCS
//  (PMIX_NODEID / PMIX_HOSTNAME), the process-set keys, PMIX_QUERY_SUPPORTED_KEYS and
//  PMIX_QUERY_SUPPORTED_QUALIFIERS. The README of launcher/ states each answer.
bool answer_more(const Launcher& launcher, const char* key, const pmix_query_t& query,
                 pmix_info_t& out);

}  // namespace pmix::launcher
