// client/ops_info.cpp - Spawn, Query_info, Job_control (forwarded to the server's host) and
// Resolve_peers / Resolve_nodes (answered from job-level data through Get).
#include "client/client.h"
#include "client/host_mode.h"
#include "client/query_local.h"
#include "client/state.h"

#include "data/value.h"
#include "exec/completion.h"
#include "maps/node_regex.h"
#include "maps/ranges.h"

#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <cstring>
#include <string>
#include <vector>

namespace pmix::client {

namespace {


template <class T>
pmix_status_t wait_result(const exec::Completion<T>& done, std::chrono::milliseconds timeout,
                          T* out) {
    auto waited = done.wait(timeout + kWaitMargin);
    if (waited.status != PMIX_SUCCESS) {
        return waited.status;
    }
    *out = std::move(*waited.value);
    return PMIX_SUCCESS;
}

// ---- spawn
// ---------------------------------------------------------------------------------------

struct Spawned {
    pmix_status_t status = PMIX_ERROR;
    std::string nspace;
};

Spawned decode_spawn(pmix_status_t st, const wire::Frame& f) {
    Spawned out{st, {}};
    if (st != PMIX_SUCCESS) return out;
    proto::Reader r(f.payload);
    if (r.status(&out.status) != PMIX_SUCCESS) return {PMIX_ERR_UNPACK_FAILURE, {}};
    if (out.status == PMIX_SUCCESS &&
        (r.string(&out.nspace) != PMIX_SUCCESS || r.finish() != PMIX_SUCCESS)) {
        out.status = PMIX_ERR_UNPACK_FAILURE;
    }
    return out;
}

pmix_status_t start_spawn(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                          std::size_t napps, ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (null_array_with_count(job_info, ninfo) || apps == nullptr || napps == 0) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.infos(job_info, ninfo).apps(apps, napps);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kSpawn, w.take(), timeout_from(job_info, ninfo, kDefaultTimeout),
                   std::move(fn));
}

// ---- query / job control -----------------------------------------------------------------------

struct InfoResult {
    pmix_status_t status = PMIX_ERROR;
    pmix_info_t* info = nullptr;
    std::size_t n = 0;
};

InfoResult decode_infos(pmix_status_t st, const wire::Frame& f, bool with_infos) {
    InfoResult out{st, nullptr, 0};
    if (st != PMIX_SUCCESS) return out;
    proto::Reader r(f.payload);
    if (r.status(&out.status) != PMIX_SUCCESS) return {PMIX_ERR_UNPACK_FAILURE, nullptr, 0};
    if (!with_infos || (out.status != PMIX_SUCCESS && out.status != PMIX_ERR_PARTIAL_SUCCESS &&
                        out.status != PMIX_QUERY_PARTIAL_SUCCESS)) {
        return out;
    }
    data::InfoArray infos;
    r.infos(&infos);
    if (r.finish() != PMIX_SUCCESS) return {PMIX_ERR_UNPACK_FAILURE, nullptr, 0};
    out.n = infos.size();
    out.info = infos.release();
    return out;
}

// The release callback handed with an info_cbfunc: frees what decode_infos produced.
struct Release {
    pmix_info_t* info;
    std::size_t n;
};

void release_infos(void* cbdata) {
    auto* r = static_cast<Release*>(cbdata);
    data::free_infos(r->info, r->n);
    delete r;
}

ReplyFn info_cb_reply(bool with_infos, pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return [with_infos, cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
        InfoResult res = decode_infos(st, f, with_infos);
        auto* rel = new Release{res.info, res.n};
        cbfunc(res.status, res.info, res.n, cbdata, release_infos, rel);
    };
}

// Local keys (query_local.h) are answered here; the rest go to the server, and its reply is
// merged with the local answers into one reply frame for `fn`.
pmix_status_t start_query(pmix_query_t* queries, std::size_t n, ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (queries == nullptr || n == 0) return PMIX_ERR_BAD_PARAM;
    auto split = std::make_shared<SplitQueries>();
    split_queries(queries, n, split.get());
    if (split->remote.empty()) {
        const pmix_status_t st = split->local.empty() ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS;
        return post([split, st, fn = std::move(fn)]() mutable {
            fn(PMIX_SUCCESS, query_reply_frame(st, split->local.data(), split->local.size()));
        });
    }
    proto::Writer w;
    w.queries(split->remote.data(), split->remote.size());
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    if (split->local_asked == 0) {
        return request(proto::Op::kQuery, w.take(), kDefaultTimeout, std::move(fn));
    }
    return request(proto::Op::kQuery, w.take(), kDefaultTimeout,
                   [split, fn = std::move(fn)](pmix_status_t st, wire::Frame&& f) mutable {
                       InfoResult remote = decode_infos(st, f, true);
                       std::vector<pmix_info_t> all(remote.info, remote.info + remote.n);
                       all.insert(all.end(), split->local.begin(), split->local.end());
                       const bool any = !all.empty();
                       const bool whole = (remote.status == PMIX_SUCCESS) &&
                                          split->local.size() == split->local_asked;
                       const pmix_status_t merged = !any    ? remote.status
                                                    : whole ? PMIX_SUCCESS
                                                            : PMIX_QUERY_PARTIAL_SUCCESS;
                       fn(PMIX_SUCCESS, query_reply_frame(merged, all.data(), all.size()));
                       data::free_infos(remote.info, remote.n);
                   });
}

pmix_status_t start_job_control(const pmix_proc_t* targets, std::size_t ntargets,
                                const pmix_info_t* dirs, std::size_t ndirs, ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (null_array_with_count(targets, ntargets) || dirs == nullptr || ndirs == 0) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.procs(targets, ntargets).infos(dirs, ndirs);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kJobControl, w.take(), timeout_from(dirs, ndirs, kDefaultTimeout),
                   std::move(fn));
}

