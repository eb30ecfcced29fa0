// client/events.cpp - Register_event_handler / Deregister_event_handler / Notify_event, and the
// delivery of events the server sends (kEvent) or the client raises itself (a lost server
// connection raises PMIX_ERR_LOST_CONNECTION).
//
// Delivery follows the Standard's chain: the handlers an event selects run one after the other
// on the progress thread, each started by the previous one's completion callback; a handler that
// completes with PMIX_EVENT_ACTION_COMPLETE ends the chain. Selection: handlers registered for the
// code, then default handlers (none when the event carries PMIX_EVENT_NON_DEFAULT); a handler
// registered with PMIX_EVENT_AFFECTED_PROC(S) only sees events whose affected processes overlap
// its own, and events that name none (as OpenPMIx 4.2.2). Order within each group: PMIX_EVENT_HDLR_FIRST, then the others (PMIX_EVENT_HDLR_PREPEND
// ones before, newest first; the rest in registration order), then PMIX_EVENT_HDLR_LAST.
// PMIX_EVENT_HDLR_BEFORE/AFTER (a handler's PMIX_EVENT_HDLR_NAME) then move a handler to just
// before/after the named one when both are in the event's chain (else it keeps its place). A
// handler that never calls its completion callback stops only its own event's chain. The results
// a handler completes with are the next handler's `results`; when the chain of a
// PMIX_GROUP_LEADER_FAILED ends, they answer the server's vote for a new leader
// (send_leader_vote; server/group_leader.cpp).
#include "client/client.h"
#include "client/host_mode.h"
#include "client/state.h"

#include "data/directives.h"
#include "data/value.h"
#include "exec/completion.h"
#include "exec/log.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <tuple>
#include <vector>

