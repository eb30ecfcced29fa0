// launcher/cli/cli_common.cpp - see cli_common.h.
#include "cli_common.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace pmixcli {

bool take_selector(std::vector<std::string>& args, Selector* sel) {
    std::vector<std::string> remaining;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const bool value_follows = i + 1 < args.size();
        if ((arg == "--pid" || arg == "--server-nspace" || arg == "--uri" || arg == "--tmpdir" ||
             arg == "--file") &&
            !value_follows) {
            std::fprintf(stderr, "%s needs a value\n", arg.c_str());
            return false;
        }
        if (arg == "--pid") {
            char* end = nullptr;
            sel->pid = std::strtol(args[++i].c_str(), &end, 10);
            if (end == nullptr || *end != '\0' || sel->pid <= 0) {
                std::fprintf(stderr, "--pid: not a process id: %s\n", args[i].c_str());
                return false;
            }
        } else if (arg == "--server-nspace") {
            sel->server_nspace = args[++i];
        } else if (arg == "--uri") {
            sel->uri = args[++i];
        } else if (arg == "--tmpdir") {
            sel->tmpdir = args[++i];
        } else if (arg == "--file") {
            sel->file = args[++i];
        } else if (arg == "--system") {
            sel->system = true;
        } else if (arg == "--json") {
            sel->json = true;
        } else {
            remaining.push_back(arg);
        }
    }
    args = std::move(remaining);
    return true;
}

namespace {

struct InfoList {
    std::vector<pmix_info_t> items;
    void str(const char* key, const std::string& value) {
        items.emplace_back();
        PMIX_INFO_LOAD(&items.back(), key, value.c_str(), PMIX_STRING);
    }
    void flag(const char* key) {
        items.emplace_back();
        bool yes = true;
        PMIX_INFO_LOAD(&items.back(), key, &yes, PMIX_BOOL);
    }
    ~InfoList() {
        for (auto& item : items) PMIX_INFO_DESTRUCT(&item);
    }
};

}  // namespace

pmix_status_t init_tool(const Selector& sel, bool connect, pmix_proc_t* me) {
    InfoList info;
    if (!sel.tmpdir.empty()) {
        info.str(PMIX_SERVER_TMPDIR, sel.tmpdir);
        info.str(PMIX_SYSTEM_TMPDIR, sel.tmpdir);
    }
    if (!connect) {
        info.flag(PMIX_TOOL_DO_NOT_CONNECT);
    } else if (!sel.file.empty()) {
        info.str(PMIX_TOOL_ATTACHMENT_FILE, sel.file);
    } else if (sel.pid > 0) {
        info.items.emplace_back();
        pid_t pid = static_cast<pid_t>(sel.pid);
        PMIX_INFO_LOAD(&info.items.back(), PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    } else if (!sel.server_nspace.empty()) {
        info.str(PMIX_SERVER_NSPACE, sel.server_nspace);
    } else if (!sel.uri.empty()) {
        info.str(PMIX_SERVER_URI, sel.uri);
    } else if (sel.system) {
        info.flag(PMIX_CONNECT_TO_SYSTEM);
    }
    return PMIx_tool_init(me, info.items.empty() ? nullptr : info.items.data(), info.items.size());
}

pmix_status_t query(const std::vector<std::string>& keys, const std::string& nspace,
                    pmix_info_t** results, size_t* nresults) {
    pmix_query_t request;
    PMIX_QUERY_CONSTRUCT(&request);
    std::vector<char*> argv;
    for (const auto& key : keys) argv.push_back(const_cast<char*>(key.c_str()));
    argv.push_back(nullptr);
    request.keys = argv.data();
    pmix_info_t nspace_qualifier;
    if (!nspace.empty()) {
        PMIX_INFO_LOAD(&nspace_qualifier, PMIX_NSPACE, nspace.c_str(), PMIX_STRING);
        request.qualifiers = &nspace_qualifier;
        request.nqual = 1;
    }
    pmix_status_t rc = PMIx_Query_info(&request, 1, results, nresults);
    if (!nspace.empty()) PMIX_INFO_DESTRUCT(&nspace_qualifier);
    return rc;
}

pmix_status_t available_servers(const Selector& sel, std::vector<ServerInfo>* out) {
    pmix_query_t request;
    PMIX_QUERY_CONSTRUCT(&request);
    char* keys[] = {const_cast<char*>(PMIX_QUERY_AVAIL_SERVERS), nullptr};
    request.keys = keys;
    pmix_info_t qualifiers[2];
    if (!sel.tmpdir.empty()) {
        PMIX_INFO_LOAD(&qualifiers[0], PMIX_SERVER_TMPDIR, sel.tmpdir.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&qualifiers[1], PMIX_SYSTEM_TMPDIR, sel.tmpdir.c_str(), PMIX_STRING);
        request.qualifiers = qualifiers;
        request.nqual = 2;
    }
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    pmix_status_t rc = PMIx_Query_info(&request, 1, &results, &nresults);
    for (size_t i = 0; i < request.nqual; ++i) PMIX_INFO_DESTRUCT(&qualifiers[i]);
    if (rc != PMIX_SUCCESS) return rc;
    for (size_t i = 0; i < nresults; ++i) {
        if (results[i].value.type != PMIX_DATA_ARRAY || results[i].value.data.darray == nullptr)
            continue;
        const auto* servers = static_cast<pmix_info_t*>(results[i].value.data.darray->array);
        for (size_t server = 0; server < results[i].value.data.darray->size; ++server) {
            const pmix_data_array_t* description = servers[server].value.data.darray;
            if (servers[server].value.type != PMIX_DATA_ARRAY || description == nullptr) continue;
            ServerInfo entry;
            const auto* fields = static_cast<pmix_info_t*>(description->array);
            for (size_t field_index = 0; field_index < description->size; ++field_index) {
                const pmix_info_t& field = fields[field_index];
                if (PMIX_CHECK_KEY(&field, PMIX_SERVER_NSPACE))
                    entry.nspace = field.value.data.string;
                else if (PMIX_CHECK_KEY(&field, PMIX_SERVER_RANK))
                    entry.rank = field.value.data.rank;
                else if (PMIX_CHECK_KEY(&field, PMIX_SERVER_URI))
                    entry.uri = field.value.data.string;
                else if (PMIX_CHECK_KEY(&field, PMIX_SERVER_PIDINFO))
                    entry.pid = field.value.data.pid;
                else if (PMIX_CHECK_KEY(&field, PMIX_VERSION_INFO))
                    entry.version = field.value.data.string;
            }
            out->push_back(std::move(entry));
        }
    }
    PMIX_INFO_FREE(results, nresults);
    return PMIX_SUCCESS;
}

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
            out += escaped;
        } else out += c;
    }
    return out + "\"";
}