pmix_status_t blocking_infos(bool with_infos, std::chrono::milliseconds timeout,
                             pmix_info_t** results, std::size_t* nresults,
                             const std::function<pmix_status_t(ReplyFn)>& start) {
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    exec::Completion<InfoResult> done;
    pmix_status_t rc = start([done, with_infos](pmix_status_t st, wire::Frame&& f) {
        InfoResult res = decode_infos(st, f, with_infos);
        if (!done.complete(res)) data::free_infos(res.info, res.n);
    });
    if (rc != PMIX_SUCCESS) return rc;
    InfoResult res;
    if (pmix_status_t w = wait_result(done, timeout, &res); w != PMIX_SUCCESS) {
        // Too late: free the answer if it still comes (or already came).
        if (!done.complete(InfoResult{w, nullptr, 0})) {
            auto late = done.wait(std::chrono::milliseconds(0));
            if (late.value) data::free_infos(late.value->info, late.value->n);
        }
        return w;
    }
    if (results != nullptr && nresults != nullptr) {
        *results = res.info;
        *nresults = res.n;
    } else {
        data::free_infos(res.info, res.n);
    }
    return res.status;
}

}  // namespace

pmix_status_t spawn(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                    std::size_t napps, char* nspace) {
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    exec::Completion<Spawned> done;
    pmix_status_t rc = start_spawn(
        job_info, ninfo, apps, napps,
        [done](pmix_status_t st, wire::Frame&& f) { done.complete(decode_spawn(st, f)); });
    if (rc != PMIX_SUCCESS) return rc;
    Spawned res;
    if (pmix_status_t w = wait_result(done, timeout_from(job_info, ninfo, kDefaultTimeout), &res);
        w != PMIX_SUCCESS) {
        return w;
    }
    if (res.status == PMIX_SUCCESS && nspace != nullptr) {
        std::memset(nspace, 0, PMIX_MAX_NSLEN + 1);
        std::strncpy(nspace, res.nspace.c_str(), PMIX_MAX_NSLEN);
    }
    return res.status;
}

pmix_status_t spawn_nb(const pmix_info_t* job_info, std::size_t ninfo, const pmix_app_t* apps,
                       std::size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
    if (cbfunc == nullptr) return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    return start_spawn(job_info, ninfo, apps, napps,
                       [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
                           Spawned res = decode_spawn(st, f);
                           pmix_nspace_t ns = {};
                           std::strncpy(ns, res.nspace.c_str(), PMIX_MAX_NSLEN);
                           cbfunc(res.status, ns, cbdata);
                       });
}

