// capi/client.cpp - the client API of pmix.h implemented by client/ (pmix::client).
//
// Each shim only guards against exceptions and forwards; argument rules and statuses live in
// client/ so the C and C++ paths cannot drift apart. In a host (server library only) the same
// calls are answered by its own server: client/host_mode.h decides, not these shims.
#include "client/client.h"
#include "self_spawn.h"
#include "shim_support.h"

#include <pmix.h>

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

pmix_status_t PMIx_Store_internal(const pmix_proc_t* proc, const char key[], pmix_value_t* val) {
    return guarded([&] { return cl::store_internal(proc, key, val); });
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
    return guarded([&] { return cl::get(proc, key, info, ninfo, val); });
}

pmix_status_t PMIx_Get_nb(const pmix_proc_t* proc, const char key[], const pmix_info_t info[],
                          size_t ninfo, pmix_value_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::get_nb(proc, key, info, ninfo, cbfunc, cbdata); });
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
    return guarded([&] {
        if (pmix::capi::self_spawn_applies())
            return pmix::capi::self_spawn(job_info, ninfo, apps, napps, nspace);
        return cl::spawn(job_info, ninfo, apps, napps, nspace);
    });
}

pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                            size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        if (cbfunc != nullptr && pmix::capi::self_spawn_applies())
            return pmix::capi::self_spawn_nb(job_info, ninfo, apps, napps, cbfunc, cbdata);
        return cl::spawn_nb(job_info, ninfo, apps, napps, cbfunc, cbdata);
    });
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

// ---- events ------------------------------------------------------------------------------------

pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes, pmix_info_t info[],
                                          size_t ninfo, pmix_notification_fn_t evhdlr,
                                          pmix_hdlr_reg_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        return cl::register_event_handler(codes, ncodes, info, ninfo, evhdlr, cbfunc, cbdata);
    });
}

pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref, pmix_op_cbfunc_t cbfunc,
                                            void* cbdata) {
    return guarded([&] { return cl::deregister_event_handler(evhdlr_ref, cbfunc, cbdata); });
}

pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t* source,
                                pmix_data_range_t range, const pmix_info_t info[], size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded(
        [&] { return cl::notify_event(status, source, range, info, ninfo, cbfunc, cbdata); });
}

// ---- allocation, fabric ----------------------------------------------------------------------

pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t directive, pmix_info_t* info,
                                      size_t ninfo, pmix_info_t** results, size_t* nresults) {
    return guarded(
        [&] { return cl::allocation_request(directive, info, ninfo, results, nresults); });
}

pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t directive, pmix_info_t* info,
                                         size_t ninfo, pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return guarded(
        [&] { return cl::allocation_request_nb(directive, info, ninfo, cbfunc, cbdata); });
}

pmix_status_t PMIx_Fabric_register(pmix_fabric_t* fabric, const pmix_info_t directives[],
                                   size_t ndirs) {
    return guarded([&] { return cl::fabric_register(fabric, directives, ndirs); });
}

pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t* fabric, const pmix_info_t directives[],
                                      size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded(
        [&] { return cl::fabric_register_nb(fabric, directives, ndirs, cbfunc, cbdata); });
}

pmix_status_t PMIx_Fabric_update(pmix_fabric_t* fabric) {
    return guarded([&] { return cl::fabric_update(fabric); });
}

pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t* fabric, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] { return cl::fabric_update_nb(fabric, cbfunc, cbdata); });
}

// Blocking deregister: PMIX_SUCCESS where the _nb form says PMIX_OPERATION_SUCCEEDED (OpenPMIx).
pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t* fabric) {
    return guarded([&] {
        const pmix_status_t rc = cl::fabric_deregister_nb(fabric);
        return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    });
}

// Nothing to wait for: it only frees what register stored, so the callback is never called.
pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t* fabric, pmix_op_cbfunc_t, void*) {
    return guarded([&] { return cl::fabric_deregister_nb(fabric); });
}
