// client/security.cpp - PMIx_Get_credential, PMIx_Validate_credential and PMIx_Process_monitor:
// requests to the server (protocol.h kGetCredential, kValidateCredential, kMonitor, kHeartbeat),
// as OpenPMIx 4.2.2's client relays them. The credential and the infos handed to a callback are
// the library's and freed when it returns (OpenPMIx's rule: the callee copies what it keeps).
// PMIX_SEND_HEARTBEAT is fire and forget (PMIx_Heartbeat() passes no callback): the beat is
// sent and the call returns; a callback, when given, hears PMIX_SUCCESS from the progress thread.
#include "client/client.h"
#include "client/host_mode.h"
#include "client/state.h"

#include "data/directives.h"
#include "data/value.h"
#include "exec/completion.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

namespace pmix::client {

namespace {

struct Answer {
    pmix_status_t status = PMIX_ERROR;
    pmix_byte_object_t cred{nullptr, 0};  // malloc'd
    pmix_info_t* info = nullptr;
    std::size_t n = 0;
    void release() {
        std::free(cred.bytes);
        cred = {nullptr, 0};
        data::free_infos(info, n);
        info = nullptr;
        n = 0;
    }
};

Answer decode(pmix_status_t st, const wire::Frame& f, bool with_cred) {
    Answer out;
    out.status = st;
    if (st != PMIX_SUCCESS) return out;
    proto::Reader r(f.payload);
    if (r.status(&out.status) != PMIX_SUCCESS) return Answer{PMIX_ERR_UNPACK_FAILURE};
    if (out.status != PMIX_SUCCESS) return out;
    if (with_cred) r.raw(&out.cred, 1, PMIX_BYTE_OBJECT);
    data::InfoArray infos;
    r.infos(&infos);
    if (r.finish() != PMIX_SUCCESS) {
        out.release();
        return Answer{PMIX_ERR_UNPACK_FAILURE};
    }
    out.n = infos.size();
    out.info = infos.release();
    return out;
}

// Waits for the answer `start` requests; a late answer is freed.
pmix_status_t wait_answer(bool with_cred, std::chrono::milliseconds timeout, Answer* out,
                          const std::function<pmix_status_t(ReplyFn)>& start) {
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    exec::Completion<Answer> done;
    pmix_status_t rc = start([done, with_cred](pmix_status_t st, wire::Frame&& f) {
        Answer a = decode(st, f, with_cred);
        if (!done.complete(a)) a.release();
    });
    if (rc != PMIX_SUCCESS) return rc;
    auto waited = done.wait(timeout + kWaitMargin);
    if (waited.status != PMIX_SUCCESS) {
        if (!done.complete(Answer{waited.status})) {
            auto late = done.wait(std::chrono::milliseconds(0));
            if (late.value) late.value->release();
        }
        return waited.status;
    }
    *out = *waited.value;
    return out->status;
}

pmix_status_t start_get(const pmix_info_t* info, std::size_t ninfo, ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (info == nullptr && ninfo > 0) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kGetCredential, w.take(), timeout_from(info, ninfo, kDefaultTimeout),
                   std::move(fn));
}

pmix_status_t start_validate(const pmix_byte_object_t* cred, const pmix_info_t* dirs,
                             std::size_t ndirs, ReplyFn fn) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (cred == nullptr || (cred->bytes == nullptr && cred->size > 0) ||
        (dirs == nullptr && ndirs > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    proto::Writer w;
    w.byte_object(*cred).infos(dirs, ndirs);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kValidateCredential, w.take(),
                   timeout_from(dirs, ndirs, kDefaultTimeout), std::move(fn));
}

bool is_heartbeat(const pmix_info_t* monitor) {
    return data::key_is(*monitor, PMIX_SEND_HEARTBEAT);
}

pmix_status_t start_monitor(const pmix_info_t* monitor, pmix_status_t error,
                            const pmix_info_t* dirs, std::size_t ndirs, ReplyFn fn) {
    // In a host its monitors are its own business: OpenPMIx hands them straight back to the
    // host's own monitor upcall (PMIX_ERR_NOT_SUPPORTED without one); we do not loop a host's
    // call back into its own upcall and answer PMIX_ERR_NOT_SUPPORTED either way.
    if (serving_host() != nullptr) return PMIX_ERR_NOT_SUPPORTED;
    if (!initialized()) return PMIX_ERR_INIT;
    if (monitor == nullptr || (dirs == nullptr && ndirs > 0)) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    if (is_heartbeat(monitor)) {
        return request(proto::Op::kHeartbeat, w.take(), kShortTimeout, std::move(fn));
    }
    w.raw(monitor, 1, PMIX_INFO).status(error).infos(dirs, ndirs);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kMonitor, w.take(), timeout_from(dirs, ndirs, kDefaultTimeout),
                   std::move(fn));
}

