// pmix-query: asks a running server (through its host) any PMIx_Query_info keys and prints the
// answers, as "key = value" lines or as one JSON object. Public API only.
//
//   pmix-query [--pid P | --server-nspace NS | --uri U | --file F | --system] [--tmpdir DIR]
//              [--nspace JOB] [--json] KEY...
// KEY is an attribute string ("pmix.qry.ns") or its macro name (PMIX_QUERY_NAMESPACES).
#include "cli_common.h"

#include <cstdio>
#include <cstring>

namespace {

// Accepts PMIX_QUERY_NAMESPACES-style names for the attributes the library knows.
std::string key_of(const std::string& word) {
    if (word.rfind("PMIX_", 0) != 0) return word;
    const char* attribute = PMIx_Get_attribute_string(word.c_str());
    return attribute != nullptr ? attribute : word;
}

int usage() {
    std::fprintf(stderr,
                 "usage: pmix-query [--pid P | --server-nspace NS | --uri U | --file F | --system] "
                 "[--tmpdir DIR] [--nspace JOB] [--json] KEY...\n");
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    pmixcli::Selector sel;
    if (!pmixcli::take_selector(args, &sel)) return 2;
    const bool json = sel.json;
    std::string nspace;
    std::vector<std::string> keys;
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--nspace" && i + 1 < args.size()) nspace = args[++i];
        else if (args[i].rfind("--", 0) == 0) return usage();
        else keys.push_back(key_of(args[i]));
    }
    if (keys.empty()) return usage();
    pmix_proc_t me;
    pmix_status_t rc = pmixcli::init_tool(sel, true, &me);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmix-query: cannot reach a server: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    rc = pmixcli::query(keys, nspace, &results, &nresults);
    if (json) {
        std::printf("{\"status\":%s", pmixcli::json_string(PMIx_Error_string(rc)).c_str());
        for (size_t i = 0; i < nresults; ++i)
            std::printf(",%s:%s", pmixcli::json_string(results[i].key).c_str(),
                        pmixcli::to_json(results[i].value).c_str());
        std::printf("}\n");
    } else {
        for (size_t i = 0; i < nresults; ++i)
            std::printf("%s = %s\n", results[i].key, pmixcli::to_text(results[i].value).c_str());
        if (rc != PMIX_SUCCESS) std::fprintf(stderr, "pmix-query: %s\n", PMIx_Error_string(rc));
    }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIx_tool_finalize();
    return rc == PMIX_SUCCESS ? 0 : 1;
}
