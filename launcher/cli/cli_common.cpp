// launcher/cli/cli_common.cpp - see cli_common.h.
#include "cli_common.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace pmixcli {

bool take_selector(std::vector<std::string>& args, Selector* sel) {
    std::vector<std::string> rest;
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool has_value = i + 1 < args.size();
        if ((a == "--pid" || a == "--server-nspace" || a == "--uri" || a == "--tmpdir" ||
             a == "--file") &&
            !has_value) {
            std::fprintf(stderr, "%s needs a value\n", a.c_str());
            return false;
        }
        if (a == "--pid") {
            char* end = nullptr;
            sel->pid = std::strtol(args[++i].c_str(), &end, 10);
            if (end == nullptr || *end != '\0' || sel->pid <= 0) {
                std::fprintf(stderr, "--pid: not a process id: %s\n", args[i].c_str());
                return false;
            }
        } else if (a == "--server-nspace") {
            sel->server_nspace = args[++i];
        } else if (a == "--uri") {
            sel->uri = args[++i];
        } else if (a == "--tmpdir") {
            sel->tmpdir = args[++i];
        } else if (a == "--file") {
            sel->file = args[++i];
        } else if (a == "--system") {
            sel->system = true;
        } else if (a == "--json") {
            sel->json = true;
        } else {
            rest.push_back(a);
        }
    }
    args = std::move(rest);
    return true;
}

namespace {

struct InfoList {
    std::vector<pmix_info_t> v;
    void str(const char* key, const std::string& value) {
        v.emplace_back();
        PMIX_INFO_LOAD(&v.back(), key, value.c_str(), PMIX_STRING);
    }
    void flag(const char* key) {
        v.emplace_back();
        bool yes = true;
        PMIX_INFO_LOAD(&v.back(), key, &yes, PMIX_BOOL);
    }
    ~InfoList() {
        for (auto& i : v) PMIX_INFO_DESTRUCT(&i);
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
        info.v.emplace_back();
        pid_t pid = static_cast<pid_t>(sel.pid);
        PMIX_INFO_LOAD(&info.v.back(), PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    } else if (!sel.server_nspace.empty()) {
        info.str(PMIX_SERVER_NSPACE, sel.server_nspace);
    } else if (!sel.uri.empty()) {
        info.str(PMIX_SERVER_URI, sel.uri);
    } else if (sel.system) {
        info.flag(PMIX_CONNECT_TO_SYSTEM);
    }
    return PMIx_tool_init(me, info.v.empty() ? nullptr : info.v.data(), info.v.size());
}

pmix_status_t query(const std::vector<std::string>& keys, const std::string& nspace,
                    pmix_info_t** results, size_t* n) {
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    std::vector<char*> argv;
    for (const auto& k : keys) argv.push_back(const_cast<char*>(k.c_str()));
    argv.push_back(nullptr);
    q.keys = argv.data();
    pmix_info_t qual;
    if (!nspace.empty()) {
        PMIX_INFO_LOAD(&qual, PMIX_NSPACE, nspace.c_str(), PMIX_STRING);
        q.qualifiers = &qual;
        q.nqual = 1;
    }
    pmix_status_t rc = PMIx_Query_info(&q, 1, results, n);
    if (!nspace.empty()) PMIX_INFO_DESTRUCT(&qual);
    return rc;
}

pmix_status_t available_servers(const Selector& sel, std::vector<ServerInfo>* out) {
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char* keys[] = {const_cast<char*>(PMIX_QUERY_AVAIL_SERVERS), nullptr};
    q.keys = keys;
    pmix_info_t qual[2];
    if (!sel.tmpdir.empty()) {
        PMIX_INFO_LOAD(&qual[0], PMIX_SERVER_TMPDIR, sel.tmpdir.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&qual[1], PMIX_SYSTEM_TMPDIR, sel.tmpdir.c_str(), PMIX_STRING);
        q.qualifiers = qual;
        q.nqual = 2;
    }
    pmix_info_t* res = nullptr;
    size_t n = 0;
    pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &n);
    for (size_t i = 0; i < q.nqual; ++i) PMIX_INFO_DESTRUCT(&qual[i]);
    if (rc != PMIX_SUCCESS) return rc;
    for (size_t i = 0; i < n; ++i) {
        if (res[i].value.type != PMIX_DATA_ARRAY || res[i].value.data.darray == nullptr) continue;
        const auto* servers = static_cast<pmix_info_t*>(res[i].value.data.darray->array);
        for (size_t s = 0; s < res[i].value.data.darray->size; ++s) {
            const pmix_data_array_t* fields = servers[s].value.data.darray;
            if (servers[s].value.type != PMIX_DATA_ARRAY || fields == nullptr) continue;
            ServerInfo si;
            const auto* f = static_cast<pmix_info_t*>(fields->array);
            for (size_t k = 0; k < fields->size; ++k) {
                if (PMIX_CHECK_KEY(&f[k], PMIX_SERVER_NSPACE)) si.nspace = f[k].value.data.string;
                else if (PMIX_CHECK_KEY(&f[k], PMIX_SERVER_RANK)) si.rank = f[k].value.data.rank;
                else if (PMIX_CHECK_KEY(&f[k], PMIX_SERVER_URI)) si.uri = f[k].value.data.string;
                else if (PMIX_CHECK_KEY(&f[k], PMIX_SERVER_PIDINFO)) si.pid = f[k].value.data.pid;
                else if (PMIX_CHECK_KEY(&f[k], PMIX_VERSION_INFO))
                    si.version = f[k].value.data.string;
            }
            out->push_back(std::move(si));
        }
    }
    PMIX_INFO_FREE(res, n);
    return PMIX_SUCCESS;
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            out += b;
        } else out += c;
    }
    return out + "\"";
}