// A blocking query of ABI-version keys only, before PMIx_Init: answered here (Standard).
pmix_status_t query_before_init(pmix_query_t* queries, std::size_t n, pmix_info_t** results,
                                std::size_t* nresults) {
    if (!only_abi_keys(queries, n)) return PMIX_ERR_INIT;
    if (results == nullptr || nresults == nullptr) return PMIX_ERR_BAD_PARAM;
    SplitQueries split;
    split_queries(queries, n, &split);
    auto* out = static_cast<pmix_info_t*>(std::calloc(split.local.size(), sizeof(pmix_info_t)));
    if (out == nullptr) return PMIX_ERR_NOMEM;
    for (std::size_t i = 0; i < split.local.size(); ++i) {
        out[i] = split.local[i];  // moved: the split no longer owns it
        std::memset(&split.local[i], 0, sizeof(pmix_info_t));
    }
    *results = out;
    *nresults = split.local.size();
    return PMIX_SUCCESS;
}

pmix_status_t query_info(pmix_query_t* queries, std::size_t n, pmix_info_t** results,
                         std::size_t* nresults) {
    if (!initialized()) return query_before_init(queries, n, results, nresults);
    if (initialized() && (results == nullptr || nresults == nullptr)) return PMIX_ERR_BAD_PARAM;
    return blocking_infos(true, kDefaultTimeout, results, nresults,
                          [&](ReplyFn fn) { return start_query(queries, n, std::move(fn)); });
}

pmix_status_t query_info_nb(pmix_query_t* queries, std::size_t n, pmix_info_cbfunc_t cbfunc,
                            void* cbdata) {
    if (cbfunc == nullptr) return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    return start_query(queries, n, info_cb_reply(true, cbfunc, cbdata));
}

pmix_status_t job_control(const pmix_proc_t* targets, std::size_t ntargets, const pmix_info_t* dirs,
                          std::size_t ndirs, pmix_info_t** results, std::size_t* nresults) {
    if (results != nullptr) *results = nullptr;
    if (nresults != nullptr) *nresults = 0;
    return blocking_infos(
        false, timeout_from(dirs, ndirs, kDefaultTimeout), results, nresults, [&](ReplyFn fn) {
            return start_job_control(targets, ntargets, dirs, ndirs, std::move(fn));
        });
}

pmix_status_t job_control_nb(const pmix_proc_t* targets, std::size_t ntargets,
                             const pmix_info_t* dirs, std::size_t ndirs, pmix_info_cbfunc_t cbfunc,
                             void* cbdata) {
    if (cbfunc == nullptr) {
        // No callback: the request is sent and its outcome dropped, as OpenPMIx allows (Open MPI
        // registers its cleanup directories this way).
        return start_job_control(targets, ntargets, dirs, ndirs,
                                 [](pmix_status_t, wire::Frame&&) {});
    }
    return start_job_control(targets, ntargets, dirs, ndirs, info_cb_reply(false, cbfunc, cbdata));
}

// ---- allocation and fabric ---------------------------------------------------------------------

namespace {

bool valid_directive(pmix_alloc_directive_t d) noexcept {
    return (d >= PMIX_ALLOC_NEW && d <= PMIX_ALLOC_REAQUIRE) || d >= PMIX_ALLOC_EXTERNAL;
}

pmix_status_t start_allocation(pmix_alloc_directive_t directive, const pmix_info_t* info,
                               std::size_t ninfo, ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (null_array_with_count(info, ninfo) || !valid_directive(directive)) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.raw(&directive, 1, PMIX_ALLOC_DIRECTIVE).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kAllocate, w.take(), timeout_from(info, ninfo, kDefaultTimeout),
                   std::move(fn));
}

// The host's answer replaces what `fabric` held; its PMIX_FABRIC_INDEX, when it gives one, is
// the fabric's index from now on (what update names it by).
void store_fabric_info(pmix_fabric_t* fabric, InfoResult& res) {
    for (std::size_t i = 0; i < res.n; ++i) {
        if (PMIX_CHECK_KEY(&res.info[i], PMIX_FABRIC_INDEX) &&
            res.info[i].value.type == PMIX_SIZE) {
            fabric->index = res.info[i].value.data.size;
        }
    }
    data::free_infos(fabric->info, fabric->ninfo);
    fabric->info = res.info;
    fabric->ninfo = res.n;
    res.info = nullptr;
    res.n = 0;
}

