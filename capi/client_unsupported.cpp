// capi/client_unsupported.cpp - the client API (pmix.h) until the client core lands.
//
// PMIx_Init cannot succeed yet, so it says PMIX_ERR_NOT_SUPPORTED and touches nothing. Every other
// client operation answers as the Standard prescribes for a process that has not initialised:
// PMIX_ERR_INIT. A non-blocking call that returns an error status never invokes its callback
// (Standard: the callback fires only after PMIX_SUCCESS), so none of these call theirs.
// When the client lands, each function moves out of this file into the file of its family.
#include <pmix.h>

namespace {
// The Standard's status for "this process has not called PMIx_Init".
constexpr pmix_status_t kNotInitialised = PMIX_ERR_INIT;
}  // namespace

// ---- Lifecycle -------------------------------------------------------------------------------

pmix_status_t PMIx_Init(pmix_proc_t*, pmix_info_t[], size_t) {
    return PMIX_ERR_NOT_SUPPORTED;
}

int PMIx_Initialized(void) {
    return 0;
}

pmix_status_t PMIx_Finalize(const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Abort(int, const char[], pmix_proc_t[], size_t) {
    return kNotInitialised;
}

void PMIx_Progress(void) {
    // Nothing to progress: no connection, no pending operation.
}

// ---- Key/value exchange ----------------------------------------------------------------------

pmix_status_t PMIx_Put(pmix_scope_t, const char[], pmix_value_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Commit(void) {
    return kNotInitialised;
}

pmix_status_t PMIx_Store_internal(const pmix_proc_t*, const char[], pmix_value_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Fence_nb(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                            pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Get(const pmix_proc_t*, const char[], const pmix_info_t[], size_t,
                       pmix_value_t**) {
    return kNotInitialised;
}

pmix_status_t PMIx_Get_nb(const pmix_proc_t*, const char[], const pmix_info_t[], size_t,
                          pmix_value_cbfunc_t, void*) {
    return kNotInitialised;
}

// ---- Publish / lookup ------------------------------------------------------------------------

pmix_status_t PMIx_Publish(const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Publish_nb(const pmix_info_t[], size_t, pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Lookup(pmix_pdata_t[], size_t, const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Lookup_nb(char**, const pmix_info_t[], size_t, pmix_lookup_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Unpublish(char**, const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Unpublish_nb(char**, const pmix_info_t[], size_t, pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

// ---- Spawn, connect, peers -------------------------------------------------------------------

pmix_status_t PMIx_Spawn(const pmix_info_t[], size_t, const pmix_app_t[], size_t,
                         pmix_nspace_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Spawn_nb(const pmix_info_t[], size_t, const pmix_app_t[], size_t,
                            pmix_spawn_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Connect(const pmix_proc_t[], size_t, const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Connect_nb(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                              pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Disconnect(const pmix_proc_t[], size_t, const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                                 pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Resolve_peers(const char*, const pmix_nspace_t, pmix_proc_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t, char**) {
    return kNotInitialised;
}

// ---- Events ----------------------------------------------------------------------------------

pmix_status_t PMIx_Register_event_handler(pmix_status_t[], size_t, pmix_info_t[], size_t,
                                          pmix_notification_fn_t, pmix_hdlr_reg_cbfunc_t,
                                          void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Deregister_event_handler(size_t, pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Notify_event(pmix_status_t, const pmix_proc_t*, pmix_data_range_t,
                                const pmix_info_t[], size_t, pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

// ---- Query, log, allocation, job control, monitoring -----------------------------------------

pmix_status_t PMIx_Query_info(pmix_query_t[], size_t, pmix_info_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Query_info_nb(pmix_query_t[], size_t, pmix_info_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Log(const pmix_info_t[], size_t, const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Log_nb(const pmix_info_t[], size_t, const pmix_info_t[], size_t,
                          pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t, pmix_info_t*, size_t,
                                      pmix_info_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t, pmix_info_t*, size_t,
                                         pmix_info_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Job_control(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                               pmix_info_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Job_control_nb(const pmix_proc_t[], size_t, const pmix_info_t[], size_t,
                                  pmix_info_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Process_monitor(const pmix_info_t*, pmix_status_t, const pmix_info_t[],
                                   size_t, pmix_info_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t*, pmix_status_t, const pmix_info_t[],
                                      size_t, pmix_info_cbfunc_t, void*) {
    return kNotInitialised;
}

// ---- Credentials -----------------------------------------------------------------------------

pmix_status_t PMIx_Get_credential(const pmix_info_t[], size_t, pmix_byte_object_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Get_credential_nb(const pmix_info_t[], size_t, pmix_credential_cbfunc_t,
                                     void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t*, const pmix_info_t[], size_t,
                                       pmix_info_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t*, const pmix_info_t[], size_t,
                                          pmix_validation_cbfunc_t, void*) {
    return kNotInitialised;
}

// ---- Groups ----------------------------------------------------------------------------------

pmix_status_t PMIx_Group_construct(const char[], const pmix_proc_t[], size_t,
                                   const pmix_info_t[], size_t, pmix_info_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_construct_nb(const char[], const pmix_proc_t[], size_t,
                                      const pmix_info_t[], size_t, pmix_info_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_invite(const char[], const pmix_proc_t[], size_t, const pmix_info_t[],
                                size_t, pmix_info_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_invite_nb(const char[], const pmix_proc_t[], size_t,
                                   const pmix_info_t[], size_t, pmix_info_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_join(const char[], const pmix_proc_t*, pmix_group_opt_t,
                              const pmix_info_t[], size_t, pmix_info_t**, size_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_join_nb(const char[], const pmix_proc_t*, pmix_group_opt_t,
                                 const pmix_info_t[], size_t, pmix_info_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_leave(const char[], const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_leave_nb(const char[], const pmix_info_t[], size_t, pmix_op_cbfunc_t,
                                  void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_destruct(const char[], const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Group_destruct_nb(const char[], const pmix_info_t[], size_t, pmix_op_cbfunc_t,
                                     void*) {
    return kNotInitialised;
}

// ---- Fabric ----------------------------------------------------------------------------------

pmix_status_t PMIx_Fabric_register(pmix_fabric_t*, const pmix_info_t[], size_t) {
    return kNotInitialised;
}

pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t*, const pmix_info_t[], size_t,
                                      pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Fabric_update(pmix_fabric_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t*, pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t*) {
    return kNotInitialised;
}

pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t*, pmix_op_cbfunc_t, void*) {
    return kNotInitialised;
}
