// launcher/cli/cli_common.h - what pmix-ps, pmix-query and pmix-servers share: choosing a
// server from the command line, and printing values (text or JSON). Public API only.
#pragma once

#include <pmix_tool.h>

#include <string>
#include <vector>

namespace pmixcli {

// --pid P | --server-nspace NS | --uri U | --system | --tmpdir D  (consumed from args)
struct Selector {
    long pid = 0;
    std::string server_nspace, uri, tmpdir,
        file;  // file: a rendezvous file (PMIX_TOOL_ATTACHMENT_FILE)
    bool system = false;
    bool json = false;  // --json: the output format, common to every command (not a selector)
    bool any() const {
        return pid > 0 || !server_nspace.empty() || !uri.empty() || !file.empty() || system;
    }
};

// Removes the selector options and --json from `args`; false (with a message) on a malformed one.
bool take_selector(std::vector<std::string>& args, Selector* sel);

// PMIx_tool_init towards the selected server (or without connecting when `connect` is false).
pmix_status_t init_tool(const Selector& sel, bool connect, pmix_proc_t* me);

// The servers this machine's rendezvous files show (PMIX_QUERY_AVAIL_SERVERS).
struct ServerInfo {
    std::string nspace, uri, version;
    unsigned rank = 0;
    long pid = 0;
};
pmix_status_t available_servers(const Selector& sel, std::vector<ServerInfo>* out);

// One query of `keys` with an optional PMIX_NSPACE qualifier; results owned by the caller
// (PMIX_INFO_FREE).
pmix_status_t query(const std::vector<std::string>& keys, const std::string& nspace,
                    pmix_info_t** results, size_t* nresults);

std::string to_json(const pmix_value_t& value);
std::string to_text(const pmix_value_t& value);
std::string json_string(const std::string& text);

}  // namespace pmixcli