pmix_status_t start_fabric(pmix_fabric_t* fabric, pmix_fabric_operation_t op,
                           const pmix_info_t* dirs, std::size_t ndirs, ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (fabric == nullptr || null_array_with_count(dirs, ndirs)) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    const auto code = static_cast<std::uint8_t>(op);  // the enum travels as one byte
    if (op == PMIX_FABRIC_UPDATE_INFO) {  // the fabric is named by the index register gave it
        pmix_info_t index;
        PMIX_INFO_LOAD(&index, PMIX_FABRIC_INDEX, &fabric->index, PMIX_SIZE);
        w.raw(&code, 1, PMIX_UINT8).infos(&index, 1);
    } else {
        w.raw(&code, 1, PMIX_UINT8).infos(dirs, ndirs);
    }
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kFabric, w.take(), kDefaultTimeout, std::move(fn));
}

// The blocking forms store the answer on the caller's thread, so that a reply arriving after the
// wait gave up never touches the caller's pmix_fabric_t.
pmix_status_t blocking_fabric(pmix_fabric_t* fabric, pmix_fabric_operation_t op,
                              const pmix_info_t* dirs, std::size_t ndirs) {
    InfoResult res{PMIX_ERROR, nullptr, 0};
    res.status = blocking_infos(true, kDefaultTimeout, &res.info, &res.n, [&](ReplyFn fn) {
        return start_fabric(fabric, op, dirs, ndirs, std::move(fn));
    });
    if (res.status == PMIX_SUCCESS) store_fabric_info(fabric, res);
    data::free_infos(res.info, res.n);
    return res.status;
}

// The _nb forms: `fabric` is the caller's until the callback, which comes after it is filled.
ReplyFn fabric_reply(pmix_fabric_t* fabric, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return [fabric, cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
        InfoResult res = decode_infos(st, f, true);
        if (res.status == PMIX_SUCCESS) store_fabric_info(fabric, res);
        data::free_infos(res.info, res.n);
        cbfunc(res.status, cbdata);
    };
}

// ---- the same calls made by a host itself (host_mode.h): its own upcall answers ----------------

struct HostWait {
    exec::Completion<InfoResult> done;
};

void host_info_cb(pmix_status_t status, pmix_info_t* info, std::size_t ninfo, void* cbdata,
                  pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    std::unique_ptr<HostWait> w(static_cast<HostWait*>(cbdata));
    data::InfoArray copy;
    InfoResult res{status, nullptr, 0};
    if (info != nullptr && ninfo > 0 && copy.assign_copy(info, ninfo) != PMIX_SUCCESS) {
        res.status = PMIX_ERR_NOMEM;
    }
    res.n = copy.size();
    res.info = copy.release();
    if (release_fn != nullptr) release_fn(release_cbdata);
    if (!w->done.complete(res)) data::free_infos(res.info, res.n);
}

// Starts `start(host_info_cb, cbdata)` and waits for its answer.
pmix_status_t host_blocking(const HostServer& host, std::chrono::milliseconds timeout,
                            InfoResult* out,
                            const std::function<pmix_status_t(pmix_info_cbfunc_t, void*)>& start) {
    if (host.on_server_thread()) return PMIX_ERR_WOULD_BLOCK;
    auto w = std::make_unique<HostWait>();
    exec::Completion<InfoResult> done = w->done;
    if (pmix_status_t rc = start(host_info_cb, w.get()); rc != PMIX_SUCCESS) return rc;
    w.release();  // host_info_cb owns it now
    if (pmix_status_t rc = wait_result(done, timeout, out); rc != PMIX_SUCCESS) {
        if (!done.complete(InfoResult{rc, nullptr, 0})) {  // answered meanwhile: free it
            auto late = done.wait(std::chrono::milliseconds(0));
            if (late.value) data::free_infos(late.value->info, late.value->n);
        }
        return rc;
    }
    return PMIX_SUCCESS;
}

