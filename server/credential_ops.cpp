// server/credential_ops.cpp - kGetCredential / kValidateCredential from a client or tool.
//
// As OpenPMIx 4.2.2's server: the host's get_credential / validate_credential upcall answers
// when the host provides one (called from this loop task, which is no host call; the requester
// is named as `proc`); otherwise the library's own mechanism (credential.h) does, with the
// requester's identity as the kernel gave it at connect (SO_PEERCRED, checked against its
// registration in accept()). Validation results: PMIX_USERID, PMIX_GRPID and PMIX_CRED_TYPE.
#include "server/credential.h"
#include "server/state.h"

#include "data/directives.h"
#include "data/info_array.h"

#include <cstdlib>
#include <cstring>
#include <memory>

namespace pmix::server {

namespace {

using proto::Op;

// Directives honoured by both calls (anything else marked required is refused).
constexpr const char* kKnown[] = {PMIX_CRED_TYPE, PMIX_TIMEOUT};

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
    if (data::unknown_required(call->directives.data(), call->directives.size(), kKnown)) {
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

}  // namespace pmix::server
