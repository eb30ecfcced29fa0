// client/debug_stop.cpp - see debug_stop.h.
//
// The wait is released by the first PMIX_DEBUGGER_RELEASE the server delivers to this process (a
// tool's event aimed at it with PMIX_RANGE_CUSTOM / PMIX_EVENT_CUSTOM_RANGE, or at its namespace)
// or ended by PMIX_ERR_LOST_CONNECTION, which the client raises itself when the server's
// connection closes: a process whose launcher died does not stay in PMIx_Init.
#include "client/debug_stop.h"
#include "client/client.h"
#include "client/state.h"
#include "client/store_path.h"

#include "data/directives.h"
#include "data/value.h"
#include "exec/log.h"

#include <condition_variable>
#include <cstring>
#include <mutex>

namespace pmix::client {

namespace {

// One PMIx_Init waits at a time (the lifecycle mutex), so one slot serves every wait.
struct Waiting {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    pmix_status_t outcome = PMIX_SUCCESS;
    pmix_proc_t me{};
};

Waiting& waiting() {
    static Waiting* w = new Waiting();  // reachable from the progress thread until exit
    return *w;
}

bool rank_names(pmix_rank_t rank, const pmix_proc_t& me) {
    return rank == me.rank || rank == PMIX_RANK_WILDCARD;
}

bool proc_names(const pmix_proc_t& p, const pmix_proc_t& me) {
    return std::strncmp(p.nspace, me.nspace, PMIX_MAX_NSLEN) == 0 && rank_names(p.rank, me);
}

// A release that names processes (PMIX_EVENT_AFFECTED_PROC(S)) is for those alone: a tool that
// releases one job with a wider range does not release another job's processes.
bool release_names_me(const pmix_info_t info[], size_t ninfo, const pmix_proc_t& me) {
    bool named = false, any = false;
    for (size_t i = 0; i < ninfo; ++i) {
        if (!data::key_is(info[i], PMIX_EVENT_AFFECTED_PROC) &&
            !data::key_is(info[i], PMIX_EVENT_AFFECTED_PROCS))
            continue;
        any = true;
        named = named || debug_value_names(info[i].value, me);
    }
    return !any || named;
}

void on_release(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
                pmix_info_t[], size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    {
        Waiting& w = waiting();
        std::lock_guard lock(w.mu);
        const bool for_me = status != PMIX_DEBUGGER_RELEASE || release_names_me(info, ninfo, w.me);
        if (!w.done && for_me) {
            w.done = true;
            w.outcome = status == PMIX_DEBUGGER_RELEASE ? PMIX_SUCCESS : status;
        }
        w.cv.notify_all();
    }
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

void release_value(pmix_value_t* value) {
    data::value_destruct(value);
    std::free(value);
}

// The job's PMIX_DEBUG_STOP_IN_INIT, if it names this process. When the shared store holds the
// job's registration (its PMIX_JOB_SIZE is there), the store alone answers: the host registers a
// job's info at once, before its processes start. Asking the server about a key nearly every job
// lacks cost every PMIx_Init a round trip: bench/e2e's scenario, pmixrun -n 4, 48 inits each,
// alternating builds on a loaded 2-core host: median 800 us with the round trip, 747 us without.
bool asked_to_stop(const pmix_proc_t& me) {
    pmix_proc_t job = me;
    job.rank = PMIX_RANK_WILDCARD;
    if (pmix_value_t* size = nullptr;
        store_path::try_get(&job, PMIX_JOB_SIZE, nullptr, 0, &size) == PMIX_SUCCESS) {
        release_value(size);
        pmix_value_t* value = nullptr;
        if (store_path::try_get(&job, PMIX_DEBUG_STOP_IN_INIT, nullptr, 0, &value) != PMIX_SUCCESS)
            return false;
        const bool named = debug_value_names(*value, me);
        release_value(value);
        return named;
    }
    pmix_info_t optional;
    std::memset(&optional, 0, sizeof optional);
    std::strncpy(optional.key, PMIX_OPTIONAL, PMIX_MAX_KEYLEN);
    const bool yes = true;
    data::value_load(&optional.value, &yes, PMIX_BOOL);
    pmix_value_t* value = nullptr;
    const pmix_status_t rc = get(&job, PMIX_DEBUG_STOP_IN_INIT, &optional, 1, &value);
    data::info_destruct(&optional);
    if (rc != PMIX_SUCCESS || value == nullptr) return false;
    const bool named = debug_value_names(*value, me);
    release_value(value);
    return named;
}

pmix_info_t bool_info(const char* key) {
    pmix_info_t i;
    std::memset(&i, 0, sizeof i);
    std::strncpy(i.key, key, PMIX_MAX_KEYLEN);
    const bool yes = true;
    data::value_load(&i.value, &yes, PMIX_BOOL);
    return i;
}

pmix_status_t wait_for_release(std::chrono::milliseconds limit) {
    Waiting& w = waiting();
    std::unique_lock lock(w.mu);
    if (!w.cv.wait_for(lock, limit, [&] { return w.done; })) return PMIX_ERR_TIMEOUT;
    return w.outcome;
}

}  // namespace

bool debug_value_names(const pmix_value_t& value, const pmix_proc_t& me) {
    switch (value.type) {
        case PMIX_BOOL:
            return value.data.flag;
        case PMIX_PROC_RANK:
            return rank_names(value.data.rank, me);
        case PMIX_UINT32:
            return rank_names(value.data.uint32, me);
        case PMIX_PROC:
            return value.data.proc != nullptr && proc_names(*value.data.proc, me);
        case PMIX_DATA_ARRAY:
            break;
        default:
            return false;
    }
    const pmix_data_array_t* array = value.data.darray;
    if (array == nullptr || array->array == nullptr) return false;
    for (std::size_t i = 0; i < array->size; ++i) {
        if (array->type == PMIX_PROC &&
            proc_names(static_cast<const pmix_proc_t*>(array->array)[i], me))
            return true;
        if (array->type == PMIX_PROC_RANK &&
            rank_names(static_cast<const pmix_rank_t*>(array->array)[i], me))
            return true;
    }
    return false;
}

pmix_status_t stop_in_init_if_asked(const pmix_proc_t& me, std::chrono::milliseconds limit) {
    if (!asked_to_stop(me)) return PMIX_SUCCESS;
    {
        Waiting& w = waiting();
        std::lock_guard lock(w.mu);
        w.done = false;
        w.outcome = PMIX_SUCCESS;
        w.me = me;
    }
    pmix_status_t codes[] = {PMIX_DEBUGGER_RELEASE, PMIX_ERR_LOST_CONNECTION};
    const pmix_status_t ref =
        register_event_handler(codes, 2, nullptr, 0, on_release, nullptr, nullptr);
    if (ref < 0) return ref;
    pmix_info_t info[2] = {bool_info(PMIX_EVENT_NON_DEFAULT), {}};
    std::memset(&info[1], 0, sizeof info[1]);
    std::strncpy(info[1].key, PMIX_BREAKPOINT, PMIX_MAX_KEYLEN);
    data::value_load(&info[1].value, "pmix-init", PMIX_STRING);
    pmix_status_t rc =
        notify_event(PMIX_READY_FOR_DEBUG, &me, PMIX_RANGE_RM, info, 2, nullptr, nullptr);
    for (pmix_info_t& i : info) data::info_destruct(&i);
    if (rc == PMIX_SUCCESS) {
        exec::log_debug("pmix client", "stopped in PMIx_Init until PMIX_DEBUGGER_RELEASE");
        rc = wait_for_release(limit);
    }
    (void)deregister_event_handler(static_cast<std::size_t>(ref), nullptr, nullptr);
    return rc;
}

}  // namespace pmix::client
