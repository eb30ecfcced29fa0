// pmix-ps: the jobs and processes of running launchers (every server this machine's
// rendezvous files show, or the one selected), from their hosts' answers to
// PMIX_QUERY_NAMESPACES and PMIX_QUERY_PROC_TABLE. Public API only.
//
//   pmix-ps [--pid P | --server-nspace NS | --uri U | --file F | --system] [--tmpdir DIR] [--json]
#include "cli_common.h"

#include <cstdio>
#include <sstream>

namespace {

std::vector<std::string> split_commas(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

// The jobs of the current primary server, printed; false if it answered nothing.
bool show_server(const std::string& label, bool json, bool* first_json) {
    pmix_info_t* res = nullptr;
    size_t n = 0;
    pmix_status_t rc = pmixcli::query({PMIX_QUERY_NAMESPACES}, "", &res, &n);
    if (rc != PMIX_SUCCESS || n == 0 || res[0].value.type != PMIX_STRING) {
        std::fprintf(stderr, "pmix-ps: %s: no namespaces (%s)\n", label.c_str(),
                     PMIx_Error_string(rc));
        if (res != nullptr) PMIX_INFO_FREE(res, n);
        return false;
    }
    const auto namespaces = split_commas(res[0].value.data.string);
    PMIX_INFO_FREE(res, n);
    for (const auto& ns : namespaces) {
        res = nullptr;
        n = 0;
        rc = pmixcli::query({PMIX_QUERY_PROC_TABLE}, ns, &res, &n);
        const pmix_data_array_t* table =
            rc == PMIX_SUCCESS && n > 0 && res[0].value.type == PMIX_DATA_ARRAY
                ? res[0].value.data.darray
                : nullptr;
        if (json) {
            std::printf("%s{\"server\":%s,\"nspace\":%s,\"procs\":%s}", *first_json ? "" : ",",
                        pmixcli::json_string(label).c_str(), pmixcli::json_string(ns).c_str(),
                        n > 0 ? pmixcli::to_json(res[0].value).c_str() : "[]");
            *first_json = false;
        } else {
            std::printf("%s  job %s\n", label.c_str(), ns.c_str());
            std::printf("  %-6s %-16s %-8s %-22s %-5s %s\n", "RANK", "HOST", "PID", "STATE", "EXIT",
                        "COMMAND");
            const auto* procs = table != nullptr && table->type == PMIX_PROC_INFO
                                    ? static_cast<pmix_proc_info_t*>(table->array)
                                    : nullptr;
            for (size_t i = 0; procs != nullptr && i < table->size; ++i) {
                const auto& p = procs[i];
                std::printf("  %-6u %-16s %-8d %-22s %-5d %s\n", p.proc.rank,
                            p.hostname ? p.hostname : "-", static_cast<int>(p.pid),
                            PMIx_Proc_state_string(p.state), p.exit_code,
                            p.executable_name ? p.executable_name : "-");
            }
        }
        if (res != nullptr) PMIX_INFO_FREE(res, n);
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
        for (const auto& s : servers) {
            pmix_info_t at[2];
            pid_t pid = static_cast<pid_t>(s.pid);
            PMIX_INFO_LOAD(&at[0], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
            bool yes = true;
            PMIX_INFO_LOAD(&at[1], PMIX_PRIMARY_SERVER, &yes, PMIX_BOOL);
            pmix_proc_t server;
            const pmix_status_t rc2 = PMIx_tool_attach_to_server(&me, &server, at, 2);
            PMIX_INFO_DESTRUCT(&at[0]);
            PMIX_INFO_DESTRUCT(&at[1]);
            const std::string label = s.nspace + " (pid " + std::to_string(s.pid) + ")";
            if (rc2 != PMIX_SUCCESS) {
                std::fprintf(stderr, "pmix-ps: %s: %s\n", label.c_str(), PMIx_Error_string(rc2));
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
