// server/own_upcalls.cpp - a host's own PMIx_Allocation_request and PMIx_Fabric_register/update:
// passed to its own allocate / fabric upcall with the server as the requester, as OpenPMIx 4.2.2
// does in a server process (src/common/pmix_query.c, src/client/pmix_client_fabric.c).
//
// Never inside the host's call: the upcall is a loop task of its own, and the host's answer (which
// may come inline, inside the upcall) is copied and handed to the caller's callback from another
// task, the host's release function after it (server/README.md, "Callback discipline").
#include "server/api.h"
#include "server/state.h"

#include "data/info_array.h"

#include <memory>

namespace pmix::server {

namespace {

struct OwnUpcall {
    pmix_proc_t me{};
    data::InfoArray info;
    pmix_info_cbfunc_t cbfunc = nullptr;
    void* cbdata = nullptr;
};

struct Answer {
    data::InfoArray info;
};

void release_answer(void* cbdata) { delete static_cast<Answer*>(cbdata); }

void deliver(std::unique_ptr<OwnUpcall> u, pmix_status_t status, std::unique_ptr<Answer> answer,
             pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    call_host_later([u = std::move(u), status, answer = std::move(answer), release_fn,
                     release_cbdata]() mutable {
        if (release_fn != nullptr) release_fn(release_cbdata);  // our copy is all we keep
        Answer* a = answer.release();
        u->cbfunc(status, a->info.data(), a->info.size(), u->cbdata, release_answer, a);
    });
}

void own_done(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* cbdata,
              pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    std::unique_ptr<OwnUpcall> u(static_cast<OwnUpcall*>(cbdata));
    auto answer = std::make_unique<Answer>();
    pmix_status_t st = status;
    if (info != nullptr && ninfo > 0 && answer->info.assign_copy(info, ninfo) != PMIX_SUCCESS) {
        st = PMIX_ERR_NOMEM;
    }
    deliver(std::move(u), st, std::move(answer), release_fn, release_cbdata);
}

// Copies the request, then makes the upcall from a loop task. PMIX_ERR_NOT_SUPPORTED when
// `present` says the host has no such upcall.
template <class Call>
pmix_status_t start(bool (*present)(const State&), const pmix_info_t* info, size_t ninfo,
                    pmix_info_cbfunc_t cbfunc, void* cbdata, Call call) {
    auto st = current();
    if (st == nullptr) return PMIX_ERR_INIT;
    if (cbfunc == nullptr || (info == nullptr && ninfo > 0)) return PMIX_ERR_BAD_PARAM;
    if (!present(*st)) return PMIX_ERR_NOT_SUPPORTED;
    auto u = std::make_unique<OwnUpcall>();
    identity(&u->me);
    if (pmix_status_t rc = u->info.assign_copy(info, ninfo); rc != PMIX_SUCCESS) return rc;
    u->cbfunc = cbfunc;
    u->cbdata = cbdata;
    State* s = st.get();
    const bool posted = st->ex->post([s, u = std::move(u), call]() mutable {
        OwnUpcall* raw = u.release();
        const pmix_status_t rc = call(*s, raw);
        if (rc != PMIX_SUCCESS) {  // no callback will come: the status is the answer
            deliver(std::unique_ptr<OwnUpcall>(raw),
                    rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, std::make_unique<Answer>(),
                    nullptr, nullptr);
        }
    });
    return posted ? PMIX_SUCCESS : PMIX_ERR_INIT;
}

}  // namespace

pmix_status_t own_allocate(pmix_alloc_directive_t directive, const pmix_info_t* info, size_t ninfo,
                           pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return start([](const State& s) { return s.module.allocate != nullptr; }, info, ninfo, cbfunc,
                 cbdata,
                 [directive](State& s, OwnUpcall* u) {
                     return s.module.allocate(&u->me, directive, u->info.data(), u->info.size(),
                                              own_done, u);
                 });
}

pmix_status_t own_fabric(pmix_fabric_operation_t op, const pmix_info_t* info, size_t ninfo,
                         pmix_info_cbfunc_t cbfunc, void* cbdata) {
    return start(
        [](const State& s) { return s.module.fabric != nullptr; }, info, ninfo, cbfunc, cbdata,
        [op](State& s, OwnUpcall* u) {
            return s.module.fabric(&u->me, op, u->info.data(), u->info.size(), own_done, u);
        });
}

bool on_server_thread() {
    auto st = current();
    return st != nullptr && st->ex->on_loop_thread();
}

}  // namespace pmix::server
