// server/host_ops.cpp - requests the server passes up to the host's module (protocol.h ops:
// finalize, abort, publish, lookup, unpublish, spawn, connect, disconnect, query, log,
// job control, notify, allocate, fabric). Each decodes its payload, adds what the host expects from
// the library (the caller's uid, the log source), calls the module and replies when the host
// answers.
#include "server/api.h"
#include "server/local_answers.h"
#include "server/state.h"

#include "data/attr_support.h"
#include "data/value.h"

#include "wire/proto/message.h"

#include <cstring>

namespace pmix::server {

using proto::Op;

namespace {

// One request waiting for a host upcall's callback; owns everything handed to the host, which
// must stay valid until the callback (the Standard's rule for upcall arguments).
struct Upcall {
    ReplyTo to;
    pmix_proc_t proc{};
    std::vector<pmix_proc_t> procs;
    data::InfoArray info;
    data::InfoArray info2;
    std::vector<std::string> keys;
    std::vector<char*> key_ptrs;
    void* block = nullptr;  // apps or queries
    std::size_t nblock = 0;
    pmix_data_type_t block_type = PMIX_UNDEF;
    pmix_iof_channel_t forward = PMIX_FWD_NO_CHANNELS;  // spawn: PMIX_FWD_STD* (iof.h)
    std::string msg;
    // Queries: what the library answered itself (PMIX_QUERY_ATTRIBUTE_SUPPORT) and the rest,
    // borrowing the keys of `block`, for the host.
    std::vector<pmix_info_t> own;
    std::size_t own_asked = 0;
    std::vector<pmix_query_t> for_host;
    std::vector<std::vector<char*>> for_host_keys;
    ~Upcall() {
        data::free_elements(block, nblock, block_type);
        for (auto& i : own) data::info_destruct(&i);
    }
    void build_keys() {
        key_ptrs.clear();
        for (auto& k : keys) key_ptrs.push_back(k.data());
        key_ptrs.push_back(nullptr);
    }
};

void op_done(pmix_status_t status, void* cbdata) {
    std::unique_ptr<Upcall> u(static_cast<Upcall*>(cbdata));
    reply_status(u->to, status);
}

// What the host's return code means for a request that passed `u` as cbdata.
void settle(pmix_status_t rc, std::unique_ptr<Upcall> u) {
    if (rc == PMIX_SUCCESS) {
        u.release();  // the host calls back later
    } else {
        reply_status(u->to, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
    }
}

void lookup_done(pmix_status_t status, pmix_pdata_t data[], size_t ndata, void* cbdata) {
    std::unique_ptr<Upcall> u(static_cast<Upcall*>(cbdata));
    if (auto c = u->to.conn.lock()) {
        proto::Writer w;
        w.status(status).pdata(data, status == PMIX_SUCCESS ? ndata : 0);
        c->reply(u->to.request, w.take());
    }
}

void reply_spawned(const Upcall& u, pmix_status_t status, const char* nspace) {
    if (auto c = u.to.conn.lock()) {
        proto::Writer w;
        w.status(status).string(nspace);
        c->reply(u.to.request, w.take());
    }
}

void spawn_done(pmix_status_t status, char nspace[], void* cbdata) {
    std::unique_ptr<Upcall> u(static_cast<Upcall*>(cbdata));
    if (status != PMIX_SUCCESS || nspace == nullptr || u->forward == PMIX_FWD_NO_CHANNELS) {
        reply_spawned(*u, status, nspace);
        return;
    }
    // The requester is registered for the new job's output before it hears of the job, both on
    // the loop (this may be the host's thread, inside its upcall).
    std::string job(nspace, strnlen(nspace, PMIX_MAX_NSLEN));
    const pmix_status_t rc = post([u = std::move(u), job = std::move(job)] {
        auto st = current();
        if (!st) return;
        st->iof_forward_spawned(
            {std::string(u->proc.nspace, strnlen(u->proc.nspace, PMIX_MAX_NSLEN)), u->proc.rank},
            u->to.conn, job, u->forward);
        reply_spawned(*u, PMIX_SUCCESS, job.c_str());
    });
    (void)rc;  // server gone: nobody to answer
}

void reply_infos(Upcall& u, pmix_status_t status, const pmix_info_t* info, size_t ninfo) {
    auto c = u.to.conn.lock();
    if (!c) return;
    std::vector<pmix_info_t> all(info, info == nullptr ? info : info + ninfo);
    if (u.own_asked > 0) {  // the host's answers and the library's own, in one reply
        all.insert(all.end(), u.own.begin(), u.own.end());
        const bool whole = status == PMIX_SUCCESS && u.own.size() == u.own_asked;
        status = all.empty() ? status : whole ? PMIX_SUCCESS : PMIX_QUERY_PARTIAL_SUCCESS;
    }
    proto::Writer w;
    w.status(status);
    const auto op = static_cast<Op>(u.to.request.op);
    if (op == Op::kQuery || op == Op::kAllocate || op == Op::kFabric) {
        w.infos(all.data(), all.size());
    }
    c->reply(u.to.request, w.take());
}

void info_done(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* cbdata,
               pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    std::unique_ptr<Upcall> u(static_cast<Upcall*>(cbdata));
    if (release_fn == nullptr) {  // nothing to hand back: the reply is all there is to do
        reply_infos(*u, status, info, ninfo);
        return;
    }
    // release_fn is the host's: never from inside the host's upcall that may be calling us
    // (it may hold the lock release_fn takes). The info stays valid until release_fn.
    call_host_later([u = std::move(u), status, info, ninfo, release_fn, release_cbdata] {
        reply_infos(*u, status, info, ninfo);
        release_fn(release_cbdata);
    });
}

// Each returns PMIX_SUCCESS when the reply is taken care of, PMIX_ERR_UNPACK_FAILURE for a
// payload that does not decode, or the status to reply with (PMIX_ERR_NOT_SUPPORTED when the
// host has no such callback).
using UpcallPtr = std::unique_ptr<Upcall>;

pmix_status_t do_finalize(State& s, Client& c, proto::Reader& r, UpcallPtr u) {
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.client_finalized == nullptr) {
        reply_status(u->to, PMIX_SUCCESS);
        return PMIX_SUCCESS;
    }
    Upcall* raw = u.get();
    settle(s.module.client_finalized(&raw->proc, c.server_object, op_done, raw), std::move(u));
    return PMIX_SUCCESS;
}

pmix_status_t do_abort(State& s, Client& c, proto::Reader& r, UpcallPtr u) {
    pmix_status_t status = PMIX_SUCCESS;
    r.status(&status);
    r.string(&u->msg);
    r.procs(&u->procs);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.abort == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    Upcall* raw = u.get();
    settle(s.module.abort(&raw->proc, c.server_object, status, raw->msg.c_str(), raw->procs.data(),
                          raw->procs.size(), op_done, raw),
           std::move(u));
    return PMIX_SUCCESS;
}

pmix_status_t do_publish(State& s, Client& c, proto::Reader& r, UpcallPtr u) {
    r.infos(&u->info);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.publish == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    u->info.append(PMIX_USERID, &c.uid, PMIX_UINT32);  // hosts scope published data by user
    Upcall* raw = u.get();
    settle(s.module.publish(&raw->proc, raw->info.data(), raw->info.size(), op_done, raw),
           std::move(u));
    return PMIX_SUCCESS;
}

pmix_status_t do_lookup(State& s, Client& c, proto::Reader& r, UpcallPtr u, bool lookup) {
    r.strings(&u->keys);
    r.infos(&u->info);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if ((lookup ? s.module.lookup == nullptr : s.module.unpublish == nullptr)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    u->build_keys();
    u->info.append(PMIX_USERID, &c.uid, PMIX_UINT32);
    Upcall* raw = u.get();
    const pmix_status_t rc =
        lookup ? s.module.lookup(&raw->proc, raw->key_ptrs.data(), raw->info.data(),
                                 raw->info.size(), lookup_done, raw)
               : s.module.unpublish(&raw->proc, raw->key_ptrs.data(), raw->info.data(),
                                    raw->info.size(), op_done, raw);
    settle(rc, std::move(u));
    return PMIX_SUCCESS;
}

pmix_status_t do_spawn(State& s, Client& c, proto::Reader& r, UpcallPtr u) {
    r.infos(&u->info);
    u->block_type = PMIX_APP;
    r.array(&u->block, &u->nblock, PMIX_APP);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.spawn == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    u->forward = spawn_forward_channels(u->info.data(), u->info.size(), c.tool);
    Upcall* raw = u.get();
    settle(s.module.spawn(&raw->proc, raw->info.data(), raw->info.size(),
                          static_cast<pmix_app_t*>(raw->block), raw->nblock, spawn_done, raw),
           std::move(u));
    return PMIX_SUCCESS;
}

// PMIX_QUERY_ATTRIBUTE_SUPPORT is the library's own (its host level was registered in this
// process): answered here into u->own; every other key is kept in u->for_host.
void split_own_answers(Upcall& u) {
    auto* qs = static_cast<pmix_query_t*>(u.block);
    for (std::size_t i = 0; i < u.nblock; ++i) {
        std::vector<char*> rest;
        for (std::size_t k = 0; qs[i].keys != nullptr && qs[i].keys[k] != nullptr; ++k) {
            if (std::strncmp(qs[i].keys[k], PMIX_QUERY_ATTRIBUTE_SUPPORT, PMIX_MAX_KEYLEN) != 0) {
                rest.push_back(qs[i].keys[k]);
                continue;
            }
            ++u.own_asked;
            pmix_info_t answer;
            if (data::answer_attribute_support(qs[i], &answer)) u.own.push_back(answer);
        }
        if (rest.empty()) continue;
        rest.push_back(nullptr);
        u.for_host_keys.push_back(std::move(rest));
        u.for_host.push_back(qs[i]);
        u.for_host.back().keys = u.for_host_keys.back().data();
    }
}

pmix_status_t do_query(State& s, proto::Reader& r, UpcallPtr u) {
    u->block_type = PMIX_QUERY;
    r.array(&u->block, &u->nblock, PMIX_QUERY);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    split_own_answers(*u);
    if (u->own_asked == 0) {  // nothing of ours: the host (or the fallback) sees the query as sent
        auto* qs = static_cast<pmix_query_t*>(u->block);
        u->for_host.assign(qs, qs + u->nblock);
    } else if (u->for_host.empty()) {
        const pmix_status_t st = u->own.empty() ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS;
        info_done(st, nullptr, 0, u.release(), nullptr, nullptr);
        return PMIX_SUCCESS;
    }
    if (s.module.query == nullptr) {  // no host to ask: what the library itself knows
        std::vector<pmix_info_t> results;
        const pmix_status_t st = answer_query(s, u->for_host.data(), u->for_host.size(), &results);
        info_done(st, results.data(), results.size(), u.release(), nullptr, nullptr);
        for (auto& i : results) data::info_destruct(&i);
        return PMIX_SUCCESS;
    }
    Upcall* raw = u.get();
    settle(s.module.query(&raw->proc, raw->for_host.data(), raw->for_host.size(), info_done, raw),
           std::move(u));
    return PMIX_SUCCESS;
}

pmix_status_t do_log(State& s, Client& c, proto::Reader& r, UpcallPtr u) {
    r.infos(&u->info);
    r.infos(&u->info2);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.log == nullptr) {  // no host channel: stdout, stderr and syslog from here
        reply_status(u->to, write_log(c.proc, u->info.data(), u->info.size(), u->info2.data(),
                                      u->info2.size()));
        return PMIX_SUCCESS;
    }
    u->info2.append(PMIX_LOG_SOURCE, &c.proc, PMIX_PROC);  // who asked, for the host
    Upcall* raw = u.release();  // log's upcall returns void: its callback always comes
    s.module.log(&raw->proc, raw->info.data(), raw->info.size(), raw->info2.data(),
                 raw->info2.size(), op_done, raw);
    return PMIX_SUCCESS;
}

pmix_status_t do_job_control(State& s, Client& c, proto::Reader& r, UpcallPtr u) {
    r.procs(&u->procs);
    r.infos(&u->info);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.take_cleanup_request(c, u->info.data(), u->info.size())) {
        // Cleanup registrations stay in the library (cleanup.cpp); the status is the answer.
        info_done(PMIX_SUCCESS, nullptr, 0, u.release(), nullptr, nullptr);
        return PMIX_SUCCESS;
    }
    if (s.module.job_control == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    Upcall* raw = u.get();
    settle(s.module.job_control(&raw->proc, raw->procs.data(), raw->procs.size(), raw->info.data(),
                                raw->info.size(), info_done, raw),
           std::move(u));
    return PMIX_SUCCESS;
}

pmix_status_t do_notify(State& s, proto::Reader& r, UpcallPtr u) {
    pmix_status_t code = PMIX_SUCCESS;
    pmix_proc_t source{};
    pmix_data_range_t range = PMIX_RANGE_UNDEF;
    r.status(&code);
    r.proc(&source);
    r.range(&range);
    r.infos(&u->info);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.notify_event == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    u->procs.assign(1, source);
    Upcall* raw = u.get();
    settle(s.module.notify_event(code, &raw->procs[0], range, raw->info.data(), raw->info.size(),
                                 op_done, raw),
           std::move(u));
    return PMIX_SUCCESS;
}

// PMIx_Allocation_request: the host's allocate upcall decides (OpenPMIx 4.2.2's rule: no
// upcall, PMIX_ERR_NOT_SUPPORTED); its answer goes back to the client as it is.
pmix_status_t do_allocate(State& s, proto::Reader& r, UpcallPtr u) {
    pmix_alloc_directive_t directive = 0;
    r.raw(&directive, 1, PMIX_ALLOC_DIRECTIVE);
    r.infos(&u->info);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.allocate == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    Upcall* raw = u.get();
    settle(s.module.allocate(&raw->proc, directive, raw->info.data(), raw->info.size(), info_done,
                             raw),
           std::move(u));
    return PMIX_SUCCESS;
}

// PMIx_Fabric_register / update: the library has no fabric plugin that knows a fabric's
// topology (OpenPMIx's pnet), so the host's fabric upcall answers or it is
// PMIX_ERR_NOT_SUPPORTED, as OpenPMIx 4.2.2 answers without such a plugin.
pmix_status_t do_fabric(State& s, proto::Reader& r, UpcallPtr u) {
    std::uint8_t code = 0;  // the enum travels as one byte
    r.raw(&code, 1, PMIX_UINT8);
    r.infos(&u->info);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (code != PMIX_FABRIC_REQUEST_INFO && code != PMIX_FABRIC_UPDATE_INFO) {
        return PMIX_ERR_BAD_PARAM;
    }
    const auto op = static_cast<pmix_fabric_operation_t>(code);
    if (s.module.fabric == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    Upcall* raw = u.get();
    settle(s.module.fabric(&raw->proc, op, raw->info.data(), raw->info.size(), info_done, raw),
           std::move(u));
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t State::forward_to_host(Client& c, proto::Reader& r, wire::Connection& conn,
                                     const wire::Frame& frame) {
    auto u = std::make_unique<Upcall>();
    u->to = ReplyTo::of(conn, frame);
    u->proc = c.proc;
    switch (static_cast<Op>(frame.op)) {
        case Op::kFinalize:
            return do_finalize(*this, c, r, std::move(u));
        case Op::kAbort:
            return do_abort(*this, c, r, std::move(u));
        case Op::kPublish:
            return do_publish(*this, c, r, std::move(u));
        case Op::kLookup:
            return do_lookup(*this, c, r, std::move(u), true);
        case Op::kUnpublish:
            return do_lookup(*this, c, r, std::move(u), false);
        case Op::kSpawn:
            return do_spawn(*this, c, r, std::move(u));
        case Op::kConnect:  // collected into one upcall (connect_tracker.h)
            return connect_request(*this, c, r, conn, frame, true);
        case Op::kDisconnect:
            return connect_request(*this, c, r, conn, frame, false);
        case Op::kQuery:
            return do_query(*this, r, std::move(u));
        case Op::kLog:
            return do_log(*this, c, r, std::move(u));
        case Op::kJobControl:
            return do_job_control(*this, c, r, std::move(u));
        case Op::kNotify:
            return do_notify(*this, r, std::move(u));
        case Op::kAllocate:
            return do_allocate(*this, r, std::move(u));
        case Op::kFabric:
            return do_fabric(*this, r, std::move(u));
        default:
            return PMIX_ERR_NOT_SUPPORTED;  // unknown op: the connection stays open
    }
}

}  // namespace pmix::server