struct HostFabricOp {
    pmix_fabric_t* fabric;
    pmix_op_cbfunc_t cbfunc;
    void* cbdata;
};

void host_fabric_cb(pmix_status_t status, pmix_info_t* info, std::size_t ninfo, void* cbdata,
                    pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    std::unique_ptr<HostFabricOp> op(static_cast<HostFabricOp*>(cbdata));
    InfoResult res{status, nullptr, 0};
    data::InfoArray copy;
    if (status == PMIX_SUCCESS && info != nullptr && ninfo > 0 &&
        copy.assign_copy(info, ninfo) != PMIX_SUCCESS) {
        res.status = PMIX_ERR_NOMEM;
    }
    res.n = copy.size();
    res.info = copy.release();
    if (release_fn != nullptr) release_fn(release_cbdata);
    if (res.status == PMIX_SUCCESS) store_fabric_info(op->fabric, res);
    data::free_infos(res.info, res.n);
    op->cbfunc(res.status, op->cbdata);
}

// What a host's fabric request carries: its directives, or for an update the fabric's index.
pmix_status_t host_fabric(const HostServer& host, pmix_fabric_t* fabric, pmix_fabric_operation_t op,
                          const pmix_info_t* dirs, std::size_t ndirs, pmix_info_cbfunc_t cb,
                          void* cbdata) {
    if (op != PMIX_FABRIC_UPDATE_INFO) return host.fabric(op, dirs, ndirs, cb, cbdata);
    pmix_info_t index;
    PMIX_INFO_LOAD(&index, PMIX_FABRIC_INDEX, &fabric->index, PMIX_SIZE);
    return host.fabric(op, &index, 1, cb, cbdata);  // copied before it returns
}

pmix_status_t host_fabric_blocking(const HostServer& host, pmix_fabric_t* fabric,
                                   pmix_fabric_operation_t op, const pmix_info_t* dirs,
                                   std::size_t ndirs) {
    if (fabric == nullptr || null_array_with_count(dirs, ndirs)) return PMIX_ERR_BAD_PARAM;
    InfoResult res{PMIX_ERROR, nullptr, 0};
    pmix_status_t rc =
        host_blocking(host, kDefaultTimeout, &res, [&](pmix_info_cbfunc_t cb, void* cd) {
            return host_fabric(host, fabric, op, dirs, ndirs, cb, cd);
        });
    if (rc != PMIX_SUCCESS) return rc;
    if (res.status == PMIX_SUCCESS) store_fabric_info(fabric, res);
    data::free_infos(res.info, res.n);
    return res.status;
}

pmix_status_t host_fabric_nb(const HostServer& host, pmix_fabric_t* fabric,
                             pmix_fabric_operation_t op, const pmix_info_t* dirs, std::size_t ndirs,
                             pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (fabric == nullptr || cbfunc == nullptr || null_array_with_count(dirs, ndirs)) return PMIX_ERR_BAD_PARAM;
    auto op_data = std::make_unique<HostFabricOp>(HostFabricOp{fabric, cbfunc, cbdata});
    pmix_status_t rc = host_fabric(host, fabric, op, dirs, ndirs, host_fabric_cb, op_data.get());
    if (rc == PMIX_SUCCESS) op_data.release();
    return rc;
}

}  // namespace

pmix_status_t allocation_request(pmix_alloc_directive_t directive, const pmix_info_t* info,
                                 std::size_t ninfo, pmix_info_t** results, std::size_t* nresults) {
    if (const HostServer* host = serving_host()) {
        if (results == nullptr || nresults == nullptr || null_array_with_count(info, ninfo) ||
            !valid_directive(directive)) {
            return PMIX_ERR_BAD_PARAM;
        }
        *results = nullptr;
        *nresults = 0;
        InfoResult res{PMIX_ERROR, nullptr, 0};
        pmix_status_t rc = host_blocking(*host, timeout_from(info, ninfo, kDefaultTimeout), &res,
                                         [&](pmix_info_cbfunc_t cb, void* cd) {
                                             return host->allocate(directive, info, ninfo, cb, cd);
                                         });
        if (rc != PMIX_SUCCESS) return rc;
        *results = res.info;
        *nresults = res.n;
        return res.status;
    }
    if (results == nullptr || nresults == nullptr) {
        return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    }
    *results = nullptr;
    *nresults = 0;
    return blocking_infos(
        true, timeout_from(info, ninfo, kDefaultTimeout), results, nresults,
        [&](ReplyFn fn) { return start_allocation(directive, info, ninfo, std::move(fn)); });
}

