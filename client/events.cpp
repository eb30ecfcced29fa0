// client/events.cpp - Register_event_handler / Deregister_event_handler / Notify_event, and the
// delivery of events the server sends (kEvent) or the client raises itself (a lost server
// connection raises PMIX_ERR_LOST_CONNECTION).
//
// Simplification (documented in README.md): every matching handler is called, in registration
// order, each with a completion callback that need not be called; the Standard's chain
// semantics (a handler may stop the chain with PMIX_EVENT_ACTION_COMPLETE, ordering by
// PMIX_EVENT_HDLR_FIRST/LAST/BEFORE/AFTER) are not implemented yet.
#include "client/client.h"
#include "client/state.h"

#include "exec/completion.h"
#include "exec/log.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace pmix::client {

namespace {

struct Handler {
    std::size_t id;
    std::vector<pmix_status_t> codes;  // empty: a default handler (every code)
    pmix_notification_fn_t fn;
};

struct Registry {
    std::mutex mu;
    std::vector<Handler> handlers;
    std::size_t next_id = 1;
};

Registry& registry() {
    static Registry* r = new Registry();  // reachable from the progress thread until exit
    return *r;
}

// Handlers called for `status`, in registration order: specific ones, then default ones.
std::vector<Handler> matching(pmix_status_t status) {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    std::vector<Handler> specific, fallback;
    for (const Handler& h : r.handlers) {
        if (h.codes.empty()) {
            fallback.push_back(h);
        } else if (std::find(h.codes.begin(), h.codes.end(), status) != h.codes.end()) {
            specific.push_back(h);
        }
    }
    specific.insert(specific.end(), fallback.begin(), fallback.end());
    return specific;
}

void chain_done(pmix_status_t, pmix_info_t*, size_t, pmix_op_cbfunc_t cbfunc, void* thiscbdata,
                void*) {
    if (cbfunc != nullptr) {
        cbfunc(PMIX_SUCCESS, thiscbdata);
    }
}

void deliver(pmix_status_t status, const pmix_proc_t& source, pmix_info_t* info,
             std::size_t ninfo) {
    for (const Handler& h : matching(status)) {
        exec::invoke_guarded("pmix event handler", [&] {
            h.fn(h.id, status, &source, info, ninfo, nullptr, 0, chain_done, nullptr);
        });
    }
}

}  // namespace

void deliver_event_frame(const wire::Frame& f) {
    if (f.op != static_cast<std::uint32_t>(proto::Op::kEvent)) {
        exec::log_line("pmix client", "unexpected message from the server, op " + std::to_string(f.op));
        return;
    }
    proto::Reader r(f.payload);
    pmix_status_t status = PMIX_SUCCESS;
    pmix_proc_t source{};
    proto::InfoArray info;
    r.status(&status);
    r.proc(&source);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        exec::log_line("pmix client", "undecodable event from the server dropped");
        return;
    }
    deliver(status, source, info.data(), info.size());
}

void raise_lost_connection() {
    pmix_proc_t me{};
    own_proc(&me);
    deliver(PMIX_ERR_LOST_CONNECTION, me, nullptr, 0);
}

pmix_status_t register_event_handler(const pmix_status_t* codes, std::size_t ncodes,
                                     const pmix_info_t* info, std::size_t ninfo,
                                     pmix_notification_fn_t evhdlr,
                                     pmix_hdlr_reg_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (evhdlr == nullptr || (codes == nullptr && ncodes > 0) || (info == nullptr && ninfo > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (cbfunc == nullptr && exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    proto::Writer w;
    w.statuses(codes, ncodes).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    std::size_t id = 0;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        id = r.next_id++;
        r.handlers.push_back(Handler{id, std::vector<pmix_status_t>(codes, codes + ncodes), evhdlr});
    }
    auto settle = [id](pmix_status_t st) {
        if (st != PMIX_SUCCESS) {  // the server refused: the handler is not registered
            Registry& r = registry();
            std::lock_guard lock(r.mu);
            std::erase_if(r.handlers, [id](const Handler& h) { return h.id == id; });
        }
        return st;
    };
    exec::Completion<pmix_status_t> done;
    pmix_status_t rc = request(proto::Op::kRegisterEvents, w.take(), kShortTimeout,
                               [=](pmix_status_t st, wire::Frame&& f) {
                                   st = settle(st == PMIX_SUCCESS ? reply_status(f) : st);
                                   if (cbfunc != nullptr) {
                                       cbfunc(st, id, cbdata);
                                   } else {
                                       done.complete(st);
                                   }
                               });
    if (rc != PMIX_SUCCESS) {
        settle(rc);
        return rc;
    }
    if (cbfunc != nullptr) return PMIX_SUCCESS;
    // Blocking form (OpenPMIx): the handler's reference is the return value.
    auto waited = done.wait(kShortTimeout + kWaitMargin);
    pmix_status_t st = waited.status == PMIX_SUCCESS ? *waited.value : waited.status;
    return st == PMIX_SUCCESS ? static_cast<pmix_status_t>(id) : st;
}

pmix_status_t deregister_event_handler(std::size_t ref, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    std::vector<pmix_status_t> codes;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        auto it = std::find_if(r.handlers.begin(), r.handlers.end(),
                               [ref](const Handler& h) { return h.id == ref; });
        if (it == r.handlers.end()) return PMIX_ERR_NOT_FOUND;
        codes = it->codes;
        r.handlers.erase(it);
    }
    proto::Writer w;
    w.statuses(codes.data(), codes.size());
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    pmix_status_t rc = request(proto::Op::kDeregisterEvents, w.take(), kShortTimeout,
                               [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
                                   if (cbfunc != nullptr) {
                                       cbfunc(st == PMIX_SUCCESS ? reply_status(f) : st, cbdata);
                                   }
                               });
    // Locally the handler is gone either way; a server that is gone has nothing to forget.
    if (rc != PMIX_SUCCESS && cbfunc != nullptr) {
        return post([cbfunc, cbdata] { cbfunc(PMIX_SUCCESS, cbdata); });
    }
    return PMIX_SUCCESS;
}

pmix_status_t notify_event(pmix_status_t status, const pmix_proc_t* source,
                           pmix_data_range_t range, const pmix_info_t* info, std::size_t ninfo,
                           pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (info == nullptr && ninfo > 0) return PMIX_ERR_BAD_PARAM;
    pmix_proc_t me{};
    if (!own_proc(&me)) return PMIX_ERR_INIT;
    proto::Writer w;
    w.status(status).proc(source != nullptr ? *source : me).range(range).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kNotify, w.take(), kShortTimeout,
                   [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
                       if (cbfunc != nullptr) {
                           cbfunc(st == PMIX_SUCCESS ? reply_status(f) : st, cbdata);
                       }
                   });
}

}  // namespace pmix::client
