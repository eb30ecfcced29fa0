// pmix-servers: the PMIx servers a tool on this machine can see (their rendezvous files), one
// per line, or as JSON. Public API only: PMIx_tool_init without connecting, then
// PMIx_Query_info(PMIX_QUERY_AVAIL_SERVERS).
//
//   pmix-servers [--tmpdir DIR] [--json]
#include "cli_common.h"

#include <cstdio>

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    pmixcli::Selector sel;
    if (!pmixcli::take_selector(args, &sel) || !args.empty()) {
        std::fprintf(stderr, "usage: pmix-servers [--tmpdir DIR] [--json]\n");
        return 2;
    }
    const bool json = sel.json;
    pmix_proc_t me;
    pmix_status_t rc = pmixcli::init_tool(sel, false, &me);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmix-servers: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    std::vector<pmixcli::ServerInfo> servers;
    rc = pmixcli::available_servers(sel, &servers);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) {
        std::fprintf(stderr, "pmix-servers: query: %s\n", PMIx_Error_string(rc));
    }
    if (json) {
        std::printf("[");
        for (size_t i = 0; i < servers.size(); ++i) {
            const auto& server = servers[i];
            std::printf("%s{\"nspace\":%s,\"rank\":%u,\"pid\":%ld,\"uri\":%s,\"version\":%s}",
                        i ? "," : "", pmixcli::json_string(server.nspace).c_str(), server.rank,
                        server.pid, pmixcli::json_string(server.uri).c_str(),
                        pmixcli::json_string(server.version).c_str());
        }
        std::printf("]\n");
    } else {
        std::printf("%-8s %-40s %-5s %s\n", "PID", "NSPACE", "RANK", "URI");
        for (const auto& server : servers)
            std::printf("%-8ld %-40s %-5u %s\n", server.pid, server.nspace.c_str(), server.rank,
                        server.uri.c_str());
    }
    PMIx_tool_finalize();
    return rc == PMIX_SUCCESS || rc == PMIX_ERR_NOT_FOUND ? 0 : 1;
}
