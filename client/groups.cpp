// client/groups.cpp - PMIx_Group_construct / destruct / invite / join / leave (wire ops
// kGroup*, protocol.h). The server runs each as a collective of the group's local members and
// asks its host's `group` upcall; the client checks the arguments, sends the request and hands
// the reply's results (PMIX_GROUP_CONTEXT_ID, PMIX_GROUP_MEMBERSHIP, what the host added) to the
// caller. PMIX_TIMEOUT is enforced by the server; the client's own deadline is a little later so
// that the server's PMIX_ERR_TIMEOUT (which also ends the collective there) is what arrives.
#include "client/client.h"
#include "client/state.h"

#include "data/value.h"
#include "exec/completion.h"

#include <cstring>
#include <memory>

namespace pmix::client {

namespace {

constexpr std::chrono::milliseconds kAfterServer{std::chrono::seconds(2)};


// A group id names the group wherever a namespace may (groups of groups): it must fit one.
bool bad_group_id(const char* grp) {
    return grp == nullptr || grp[0] == '\0' || ::strnlen(grp, PMIX_MAX_NSLEN + 1) > PMIX_MAX_NSLEN;
}

std::chrono::milliseconds group_timeout(const pmix_info_t* info, std::size_t ninfo) {
    const auto t = timeout_from(info, ninfo, kDefaultTimeout);
    return t == kDefaultTimeout ? t : t + kAfterServer;
}

struct Results {
    pmix_status_t status = PMIX_ERROR;
    pmix_info_t* info = nullptr;
    std::size_t n = 0;
};

// Reply: status, then (whatever the status, possibly none) the results.
Results decode_results(pmix_status_t st, const wire::Frame& f) {
    Results out{st, nullptr, 0};
    if (st != PMIX_SUCCESS) return out;
    proto::Reader r(f.payload);
    data::InfoArray infos;
    if (r.status(&out.status) != PMIX_SUCCESS || r.infos(&infos) != PMIX_SUCCESS ||
        r.finish() != PMIX_SUCCESS) {
        return {PMIX_ERR_UNPACK_FAILURE, nullptr, 0};
    }
    out.n = infos.size();
    out.info = infos.release();
    return out;
}

void release_results(void* cbdata) {
    std::unique_ptr<Results> r(static_cast<Results*>(cbdata));
    data::free_infos(r->info, r->n);
}

ReplyFn results_to(pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
        auto res = std::make_unique<Results>(decode_results(st, f));
        Results* raw = res.release();
        cbfunc(raw->status, raw->info, raw->n, cbdata, release_results, raw);
    };
}

// Blocking form of a results request started by `start` (given the reply handler).
template <class Start>
pmix_status_t wait_results(std::chrono::milliseconds timeout, pmix_info_t** results,
                           std::size_t* nresults, Start&& start) {
    if (results != nullptr && nresults != nullptr) {  // defined even when the call fails
        *results = nullptr;
        *nresults = 0;
    }
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    exec::Completion<Results> done;
    pmix_status_t rc = start([done](pmix_status_t st, wire::Frame&& f) {
        Results res = decode_results(st, f);
        if (!done.complete(res)) data::free_infos(res.info, res.n);
    });
    if (rc != PMIX_SUCCESS) return rc;
    auto waited = done.wait(timeout + kWaitMargin);
    if (waited.status != PMIX_SUCCESS) {
        if (!done.complete(Results{waited.status, nullptr, 0})) {  // came after all
            auto late = done.wait(std::chrono::milliseconds(0));
            if (late.value) data::free_infos(late.value->info, late.value->n);
        }
        return waited.status;
    }
    Results res = *waited.value;
    if (results != nullptr && nresults != nullptr) {
        *results = res.info;
        *nresults = res.n;
    } else {
        data::free_infos(res.info, res.n);
    }
    return res.status;
}

// construct and invite: group id, procs, directives.
pmix_status_t start_with_procs(proto::Op op, const char* grp, const pmix_proc_t* procs,
                               std::size_t nprocs, const pmix_info_t* info, std::size_t ninfo,
                               ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (bad_group_id(grp) || procs == nullptr || nprocs == 0 || null_array_with_count(info, ninfo)) {
        return PMIX_ERR_BAD_PARAM;
    }
    proto::Writer w;
    w.string(grp).procs(procs, nprocs).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(op, w.take(), group_timeout(info, ninfo), std::move(fn));
}

pmix_status_t start_join(const char* grp, const pmix_proc_t* leader, pmix_group_opt_t opt,
                         const pmix_info_t* info, std::size_t ninfo, ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (bad_group_id(grp) || null_array_with_count(info, ninfo) ||
        (opt != PMIX_GROUP_ACCEPT && opt != PMIX_GROUP_DECLINE)) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_proc_t none{};
    none.rank = PMIX_RANK_INVALID;
    proto::Writer w;
    w.string(grp).proc(leader != nullptr ? *leader : none);
    w.size(opt == PMIX_GROUP_ACCEPT ? 1 : 0).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kGroupJoin, w.take(), group_timeout(info, ninfo), std::move(fn));
}