namespace pmix::client {

namespace {

enum class Placement { first = 0, normal = 1, last = 2 };

struct Handler {
    std::size_t id = 0;
    std::vector<pmix_status_t> codes;  // empty: a default handler (every code)
    pmix_notification_fn_t fn = nullptr;
    Placement placement = Placement::normal;
    bool prepend = false;
    std::vector<pmix_proc_t> affected;  // empty: any event
    std::string name;                   // PMIX_EVENT_HDLR_NAME
    std::string before, after;          // PMIX_EVENT_HDLR_BEFORE / AFTER: another's name
    bool returns_object = false;        // PMIX_EVENT_RETURN_OBJECT: handed back in every call
    void* object = nullptr;
};

struct Chain;

struct Registry {
    std::mutex mu;
    std::vector<Handler> handlers;
    std::size_t next_id = 1;
    std::set<Chain*> chains;  // running chains (reachable, so a stuck handler is not a leak)
};

Registry& registry() {
    static Registry* r = new Registry();  // reachable from the progress thread until exit
    return *r;
}

using data::flag_true;
using data::key_is;

void add_procs(const pmix_value_t& v, std::vector<pmix_proc_t>* out) {
    if (v.type == PMIX_PROC && v.data.proc != nullptr) {
        out->push_back(*v.data.proc);
    } else if (v.type == PMIX_DATA_ARRAY && v.data.darray != nullptr &&
               v.data.darray->type == PMIX_PROC && v.data.darray->array != nullptr) {
        const auto* p = static_cast<const pmix_proc_t*>(v.data.darray->array);
        out->insert(out->end(), p, p + v.data.darray->size);
    }
}

// Registration directives; PMIX_ERR_NOT_SUPPORTED for a required one we do not implement.
pmix_status_t parse_registration(const pmix_info_t* info, std::size_t ninfo, Handler* h) {
    for (std::size_t i = 0; i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        if (key_is(in, PMIX_EVENT_HDLR_FIRST) && flag_true(in)) {
            h->placement = Placement::first;
        } else if (key_is(in, PMIX_EVENT_HDLR_LAST) && flag_true(in)) {
            h->placement = Placement::last;
        } else if (key_is(in, PMIX_EVENT_HDLR_PREPEND)) {
            h->prepend = flag_true(in);
        } else if (key_is(in, PMIX_EVENT_RETURN_OBJECT) && in.value.type == PMIX_POINTER) {
            h->returns_object = true;
            h->object = in.value.data.ptr;
        } else if (key_is(in, PMIX_EVENT_AFFECTED_PROC) || key_is(in, PMIX_EVENT_AFFECTED_PROCS)) {
            add_procs(in.value, &h->affected);
        } else if (key_is(in, PMIX_EVENT_HDLR_NAME) || key_is(in, PMIX_EVENT_HDLR_BEFORE) ||
                   key_is(in, PMIX_EVENT_HDLR_AFTER)) {
            if (in.value.type != PMIX_STRING || in.value.data.string == nullptr) {
                return PMIX_ERR_BAD_PARAM;
            }
            std::string& field = key_is(in, PMIX_EVENT_HDLR_NAME)     ? h->name
                                 : key_is(in, PMIX_EVENT_HDLR_BEFORE) ? h->before
                                                                      : h->after;
            field = in.value.data.string;
        }
    }
    return PMIX_SUCCESS;
}

bool same_or_wildcard(const pmix_proc_t& a, const pmix_proc_t& b) {
    return std::strncmp(a.nspace, b.nspace, PMIX_MAX_NSLEN) == 0 &&
           (a.rank == b.rank || a.rank == PMIX_RANK_WILDCARD || b.rank == PMIX_RANK_WILDCARD);
}

bool affects(const Handler& h, const pmix_info_t* info, std::size_t ninfo) {
    if (h.affected.empty()) return true;
    std::vector<pmix_proc_t> hit;
    for (std::size_t i = 0; i < ninfo; ++i) {
        if (key_is(info[i], PMIX_EVENT_AFFECTED_PROC) ||
            key_is(info[i], PMIX_EVENT_AFFECTED_PROCS)) {
            add_procs(info[i].value, &hit);
        }
    }
    if (hit.empty()) return true;  // an event that names none: every handler (as OpenPMIx 4.2.2)
    for (const auto& a : h.affected) {
        for (const auto& b : hit) {
            if (same_or_wildcard(a, b)) return true;
        }
    }
    return false;
}

// PMIX_EVENT_HDLR_BEFORE / AFTER: each such handler, in registration order, moves to just before
// (after) the handler of that name in this chain; without one there it keeps its place.
void place_relative(std::vector<Handler>& chain) {
    std::vector<std::size_t> movers;
    for (const Handler& h : chain)
        if (!h.before.empty() || !h.after.empty()) movers.push_back(h.id);
    std::sort(movers.begin(), movers.end());
    for (std::size_t id : movers) {
        auto self =
            std::find_if(chain.begin(), chain.end(), [id](const Handler& h) { return h.id == id; });
        const std::string target = self->before.empty() ? self->after : self->before;
        const bool before = !self->before.empty();
        auto named = std::find_if(chain.begin(), chain.end(), [&](const Handler& h) {
            return h.id != id && !h.name.empty() && h.name == target;
        });
        if (named == chain.end()) continue;
        Handler moving = std::move(*self);
        chain.erase(self);
        named = std::find_if(chain.begin(), chain.end(),
                             [&](const Handler& h) { return h.name == target; });
        chain.insert(before ? named : named + 1, std::move(moving));
    }
}

// The chain for one event, in order.
std::vector<Handler> select_handlers(pmix_status_t status, const pmix_info_t* info,
                                     std::size_t ninfo) {
    bool non_default = false;
    for (std::size_t i = 0; i < ninfo; ++i)
        non_default |= key_is(info[i], PMIX_EVENT_NON_DEFAULT) && flag_true(info[i]);
    std::vector<Handler> out;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        for (const Handler& h : r.handlers) {
            const bool specific =
                std::find(h.codes.begin(), h.codes.end(), status) != h.codes.end();
            if ((specific || (h.codes.empty() && !non_default)) && affects(h, info, ninfo)) {
                out.push_back(h);
            }
        }
    }
    auto key = [](const Handler& h) {
        const long order = h.prepend ? -static_cast<long>(h.id) : static_cast<long>(h.id);
        return std::make_tuple(h.codes.empty(), static_cast<int>(h.placement), !h.prepend, order);
    };
    std::stable_sort(out.begin(), out.end(),
                     [&](const Handler& a, const Handler& b) { return key(a) < key(b); });
    place_relative(out);
    return out;
}

struct Chain {
    std::vector<Handler> handlers;
    std::size_t next = 0;
    pmix_status_t status = PMIX_SUCCESS;
    pmix_proc_t source{};
    std::vector<pmix_info_t> info;  // owned copies
    // What the running handler got when it registered a PMIX_EVENT_RETURN_OBJECT: `info`'s
    // entries (not owned here) and that object, as OpenPMIx appends it.
    std::vector<pmix_info_t> with_object;
    data::InfoArray results;  // the last handler's results, passed to the next one
    Chain(std::vector<Handler> h, pmix_status_t st, const pmix_proc_t& src, const pmix_info_t* in,
          std::size_t n)
        : handlers(std::move(h)), status(st), source(src), info(n) {
        for (std::size_t i = 0; i < n; ++i) data::info_xfer(&info[i], &in[i]);
    }
    ~Chain() {
        for (auto& i : info) data::info_destruct(&i);
    }
};

void ignore_vote_reply(pmix_status_t, void*) {}

// PMIX_GROUP_LEADER_FAILED handled: the server holds a vote for a new leader
// (server/group_leader.cpp); this process's answer is whether a handler's results declared it,
// with PMIX_GROUP_LEADER, as the Standard has a process declare itself.
void send_leader_vote(pmix_status_t status, const pmix_info_t* info, std::size_t ninfo,
                      const data::InfoArray& results) {
    if (status != PMIX_GROUP_LEADER_FAILED || serving_host() != nullptr) return;
    const pmix_info_t* grp = data::find_info(info, ninfo, PMIX_GROUP_ID);
    if (grp == nullptr || grp->value.type != PMIX_STRING || grp->value.data.string == nullptr) {
        return;
    }
    const pmix_info_t* declared = results.find(PMIX_GROUP_LEADER);
    const bool yes =
        declared != nullptr && (declared->value.type != PMIX_BOOL || declared->value.data.flag);
    data::InfoArray vote;
    if (vote.append(PMIX_GROUP_ID, grp->value.data.string, PMIX_STRING) != PMIX_SUCCESS ||
        vote.append(proto::kGroupLeaderVote, &yes, PMIX_BOOL) != PMIX_SUCCESS) {
        return;
    }
    notify_event(PMIX_GROUP_LEADER_SELECTED, nullptr, PMIX_RANGE_PROC_LOCAL, vote.data(),
                 vote.size(), ignore_vote_reply, nullptr);
}

void finish(Chain* c) {
    send_leader_vote(c->status, c->info.data(), c->info.size(), c->results);
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        r.chains.erase(c);
    }
    delete c;
}