namespace {

std::string proc_json(const pmix_proc_t& proc) {
    return "{\"nspace\":" + json_string(proc.nspace) + ",\"rank\":" + std::to_string(proc.rank) +
           "}";
}

std::string array_json(const pmix_data_array_t& array) {
    std::ostringstream out;
    out << '[';
    for (size_t i = 0; i < array.size; ++i) {
        if (i > 0) out << ',';
        if (array.type == PMIX_INFO) {
            const auto& info = static_cast<pmix_info_t*>(array.array)[i];
            out << "{\"key\":" << json_string(info.key) << ",\"value\":" << to_json(info.value)
                << '}';
        } else if (array.type == PMIX_PROC_INFO) {
            const auto& proc_info = static_cast<pmix_proc_info_t*>(array.array)[i];
            out << "{\"proc\":" << proc_json(proc_info.proc)
                << ",\"hostname\":" << json_string(proc_info.hostname ? proc_info.hostname : "")
                << ",\"executable\":"
                << json_string(proc_info.executable_name ? proc_info.executable_name : "")
                << ",\"pid\":" << proc_info.pid << ",\"exit_code\":" << proc_info.exit_code
                << ",\"state\":" << json_string(PMIx_Proc_state_string(proc_info.state)) << '}';
        } else if (array.type == PMIX_PROC) {
            out << proc_json(static_cast<pmix_proc_t*>(array.array)[i]);
        } else if (array.type == PMIX_STRING) {
            const char* text = static_cast<char**>(array.array)[i];
            out << json_string(text ? text : "");
        } else {
            out << json_string("(" + std::string(PMIx_Data_type_string(array.type)) + ")");
        }
    }
    out << ']';
    return out.str();
}

}  // namespace

std::string to_json(const pmix_value_t& value) {
    switch (value.type) {
        case PMIX_STRING:
            return json_string(value.data.string ? value.data.string : "");
        case PMIX_BOOL:
            return value.data.flag ? "true" : "false";
        case PMIX_UINT32:
            return std::to_string(value.data.uint32);
        case PMIX_UINT64:
            return std::to_string(value.data.uint64);
        case PMIX_SIZE:
            return std::to_string(value.data.size);
        case PMIX_INT:
            return std::to_string(value.data.integer);
        case PMIX_PID:
            return std::to_string(value.data.pid);
        case PMIX_PROC_RANK:
            return std::to_string(value.data.rank);
        case PMIX_STATUS:
            return json_string(PMIx_Error_string(value.data.status));
        case PMIX_PROC:
            return value.data.proc ? proc_json(*value.data.proc) : "null";
        case PMIX_DATA_ARRAY:
            return value.data.darray ? array_json(*value.data.darray) : "[]";
        default: {
            char* text = PMIx_Value_string(&value);
            std::string out = json_string(text ? text : "");
            std::free(text);
            return out;
        }
    }
}

std::string to_text(const pmix_value_t& value) {
    switch (value.type) {
        case PMIX_STRING:
            return value.data.string ? value.data.string : "";
        case PMIX_STATUS:
            return PMIx_Error_string(value.data.status);
        case PMIX_DATA_ARRAY:
            return to_json(value);
        default: {
            char* text = PMIx_Value_string(&value);
            std::string out = text ? text : "";
            std::free(text);
            return out;
        }
    }
}

}  // namespace pmixcli
