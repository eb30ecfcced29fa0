// server/credential_ops.cpp - kGetCredential / kValidateCredential from a client or tool.
//
// As OpenPMIx 4.2.2's server: the host's get_credential / validate_credential upcall answers
// when the host provides one (called from this loop task, which is no host call; the requester
// is named as `proc`); otherwise the library's own mechanism (credential.h) does, with the
// requester's identity as the kernel gave it at connect (SO_PEERCRED, checked against its
// registration in accept()). Validation results: PMIX_USERID, PMIX_GRPID and PMIX_CRED_TYPE.
#include "server/api.h"
#include "server/credential.h"
#include "server/state.h"

#include "data/directives.h"
#include "data/info_array.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

namespace pmix::server {

namespace {

using proto::Op;

// Directives honoured by both calls (anything else marked required is refused).
constexpr const char* kCredentialKnown[] = {PMIX_CRED_TYPE, PMIX_TIMEOUT};

// One request waiting for the host's callback: owns what the host was handed.
struct CredentialCall {
    ReplyTo to;
    pmix_proc_t proc{};
    data::InfoArray directives;
    pmix_byte_object_t cred{};
    ~CredentialCall() { std::free(cred.bytes); }
};

void reply_credential(const ReplyTo& to, pmix_status_t status, const pmix_byte_object_t* cred,
                      const pmix_info_t* info, std::size_t ninfo) {
    auto conn = to.conn.lock();
    if (!conn) return;
    proto::Writer w;
    w.status(status);
    if (status == PMIX_SUCCESS) {
        const pmix_byte_object_t empty{nullptr, 0};
        w.byte_object(cred != nullptr ? *cred : empty).infos(info, ninfo);
    }
    conn->reply(to.request, w.take());
}

void reply_validation(const ReplyTo& to, pmix_status_t status, const pmix_info_t* info,
                      std::size_t ninfo) {
    auto conn = to.conn.lock();
    if (!conn) return;
    proto::Writer w;
    w.status(status);
    if (status == PMIX_SUCCESS) w.infos(info, ninfo);
    conn->reply(to.request, w.take());
}

// The host's callbacks (any thread, maybe inside the upcall): copy into the reply, which posts.
void host_credential_done(pmix_status_t status, pmix_byte_object_t* cred, pmix_info_t info[],
                          size_t ninfo, void* cbdata) {
    std::unique_ptr<CredentialCall> call(static_cast<CredentialCall*>(cbdata));
    reply_credential(call->to, status, cred, info, ninfo);
}

void host_validation_done(pmix_status_t status, pmix_info_t info[], size_t ninfo, void* cbdata) {
    std::unique_ptr<CredentialCall> call(static_cast<CredentialCall*>(cbdata));
    reply_validation(call->to, status, info, ninfo);
}

// What the host's return code means (PMIX_SUCCESS: it calls back later).
void settle(pmix_status_t rc, std::unique_ptr<CredentialCall> call, bool validation) {
    if (rc == PMIX_SUCCESS) {
        call.release();
        return;
    }
    if (rc == PMIX_OPERATION_SUCCEEDED) rc = PMIX_ERR_BAD_PARAM;  // no answer to hand back
    if (validation) {
        reply_validation(call->to, rc, nullptr, 0);
    } else {
        reply_credential(call->to, rc, nullptr, nullptr, 0);
    }
}

pmix_status_t own_credential(State& s, const Client& c, const CredentialCall& call) {
    if (!credential_type_accepted(call.directives.data(), call.directives.size())) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    CredentialHolder who{c.uid, c.gid, c.pid,
                         std::string(c.proc.nspace, strnlen(c.proc.nspace, PMIX_MAX_NSLEN)),
                         c.proc.rank};
    std::vector<std::uint8_t> bytes;
    if (pmix_status_t rc = s.credentials.issue(who, &bytes); rc != PMIX_SUCCESS) return rc;
    pmix_byte_object_t bo{reinterpret_cast<char*>(bytes.data()), bytes.size()};
    data::InfoArray info;
    info.append(PMIX_CRED_TYPE, kCredentialType, PMIX_STRING);
    reply_credential(call.to, PMIX_SUCCESS, &bo, info.data(), info.size());
    return PMIX_SUCCESS;
}

pmix_status_t own_validation(State& s, const CredentialCall& call) {
    if (!credential_type_accepted(call.directives.data(), call.directives.size())) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    CredentialHolder who;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(call.cred.bytes);
    if (pmix_status_t rc = s.credentials.validate(bytes, call.cred.size, &who);
        rc != PMIX_SUCCESS) {
        return rc;
    }
    const std::uint32_t uid = who.uid, gid = who.gid;
    data::InfoArray info;
    info.append(PMIX_USERID, &uid, PMIX_UINT32);
    info.append(PMIX_GRPID, &gid, PMIX_UINT32);
    info.append(PMIX_CRED_TYPE, kCredentialType, PMIX_STRING);
    reply_validation(call.to, PMIX_SUCCESS, info.data(), info.size());
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t State::credential_request(Client& c, proto::Reader& r, wire::Connection& conn,
                                        const wire::Frame& frame) {
    const bool validation = static_cast<Op>(frame.op) == Op::kValidateCredential;
    auto call = std::make_unique<CredentialCall>();
    call->to = ReplyTo::of(conn, frame);
    call->proc = c.proc;
    if (validation) r.raw(&call->cred, 1, PMIX_BYTE_OBJECT);
    r.infos(&call->directives);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (data::unknown_required(call->directives.data(), call->directives.size(), kCredentialKnown)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    CredentialCall* raw = call.get();
    if (!validation && module.get_credential != nullptr) {
        settle(module.get_credential(&raw->proc, raw->directives.data(), raw->directives.size(),
                                     host_credential_done, raw),
               std::move(call), false);
        return PMIX_SUCCESS;
    }
    if (validation && module.validate_credential != nullptr) {
        settle(module.validate_credential(&raw->proc, &raw->cred, raw->directives.data(),
                                          raw->directives.size(), host_validation_done, raw),
               std::move(call), true);
        return PMIX_SUCCESS;
    }
    return validation ? own_validation(*this, *call) : own_credential(*this, c, *call);
}

// ---- the host's own calls (server/api.h) -------------------------------------------------------

namespace {

// A host's own request: what its upcall was handed, and the host's callback, which is always
// called from a task of its own (call_host_later), never on the stack of the host's upcall.
struct OwnCall {
    pmix_proc_t me{};
    data::InfoArray directives;
    pmix_byte_object_t cred{};
    pmix_credential_cbfunc_t credential_cb = nullptr;
    pmix_validation_cbfunc_t validation_cb = nullptr;
    void* cbdata = nullptr;
    ~OwnCall() { std::free(cred.bytes); }
};

// Calls the host's callback later with a copy of the answer.
void answer_later(std::unique_ptr<OwnCall> call, pmix_status_t status,
                  const pmix_byte_object_t* cred, const pmix_info_t* info, std::size_t ninfo) {
    auto copy = std::make_shared<data::InfoArray>();
    if (copy->assign_copy(info, ninfo) != PMIX_SUCCESS && status == PMIX_SUCCESS) {
        status = PMIX_ERR_NOMEM;
    }
    std::string bytes;
    if (cred != nullptr && cred->bytes != nullptr) bytes.assign(cred->bytes, cred->size);
    call_host_later([call = std::move(call), status, copy, bytes]() mutable {
        pmix_byte_object_t bo{bytes.data(), bytes.size()};
        if (call->credential_cb != nullptr) {
            call->credential_cb(status, status == PMIX_SUCCESS ? &bo : nullptr, copy->data(),
                                copy->size(), call->cbdata);
        } else {
            call->validation_cb(status, copy->data(), copy->size(), call->cbdata);
        }
    });
}

void own_credential_done(pmix_status_t status, pmix_byte_object_t* cred, pmix_info_t info[],
                         size_t ninfo, void* cbdata) {
    answer_later(std::unique_ptr<OwnCall>(static_cast<OwnCall*>(cbdata)), status, cred, info,
                 ninfo);
}

void own_validation_done(pmix_status_t status, pmix_info_t info[], size_t ninfo, void* cbdata) {
    answer_later(std::unique_ptr<OwnCall>(static_cast<OwnCall*>(cbdata)), status, nullptr, info,
                 ninfo);
}

// On the loop: the host's upcall, or the library's own answer with the server's identity.
void serve_own_call(State& s, std::unique_ptr<OwnCall> call) {
    OwnCall* raw = call.get();
    const bool validation = raw->validation_cb != nullptr;
    auto host_fn = validation ? nullptr : s.module.get_credential;
    auto host_validate = validation ? s.module.validate_credential : nullptr;
    pmix_status_t rc = PMIX_ERR_NOT_SUPPORTED;
    if (host_fn != nullptr || host_validate != nullptr) {
        rc = host_fn != nullptr ? host_fn(&raw->me, raw->directives.data(), raw->directives.size(),
                                          own_credential_done, raw)
                                : host_validate(&raw->me, &raw->cred, raw->directives.data(),
                                                raw->directives.size(), own_validation_done, raw);
        if (rc == PMIX_SUCCESS) {
            call.release();  // its callback answers
            return;
        }
        answer_later(std::move(call), rc == PMIX_OPERATION_SUCCEEDED ? PMIX_ERR_BAD_PARAM : rc,
                     nullptr, nullptr, 0);
        return;
    }
    data::InfoArray info;
    std::vector<std::uint8_t> bytes;
    CredentialHolder who{::geteuid(), ::getegid(), ::getpid(), s.nspace, s.rank};
    if (!credential_type_accepted(raw->directives.data(), raw->directives.size())) {
        rc = PMIX_ERR_NOT_SUPPORTED;
    } else if (validation) {
        const auto* data = reinterpret_cast<const std::uint8_t*>(raw->cred.bytes);
        rc = s.credentials.validate(data, raw->cred.size, &who);
        const std::uint32_t uid = who.uid, gid = who.gid;
        if (rc == PMIX_SUCCESS) info.append(PMIX_USERID, &uid, PMIX_UINT32);
        if (rc == PMIX_SUCCESS) info.append(PMIX_GRPID, &gid, PMIX_UINT32);
    } else {
        rc = s.credentials.issue(who, &bytes);
    }
    if (rc == PMIX_SUCCESS) info.append(PMIX_CRED_TYPE, kCredentialType, PMIX_STRING);
    pmix_byte_object_t bo{reinterpret_cast<char*>(bytes.data()), bytes.size()};
    answer_later(std::move(call), rc, &bo, info.data(), info.size());
}

pmix_status_t start_own_call(std::unique_ptr<OwnCall> call, const pmix_info_t* info,
                             std::size_t ninfo) {
    auto st = current();
    if (st == nullptr) return PMIX_ERR_INIT;
    if (info == nullptr && ninfo > 0) return PMIX_ERR_BAD_PARAM;
    if (data::unknown_required(info, ninfo, kCredentialKnown)) return PMIX_ERR_NOT_SUPPORTED;
    if (pmix_status_t rc = call->directives.assign_copy(info, ninfo); rc != PMIX_SUCCESS) {
        return rc;
    }
    std::strncpy(call->me.nspace, st->nspace.c_str(), PMIX_MAX_NSLEN);
    call->me.rank = st->rank;
    State* s = st.get();
    // A task of its own: the upcall is never made inside the host's call into the library.
    return st->ex->post(
               [s, call = std::move(call)]() mutable { serve_own_call(*s, std::move(call)); })
               ? PMIX_SUCCESS
               : PMIX_ERR_INIT;
}

}  // namespace

pmix_status_t get_own_credential(const pmix_info_t* info, size_t ninfo,
                                 pmix_credential_cbfunc_t cbfunc, void* cbdata) {
    if (cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    auto call = std::make_unique<OwnCall>();
    call->credential_cb = cbfunc;
    call->cbdata = cbdata;
    return start_own_call(std::move(call), info, ninfo);
}

pmix_status_t validate_own_credential(const pmix_byte_object_t* cred, const pmix_info_t* info,
                                      size_t ninfo, pmix_validation_cbfunc_t cbfunc, void* cbdata) {
    if (cbfunc == nullptr || cred == nullptr || (cred->bytes == nullptr && cred->size > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    auto call = std::make_unique<OwnCall>();
    call->validation_cb = cbfunc;
    call->cbdata = cbdata;
    if (cred->size > 0) {
        call->cred.bytes = static_cast<char*>(std::malloc(cred->size));
        if (call->cred.bytes == nullptr) return PMIX_ERR_NOMEM;
        std::memcpy(call->cred.bytes, cred->bytes, cred->size);
        call->cred.size = cred->size;
    }
    return start_own_call(std::move(call), info, ninfo);
}

}  // namespace pmix::server
