// server/local_answers.h - what the library answers itself when the host has no query or log
// callback (pmix_server_module_t entries may all be NULL).
#pragma once

#include "wire/proto/message.h"

#include <pmix_common.h>

#include <vector>

namespace pmix::server {

class State;

// PMIX_QUERY_NAMESPACES (the registered namespaces), PMIX_QUERY_PROC_TABLE and
// PMIX_QUERY_LOCAL_PROC_TABLE (PMIX_NSPACE qualifier, default: every namespace; from the
// registration and the clients' connections: host, pid, state), the process-set keys
// (PMIX_QUERY_NUM_PSETS, PMIX_QUERY_PSET_NAMES, PMIX_QUERY_PSET_MEMBERSHIP with PMIX_PSET_NAME;
// psets.h), PMIX_LOCAL_PROCS of a node (PMIX_NODEID / PMIX_HOSTNAME, from the registered node
// arrays) and PMIX_QUERY_SUPPORTED_KEYS (these keys). Appends one info per key it
// can answer; returns SUCCESS, PMIX_QUERY_PARTIAL_SUCCESS, PMIX_ERR_NOT_FOUND (none answered,
// some of these keys asked) or PMIX_ERR_NOT_SUPPORTED (none of these keys asked).
pmix_status_t answer_query(const State& st, const pmix_query_t* queries, std::size_t n,
                           std::vector<pmix_info_t>* out);

// PMIX_LOG_STDOUT / PMIX_LOG_STDERR (this process's streams) and PMIX_LOG_SYSLOG /
// PMIX_LOG_LOCAL_SYSLOG / PMIX_LOG_GLOBAL_SYSLOG (the local syslog socket, /dev/log, or
// $PMIX_CPP_SYSLOG_SOCKET), with PMIX_LOG_ONCE, PMIX_LOG_SYSLOG_PRI, PMIX_LOG_TIMESTAMP,
// PMIX_LOG_GENERATE_TIMESTAMP and PMIX_LOG_TAG_OUTPUT. SUCCESS when every entry went out,
// PMIX_ERR_PARTIAL_SUCCESS when some did, PMIX_ERR_NOT_SUPPORTED when none could.
pmix_status_t write_log(const pmix_proc_t& source, const pmix_info_t* data, std::size_t ndata,
                        const pmix_info_t* dirs, std::size_t ndirs);

}  // namespace pmix::server
