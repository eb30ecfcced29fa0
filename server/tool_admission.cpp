// server/tool_admission.cpp - see tool_admission.h.
#include "server/tool_admission.h"

#include "data/value.h"
#include "server/api.h"
#include "server/state.h"
#include "wire/rendezvous.h"

#include <pmix_server.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace pmix::server {

namespace {

// The launcher server this file started (guarded by g_mutex), its namespace and tool count
// (written before the server starts, read by the hook on the server's thread).
std::mutex g_mutex;
bool g_started = false;
std::string g_nspace;
std::atomic<unsigned> g_tools{0};

// The hook the launcher's server calls (on its own thread, never inside a caller's call).
void launcher_tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                             void* cbdata) {
    pmix_proc_t tool;
    PMIX_PROC_CONSTRUCT(&tool);
    const pmix_status_t rc = admit_tool(info, ninfo, g_nspace, g_tools + 1, &tool);
    if (rc == PMIX_SUCCESS) ++g_tools;
    cbfunc(rc, rc == PMIX_SUCCESS ? &tool : nullptr, cbdata);
}

}  // namespace

pmix_status_t admit_tool(const pmix_info_t* info, std::size_t ninfo, std::string_view server_nspace,
                         unsigned number, pmix_proc_t* tool) {
    const pmix_info_t* uid = data::find_info(info, ninfo, PMIX_USERID);
    if (uid == nullptr || uid->value.type != PMIX_UINT32 || uid->value.data.uint32 != ::geteuid()) {
        return PMIX_ERR_NO_PERMISSIONS;
    }
    const pmix_info_t* ns = data::find_info(info, ninfo, PMIX_TOOL_NSPACE);
    if (ns != nullptr && ns->value.type == PMIX_STRING && ns->value.data.string != nullptr) {
        if (std::strlen(ns->value.data.string) > PMIX_MAX_NSLEN) return PMIX_ERR_BAD_PARAM;
        const pmix_info_t* rank = data::find_info(info, ninfo, PMIX_TOOL_RANK);
        const bool ranked = rank != nullptr && rank->value.type == PMIX_PROC_RANK;
        PMIX_LOAD_PROCID(tool, ns->value.data.string, ranked ? rank->value.data.rank : 0);
        return PMIX_SUCCESS;
    }
    // snprintf, not std::to_string: the latter's inline table is a GNU "unique" symbol, which the
    // shared library would export despite hidden visibility (abi_symbols checks the export list).
    char name[PMIX_MAX_NSLEN + 2];
    const int n =
        std::snprintf(name, sizeof name, "%.*s.tool.%u", static_cast<int>(server_nspace.size()),
                      server_nspace.data(), number);
    if (n < 0 || static_cast<std::size_t>(n) > PMIX_MAX_NSLEN) return PMIX_ERR_BAD_PARAM;
    PMIX_LOAD_PROCID(tool, name, 0);
    return PMIX_SUCCESS;
}

pmix_status_t start_launcher_server(const pmix_proc_t& me, const pmix_info_t* info,
                                    std::size_t ninfo) {
    std::lock_guard lock(g_mutex);
    if (g_started || initialized()) return PMIX_SUCCESS;
    pmix_server_module_t module{};
    module.tool_connected = launcher_tool_connected;
    g_nspace.assign(me.nspace, strnlen(me.nspace, PMIX_MAX_NSLEN));
    std::vector<pmix_info_t> sinfo(3);
    bool yes = true;
    data::info_load(&sinfo[0], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    data::info_load(&sinfo[1], PMIX_SERVER_NSPACE, g_nspace.c_str(), PMIX_STRING);
    data::info_load(&sinfo[2], PMIX_SERVER_RANK, &me.rank, PMIX_PROC_RANK);
    for (const char* key : {PMIX_SERVER_TMPDIR, PMIX_SYSTEM_TMPDIR, PMIX_LAUNCHER_RENDEZVOUS_FILE,
                            PMIX_SERVER_REMOTE_CONNECTIONS, PMIX_TCP_IPV4_PORT}) {
        if (const pmix_info_t* given = data::find_info(info, ninfo, key)) {
            sinfo.emplace_back();
            data::info_xfer(&sinfo.back(), given);
        }
    }
    const pmix_status_t rc = init(&module, sinfo.data(), sinfo.size());
    for (auto& i : sinfo) data::info_destruct(&i);
    g_started = rc == PMIX_SUCCESS;
    return rc;
}

std::string launcher_server_uri() {
    const std::shared_ptr<State> st = current();
    return st == nullptr ? std::string() : wire::make_uri(st->nspace, st->rank, st->socket_path);
}

void stop_launcher_server() {
    std::lock_guard lock(g_mutex);
    if (!g_started) return;
    g_started = false;
    finalize();
}

}  // namespace pmix::server
