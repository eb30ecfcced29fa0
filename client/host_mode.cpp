// client/host_mode.cpp - see host_mode.h.
#include "client/host_mode.h"

#include "client/client.h"
#include "data/value.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace pmix::client {

namespace {

std::atomic<const HostServer*> g_server{nullptr};

// A value the server allocated for the caller's callback; released once the callback returns
// (it copies what it keeps), or unrun when the server stops first.
struct ValueRelease {
    void operator()(pmix_value_t* v) const noexcept {
        data::value_destruct(v);
        std::free(v);
    }
};
using OwnedValue = std::unique_ptr<pmix_value_t, ValueRelease>;

}  // namespace

void set_host_server(const HostServer* server) noexcept { g_server.store(server); }

const HostServer* serving_host() noexcept {
    const HostServer* server = g_server.load();
    if (server == nullptr || initialized()) return nullptr;
    return server->running() ? server : nullptr;
}

namespace host {

pmix_status_t get(const HostServer& server, const pmix_proc_t* proc, const char* key,
                  pmix_value_t** value) {
    if (value == nullptr) return PMIX_ERR_BAD_PARAM;
    pmix_proc_t target{};
    if (proc != nullptr) {
        target = *proc;
    } else if (pmix_status_t rc = server.identity(&target); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (target.nspace[0] == '\0') {
        pmix_proc_t me{};
        if (pmix_status_t rc = server.identity(&me); rc != PMIX_SUCCESS) return rc;
        std::memcpy(target.nspace, me.nspace, sizeof target.nspace);
    }
    return server.get_local(target, key, value);
}

pmix_status_t get_nb(const HostServer& server, const pmix_proc_t* proc, const char* key,
                     pmix_value_cbfunc_t cbfunc, void* cbdata) {
    if (cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    pmix_value_t* raw = nullptr;
    const pmix_status_t status = get(server, proc, key, &raw);
    OwnedValue value(raw);
    return server.post([cbfunc, cbdata, status, value = std::move(value)] {
        cbfunc(status, value.get(), cbdata);
    });
}

pmix_status_t store_internal(const HostServer& server, const pmix_proc_t* proc, const char* key,
                             const pmix_value_t* value) {
    if (proc == nullptr || key == nullptr || value == nullptr) return PMIX_ERR_BAD_PARAM;
    return server.store_internal(*proc, key, *value);
}

pmix_status_t register_event_handler(const HostServer& server, const pmix_status_t* codes,
                                     std::size_t ncodes, const pmix_info_t* info, std::size_t ninfo,
                                     pmix_notification_fn_t evhdlr, pmix_hdlr_reg_cbfunc_t cbfunc,
                                     void* cbdata) {
    std::size_t ref = 0;
    const pmix_status_t rc = register_local_handler(codes, ncodes, info, ninfo, evhdlr, &ref);
    if (rc != PMIX_SUCCESS) return rc;
    if (cbfunc == nullptr) return static_cast<pmix_status_t>(ref);  // blocking form: the reference
    // Open MPI's mpirun waits for this callback before going on.
    const pmix_status_t posted =
        server.post([cbfunc, cbdata, ref] { cbfunc(PMIX_SUCCESS, ref, cbdata); });
    if (posted != PMIX_SUCCESS) deregister_local_handler(ref);  // the server stopped meanwhile
    return posted;
}

pmix_status_t deregister_event_handler(const HostServer& server, std::size_t ref,
                                       pmix_op_cbfunc_t cbfunc, void* cbdata) {
    const pmix_status_t rc = deregister_local_handler(ref);
    if (rc != PMIX_SUCCESS || cbfunc == nullptr) return rc;
    // The server stopped meanwhile: the handler is gone all the same, and no callback will come.
    if (server.post([cbfunc, cbdata] { cbfunc(PMIX_SUCCESS, cbdata); }) != PMIX_SUCCESS) {
        return PMIX_OPERATION_SUCCEEDED;
    }
    return PMIX_SUCCESS;
}

}  // namespace host

}  // namespace pmix::client
