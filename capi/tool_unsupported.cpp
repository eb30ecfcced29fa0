// capi/tool_unsupported.cpp - the tool API (pmix_tool.h, plus the deprecated
// PMIx_tool_connect_to_server) until tool support lands.
//
// PMIx_tool_init cannot succeed yet: PMIX_ERR_NOT_SUPPORTED, outputs untouched. Everything else
// answers PMIX_ERR_INIT (not initialised) and never invokes a callback. The IOF calls are declared
// in pmix_tool.h but clients and servers use them too: once this process is initialised in either
// role they answer PMIX_ERR_NOT_SUPPORTED instead.
#include "client/client.h"
#include "server/api.h"

#include <pmix_tool.h>

namespace {
pmix_status_t not_available() {
    return (pmix::client::initialized() || pmix::server::initialized()) ? PMIX_ERR_NOT_SUPPORTED
                                                                         : PMIX_ERR_INIT;
}
}  // namespace

pmix_status_t PMIx_tool_init(pmix_proc_t*, pmix_info_t[], size_t) {
    return PMIX_ERR_NOT_SUPPORTED;
}

pmix_status_t PMIx_tool_finalize(void) {
    return not_available();
}

pmix_status_t PMIx_tool_disconnect(const pmix_proc_t*) {
    return not_available();
}

pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t*, pmix_proc_t*, pmix_info_t[], size_t) {
    return not_available();
}

pmix_status_t PMIx_tool_get_servers(pmix_proc_t*[], size_t*) {
    return not_available();
}

pmix_status_t PMIx_tool_set_server(const pmix_proc_t*, pmix_info_t[], size_t) {
    return not_available();
}

// Deprecated (pmix_deprecated.h) in favour of PMIx_tool_attach_to_server; same answer.
pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t*, pmix_info_t[], size_t) {
    return not_available();
}

pmix_status_t PMIx_IOF_pull(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                            pmix_iof_channel_t, pmix_iof_cbfunc_t, pmix_hdlr_reg_cbfunc_t,
                            void*) {
    return not_available();
}

pmix_status_t PMIx_IOF_deregister(size_t, const pmix_info_t[], size_t, pmix_op_cbfunc_t, void*) {
    return not_available();
}

pmix_status_t PMIx_IOF_push(const pmix_proc_t[], size_t, pmix_byte_object_t*,
                            const pmix_info_t[], size_t, pmix_op_cbfunc_t, void*) {
    return not_available();
}