void step(Chain* c);

// After a handler completed: its own callback, then the next handler, unless this one completed
// the event.
void continue_chain(Chain* c, pmix_status_t st, pmix_op_cbfunc_t cbfunc, void* thiscbdata) {
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, thiscbdata);
    if (c == nullptr) return;
    if (st == PMIX_EVENT_ACTION_COMPLETE || c->next >= c->handlers.size()) {
        finish(c);
        return;
    }
    step(c);
}

// A handler's completion callback: the rest runs on the progress thread (the client's, or in a
// host the server's), never inside the handler that calls this: a host may hold, in every
// handler, the lock that its callback and its next handler take.
void chain_next(pmix_status_t st, pmix_info_t* results, size_t nresults, pmix_op_cbfunc_t cbfunc,
                void* thiscbdata, void* notification_cbdata) {
    auto* c = static_cast<Chain*>(notification_cbdata);
    // Copied now: the handler may release them once its cbfunc ran (continue_chain).
    if (c != nullptr && (results != nullptr || nresults == 0) &&
        c->results.assign_copy(results, nresults) != PMIX_SUCCESS) {
        c->results.assign_copy(nullptr, 0);
    }
    auto rest = [c, st, cbfunc, thiscbdata] { continue_chain(c, st, cbfunc, thiscbdata); };
    const HostServer* host = serving_host();
    const pmix_status_t posted = host != nullptr ? host->post(rest) : post(rest);
    if (posted != PMIX_SUCCESS) rest();  // finalized: no thread left, finish here
}

