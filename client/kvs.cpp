// client/kvs.cpp - Put / Commit / Store_internal / Get / Fence.
//
// Data path: puts land in a local cache (so the process reads its own keys without a round trip)
// and in the list of uncommitted puts that Commit ships to the server. A blocking Get first reads
// the server's shared-memory store on the caller's thread (store_path.h); what neither the store
// nor the cache answers is asked of the server (kGet); job-level answers (rank UNDEF or WILDCARD)
// are cached, since they do not change during the job.
#include "client/client.h"
#include "client/commit_segment.h"
#include "client/host_mode.h"
#include "client/state.h"
#include "client/fence_board.h"
#include "client/store_path.h"

#include "data/directives.h"
#include "data/info_array.h"
#include "data/value.h"
#include "exec/completion.h"
#include "gds/qualified.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

namespace pmix::client {

namespace {

CacheKey cache_key(const pmix_proc_t& p, const char* key) {
    return {std::string(p.nspace, ::strnlen(p.nspace, PMIX_MAX_NSLEN)), p.rank, key};
}

bool job_level(pmix_rank_t r) { return r == PMIX_RANK_UNDEF || r == PMIX_RANK_WILDCARD; }

// A copy of the cached value for (proc, key), if any.
ValuePtr cached(const pmix_proc_t& p, const char* key) {
    State& s = state();
    std::lock_guard lock(s.mu);
    auto it = s.cache.find(cache_key(p, key));
    return it == s.cache.end() ? nullptr : copy_value(*it->second);
}

// The caller's own (malloc'd) copy of the cached value for (proc, key), copied once under the
// lock; PMIX_ERR_NOT_FOUND when there is none.
pmix_status_t copy_cached(const pmix_proc_t& p, const char* key, pmix_value_t** out) {
    State& s = state();
    std::lock_guard lock(s.mu);
    auto it = s.cache.find(cache_key(p, key));
    if (it == s.cache.end()) return PMIX_ERR_NOT_FOUND;
    *out = malloc_value_copy(*it->second);
    return *out == nullptr ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

void remember(const pmix_proc_t& p, const char* key, const pmix_value_t& v) {
    ValuePtr copy = copy_value(v);
    if (!copy) {
        return;
    }
    State& s = state();
    std::lock_guard lock(s.mu);
    if (s.refs > 0) {
        s.cache.insert_or_assign(cache_key(p, key), std::move(copy));
    }
}

using GetFn = exec::UniqueFunction<void(pmix_status_t, pmix_value_t*)>;

// Decodes a kGet reply: one value for a key, or every key as a DATA_ARRAY of INFO.
pmix_status_t decode_get(const wire::Frame& f, bool all, pmix_value_t* out) {
    proto::Reader r(f.payload);
    pmix_status_t st = PMIX_ERROR;
    if (r.status(&st) != PMIX_SUCCESS) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    if (st != PMIX_SUCCESS) {
        return st;
    }
    if (!all) {
        r.value(out);
        return r.finish();
    }
    data::InfoArray infos;
    r.infos(&infos);
    if (pmix_status_t rc = r.finish(); rc != PMIX_SUCCESS) {
        return rc;
    }
    auto* darray = static_cast<pmix_data_array_t*>(std::calloc(1, sizeof(pmix_data_array_t)));
    if (darray == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    darray->type = PMIX_INFO;
    darray->size = infos.size();
    darray->array = infos.release();
    out->type = PMIX_DATA_ARRAY;
    out->data.darray = darray;
    return PMIX_SUCCESS;
}

bool has_data_qualifier(const pmix_info_t* info, std::size_t ninfo) {
    for (std::size_t i = 0; info != nullptr && i < ninfo; ++i) {
        if (gds::is_data_qualifier(info[i])) return true;
    }
    return false;
}

// The shared engine of Get and Get_nb; `fn` runs on the progress thread with a value it may
// copy but does not own.
pmix_status_t get_async(const pmix_proc_t& target, const char* key, const pmix_info_t* info,
                        std::size_t ninfo, GetFn fn) {
    const bool refresh = data::info_true(info, ninfo, PMIX_GET_REFRESH_CACHE);
    // The cache holds job-level answers by key; a Get qualified by node, app, job or session
    // names other data under the same key, so it neither reads nor fills the cache.
    const bool qualified = has_data_qualifier(info, ninfo);
    if (key != nullptr && !refresh && !qualified) {
        if (ValuePtr hit = cached(target, key)) {
            return post([fn = std::move(fn), hit = std::move(hit)]() mutable {
                fn(PMIX_SUCCESS, hit.get());
            });
        }
    }
    proto::Writer w;
    w.proc(target).string(key).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) {
        return w.status_code();
    }
    const bool all = key == nullptr;
    std::string k = all ? std::string() : std::string(key);
    auto timeout = timeout_from(info, ninfo, kDefaultTimeout);
    return request(
        proto::Op::kGet, w.take(), timeout,
        [fn = std::move(fn), all, k, target, qualified](pmix_status_t st, wire::Frame&& f) mutable {
            pmix_value_t v{};
            if (st == PMIX_SUCCESS) {
                st = decode_get(f, all, &v);
            }
            if (st == PMIX_SUCCESS && !all && !qualified && job_level(target.rank)) {
                remember(target, k.c_str(), v);
            }
            fn(st, st == PMIX_SUCCESS ? &v : nullptr);
            data::value_destruct(&v);
        });
}

// A blocking Get that the cache answers (the process's own puts, PMIx_Store_internal, job-level
// answers fetched before) or, for the process's own proc-level keys the cache lacks (PMIX_RANK,
// PMIX_LOCAL_RANK, ... and what it committed in an earlier PMIx_Init), the shared store: on the
// caller's thread. Through the progress thread such a Get cost 4-8 us at N = 2 and 0.1-1.4 ms in
// a 1,024-process job whose ranks compete for the CPUs (measured, release: Get of the own two
// putget keys after the fence). PMIX_ERR_NOT_FOUND: take the server path.
pmix_status_t answer_here(const pmix_proc_t& target, const char* key, const pmix_info_t* info,
                          std::size_t ninfo, pmix_value_t** value) {
    if (key == nullptr || data::info_true(info, ninfo, PMIX_GET_REFRESH_CACHE) ||
        has_data_qualifier(info, ninfo)) {
        return PMIX_ERR_NOT_FOUND;
    }
    if (pmix_status_t rc = copy_cached(target, key, value); rc != PMIX_ERR_NOT_FOUND) {
        if (rc == PMIX_SUCCESS && store_path::pointer_mode(info, ninfo)) {
            store_path::retain_until_finalize(*value);
        }
        return rc;
    }
    return store_path::try_get_own(target, key, info, ninfo, value);
}

// Checks shared by Get and Get_nb; fills `target` (NULL proc = own namespace, job level).
pmix_status_t check_get(const pmix_proc_t* proc, const char* key, const pmix_info_t* info,
                        std::size_t ninfo, pmix_proc_t* target) {
    if (info == nullptr && ninfo > 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (key != nullptr && !valid_key(key)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_proc_t me{};
    if (!own_proc(&me)) {
        return PMIX_ERR_INIT;
    }
    if (proc == nullptr) {
        *target = me;
        target->rank = PMIX_RANK_UNDEF;
    } else {
        *target = *proc;
        if (target->nspace[0] == '\0') {
            std::memcpy(target->nspace, me.nspace, sizeof(me.nspace));
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t check_put_args(const char* key, const pmix_value_t* value) {
    if (value == nullptr || !valid_key(key)) {
        return PMIX_ERR_BAD_PARAM;
    }
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t put(pmix_scope_t scope, const char* key, const pmix_value_t* value) {
    if (!initialized()) {
        return PMIX_ERR_INIT;
    }
    if (pmix_status_t rc = check_put_args(key, value); rc != PMIX_SUCCESS) {
        return rc;
    }
    ValuePtr for_cache = copy_value(*value);
    ValuePtr for_commit = copy_value(*value);
    if (!for_cache || !for_commit) {
        return PMIX_ERR_NOMEM;
    }
    State& s = state();
    std::lock_guard lock(s.mu);
    if (s.refs == 0) {
        return PMIX_ERR_INIT;
    }
    s.cache.insert_or_assign(cache_key(s.me, key), std::move(for_cache));
    merge_put(s.uncommitted, Put{scope, key, std::move(for_commit)});
    return PMIX_SUCCESS;
}

pmix_status_t commit() {
    if (exec::on_progress_thread()) {
        return PMIX_ERR_WOULD_BLOCK;
    }
    std::vector<Put> puts;
    {
        State& s = state();
        std::lock_guard lock(s.mu);
        if (s.refs == 0) {
            return PMIX_ERR_INIT;
        }
        puts.swap(s.uncommitted);
    }
    return commit_segment::commit(puts);
}

pmix_status_t store_internal(const pmix_proc_t* proc, const char* key, const pmix_value_t* value) {
    if (const HostServer* host = serving_host()) {
        return host::store_internal(*host, proc, key, value);
    }
    if (!initialized()) {
        return PMIX_ERR_INIT;
    }
    if (proc == nullptr || check_put_args(key, value) != PMIX_SUCCESS) {
        return PMIX_ERR_BAD_PARAM;
    }
    remember(*proc, key, *value);
    return PMIX_SUCCESS;
}

pmix_status_t get_nb(const pmix_proc_t* proc, const char* key, const pmix_info_t* info,
                     std::size_t ninfo, pmix_value_cbfunc_t cbfunc, void* cbdata) {
    if (const HostServer* host = serving_host()) {
        return host::get_nb(*host, proc, key, cbfunc, cbdata);
    }
    pmix_proc_t target{};
    if (pmix_status_t rc = check_get(proc, key, info, ninfo, &target); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (cbfunc == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    return get_async(target, key, info, ninfo, [cbfunc, cbdata](pmix_status_t st, pmix_value_t* v) {
        cbfunc(st, v, cbdata);
    });
}

pmix_status_t get(const pmix_proc_t* proc, const char* key, const pmix_info_t* info,
                  std::size_t ninfo, pmix_value_t** value) {
    // The fast path: the shared store, on this thread (store_path.h).
    if (value != nullptr && store_path::try_get(proc, key, info, ninfo, value) == PMIX_SUCCESS) {
        return PMIX_SUCCESS;
    }
    if (const HostServer* host = serving_host()) {
        return host::get(*host, proc, key, value);
    }
    pmix_proc_t target{};
    if (pmix_status_t rc = check_get(proc, key, info, ninfo, &target); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (value == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (pmix_status_t rc = answer_here(target, key, info, ninfo, value); rc != PMIX_ERR_NOT_FOUND) {
        return rc;
    }
    if (exec::on_progress_thread()) {
        return PMIX_ERR_WOULD_BLOCK;
    }
    struct Out {
        pmix_status_t status;
        pmix_value_t* value;
    };
    exec::Completion<Out> done;
    pmix_status_t rc =
        get_async(target, key, info, ninfo, [done](pmix_status_t st, pmix_value_t* v) {
            pmix_value_t* copy = nullptr;
            if (st == PMIX_SUCCESS) {
                copy = malloc_value_copy(*v);
                st = copy == nullptr ? PMIX_ERR_NOMEM : st;
            }
            if (!done.complete(Out{st, copy}) && copy != nullptr) {
                ValueDeleter{}(copy);
            }
        });
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    auto waited = done.wait(timeout_from(info, ninfo, kDefaultTimeout) + kWaitMargin);
    if (waited.status != PMIX_SUCCESS) {
        // Too late for the answer: make sure it is freed if it still comes.
        if (!done.complete(Out{waited.status, nullptr})) {
            auto late = done.wait(std::chrono::milliseconds(0));
            if (late.value && late.value->value != nullptr) ValueDeleter{}(late.value->value);
        }
        return waited.status;
    }
    *value = waited.value->value;
    if (waited.value->status == PMIX_SUCCESS && store_path::pointer_mode(info, ninfo)) {
        store_path::retain_until_finalize(*value);  // the caller must not release it
    }
    return waited.value->status;
}

namespace {

using FenceFn = exec::UniqueFunction<void(pmix_status_t)>;

// A fence's request to the server, built at call time (the caller's arrays are only valid
// during the call, and a board fence may come back to the server later).
struct FenceCall {
    pmix_proc_t me{};
    wire::Bytes payload;
    std::chrono::milliseconds timeout{};
    bool board = false;    // the fence board's collective (fence_board.h)
    data::InfoArray info;  // board fences: the directives, to re-send with the time left
};

pmix_status_t prepare_fence(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                            std::size_t ninfo, FenceCall* call) {
    if ((procs == nullptr && nprocs > 0) || (info == nullptr && ninfo > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!own_proc(&call->me)) {
        return PMIX_ERR_INIT;
    }
    call->board = fence_board::eligible(call->me, procs, nprocs, info, ninfo);
    pmix_proc_t all = call->me;
    all.rank = PMIX_RANK_WILDCARD;
    if (procs == nullptr || nprocs == 0) {  // the whole own namespace
        procs = &all;
        nprocs = 1;
    }
    proto::Writer w;
    w.procs(procs, nprocs).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) {
        return w.status_code();
    }
    call->payload = w.take();
    call->timeout = timeout_from(info, ninfo, kDefaultTimeout);
    if (call->board && timeout_from(info, ninfo, {}).count() > 0) {
        return call->info.assign_copy(info, ninfo);
    }
    return PMIX_SUCCESS;
}

// A board fence sent on to the server (the board was disabled while this process waited on it)
// keeps the caller's deadline: its PMIX_TIMEOUT becomes the seconds left, to the nearest whole
// second (the unit the server enforces), and with less than half a second left the fence has
// timed out. Without this a
// member stopped past everyone's PMIX_TIMEOUT made the first waiter to time out disable the
// board, and the others, sent to the server with their full timeout again, saw the first one
// leave (PMIX_ERR_LOST_CONNECTION) instead of their own PMIX_ERR_TIMEOUT.
pmix_status_t rearm_timeout(FenceCall& call, std::chrono::steady_clock::time_point deadline) {
    if (call.info.size() == 0) return PMIX_SUCCESS;  // no PMIX_TIMEOUT: the default wait
    const auto left =
        std::chrono::round<std::chrono::seconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() < 1) return PMIX_ERR_TIMEOUT;
    for (std::size_t i = 0; i < call.info.size(); ++i) {
        pmix_info_t& in = call.info.data()[i];
        if (data::key_is(in, PMIX_TIMEOUT)) {
            PMIx_Value_destruct(&in.value);
            in.value.type = PMIX_INT;
            in.value.data.integer = static_cast<int>(left.count());
        }
    }
    pmix_proc_t all = call.me;
    all.rank = PMIX_RANK_WILDCARD;
    proto::Writer w;
    w.procs(&all, 1).infos(call.info.data(), call.info.size());
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    call.payload = w.take();
    call.timeout = left;
    return PMIX_SUCCESS;
}

pmix_status_t fence_via_server(FenceCall&& call, FenceFn fn) {
    return request(proto::Op::kFence, std::move(call.payload), call.timeout,
                   [fn = std::move(fn)](pmix_status_t st, wire::Frame&& f) mutable {
                       fn(st == PMIX_SUCCESS ? reply_status(f) : st);
                   });
}

std::chrono::steady_clock::time_point deadline_of(const FenceCall& call) {
    return std::chrono::steady_clock::now() + call.timeout;
}

}  // namespace

pmix_status_t fence_nb(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                       std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) {
        return PMIX_ERR_INIT;
    }
    if (cbfunc == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    // A failure the server reported for an asynchronous commit (commit_segment.h).
    if (pmix_status_t rc = commit_segment::take_async_error(); rc != PMIX_SUCCESS) return rc;
    FenceCall call;
    if (pmix_status_t rc = prepare_fence(procs, nprocs, info, ninfo, &call); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (call.board) {
        const auto deadline = deadline_of(call);
        auto shared = std::make_shared<FenceCall>(std::move(call));
        // Runs on the board's helper thread; the user's callback runs on the progress thread.
        auto on_board = [shared, deadline, cbfunc, cbdata](fence_board::Result r) {
            if (r == fence_board::Result::server) {
                pmix_status_t rc = rearm_timeout(*shared, deadline);
                if (rc == PMIX_SUCCESS) {
                    rc = fence_via_server(std::move(*shared), [cbfunc, cbdata](pmix_status_t st) {
                        cbfunc(st, cbdata);
                    });
                }
                if (rc != PMIX_SUCCESS) post([cbfunc, cbdata, rc] { cbfunc(rc, cbdata); });
                return;
            }
            const pmix_status_t st =
                r == fence_board::Result::done ? PMIX_SUCCESS : PMIX_ERR_TIMEOUT;
            post([cbfunc, cbdata, st] { cbfunc(st, cbdata); });
        };
        if (fence_board::run_async(deadline, std::move(on_board))) {
            return PMIX_SUCCESS;
        }
        call = std::move(*shared);  // no usable board after all
    }
    return fence_via_server(std::move(call),
                            [cbfunc, cbdata](pmix_status_t st) { cbfunc(st, cbdata); });
}

pmix_status_t fence(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                    std::size_t ninfo) {
    if (!initialized()) {
        return PMIX_ERR_INIT;
    }
    if (exec::on_progress_thread()) {
        return PMIX_ERR_WOULD_BLOCK;
    }
    // A failure the server reported for an asynchronous commit (commit_segment.h).
    if (pmix_status_t rc = commit_segment::take_async_error(); rc != PMIX_SUCCESS) return rc;
    FenceCall call;
    if (pmix_status_t rc = prepare_fence(procs, nprocs, info, ninfo, &call); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (call.board) {  // on this thread, no request, no thread hop (fence_board.h)
        const auto deadline = deadline_of(call);
        switch (fence_board::run(deadline)) {
            case fence_board::Result::done:
                store_path::warm_after_fence();
                return PMIX_SUCCESS;
            case fence_board::Result::timeout:
                return PMIX_ERR_TIMEOUT;
            case fence_board::Result::server:
                if (pmix_status_t rc = rearm_timeout(call, deadline); rc != PMIX_SUCCESS) {
                    return rc;
                }
                break;
        }
    }
    const auto timeout = call.timeout;
    exec::Completion<pmix_status_t> done;
    pmix_status_t rc =
        fence_via_server(std::move(call), [done](pmix_status_t st) { done.complete(st); });
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    auto waited = done.wait(timeout + kWaitMargin);
    const pmix_status_t st = waited.status == PMIX_SUCCESS ? *waited.value : waited.status;
    if (st == PMIX_SUCCESS) store_path::warm_after_fence();  // nothing new: one compare
    return st;
}

}  // namespace pmix::client
