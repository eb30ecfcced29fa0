// capi/client.cpp - the client API of pmix.h implemented by client/ (pmix::client).
//
// Each shim only guards against exceptions and forwards; argument rules and statuses live in
// client/ so the C and C++ paths cannot drift apart.
#include "client/client.h"
#include "server/api.h"
#include "shim_support.h"

#include <pmix.h>

#include <cstring>

namespace cl = pmix::client;
using pmix::capi::guarded;

// ---- lifecycle ---------------------------------------------------------------------------------

pmix_status_t PMIx_Init(pmix_proc_t* proc, pmix_info_t info[], size_t ninfo) {
    return guarded([&] { return cl::init(proc, info, ninfo); });
}

int PMIx_Initialized(void) {
    return pmix::capi::guarded_or(0, [] { return cl::initialized() ? 1 : 0; });
}

pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo) {
    return guarded([&] { return cl::finalize(info, ninfo); });
}

pmix_status_t PMIx_Abort(int status, const char msg[], pmix_proc_t procs[], size_t nprocs) {
    return guarded([&] { return cl::abort(status, msg, procs, nprocs); });
}

// ---- key/value exchange ------------------------------------------------------------------------

pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[], pmix_value_t* val) {
    return guarded([&] { return cl::put(scope, key, val); });
}

pmix_status_t PMIx_Commit(void) {
    return guarded([] { return cl::commit(); });
}

namespace {

// PMIx_Get / PMIx_Store_internal in a host (server library only in this process): answered by
// the server's own data, as OpenPMIx does for mpirun/orted (they store their URIs and read their
// own keys back, key = NULL included).
bool serving_only() { return !cl::initialized() && pmix::server::initialized(); }

pmix_status_t host_get(const pmix_proc_t* proc, const char* key, pmix_value_t** val) {
    if (val == nullptr) return PMIX_ERR_BAD_PARAM;
    pmix_proc_t target{};
    if (proc != nullptr) {
        target = *proc;
    } else if (pmix_status_t rc = pmix::server::identity(&target); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (target.nspace[0] == '\0') {
        pmix_proc_t me{};
        if (pmix_status_t rc = pmix::server::identity(&me); rc != PMIX_SUCCESS) return rc;
        std::memcpy(target.nspace, me.nspace, sizeof target.nspace);
    }
    return pmix::server::get_local(target, key, val);
}

struct HostGet {
    pmix_value_cbfunc_t cbfunc;
    void* cbdata;
    pmix_status_t status;
    pmix_value_t* value;
};

void complete_host_get(void* arg) {
    auto* g = static_cast<HostGet*>(arg);
    g->cbfunc(g->status, g->value, g->cbdata);
    if (g->value != nullptr) PMIX_VALUE_RELEASE(g->value);  // the callback copies what it keeps
    delete g;
}

}  // namespace

pmix_status_t PMIx_Store_internal(const pmix_proc_t* proc, const char key[], pmix_value_t* val) {
    return guarded([&] {
        if (serving_only()) {
            if (proc == nullptr || key == nullptr || val == nullptr) return PMIX_ERR_BAD_PARAM;
            return pmix::server::store_internal(*proc, key, *val);
        }
        return cl::store_internal(proc, key, val);
    });
}

pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                         size_t ninfo) {
    return guarded([&] { return cl::fence(procs, nprocs, info, ninfo); });
}

pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                            size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::fence_nb(procs, nprocs, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Get(const pmix_proc_t* proc, const char key[], const pmix_info_t info[],
                       size_t ninfo, pmix_value_t** val) {
    return guarded([&] {
        if (serving_only()) return host_get(proc, key, val);
        return cl::get(proc, key, info, ninfo, val);
    });
}

pmix_status_t PMIx_Get_nb(const pmix_proc_t* proc, const char key[], const pmix_info_t info[],
                          size_t ninfo, pmix_value_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        if (serving_only()) {
            if (cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
            auto* g = new HostGet{cbfunc, cbdata, PMIX_SUCCESS, nullptr};
            g->status = host_get(proc, key, &g->value);
            if (pmix::server::post(complete_host_get, g) != PMIX_SUCCESS) complete_host_get(g);
            return PMIX_SUCCESS;
        }
        return cl::get_nb(proc, key, info, ninfo, cbfunc, cbdata);
    });
}

// ---- publish / lookup --------------------------------------------------------------------------

pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo) {
    return guarded([&] { return cl::publish(info, ninfo); });
}

pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                              void* cbdata) {
    return guarded([&] { return cl::publish_nb(info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata, const pmix_info_t info[],
                          size_t ninfo) {
    return guarded([&] { return cl::lookup(data, ndata, info, ninfo); });
}

pmix_status_t PMIx_Lookup_nb(char** keys, const pmix_info_t info[], size_t ninfo,
                             pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::lookup_nb(keys, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Unpublish(char** keys, const pmix_info_t info[], size_t ninfo) {
    return guarded([&] { return cl::unpublish(keys, info, ninfo); });
}

pmix_status_t PMIx_Unpublish_nb(char** keys, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::unpublish_nb(keys, info, ninfo, cbfunc, cbdata); });
}

// ---- connect / disconnect / log ----------------------------------------------------------------

pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo) {
    return guarded([&] { return cl::connect(procs, nprocs, info, ninfo); });
}

pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::connect_nb(procs, nprocs, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo) {
    return guarded([&] { return cl::disconnect(procs, nprocs, info, ninfo); });
}

pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                 size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::disconnect_nb(procs, nprocs, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata, const pmix_info_t directives[],
                       size_t ndirs) {
    return guarded([&] { return cl::log(data, ndata, directives, ndirs); });
}

pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata, const pmix_info_t directives[],
                          size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::log_nb(data, ndata, directives, ndirs, cbfunc, cbdata); });
}

