// capi/tool.cpp - the tool API (pmix_tool.h, plus the deprecated PMIx_tool_connect_to_server):
// client/tool.cpp does the work; init and finalize of a PMIX_LAUNCHER tool also start and stop
// its server side (compose.h, server/tool_admission.h).
//
// IO forwarding (declared in pmix_tool.h, used by clients and tools): pull and deregister in
// client/iof.cpp, push in client/iof_push.cpp; in a process that is only a server they answer
// PMIX_ERR_NOT_SUPPORTED (a host has its own output and writes its ranks' stdin itself).
#include "client/client.h"
#include "compose.h"
#include "shim_support.h"

#include <pmix_tool.h>

using pmix::capi::guarded;

pmix_status_t PMIx_tool_init(pmix_proc_t* proc, pmix_info_t info[], size_t ninfo) {
    return guarded([&] { return pmix::capi::tool_init(proc, info, ninfo); });
}

pmix_status_t PMIx_tool_finalize(void) {
    return guarded([] { return pmix::capi::tool_finalize(); });
}

pmix_status_t PMIx_tool_disconnect(const pmix_proc_t* server) {
    return guarded([&] { return pmix::client::tool_disconnect(server); });
}

pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t* myproc, pmix_proc_t* server,
                                         pmix_info_t info[], size_t ninfo) {
    return guarded(
        [&] { return pmix::client::tool_attach_to_server(myproc, server, info, ninfo); });
}

pmix_status_t PMIx_tool_get_servers(pmix_proc_t* servers[], size_t* nservers) {
    return guarded([&] { return pmix::client::tool_get_servers(servers, nservers); });
}

pmix_status_t PMIx_tool_set_server(const pmix_proc_t* server, pmix_info_t info[], size_t ninfo) {
    return guarded([&] { return pmix::client::tool_set_server(server, info, ninfo); });
}

// Deprecated (pmix_deprecated.h) in favour of PMIx_tool_attach_to_server.
pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t* myproc, pmix_info_t info[], size_t ninfo) {
    return guarded([&] {
        pmix_proc_t server{};
        return pmix::client::tool_attach_to_server(myproc, &server, info, ninfo);
    });
}

pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                            const pmix_info_t directives[], size_t ndirs,
                            pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                            pmix_hdlr_reg_cbfunc_t regcbfunc, void* regcbdata) {
    return guarded([&] {
        if (!pmix::client::initialized()) return pmix::capi::not_implemented_status();
        return pmix::client::iof_pull(procs, nprocs, directives, ndirs, channel, cbfunc, regcbfunc,
                                      regcbdata);
    });
}

pmix_status_t PMIx_IOF_deregister(size_t iofhdlr, const pmix_info_t directives[], size_t ndirs,
                                  pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        if (!pmix::client::initialized()) return pmix::capi::not_implemented_status();
        return pmix::client::iof_deregister(iofhdlr, directives, ndirs, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets, pmix_byte_object_t* bo,
                            const pmix_info_t directives[], size_t ndirs, pmix_op_cbfunc_t cbfunc,
                            void* cbdata) {
    return guarded([&] {
        if (!pmix::client::initialized()) return pmix::capi::not_implemented_status();
        return pmix::client::iof_push(targets, ntargets, bo, directives, ndirs, cbfunc, cbdata);
    });
}
