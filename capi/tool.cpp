// capi/tool.cpp - the tool API (pmix_tool.h, plus the deprecated PMIx_tool_connect_to_server):
// client/tool.cpp does the work; a PMIX_LAUNCHER tool also gets the server side (below).
//
// IO forwarding is not there yet: the IOF calls (declared in pmix_tool.h, used by clients and
// servers too) answer PMIX_ERR_INIT before any init and PMIX_ERR_NOT_SUPPORTED after.
#include "client/client.h"
#include "data/directives.h"
#include "data/value.h"
#include "server/api.h"

#include <pmix_server.h>
#include <pmix_tool.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {
pmix_status_t not_available() {
    return (pmix::client::initialized() || pmix::server::initialized()) ? PMIX_ERR_NOT_SUPPORTED
                                                                        : PMIX_ERR_INIT;
}
}  // namespace

namespace {

// PMIX_LAUNCHER: the tool is a launcher, so other tools must be able to find and reach it. It
// gets the server side too, in this process and under its tool identity: a listener and the
// rendezvous files (server/tools.cpp), and a built-in tool_connected that admits tools of this
// user only (a launcher has no host module to ask). Stopped by the last PMIx_tool_finalize.
std::atomic<bool> g_launcher_server{false};
std::atomic<unsigned> g_launcher_tools{0};
std::string g_launcher_nspace;

void launcher_tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                             void* cbdata) {
    const pmix_info_t* uid = pmix::data::find_info(info, ninfo, PMIX_USERID);
    const pmix_info_t* ns = pmix::data::find_info(info, ninfo, PMIX_TOOL_NSPACE);
    const pmix_info_t* rank = pmix::data::find_info(info, ninfo, PMIX_TOOL_RANK);
    if (uid == nullptr || uid->value.type != PMIX_UINT32 || uid->value.data.uint32 != ::geteuid()) {
        cbfunc(PMIX_ERR_NO_PERMISSIONS, nullptr, cbdata);
        return;
    }
    pmix_proc_t who;
    PMIX_PROC_CONSTRUCT(&who);
    // snprintf, not std::to_string: the latter's inline table is a GNU "unique" symbol, which the
    // shared library would export despite hidden visibility (abi_symbols checks the export list).
    char number[16];
    std::snprintf(number, sizeof number, "%u", ++g_launcher_tools);
    const std::string assigned = g_launcher_nspace + ".tool." + number;
    const bool named =
        ns != nullptr && ns->value.type == PMIX_STRING && ns->value.data.string != nullptr;
    PMIX_LOAD_PROCID(
        &who, named ? ns->value.data.string : assigned.c_str(),
        named && rank != nullptr && rank->value.type == PMIX_PROC_RANK ? rank->value.data.rank : 0);
    cbfunc(PMIX_SUCCESS, &who, cbdata);
}

// The launcher's server: tool support, its identity, and the caller's tmpdir / rendezvous /
// remote-connection attributes passed through.
pmix_status_t start_launcher_server(const pmix_proc_t& me, const pmix_info_t* info, size_t ninfo) {
    static pmix_server_module_t module;
    module = pmix_server_module_t{};
    module.tool_connected = launcher_tool_connected;
    g_launcher_nspace.assign(me.nspace, strnlen(me.nspace, PMIX_MAX_NSLEN));
    std::vector<pmix_info_t> sinfo(3);
    bool yes = true;
    PMIx_Info_load(&sinfo[0], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIx_Info_load(&sinfo[1], PMIX_SERVER_NSPACE, g_launcher_nspace.c_str(), PMIX_STRING);
    PMIx_Info_load(&sinfo[2], PMIX_SERVER_RANK, &me.rank, PMIX_PROC_RANK);
    for (const char* key : {PMIX_SERVER_TMPDIR, PMIX_SYSTEM_TMPDIR, PMIX_LAUNCHER_RENDEZVOUS_FILE,
                            PMIX_SERVER_REMOTE_CONNECTIONS, PMIX_TCP_IPV4_PORT}) {
        if (const pmix_info_t* i = pmix::data::find_info(info, ninfo, key)) {
            sinfo.emplace_back();
            PMIx_Info_xfer(&sinfo.back(), i);
        }
    }
    const pmix_status_t rc = pmix::server::init(&module, sinfo.data(), sinfo.size());
    for (auto& i : sinfo) pmix::data::info_destruct(&i);
    return rc;
}

}  // namespace

pmix_status_t PMIx_tool_init(pmix_proc_t* proc, pmix_info_t info[], size_t ninfo) {
    pmix_proc_t me;
    PMIX_PROC_CONSTRUCT(&me);
    const pmix_status_t rc = pmix::client::tool_init(&me, info, ninfo);
    if (rc != PMIX_SUCCESS) return rc;
    if (proc != nullptr) *proc = me;
    // Only the first init of a launcher starts the server side, and never over a host's own.
    if (pmix::data::info_true(info, ninfo, PMIX_LAUNCHER) && !g_launcher_server &&
        !pmix::server::initialized()) {
        if (const pmix_status_t srv = start_launcher_server(me, info, ninfo); srv != PMIX_SUCCESS) {
            pmix::client::tool_finalize();
            return srv;
        }
        g_launcher_server = true;
    }
    return PMIX_SUCCESS;
}

pmix_status_t PMIx_tool_finalize(void) {
    const pmix_status_t rc = pmix::client::tool_finalize();
    if (rc == PMIX_SUCCESS && g_launcher_server && !pmix::client::initialized()) {
        g_launcher_server = false;
        pmix::server::finalize();
    }
    return rc;
}

pmix_status_t PMIx_tool_disconnect(const pmix_proc_t* server) {
    return pmix::client::tool_disconnect(server);
}

pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t* myproc, pmix_proc_t* server,
                                         pmix_info_t info[], size_t ninfo) {
    return pmix::client::tool_attach_to_server(myproc, server, info, ninfo);
}

pmix_status_t PMIx_tool_get_servers(pmix_proc_t* servers[], size_t* nservers) {
    return pmix::client::tool_get_servers(servers, nservers);
}

pmix_status_t PMIx_tool_set_server(const pmix_proc_t* server, pmix_info_t info[], size_t ninfo) {
    return pmix::client::tool_set_server(server, info, ninfo);
}

// Deprecated (pmix_deprecated.h) in favour of PMIx_tool_attach_to_server.
pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t* myproc, pmix_info_t info[], size_t ninfo) {
    pmix_proc_t server{};
    return pmix::client::tool_attach_to_server(myproc, &server, info, ninfo);
}

pmix_status_t PMIx_IOF_pull(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                            pmix_iof_channel_t, pmix_iof_cbfunc_t, pmix_hdlr_reg_cbfunc_t, void*) {
    return not_available();
}

pmix_status_t PMIx_IOF_deregister(size_t, const pmix_info_t[], size_t, pmix_op_cbfunc_t, void*) {
    return not_available();
}

pmix_status_t PMIx_IOF_push(const pmix_proc_t[], size_t, pmix_byte_object_t*, const pmix_info_t[],
                            size_t, pmix_op_cbfunc_t, void*) {
    return not_available();
}