// destruct and leave: group id, directives; the reply is a status.
pmix_status_t id_only_payload(const char* grp, const pmix_info_t* info, std::size_t ninfo,
                              wire::Bytes* out) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (bad_group_id(grp) || null_array_with_count(info, ninfo)) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.string(grp).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    *out = w.take();
    return PMIX_SUCCESS;
}

pmix_status_t id_only_nb(proto::Op op, const char* grp, const pmix_info_t* info, std::size_t ninfo,
                         pmix_op_cbfunc_t cbfunc, void* cbdata) {
    wire::Bytes payload;
    if (pmix_status_t rc = id_only_payload(grp, info, ninfo, &payload); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    return status_request_nb(op, std::move(payload), group_timeout(info, ninfo), cbfunc, cbdata);
}

pmix_status_t id_only(proto::Op op, const char* grp, const pmix_info_t* info, std::size_t ninfo) {
    wire::Bytes payload;
    if (pmix_status_t rc = id_only_payload(grp, info, ninfo, &payload); rc != PMIX_SUCCESS) {
        return rc;
    }
    return call_status(op, std::move(payload), group_timeout(info, ninfo));
}

}  // namespace

pmix_status_t group_construct(const char* grp, const pmix_proc_t* procs, std::size_t nprocs,
                              const pmix_info_t* info, std::size_t ninfo, pmix_info_t** results,
                              std::size_t* nresults) {
    return wait_results(group_timeout(info, ninfo), results, nresults, [&](ReplyFn fn) {
        return start_with_procs(proto::Op::kGroupConstruct, grp, procs, nprocs, info, ninfo,
                                std::move(fn));
    });
}

pmix_status_t group_construct_nb(const char* grp, const pmix_proc_t* procs, std::size_t nprocs,
                                 const pmix_info_t* info, std::size_t ninfo,
                                 pmix_info_cbfunc_t cbfunc, void* cbdata) {
    if (initialized() && cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    return start_with_procs(proto::Op::kGroupConstruct, grp, procs, nprocs, info, ninfo,
                            results_to(cbfunc, cbdata));
}

pmix_status_t group_invite(const char* grp, const pmix_proc_t* procs, std::size_t nprocs,
                           const pmix_info_t* info, std::size_t ninfo, pmix_info_t** results,
                           std::size_t* nresults) {
    return wait_results(group_timeout(info, ninfo), results, nresults, [&](ReplyFn fn) {
        return start_with_procs(proto::Op::kGroupInvite, grp, procs, nprocs, info, ninfo,
                                std::move(fn));
    });
}

pmix_status_t group_invite_nb(const char* grp, const pmix_proc_t* procs, std::size_t nprocs,
                              const pmix_info_t* info, std::size_t ninfo, pmix_info_cbfunc_t cbfunc,
                              void* cbdata) {
    if (initialized() && cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    return start_with_procs(proto::Op::kGroupInvite, grp, procs, nprocs, info, ninfo,
                            results_to(cbfunc, cbdata));
}

pmix_status_t group_join(const char* grp, const pmix_proc_t* leader, pmix_group_opt_t opt,
                         const pmix_info_t* info, std::size_t ninfo, pmix_info_t** results,
                         std::size_t* nresults) {
    return wait_results(group_timeout(info, ninfo), results, nresults, [&](ReplyFn fn) {
        return start_join(grp, leader, opt, info, ninfo, std::move(fn));
    });
}

pmix_status_t group_join_nb(const char* grp, const pmix_proc_t* leader, pmix_group_opt_t opt,
                            const pmix_info_t* info, std::size_t ninfo, pmix_info_cbfunc_t cbfunc,
                            void* cbdata) {
    if (initialized() && cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    return start_join(grp, leader, opt, info, ninfo, results_to(cbfunc, cbdata));
}

pmix_status_t group_destruct(const char* grp, const pmix_info_t* info, std::size_t ninfo) {
    return id_only(proto::Op::kGroupDestruct, grp, info, ninfo);
}

pmix_status_t group_destruct_nb(const char* grp, const pmix_info_t* info, std::size_t ninfo,
                                pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return id_only_nb(proto::Op::kGroupDestruct, grp, info, ninfo, cbfunc, cbdata);
}

pmix_status_t group_leave(const char* grp, const pmix_info_t* info, std::size_t ninfo) {
    return id_only(proto::Op::kGroupLeave, grp, info, ninfo);
}

pmix_status_t group_leave_nb(const char* grp, const pmix_info_t* info, std::size_t ninfo,
                             pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return id_only_nb(proto::Op::kGroupLeave, grp, info, ninfo, cbfunc, cbdata);
}

}  // namespace pmix::client