void step(Chain* c) {
    if (c->next >= c->handlers.size()) {
        finish(c);
        return;
    }
    const Handler h = c->handlers[c->next++];
    pmix_info_t* info = c->info.data();
    std::size_t ninfo = c->info.size();
    if (h.returns_object) {
        c->with_object.assign(c->info.begin(), c->info.end());
        pmix_info_t& object = c->with_object.emplace_back();
        std::memset(&object, 0, sizeof object);
        std::strncpy(object.key, PMIX_EVENT_RETURN_OBJECT, PMIX_MAX_KEYLEN);
        object.value.type = PMIX_POINTER;
        object.value.data.ptr = h.object;
        info = c->with_object.data();
        ninfo = c->with_object.size();
    }
    exec::invoke_guarded("pmix event handler", [&] {
        h.fn(h.id, c->status, &c->source, info, ninfo, c->results.data(), c->results.size(),
             chain_next, c);
    });
}

void deliver(pmix_status_t status, const pmix_proc_t& source, pmix_info_t* info,
             std::size_t ninfo) {
    std::vector<Handler> handlers = select_handlers(status, info, ninfo);
    if (handlers.empty()) {
        send_leader_vote(status, info, ninfo, data::InfoArray{});
        return;
    }
    auto* c = new Chain(std::move(handlers), status, source, info, ninfo);
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        r.chains.insert(c);
    }
    step(c);
}

// A cached event the server replays for the handler `id` that just registered: to that handler
// alone (when it still selects it), so that the earlier ones do not hear it twice; without the
// marker key.
void deliver_replay(pmix_status_t status, const pmix_proc_t& source, const data::InfoArray& info,
                    std::size_t id) {
    std::vector<pmix_info_t> kept;
    for (std::size_t i = 0; i < info.size(); ++i)
        if (!key_is(info.data()[i], proto::kEventReplayFor)) kept.push_back(info.data()[i]);
    std::vector<Handler> handlers = select_handlers(status, kept.data(), kept.size());
    std::erase_if(handlers, [id](const Handler& h) { return h.id != id; });
    if (handlers.empty()) return;
    auto* c = new Chain(std::move(handlers), status, source, kept.data(), kept.size());
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        r.chains.insert(c);
    }
    step(c);
}

}  // namespace

void deliver_event_frame(const wire::Frame& f) {
    if (f.op == static_cast<std::uint32_t>(proto::Op::kIofData)) {
        deliver_iof_frame(f);
        return;
    }
    if (f.op != static_cast<std::uint32_t>(proto::Op::kEvent)) {
        exec::log_error("pmix client",
                        "unexpected message from the server, op " + std::to_string(f.op));
        return;
    }
    proto::Reader r(f.payload);
    pmix_status_t status = PMIX_SUCCESS;
    pmix_proc_t source{};
    data::InfoArray info;
    r.status(&status);
    r.proc(&source);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        exec::log_error("pmix client", "undecodable event from the server dropped");
        return;
    }
    if (const pmix_info_t* replay = info.find(proto::kEventReplayFor);
        replay != nullptr && replay->value.type == PMIX_SIZE) {
        deliver_replay(status, source, info, replay->value.data.size);
        return;
    }
    deliver(status, source, info.data(), info.size());
}