pmix_status_t allocation_request_nb(pmix_alloc_directive_t directive, const pmix_info_t* info,
                                    std::size_t ninfo, pmix_info_cbfunc_t cbfunc, void* cbdata) {
    if (const HostServer* host = serving_host()) {
        if (cbfunc == nullptr || null_array_with_count(info, ninfo) || !valid_directive(directive)) {
            return PMIX_ERR_BAD_PARAM;
        }
        return host->allocate(directive, info, ninfo, cbfunc, cbdata);
    }
    if (cbfunc == nullptr) return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    return start_allocation(directive, info, ninfo, info_cb_reply(true, cbfunc, cbdata));
}

pmix_status_t fabric_register(pmix_fabric_t* fabric, const pmix_info_t* dirs, std::size_t ndirs) {
    if (const HostServer* host = serving_host()) {
        return host_fabric_blocking(*host, fabric, PMIX_FABRIC_REQUEST_INFO, dirs, ndirs);
    }
    return blocking_fabric(fabric, PMIX_FABRIC_REQUEST_INFO, dirs, ndirs);
}

pmix_status_t fabric_register_nb(pmix_fabric_t* fabric, const pmix_info_t* dirs, std::size_t ndirs,
                                 pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (const HostServer* host = serving_host()) {
        return host_fabric_nb(*host, fabric, PMIX_FABRIC_REQUEST_INFO, dirs, ndirs, cbfunc, cbdata);
    }
    if (cbfunc == nullptr) return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    return start_fabric(fabric, PMIX_FABRIC_REQUEST_INFO, dirs, ndirs,
                        fabric_reply(fabric, cbfunc, cbdata));
}

pmix_status_t fabric_update(pmix_fabric_t* fabric) {
    if (const HostServer* host = serving_host()) {
        return host_fabric_blocking(*host, fabric, PMIX_FABRIC_UPDATE_INFO, nullptr, 0);
    }
    return blocking_fabric(fabric, PMIX_FABRIC_UPDATE_INFO, nullptr, 0);
}

pmix_status_t fabric_update_nb(pmix_fabric_t* fabric, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (const HostServer* host = serving_host()) {
        return host_fabric_nb(*host, fabric, PMIX_FABRIC_UPDATE_INFO, nullptr, 0, cbfunc, cbdata);
    }
    if (cbfunc == nullptr) return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    return start_fabric(fabric, PMIX_FABRIC_UPDATE_INFO, nullptr, 0,
                        fabric_reply(fabric, cbfunc, cbdata));
}

pmix_status_t fabric_deregister_nb(pmix_fabric_t* fabric) {
    if (!initialized() && serving_host() == nullptr) return PMIX_ERR_INIT;
    if (fabric == nullptr) return PMIX_ERR_BAD_PARAM;
    data::free_infos(fabric->info, fabric->ninfo);
    fabric->info = nullptr;
    fabric->ninfo = 0;
    return PMIX_OPERATION_SUCCEEDED;
}

// ---- resolve
// -------------------------------------------------------------------------------------