// ---- in a host (client/host_mode.h): its own server answers ----------------------------------

using HostDone = exec::Completion<Answer>;

Answer copy_answer(pmix_status_t st, const pmix_byte_object_t* cred, const pmix_info_t* info,
                   std::size_t n) {
    Answer a;
    a.status = st;
    data::InfoArray infos;
    if (infos.assign_copy(info, n) != PMIX_SUCCESS) return Answer{PMIX_ERR_NOMEM};
    a.n = infos.size();
    a.info = infos.release();
    if (st == PMIX_SUCCESS && cred != nullptr && cred->size > 0) {
        a.cred.bytes = static_cast<char*>(std::malloc(cred->size));
        if (a.cred.bytes == nullptr) {
            a.release();
            return Answer{PMIX_ERR_NOMEM};
        }
        std::memcpy(a.cred.bytes, cred->bytes, cred->size);
        a.cred.size = cred->size;
    }
    return a;
}

void host_credential_cb(pmix_status_t st, pmix_byte_object_t* cred, pmix_info_t* info, size_t n,
                        void* cbdata) {
    std::unique_ptr<HostDone> done(static_cast<HostDone*>(cbdata));
    Answer a = copy_answer(st, cred, info, n);
    if (!done->complete(a)) a.release();
}

void host_validation_cb(pmix_status_t st, pmix_info_t* info, size_t n, void* cbdata) {
    host_credential_cb(st, nullptr, info, n, cbdata);
}

// The blocking form in a host: `start` hands its callback a HostDone it then owns.
pmix_status_t wait_host(std::chrono::milliseconds timeout, Answer* out,
                        const std::function<pmix_status_t(HostDone*)>& start) {
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    HostDone done;
    auto* theirs = new HostDone(done);
    if (pmix_status_t rc = start(theirs); rc != PMIX_SUCCESS) {
        delete theirs;
        return rc;
    }
    auto waited = done.wait(timeout + kWaitMargin);
    if (waited.status != PMIX_SUCCESS) {
        if (!done.complete(Answer{waited.status})) {
            auto late = done.wait(std::chrono::milliseconds(0));
            if (late.value) late.value->release();
        }
        return waited.status;
    }
    *out = *waited.value;
    return out->status;
}

void release_answer(void* cbdata) {
    auto* a = static_cast<Answer*>(cbdata);
    a->release();
    delete a;
}

}  // namespace

pmix_status_t get_credential(const pmix_info_t* info, std::size_t ninfo, pmix_byte_object_t* cred) {
    if (cred == nullptr) {
        return initialized() || serving_host() != nullptr ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    }
    Answer a;
    const auto timeout = timeout_from(info, ninfo, kDefaultTimeout);
    const HostServer* host = serving_host();
    pmix_status_t rc =
        host != nullptr
            ? wait_host(timeout, &a,
                        [&](HostDone* d) {
                            return host->get_credential(info, ninfo, host_credential_cb, d);
                        })
            : wait_answer(true, timeout, &a,
                          [&](ReplyFn fn) { return start_get(info, ninfo, std::move(fn)); });
    if (rc == PMIX_SUCCESS) {
        *cred = a.cred;  // the caller owns it (PMIX_BYTE_OBJECT_DESTRUCT)
        a.cred = {nullptr, 0};
    }
    a.release();
    return rc;
}

