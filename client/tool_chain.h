// client/tool_chain.h - how a tool finds servers: PMIx_tool_init's and
// PMIx_tool_attach_to_server's attributes turned into an ordered list of places to try
// (see tool.cpp for the order and its rules).
#pragma once

#include "wire/rendezvous.h"

#include <pmix_common.h>

#include <chrono>
#include <string>
#include <vector>

namespace pmix::client {

struct Identity {
    std::string nspace;  // empty: let the server's host assign one
    pmix_rank_t rank = PMIX_RANK_UNDEF;
};

struct Target {
    enum class Kind { file, uri, search } kind = Kind::file;
    std::string where;  // a rendezvous file, a URI, or the directory to search
    std::string host;   // for search: the host name in the file names
    // For a tcp4:// URI: the directories whose rendezvous files may hold that server's secret.
    std::vector<std::string> secret_dirs;
};

struct Plan {
    std::vector<Target> targets;
    bool retry = false;  // a named server (steps 1-5) may not be up yet
    unsigned max_retries = 0;
    std::chrono::milliseconds retry_delay{std::chrono::seconds(1)};
    bool optional = false;        // PMIX_TOOL_CONNECT_OPTIONAL
    bool do_not_connect = false;  // PMIX_TOOL_DO_NOT_CONNECT
    Identity identity;            // PMIX_TOOL_NSPACE / PMIX_TOOL_RANK
    std::string self_nspace;      // our own namespace if we stay unconnected
};

// PMIX_ERR_BAD_PARAM for contradictions (PMIX_SERVER_URI with PMIX_TCP_URI, values of the wrong
// type or too long).
pmix::Result<Plan> plan_connection(const pmix_info_t* info, std::size_t ninfo);

// The targets to try now (a search target becomes the rendezvous files present at this moment).
std::vector<Target> expand_targets(const std::vector<Target>& targets);

// Reads a file target / parses a URI target. The result's `socket` is what to dial: the Unix
// socket, or the server's tcp4:// URI (with `secret` set) when the URI given was one or the
// file is another host's server that listens on TCP. A tcp4:// URI needs its secret from a
// rendezvous file readable here (PMIX_ERR_NO_PERMISSIONS when there is none).
pmix::Result<wire::Rendezvous> resolve_target(const Target& t);

// This machine's host name as the rendezvous file names carry it.
std::string local_host_name();

}  // namespace pmix::client