// ---- spawn / query / job control / resolve -----------------------------------------------------

pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                         size_t napps, pmix_nspace_t nspace) {
    return guarded([&] { return cl::spawn(job_info, ninfo, apps, napps, nspace); });
}

pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                            size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::spawn_nb(job_info, ninfo, apps, napps, cbfunc, cbdata); });
}

pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries, pmix_info_t** results,
                              size_t* nresults) {
    return guarded([&] { return cl::query_info(queries, nqueries, results, nresults); });
}

pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries, pmix_info_cbfunc_t cbfunc,
                                 void* cbdata) {
    return guarded([&] { return cl::query_info_nb(queries, nqueries, cbfunc, cbdata); });
}

pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
                               const pmix_info_t directives[], size_t ndirs, pmix_info_t** results,
                               size_t* nresults) {
    return guarded(
        [&] { return cl::job_control(targets, ntargets, directives, ndirs, results, nresults); });
}

pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
                                  const pmix_info_t directives[], size_t ndirs,
                                  pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return guarded(
        [&] { return cl::job_control_nb(targets, ntargets, directives, ndirs, cbfunc, cbdata); });
}

pmix_status_t PMIx_Resolve_peers(const char* nodename, const pmix_nspace_t nspace,
                                 pmix_proc_t** procs, size_t* nprocs) {
    return guarded([&] { return cl::resolve_peers(nodename, nspace, procs, nprocs); });
}

pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char** nodelist) {
    return guarded([&] { return cl::resolve_nodes(nspace, nodelist); });
}

// ---- events
// --------------------------------------------------------------------------------------

namespace {

// A host (server library only in this process) registering its own handlers: kept locally, the
// registration callback runs on the server's thread as OpenPMIx's would (Open MPI's mpirun waits
// for it before going on).
struct HostRegistration {
    pmix_hdlr_reg_cbfunc_t cbfunc;
    void* cbdata;
    std::size_t ref;
    pmix_status_t status;
};

void complete_host_registration(void* arg) {
    auto* r = static_cast<HostRegistration*>(arg);
    r->cbfunc(r->status, r->ref, r->cbdata);
    delete r;
}

pmix_status_t register_host_handler(pmix_status_t codes[], size_t ncodes, pmix_info_t info[],
                                    size_t ninfo, pmix_notification_fn_t evhdlr,
                                    pmix_hdlr_reg_cbfunc_t cbfunc, void* cbdata) {
    std::size_t ref = 0;
    const pmix_status_t rc = cl::register_local_handler(codes, ncodes, info, ninfo, evhdlr, &ref);
    if (rc != PMIX_SUCCESS) return rc;
    if (cbfunc == nullptr) return static_cast<pmix_status_t>(ref);  // blocking form: the reference
    auto* r = new HostRegistration{cbfunc, cbdata, ref, PMIX_SUCCESS};
    if (pmix::server::post(complete_host_registration, r) != PMIX_SUCCESS) {
        complete_host_registration(r);  // the server is stopping: answer here
    }
    return PMIX_SUCCESS;
}

struct HostDeregistration {
    pmix_op_cbfunc_t cbfunc;
    void* cbdata;
    pmix_status_t status;
};

void complete_host_deregistration(void* arg) {
    auto* r = static_cast<HostDeregistration*>(arg);
    r->cbfunc(r->status, r->cbdata);
    delete r;
}

}  // namespace

pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes, pmix_info_t info[],
                                          size_t ninfo, pmix_notification_fn_t evhdlr,
                                          pmix_hdlr_reg_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        if (serving_only()) {
            return register_host_handler(codes, ncodes, info, ninfo, evhdlr, cbfunc, cbdata);
        }
        return cl::register_event_handler(codes, ncodes, info, ninfo, evhdlr, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref, pmix_op_cbfunc_t cbfunc,
                                            void* cbdata) {
    return guarded([&] {
        if (serving_only()) {
            const pmix_status_t rc = cl::deregister_local_handler(evhdlr_ref);
            if (rc != PMIX_SUCCESS || cbfunc == nullptr) return rc;
            auto* r = new HostDeregistration{cbfunc, cbdata, PMIX_SUCCESS};
            if (pmix::server::post(complete_host_deregistration, r) != PMIX_SUCCESS) {
                complete_host_deregistration(r);
            }
            return PMIX_SUCCESS;
        }
        return cl::deregister_event_handler(evhdlr_ref, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t* source,
                                pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        // A host (server only, no client in this process) notifies its local clients.
        if (!cl::initialized() && pmix::server::initialized()) {
            return pmix::server::notify_event(status, source, range, info, ninfo, cbfunc, cbdata);
        }
        return cl::notify_event(status, source, range, info, ninfo, cbfunc, cbdata);
    });
}