pmix_status_t get_credential_nb(const pmix_info_t* info, std::size_t ninfo,
                                pmix_credential_cbfunc_t cbfunc, void* cbdata) {
    if (const HostServer* host = serving_host()) {
        return host->get_credential(info, ninfo, cbfunc, cbdata);
    }
    if (cbfunc == nullptr) return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    return start_get(info, ninfo, [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
        Answer a = decode(st, f, true);
        cbfunc(a.status, a.status == PMIX_SUCCESS ? &a.cred : nullptr, a.info, a.n, cbdata);
        a.release();
    });
}

pmix_status_t validate_credential(const pmix_byte_object_t* cred, const pmix_info_t* dirs,
                                  std::size_t ndirs, pmix_info_t** results, std::size_t* nresults) {
    if (results != nullptr) *results = nullptr;
    if (nresults != nullptr) *nresults = 0;
    Answer a;
    const auto timeout = timeout_from(dirs, ndirs, kDefaultTimeout);
    const HostServer* host = serving_host();
    pmix_status_t rc = host != nullptr
                           ? wait_host(timeout, &a,
                                       [&](HostDone* d) {
                                           return host->validate_credential(cred, dirs, ndirs,
                                                                            host_validation_cb, d);
                                       })
                           : wait_answer(false, timeout, &a, [&](ReplyFn fn) {
                                 return start_validate(cred, dirs, ndirs, std::move(fn));
                             });
    if (rc == PMIX_SUCCESS && results != nullptr && nresults != nullptr) {
        *results = a.info;
        *nresults = a.n;
        a.info = nullptr;
        a.n = 0;
    }
    a.release();
    return rc;
}

pmix_status_t validate_credential_nb(const pmix_byte_object_t* cred, const pmix_info_t* dirs,
                                     std::size_t ndirs, pmix_validation_cbfunc_t cbfunc,
                                     void* cbdata) {
    if (const HostServer* host = serving_host()) {
        return host->validate_credential(cred, dirs, ndirs, cbfunc, cbdata);
    }
    if (cbfunc == nullptr) return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    return start_validate(cred, dirs, ndirs, [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
        Answer a = decode(st, f, false);
        cbfunc(a.status, a.info, a.n, cbdata);
        a.release();
    });
}

pmix_status_t process_monitor(const pmix_info_t* monitor, pmix_status_t error,
                              const pmix_info_t* dirs, std::size_t ndirs, pmix_info_t** results,
                              std::size_t* nresults) {
    if (results != nullptr) *results = nullptr;
    if (nresults != nullptr) *nresults = 0;
    if (monitor != nullptr && is_heartbeat(monitor)) {  // a beat: nothing to wait for
        return process_monitor_nb(monitor, error, dirs, ndirs, nullptr, nullptr);
    }
    Answer a;
    pmix_status_t rc = wait_answer(
        false, timeout_from(dirs, ndirs, kDefaultTimeout), &a,
        [&](ReplyFn fn) { return start_monitor(monitor, error, dirs, ndirs, std::move(fn)); });
    if (rc == PMIX_SUCCESS && results != nullptr && nresults != nullptr) {
        *results = a.info;
        *nresults = a.n;
        a.info = nullptr;
        a.n = 0;
    }
    a.release();
    return rc;
}

pmix_status_t process_monitor_nb(const pmix_info_t* monitor, pmix_status_t error,
                                 const pmix_info_t* dirs, std::size_t ndirs,
                                 pmix_info_cbfunc_t cbfunc, void* cbdata) {
    if (serving_host() != nullptr) return PMIX_ERR_NOT_SUPPORTED;
    if (cbfunc == nullptr && (monitor == nullptr || !is_heartbeat(monitor))) {
        return initialized() ? PMIX_ERR_BAD_PARAM : PMIX_ERR_INIT;
    }
    return start_monitor(monitor, error, dirs, ndirs,
                         [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
                             if (cbfunc == nullptr) return;  // a beat without a callback
                             auto* a = new Answer(decode(st, f, false));
                             cbfunc(a->status, a->info, a->n, cbdata, release_answer, a);
                         });
}

}  // namespace pmix::client
