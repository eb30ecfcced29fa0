// capi/compose.cpp - see compose.h.
#include "compose.h"
#include "self_spawn.h"

#include "client/client.h"
#include "client/host_mode.h"
#include "data/directives.h"
#include "data/value.h"
#include "server/api.h"
#include "server/tool_admission.h"

#include <string>

namespace pmix::capi {

namespace {

// The server's entry points the client API uses in a host (client/host_mode.h).
constexpr client::HostServer kThisServer = {
    .running = &server::initialized,
    .identity = &server::identity,
    .get_local = &server::get_local,
    .store_internal = &server::store_internal,
    .notify_event = &server::notify_event,
    .post = &server::post,
    .allocate = &server::own_allocate,
    .fabric = &server::own_fabric,
    .on_server_thread = &server::on_server_thread,
    .get_credential = &server::get_own_credential,
    .validate_credential = &server::validate_own_credential,
};

// PMIx_Get(own proc, PMIX_MYSERVER_URI) of a launcher tool: its server's URI, what an initiator
// hands the launcher it starts (PMIX_LAUNCHER_RNDZ_URI). Also under PMIX_SERVER_URI, the legacy
// key OpenPMIx 4.2.2 stores beside it (PRRTE 2.0.2's examples/debugger/indirect.c reads it).
void store_own_uri(const pmix_proc_t& me) {
    const std::string uri = server::launcher_server_uri();
    if (uri.empty()) return;
    pmix_value_t value;
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_STRING;
    value.data.string = const_cast<char*>(uri.c_str());
    (void)client::store_internal(&me, PMIX_MYSERVER_URI, &value);
    (void)client::store_internal(&me, PMIX_SERVER_URI, &value);
}

}  // namespace

pmix_status_t server_init(const pmix_server_module_t* module, const pmix_info_t* info,
                          std::size_t ninfo) {
    const pmix_status_t rc = server::init(module, info, ninfo);
    if (rc == PMIX_SUCCESS) {
        server::set_host_event_sink(&client::deliver_local_event);
        client::set_host_server(&kThisServer);
    }
    return rc;
}

pmix_status_t tool_init(pmix_proc_t* proc, const pmix_info_t* info, std::size_t ninfo) {
    pmix_proc_t me;
    PMIX_PROC_CONSTRUCT(&me);
    if (const pmix_status_t rc = client::tool_init(&me, info, ninfo); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (proc != nullptr) *proc = me;
    if (data::info_true(info, ninfo, PMIX_LAUNCHER)) {
        if (const pmix_status_t rc = server::start_launcher_server(me, info, ninfo);
            rc != PMIX_SUCCESS) {
            client::tool_finalize();
            return rc;
        }
        // The events its tools raise reach the launcher's own handlers, as a host's do: an
        // intermediate launcher it started raises PMIX_LAUNCHER_READY to it this way.
        server::set_host_event_sink(&client::deliver_local_event);
        store_own_uri(me);
    }
    return PMIX_SUCCESS;
}

pmix_status_t tool_finalize() {
    const pmix_status_t rc = client::tool_finalize();
    if (rc == PMIX_SUCCESS && !client::initialized()) {
        self_spawn_finalize();  // the launchers it started end their jobs
        server::stop_launcher_server();
    }
    return rc;
}

pmix_status_t not_implemented_status() {
    return (client::initialized() || server::initialized()) ? PMIX_ERR_NOT_SUPPORTED
                                                            : PMIX_ERR_INIT;
}

}  // namespace pmix::capi