void raise_lost_connection() {
    pmix_proc_t me{};
    own_proc(&me);
    deliver(PMIX_ERR_LOST_CONNECTION, me, nullptr, 0);
}

pmix_status_t register_local_handler(const pmix_status_t* codes, std::size_t ncodes,
                                     const pmix_info_t* info, std::size_t ninfo,
                                     pmix_notification_fn_t evhdlr, std::size_t* ref) {
    if (evhdlr == nullptr || ref == nullptr || (codes == nullptr && ncodes > 0) ||
        (info == nullptr && ninfo > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    Handler handler;
    handler.codes.assign(codes, codes + ncodes);
    handler.fn = evhdlr;
    if (pmix_status_t rc = parse_registration(info, ninfo, &handler); rc != PMIX_SUCCESS) return rc;
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    handler.id = r.next_id++;
    *ref = handler.id;
    r.handlers.push_back(std::move(handler));
    return PMIX_SUCCESS;
}

pmix_status_t deregister_local_handler(std::size_t ref) {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    const auto removed = std::erase_if(r.handlers, [ref](const Handler& h) { return h.id == ref; });
    return removed > 0 ? PMIX_SUCCESS : PMIX_ERR_NOT_FOUND;
}

void deliver_local_event(pmix_status_t status, const pmix_proc_t& source, const pmix_info_t* info,
                         std::size_t ninfo) {
    // deliver() copies what it keeps; the chain runs here and continues on whichever thread
    // calls each handler's completion callback (there is no client progress thread in a host).
    deliver(status, source, const_cast<pmix_info_t*>(info), ninfo);
}

pmix_status_t register_event_handler(const pmix_status_t* codes, std::size_t ncodes,
                                     const pmix_info_t* info, std::size_t ninfo,
                                     pmix_notification_fn_t evhdlr, pmix_hdlr_reg_cbfunc_t cbfunc,
                                     void* cbdata) {
    if (const HostServer* host = serving_host()) {
        return host::register_event_handler(*host, codes, ncodes, info, ninfo, evhdlr, cbfunc,
                                            cbdata);
    }
    if (!initialized()) return PMIX_ERR_INIT;
    if (evhdlr == nullptr || (codes == nullptr && ncodes > 0) || (info == nullptr && ninfo > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (cbfunc == nullptr && exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    Handler handler;
    handler.codes.assign(codes, codes + ncodes);
    handler.fn = evhdlr;
    if (pmix_status_t rc = parse_registration(info, ninfo, &handler); rc != PMIX_SUCCESS) return rc;
    std::size_t id = 0;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        id = r.next_id++;
        handler.id = id;
    }
    data::InfoArray sent;  // the directives, and the id cached events are replayed for
    if (pmix_status_t rc = sent.assign_copy(info, ninfo); rc != PMIX_SUCCESS) return rc;
    if (pmix_status_t rc = sent.append(proto::kEventHandlerId, &id, PMIX_SIZE);
        rc != PMIX_SUCCESS) {
        return rc;
    }
    proto::Writer w;
    w.statuses(codes, ncodes).infos(sent.data(), sent.size());
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        r.handlers.push_back(std::move(handler));
    }
    if (unattached_tool()) {  // kept here alone: its events come from its own server side
        if (cbfunc == nullptr) return static_cast<pmix_status_t>(id);
        return post([cbfunc, id, cbdata] { cbfunc(PMIX_SUCCESS, id, cbdata); });
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
    if (const HostServer* host = serving_host()) {
        return host::deregister_event_handler(*host, ref, cbfunc, cbdata);
    }
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

pmix_status_t notify_event(pmix_status_t status, const pmix_proc_t* source, pmix_data_range_t range,
                           const pmix_info_t* info, std::size_t ninfo, pmix_op_cbfunc_t cbfunc,
                           void* cbdata) {
    // A host notifies its local clients (server/events.cpp: the same delivery rules).
    if (const HostServer* host = serving_host()) {
        return host->notify_event(status, source, range, info, ninfo, cbfunc, cbdata);
    }
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
