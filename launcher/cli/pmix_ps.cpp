// pmix-ps: the jobs and processes of running launchers (every server this machine's
// rendezvous files show, or the one selected), from their hosts' answers to
// PMIX_QUERY_NAMESPACES and PMIX_QUERY_PROC_TABLE. Public API only.
//
//   pmix-ps [--pid P | --server-nspace NS | --uri U | --file F | --system] [--tmpdir DIR] [--json]
#include "cli_common.h"

#include <cstdio>
#include <sstream>

namespace {

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

// The jobs of the current primary server, printed; false if it answered nothing.
bool show_server(const std::string& label, bool json, bool* first_json) {
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    pmix_status_t rc = pmixcli::query({PMIX_QUERY_NAMESPACES}, "", &results, &nresults);
    if (rc != PMIX_SUCCESS || nresults == 0 || results[0].value.type != PMIX_STRING) {
        std::fprintf(stderr, "pmix-ps: %s: no namespaces (%s)\n", label.c_str(),
                     PMIx_Error_string(rc));
        if (results != nullptr) PMIX_INFO_FREE(results, nresults);
        return false;
    }
    const auto namespaces = split_commas(results[0].value.data.string);
    PMIX_INFO_FREE(results, nresults);
    for (const auto& nspace : namespaces) {
        results = nullptr;
        nresults = 0;
        rc = pmixcli::query({PMIX_QUERY_PROC_TABLE}, nspace, &results, &nresults);
        const pmix_data_array_t* table =
            rc == PMIX_SUCCESS && nresults > 0 && results[0].value.type == PMIX_DATA_ARRAY
                ? results[0].value.data.darray
                : nullptr;
        if (json) {
            std::printf("%s{\"server\":%s,\"nspace\":%s,\"procs\":%s}", *first_json ? "" : ",",
                        pmixcli::json_string(label).c_str(), pmixcli::json_string(nspace).c_str(),
                        nresults > 0 ? pmixcli::to_json(results[0].value).c_str() : "[]");
            *first_json = false;
        } else {
            std::printf("%s  job %s\n", label.c_str(), nspace.c_str());
            std::printf("  %-6s %-16s %-8s %-22s %-5s %s\n", "RANK", "HOST", "PID", "STATE", "EXIT",
                        "COMMAND");
            const auto* procs = table != nullptr && table->type == PMIX_PROC_INFO
                                    ? static_cast<pmix_proc_info_t*>(table->array)
                                    : nullptr;
            for (size_t i = 0; procs != nullptr && i < table->size; ++i) {
                const auto& proc = procs[i];
                std::printf("  %-6u %-16s %-8d %-22s %-5d %s\n", proc.proc.rank,
                            proc.hostname ? proc.hostname : "-", static_cast<int>(proc.pid),
                            PMIx_Proc_state_string(proc.state), proc.exit_code,
                            proc.executable_name ? proc.executable_name : "-");
            }
        }
        if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    pmixcli::Selector sel;
    if (!pmixcli::take_selector(args, &sel) || !args.empty()) {
        std::fprintf(stderr,
                     "usage: pmix-ps [--pid P | --server-nspace NS | --uri U | --file F | "
                     "--system] [--tmpdir DIR] [--json]\n");
        return 2;
    }
    const bool json = sel.json;
    pmix_proc_t me;
    bool first_json = true, any = false;
    if (json) std::printf("[");
    if (sel.any()) {
        pmix_status_t rc = pmixcli::init_tool(sel, true, &me);
        if (rc != PMIX_SUCCESS) {
            std::fprintf(stderr, "pmix-ps: cannot reach the server: %s\n", PMIx_Error_string(rc));
            return 1;
        }
        any = show_server("server", json, &first_json);
    } else {
        pmix_status_t rc = pmixcli::init_tool(sel, false, &me);
        if (rc != PMIX_SUCCESS) {
            std::fprintf(stderr, "pmix-ps: PMIx_tool_init: %s\n", PMIx_Error_string(rc));
            return 1;
        }
        std::vector<pmixcli::ServerInfo> servers;
        pmixcli::available_servers(sel, &servers);
        for (const auto& listed : servers) {
            pmix_info_t attach[2];
            pid_t pid = static_cast<pid_t>(listed.pid);
            PMIX_INFO_LOAD(&attach[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
            bool yes = true;
            PMIX_INFO_LOAD(&attach[1], PMIX_PRIMARY_SERVER, &yes, PMIX_BOOL);
            pmix_proc_t server;
            const pmix_status_t attached = PMIx_tool_attach_to_server(&me, &server, attach, 2);
            PMIX_INFO_DESTRUCT(&attach[0]);
            PMIX_INFO_DESTRUCT(&attach[1]);
            const std::string label = listed.nspace + " (pid " + std::to_string(listed.pid) + ")";
            if (attached != PMIX_SUCCESS) {
                std::fprintf(stderr, "pmix-ps: %s: %s\n", label.c_str(),
                             PMIx_Error_string(attached));
                continue;
            }
            any = show_server(label, json, &first_json) || any;
            PMIx_tool_disconnect(&server);
        }
    }
    if (json) std::printf("]\n");
    PMIx_tool_finalize();
    return any ? 0 : 1;
}