namespace {

std::string proc_json(const pmix_proc_t& p) {
    return "{\"nspace\":" + json_string(p.nspace) + ",\"rank\":" + std::to_string(p.rank) + "}";
}

std::string array_json(const pmix_data_array_t& a) {
    std::ostringstream out;
    out << '[';
    for (size_t i = 0; i < a.size; ++i) {
        if (i > 0) out << ',';
        if (a.type == PMIX_INFO) {
            const auto& info = static_cast<pmix_info_t*>(a.array)[i];
            out << "{\"key\":" << json_string(info.key) << ",\"value\":" << to_json(info.value)
                << '}';
        } else if (a.type == PMIX_PROC_INFO) {
            const auto& p = static_cast<pmix_proc_info_t*>(a.array)[i];
            out << "{\"proc\":" << proc_json(p.proc)
                << ",\"hostname\":" << json_string(p.hostname ? p.hostname : "")
                << ",\"executable\":" << json_string(p.executable_name ? p.executable_name : "")
                << ",\"pid\":" << p.pid << ",\"exit_code\":" << p.exit_code
                << ",\"state\":" << json_string(PMIx_Proc_state_string(p.state)) << '}';
        } else if (a.type == PMIX_PROC) {
            out << proc_json(static_cast<pmix_proc_t*>(a.array)[i]);
        } else if (a.type == PMIX_STRING) {
            const char* s = static_cast<char**>(a.array)[i];
            out << json_string(s ? s : "");
        } else {
            out << json_string("(" + std::string(PMIx_Data_type_string(a.type)) + ")");
        }
    }
    out << ']';
    return out.str();
}

}  // namespace

std::string to_json(const pmix_value_t& v) {
    switch (v.type) {
        case PMIX_STRING:
            return json_string(v.data.string ? v.data.string : "");
        case PMIX_BOOL:
            return v.data.flag ? "true" : "false";
        case PMIX_UINT32:
            return std::to_string(v.data.uint32);
        case PMIX_UINT64:
            return std::to_string(v.data.uint64);
        case PMIX_SIZE:
            return std::to_string(v.data.size);
        case PMIX_INT:
            return std::to_string(v.data.integer);
        case PMIX_PID:
            return std::to_string(v.data.pid);
        case PMIX_PROC_RANK:
            return std::to_string(v.data.rank);
        case PMIX_STATUS:
            return json_string(PMIx_Error_string(v.data.status));
        case PMIX_PROC:
            return v.data.proc ? proc_json(*v.data.proc) : "null";
        case PMIX_DATA_ARRAY:
            return v.data.darray ? array_json(*v.data.darray) : "[]";
        default: {
            char* s = PMIx_Value_string(&v);
            std::string out = json_string(s ? s : "");
            std::free(s);
            return out;
        }
    }
}

std::string to_text(const pmix_value_t& v) {
    switch (v.type) {
        case PMIX_STRING:
            return v.data.string ? v.data.string : "";
        case PMIX_STATUS:
            return PMIx_Error_string(v.data.status);
        case PMIX_DATA_ARRAY:
            return to_json(v);
        default: {
            char* s = PMIx_Value_string(&v);
            std::string out = s ? s : "";
            std::free(s);
            return out;
        }
    }
}

}  // namespace pmixcli