namespace {

// A job-level string of `nspace` (own namespace when empty) through Get.
pmix_status_t job_string(const char* nspace, const char* key, std::string* out) {
    pmix_proc_t job{};
    if (!own_proc(&job)) return PMIX_ERR_INIT;
    if (nspace != nullptr && nspace[0] != '\0') {
        std::memset(job.nspace, 0, sizeof(job.nspace));
        std::strncpy(job.nspace, nspace, PMIX_MAX_NSLEN);
    }
    job.rank = PMIX_RANK_WILDCARD;
    pmix_value_t* v = nullptr;
    pmix_status_t rc = get(&job, key, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS) return rc;
    ValuePtr owned(v);
    if (v->type != PMIX_STRING && v->type != PMIX_REGEX) return PMIX_ERR_TYPE_MISMATCH;
    if (v->type == PMIX_STRING) {
        *out = v->data.string != nullptr ? v->data.string : "";
    } else {
        *out = v->data.bo.bytes != nullptr ? std::string(v->data.bo.bytes) : "";
    }
    return PMIX_SUCCESS;
}

bool is_local_host(const char* nodename) {
    if (nodename == nullptr) return true;
    char host[256] = {};
    if (::gethostname(host, sizeof(host) - 1) != 0) return false;
    return std::strcmp(host, nodename) == 0;
}

pmix_status_t ranks_on(const char* nodename, const char* nspace, std::vector<pmix_rank_t>* out) {
    if (is_local_host(nodename)) {
        std::string peers;
        if (job_string(nspace, PMIX_LOCAL_PEERS, &peers) == PMIX_SUCCESS) {
            auto ranges = maps::parse_range_list(peers, PMIX_RANK_VALID, "local peers");
            if (!ranges.ok()) return ranges.status;
            for (const auto& r : ranges.value) {
                for (std::uint64_t k = r.first; k <= r.last; ++k)
                    out->push_back(static_cast<pmix_rank_t>(k));
            }
            return PMIX_SUCCESS;
        }
        if (nodename == nullptr) return PMIX_ERR_NOT_FOUND;
    }
    std::string node_map, proc_map;
    if (pmix_status_t rc = job_string(nspace, PMIX_NODE_MAP, &node_map); rc != PMIX_SUCCESS)
        return rc;
    if (pmix_status_t rc = job_string(nspace, PMIX_PROC_MAP, &proc_map); rc != PMIX_SUCCESS)
        return rc;
    auto nodes = maps::parse_nodes(node_map);
    auto ppn = maps::parse_ppn(proc_map);
    if (!nodes.ok()) return nodes.status;
    if (!ppn.ok()) return ppn.status;
    for (std::size_t i = 0; i < nodes.value.size() && i < ppn.value.size(); ++i) {
        if (nodes.value[i] == nodename) {
            *out = ppn.value[i];
            return PMIX_SUCCESS;
        }
    }
    return PMIX_ERR_NOT_FOUND;
}

}  // namespace

pmix_status_t resolve_peers(const char* nodename, const char* nspace, pmix_proc_t** procs,
                            std::size_t* nprocs) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (procs == nullptr || nprocs == nullptr) return PMIX_ERR_BAD_PARAM;
    *procs = nullptr;
    *nprocs = 0;
    pmix_proc_t me{};
    if (!own_proc(&me)) return PMIX_ERR_INIT;
    std::vector<pmix_rank_t> ranks;
    if (pmix_status_t rc = ranks_on(nodename, nspace, &ranks); rc != PMIX_SUCCESS) return rc;
    if (ranks.empty()) return PMIX_ERR_NOT_FOUND;
    auto* out = static_cast<pmix_proc_t*>(std::calloc(ranks.size(), sizeof(pmix_proc_t)));
    if (out == nullptr) return PMIX_ERR_NOMEM;
    const char* ns = (nspace != nullptr && nspace[0] != '\0') ? nspace : me.nspace;
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        // calloc zeroed the buffer, so copying at most PMIX_MAX_NSLEN bytes keeps the NUL.
        std::memcpy(out[i].nspace, ns, strnlen(ns, PMIX_MAX_NSLEN));
        out[i].rank = ranks[i];
    }
    *procs = out;
    *nprocs = ranks.size();
    return PMIX_SUCCESS;
}

pmix_status_t resolve_nodes(const char* nspace, char** nodelist) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (nodelist == nullptr) return PMIX_ERR_BAD_PARAM;
    *nodelist = nullptr;
    std::string node_map;
    if (pmix_status_t rc = job_string(nspace, PMIX_NODE_MAP, &node_map); rc != PMIX_SUCCESS)
        return rc;
    auto nodes = maps::parse_nodes(node_map);
    if (!nodes.ok()) return nodes.status;
    std::string joined;
    for (const auto& n : nodes.value) {
        if (!joined.empty()) joined += ',';
        joined += n;
    }
    *nodelist = ::strdup(joined.c_str());
    return *nodelist == nullptr ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

}  // namespace pmix::client
