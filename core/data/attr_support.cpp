// core/data/attr_support.cpp - see attr_support.h. The tables list what the code really acts on;
// tests check every name against the attribute dictionary.
#include "data/attr_support.h"

#include "data/directives.h"
#include "data/value.h"
#include "text/text.h"

#include <cstring>
#include <mutex>
#include <sstream>

namespace pmix::data {

namespace {

// The Standard's spelling of PMIX_TOOL_ATTRIBUTES ("pmix.setup.env", the same string as
// PMIX_SETUP_APP_ENVARS); OpenPMIx's ("pmix.tool.attrs", our header's) works too.
constexpr char kStdToolAttributes[] = "pmix.setup.env";

const std::vector<FunctionAttributes> kClient = {
    {"PMIx_Init",
     {"PMIX_TIMEOUT", "PMIX_PROGRAMMING_MODEL", "PMIX_MODEL_LIBRARY_NAME",
      "PMIX_MODEL_LIBRARY_VERSION", "PMIX_THREADING_MODEL"}},
    {"PMIx_Finalize", {"PMIX_TIMEOUT"}},
    {"PMIx_Get",
     {"PMIX_OPTIONAL", "PMIX_IMMEDIATE", "PMIX_TIMEOUT", "PMIX_GET_REFRESH_CACHE",
      "PMIX_GET_POINTER_VALUES", "PMIX_SESSION_INFO", "PMIX_JOB_INFO", "PMIX_APP_INFO",
      "PMIX_NODE_INFO"}},
    {"PMIx_Fence", {"PMIX_COLLECT_DATA", "PMIX_TIMEOUT"}},
    {"PMIx_Register_event_handler",
     {"PMIX_EVENT_HDLR_FIRST", "PMIX_EVENT_HDLR_LAST", "PMIX_EVENT_HDLR_PREPEND",
      "PMIX_EVENT_HDLR_NAME", "PMIX_EVENT_HDLR_BEFORE", "PMIX_EVENT_HDLR_AFTER",
      "PMIX_EVENT_AFFECTED_PROC", "PMIX_EVENT_AFFECTED_PROCS"}},
    {"PMIx_Notify_event",
     {"PMIX_EVENT_NON_DEFAULT", "PMIX_EVENT_AFFECTED_PROC", "PMIX_EVENT_AFFECTED_PROCS",
      "PMIX_EVENT_CUSTOM_RANGE"}},
    {"PMIx_Spawn",
     {"PMIX_TIMEOUT", "PMIX_FWD_STDIN", "PMIX_FWD_STDOUT", "PMIX_FWD_STDERR", "PMIX_FWD_STDDIAG"}},
    {"PMIx_Job_control",
     {"PMIX_TIMEOUT", "PMIX_REGISTER_CLEANUP", "PMIX_REGISTER_CLEANUP_DIR",
      "PMIX_CLEANUP_RECURSIVE", "PMIX_CLEANUP_EMPTY", "PMIX_CLEANUP_IGNORE",
      "PMIX_CLEANUP_LEAVE_TOPDIR"}},
    {"PMIx_Log",
     {"PMIX_LOG_STDOUT", "PMIX_LOG_STDERR", "PMIX_LOG_SYSLOG", "PMIX_LOG_LOCAL_SYSLOG",
      "PMIX_LOG_GLOBAL_SYSLOG", "PMIX_LOG_SYSLOG_PRI", "PMIX_LOG_ONCE", "PMIX_LOG_TIMESTAMP",
      "PMIX_LOG_GENERATE_TIMESTAMP", "PMIX_LOG_TAG_OUTPUT"}},
    {"PMIx_Get_credential", {"PMIX_CRED_TYPE", "PMIX_TIMEOUT"}},
    {"PMIx_Validate_credential", {"PMIX_CRED_TYPE", "PMIX_TIMEOUT"}},
    {"PMIx_Process_monitor",
     {"PMIX_MONITOR_HEARTBEAT", "PMIX_SEND_HEARTBEAT", "PMIX_MONITOR_HEARTBEAT_TIME",
      "PMIX_MONITOR_HEARTBEAT_DROPS", "PMIX_MONITOR_FILE", "PMIX_MONITOR_FILE_SIZE",
      "PMIX_MONITOR_FILE_ACCESS", "PMIX_MONITOR_FILE_MODIFY", "PMIX_MONITOR_FILE_CHECK_TIME",
      "PMIX_MONITOR_FILE_DROPS", "PMIX_MONITOR_CANCEL", "PMIX_MONITOR_ID", "PMIX_RANGE",
      "PMIX_TIMEOUT"}},
    {"PMIx_Query_info",
     {"PMIX_QUERY_NAMESPACES", "PMIX_QUERY_PROC_TABLE", "PMIX_QUERY_LOCAL_PROC_TABLE",
      "PMIX_QUERY_AVAIL_SERVERS", "PMIX_QUERY_ATTRIBUTE_SUPPORT", "PMIX_QUERY_STABLE_ABI_VERSION",
      "PMIX_QUERY_PROVISIONAL_ABI_VERSION"}},
    {"PMIx_Allocation_request", {"PMIX_TIMEOUT"}},
    {"PMIx_Compute_distances", {"PMIX_DEVICE_TYPE", "PMIX_DEVICE_ID"}},
    // Groups (server/groups.cpp, group_members.cpp): what construct and invite act on.
    {"PMIx_Group_construct",
     {"PMIX_GROUP_LEADER", "PMIX_GROUP_OPTIONAL", "PMIX_GROUP_NOTIFY_TERMINATION",
      "PMIX_GROUP_ASSIGN_CONTEXT_ID", "PMIX_GROUP_LOCAL_ONLY", "PMIX_GROUP_FT_COLLECTIVE",
      "PMIX_GROUP_ENDPT_DATA", "PMIX_TIMEOUT"}},
    {"PMIx_Group_invite",
     {"PMIX_GROUP_ASSIGN_CONTEXT_ID", "PMIX_GROUP_FT_COLLECTIVE", "PMIX_TIMEOUT"}},
    {"PMIx_Group_join", {"PMIX_TIMEOUT"}},
    {"PMIx_Group_destruct", {"PMIX_TIMEOUT"}},
    {"PMIx_IOF_pull",
     {"PMIX_TIMEOUT", "PMIX_IOF_TAG_OUTPUT", "PMIX_IOF_TAG_FULLNAME_OUTPUT",
      "PMIX_IOF_RANK_OUTPUT", "PMIX_IOF_TIMESTAMP_OUTPUT", "PMIX_IOF_XML_OUTPUT",
      "PMIX_IOF_OUTPUT_RAW", "PMIX_IOF_BUFFERING_SIZE", "PMIX_IOF_BUFFERING_TIME",
      "PMIX_IOF_OUTPUT_TO_FILE", "PMIX_IOF_OUTPUT_TO_DIRECTORY", "PMIX_IOF_FILE_PATTERN",
      "PMIX_IOF_FILE_ONLY", "PMIX_IOF_MERGE_STDERR_STDOUT", "PMIX_IOF_LOCAL_OUTPUT"}},
    {"PMIx_IOF_push", {"PMIX_IOF_PUSH_STDIN", "PMIX_IOF_COMPLETE"}},
};

const std::vector<FunctionAttributes> kTool = {
    {"PMIx_tool_init",
     {"PMIX_TOOL_NSPACE", "PMIX_TOOL_RANK", "PMIX_TOOL_ATTACHMENT_FILE", "PMIX_SERVER_URI",
      "PMIX_TCP_URI", "PMIX_SERVER_PIDINFO", "PMIX_SERVER_NSPACE", "PMIX_CONNECT_TO_SYSTEM",
      "PMIX_CONNECT_SYSTEM_FIRST", "PMIX_CONNECT_MAX_RETRIES", "PMIX_CONNECT_RETRY_DELAY",
      "PMIX_TOOL_CONNECT_OPTIONAL", "PMIX_TOOL_DO_NOT_CONNECT", "PMIX_SERVER_TMPDIR",
      "PMIX_SYSTEM_TMPDIR", "PMIX_SERVER_HOSTNAME", "PMIX_HOSTNAME"}},
    {"PMIx_tool_attach_to_server",
     {"PMIX_PRIMARY_SERVER", "PMIX_TOOL_ATTACHMENT_FILE", "PMIX_SERVER_URI", "PMIX_TCP_URI",
      "PMIX_SERVER_PIDINFO", "PMIX_SERVER_NSPACE", "PMIX_CONNECT_TO_SYSTEM",
      "PMIX_CONNECT_SYSTEM_FIRST", "PMIX_CONNECT_MAX_RETRIES", "PMIX_CONNECT_RETRY_DELAY",
      "PMIX_SERVER_TMPDIR", "PMIX_SYSTEM_TMPDIR"}},
    {"PMIx_tool_set_server", {"PMIX_WAIT_FOR_CONNECTION", "PMIX_TIMEOUT"}},
};

const std::vector<FunctionAttributes> kServer = {
    {"PMIx_server_init",
     {"PMIX_SERVER_TOOL_SUPPORT", "PMIX_SERVER_SYSTEM_SUPPORT", "PMIX_SERVER_SESSION_SUPPORT",
      "PMIX_SERVER_SCHEDULER", "PMIX_SERVER_TMPDIR", "PMIX_SYSTEM_TMPDIR", "PMIX_SERVER_NSPACE",
      "PMIX_SERVER_RANK", "PMIX_HOSTNAME", "PMIX_LAUNCHER_RENDEZVOUS_FILE",
      "PMIX_SERVER_REMOTE_CONNECTIONS", "PMIX_TCP_IPV4_PORT", "PMIX_CRYPTO_KEY",
      "PMIX_IOF_CACHE_SIZE", "PMIX_IOF_DROP_OLDEST", "PMIX_IOF_DROP_NEWEST"}},
    {"PMIx_server_register_nspace",
     {"PMIX_JOB_SIZE", "PMIX_MAX_PROCS", "PMIX_NODE_MAP", "PMIX_PROC_MAP", "PMIX_PROC_DATA",
      "PMIX_APP_INFO_ARRAY", "PMIX_NODE_INFO_ARRAY", "PMIX_LOCAL_PEERS", "PMIX_LOCAL_SIZE",
      "PMIX_NPROC_OFFSET", "PMIX_JOB_NUM_APPS", "PMIX_SERVER_TMPDIR", "PMIX_SYSTEM_TMPDIR",
      "PMIX_TMPDIR", "PMIX_NSDIR", "PMIX_TDIR_RMCLEAN", "PMIX_SESSION_INFO_ARRAY",
      "PMIX_SET_ENVAR", "PMIX_ADD_ENVAR", "PMIX_UNSET_ENVAR", "PMIX_PREPEND_ENVAR",
      "PMIX_APPEND_ENVAR", "PMIX_FIRST_ENVAR",
      // A job-level entry the client library acts on: it waits in PMIx_Init for a debugger.
      "PMIX_DEBUG_STOP_IN_INIT"}},
    {"PMIx_server_setup_application",
     {"PMIX_SETUP_APP_ENVARS", "PMIX_SETUP_APP_NONENVARS", "PMIX_SETUP_APP_ALL", "PMIX_SET_ENVAR",
      "PMIX_ADD_ENVAR", "PMIX_UNSET_ENVAR", "PMIX_PREPEND_ENVAR", "PMIX_APPEND_ENVAR",
      "PMIX_FIRST_ENVAR"}},
};

// The host's registrations (PMIx_Register_attributes), in registration order.
std::mutex g_host_mutex;
std::vector<FunctionAttributes> g_host;

void load(pmix_info_t* info, const char* key, const void* data, pmix_data_type_t type) {
    std::memset(info, 0, sizeof(*info));
    std::strncpy(info->key, key, PMIX_MAX_KEYLEN);
    value_load(&info->value, data, type);
}

bool wanted(const std::string& list, const std::string& function) {
    std::stringstream in(list);
    for (std::string f; std::getline(in, f, ',');) {
        if (f == "all" || f == function) return true;
    }
    return false;
}

// One info per requested function of `level`: key = function, value = its pmix_regattr_t array.
void attributes_of(AttrLevel level, const std::string& functions, std::vector<pmix_info_t>* out) {
    for (const auto& fa : supported_attributes(level)) {
        if (!wanted(functions, fa.function)) continue;
        std::vector<pmix_regattr_t> attrs(fa.attributes.size());
        for (std::size_t i = 0; i < attrs.size(); ++i) {
            const text::AttributeInfo* a = text::find_attribute_by_name(fa.attributes[i].c_str());
            attrs[i].name = const_cast<char*>(fa.attributes[i].c_str());
            std::strncpy(attrs[i].string, a != nullptr ? a->string : "", PMIX_MAX_KEYLEN);
            attrs[i].type = a != nullptr ? a->type : PMIX_UNDEF;
            attrs[i].description = nullptr;
        }
        pmix_data_array_t darray{PMIX_REGATTR, attrs.size(), attrs.data()};
        out->emplace_back();
        load(&out->back(), fa.function.c_str(), &darray, PMIX_DATA_ARRAY);  // deep copy
    }
}

void functions_of(AttrLevel level, const char* key, std::vector<pmix_info_t>* out) {
    std::string names;
    for (const auto& fa : supported_attributes(level))
        names += (names.empty() ? "" : ",") + fa.function;
    out->emplace_back();
    load(&out->back(), key, names.c_str(), PMIX_STRING);
}

}  // namespace

std::vector<FunctionAttributes> supported_attributes(AttrLevel level) {
    switch (level) {
        case AttrLevel::server:
            return kServer;
        case AttrLevel::tool:
            return kTool;
        case AttrLevel::host: {
            std::lock_guard lock(g_host_mutex);
            return g_host;
        }
        case AttrLevel::client:
            break;
    }
    return kClient;
}

pmix_status_t register_host_attributes(const char* function, char* const attrs[]) {
    if (function == nullptr || function[0] == '\0' || std::strlen(function) > 256)
        return PMIX_ERR_BAD_PARAM;
    FunctionAttributes fa{function, {}};
    for (std::size_t i = 0; attrs != nullptr && attrs[i] != nullptr; ++i) {
        if (std::strlen(attrs[i]) > 256 || i >= 4096) return PMIX_ERR_BAD_PARAM;
        fa.attributes.emplace_back(attrs[i]);
    }
    std::lock_guard lock(g_host_mutex);
    for (const auto& known : g_host) {
        if (known.function == fa.function) return PMIX_ERR_REPEAT_ATTR_REGISTRATION;
    }
    g_host.push_back(std::move(fa));
    return PMIX_SUCCESS;
}

void clear_host_attributes() {
    std::lock_guard lock(g_host_mutex);
    g_host.clear();
}

bool asks_host_level(const pmix_query_t& q) {
    for (std::size_t i = 0; q.qualifiers != nullptr && i < q.nqual; ++i) {
        if (key_is(q.qualifiers[i].key, PMIX_HOST_ATTRIBUTES) ||
            key_is(q.qualifiers[i].key, PMIX_HOST_FUNCTIONS))
            return true;
    }
    return false;
}

bool answer_attribute_support(const pmix_query_t& q, pmix_info_t* out) {
    std::vector<pmix_info_t> parts;
    if (q.qualifiers == nullptr || q.nqual == 0) {
        functions_of(AttrLevel::client, PMIX_CLIENT_FUNCTIONS, &parts);
        functions_of(AttrLevel::server, PMIX_SERVER_FUNCTIONS, &parts);
        functions_of(AttrLevel::tool, PMIX_TOOL_FUNCTIONS, &parts);
    }
    for (std::size_t i = 0; q.qualifiers != nullptr && i < q.nqual; ++i) {
        const pmix_info_t& qual = q.qualifiers[i];
        const std::string list = qual.value.type == PMIX_STRING && qual.value.data.string != nullptr
                                     ? qual.value.data.string
                                     : "all";
        if (key_is(qual.key, PMIX_CLIENT_ATTRIBUTES))
            attributes_of(AttrLevel::client, list, &parts);
        else if (key_is(qual.key, PMIX_SERVER_ATTRIBUTES))
            attributes_of(AttrLevel::server, list, &parts);
        else if (key_is(qual.key, PMIX_TOOL_ATTRIBUTES) || key_is(qual.key, kStdToolAttributes)) {
            attributes_of(AttrLevel::tool, list, &parts);
        } else if (key_is(qual.key, PMIX_CLIENT_FUNCTIONS))
            functions_of(AttrLevel::client, qual.key, &parts);
        else if (key_is(qual.key, PMIX_SERVER_FUNCTIONS))
            functions_of(AttrLevel::server, qual.key, &parts);
        else if (key_is(qual.key, PMIX_TOOL_FUNCTIONS))
            functions_of(AttrLevel::tool, qual.key, &parts);
        else if (key_is(qual.key, PMIX_HOST_ATTRIBUTES))
            attributes_of(AttrLevel::host, list, &parts);
        else if (key_is(qual.key, PMIX_HOST_FUNCTIONS) &&
                 !supported_attributes(AttrLevel::host).empty()) {
            functions_of(AttrLevel::host, qual.key, &parts);
        }
    }
    if (parts.empty()) return false;
    pmix_data_array_t darray{PMIX_INFO, parts.size(), parts.data()};
    load(out, PMIX_QUERY_ATTRIBUTE_SUPPORT, &darray, PMIX_DATA_ARRAY);
    for (auto& p : parts) info_destruct(&p);
    return true;
}

}  // namespace pmix::data
