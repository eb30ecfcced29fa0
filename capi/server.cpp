// capi/server.cpp - server lifecycle, registration, setup_fork, direct modex and application
// setup (pmix_server.h). Each shim checks its arguments and calls one pmix::server function.
#include "compose.h"
#include "shim_support.h"

#include "data/attr_support.h"
#include "server/api.h"

#include <pmix_server.h>

#include <cstring>

using pmix::capi::guarded;

namespace {
// A call that returns void reports its refusal through the callback, but never from inside the
// host's call: the host may hold the lock its callback takes (server/README.md, "Callback
// discipline").
void report_later(pmix_status_t rc, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (rc == PMIX_SUCCESS || cbfunc == nullptr) return;
    pmix::server::call_host_later([rc, cbfunc, cbdata] { cbfunc(rc, cbdata); });
}
}  // namespace

pmix_status_t PMIx_server_init(pmix_server_module_t* module, pmix_info_t info[], size_t ninfo) {
    return guarded([&] {
        if (ninfo > 0 && info == nullptr) return PMIX_ERR_BAD_PARAM;
        return pmix::capi::server_init(module, info, ninfo);  // the server, wired to the client API
    });
}

pmix_status_t PMIx_server_finalize(void) {
    return guarded([] { return pmix::server::finalize(); });
}

pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace, int nlocalprocs,
                                          pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                          void* cbdata) {
    return guarded([&] {
        if (nspace == nullptr || nspace[0] == '\0' || (ninfo > 0 && info == nullptr)) {
            return PMIX_ERR_BAD_PARAM;
        }
        return pmix::server::register_nspace(nspace, nlocalprocs, info, ninfo, cbfunc, cbdata);
    });
}

void PMIx_server_deregister_nspace(const pmix_nspace_t nspace, pmix_op_cbfunc_t cbfunc,
                                   void* cbdata) {
    // Returns void: the callback is the only channel for an error.
    pmix::capi::guarded_void([&] {
        const pmix_status_t rc = guarded([&] {
            if (nspace == nullptr) return PMIX_ERR_BAD_PARAM;
            return pmix::server::deregister_nspace(nspace, cbfunc, cbdata);
        });
        report_later(rc, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_server_register_client(const pmix_proc_t* proc, uid_t uid, gid_t gid,
                                          void* server_object, pmix_op_cbfunc_t cbfunc,
                                          void* cbdata) {
    return guarded([&] {
        if (proc == nullptr || proc->nspace[0] == '\0') return PMIX_ERR_BAD_PARAM;
        return pmix::server::register_client(*proc, uid, gid, server_object, cbfunc, cbdata);
    });
}

void PMIx_server_deregister_client(const pmix_proc_t* proc, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    pmix::capi::guarded_void([&] {
        const pmix_status_t rc = guarded([&] {
            if (proc == nullptr) return PMIX_ERR_BAD_PARAM;
            return pmix::server::deregister_client(*proc, cbfunc, cbdata);
        });
        report_later(rc, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_server_setup_fork(const pmix_proc_t* proc, char*** env) {
    return guarded([&] {
        if (proc == nullptr || env == nullptr) return PMIX_ERR_BAD_PARAM;
        return pmix::server::setup_fork(*proc, env);
    });
}

// The host says which attributes it supports for a function; PMIX_QUERY_ATTRIBUTE_SUPPORT with
// PMIX_HOST_ATTRIBUTES / PMIX_HOST_FUNCTIONS answers from these (data/attr_support.h).
pmix_status_t PMIx_Register_attributes(char* function, char* attrs[]) {
    return guarded([&] {
        if (!pmix::server::initialized()) return PMIX_ERR_INIT;
        return pmix::data::register_host_attributes(function, attrs);
    });
}

pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t* proc, pmix_dmodex_response_fn_t cbfunc,
                                         void* cbdata) {
    return guarded([&] {
        if (proc == nullptr || cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
        return pmix::server::dmodex_request(*proc, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace, pmix_info_t info[],
                                            size_t ninfo, pmix_setup_application_cbfunc_t cbfunc,
                                            void* cbdata) {
    return guarded([&] {
        if (nspace == nullptr || cbfunc == nullptr || (ninfo > 0 && info == nullptr)) {
            return PMIX_ERR_BAD_PARAM;
        }
        return pmix::server::setup_application(nspace, info, ninfo, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace, pmix_info_t info[],
                                              size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        if (nspace == nullptr || (ninfo > 0 && info == nullptr)) return PMIX_ERR_BAD_PARAM;
        return pmix::server::setup_local_support(nspace, info, ninfo, cbfunc, cbdata);
    });
}

// ---- inventory and resources (server/resources.cpp) ------------------------------------------

pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
                                            pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return pmix::capi::guarded(
        [&] { return pmix::server::collect_inventory(directives, ndirs, cbfunc, cbdata); });
}

pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
                                            pmix_info_t directives[], size_t ndirs,
                                            pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return pmix::capi::guarded([&] {
        return pmix::server::deliver_inventory(info, ninfo, directives, ndirs, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
                                             pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return pmix::capi::guarded(
        [&] { return pmix::server::register_resources(info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
                                               pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return pmix::capi::guarded(
        [&] { return pmix::server::deregister_resources(info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_server_define_process_set(const pmix_proc_t* members, size_t nmembers,
                                             const char* pset_name) {
    return guarded([&] {
        if (!pmix::server::initialized()) return PMIX_ERR_INIT;
        return pmix::server::define_process_set(members, nmembers, pset_name);
    });
}

pmix_status_t PMIx_server_delete_process_set(char* pset_name) {
    return guarded([&] {
        if (!pmix::server::initialized()) return PMIX_ERR_INIT;
        return pmix::server::delete_process_set(pset_name);
    });
}

pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t* source, pmix_iof_channel_t channel,
                                      const pmix_byte_object_t* bo, const pmix_info_t info[],
                                      size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        if (!pmix::server::initialized()) return PMIX_ERR_INIT;
        if (source == nullptr || bo == nullptr || (bo->size > 0 && bo->bytes == nullptr) ||
            (ninfo > 0 && info == nullptr)) {
            return PMIX_ERR_BAD_PARAM;
        }
        return pmix::server::iof_deliver(*source, channel, *bo, info, ninfo, cbfunc, cbdata);
    });
}
