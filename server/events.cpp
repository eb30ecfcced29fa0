// server/events.cpp - event registrations and notifications between clients, the host and the
// server itself.
//
// Routing, as OpenPMIx 4.2 does it: a client's event whose range reaches beyond this node
// (NAMESPACE, SESSION, GLOBAL, RM, UNDEF) goes to the host's notify_event when the host has one;
// the host distributes it, on this node by calling PMIx_Notify_event here (server API), which
// delivers locally. Without that callback, and for the node-local ranges, the server delivers
// itself. Local delivery: every connected, not finalized local client that registered a handler
// for the code (or a default handler) and that the range includes, except the source:
// PMIX_RANGE_PROC_LOCAL reaches nobody else, PMIX_RANGE_NAMESPACE the source's namespace,
// PMIX_RANGE_CUSTOM the procs of PMIX_EVENT_CUSTOM_RANGE, PMIX_RANGE_RM only the host, every other
// range all local clients. The notifier hears SUCCESS once the event is handed on. A client that
// dies without PMIx_Finalize
// raises PMIX_ERR_LOST_CONNECTION (source and PMIX_EVENT_AFFECTED_PROC = the dead process) for
// the host (after a 1 s window, lost_client_window) and for the other clients of its namespace
// that registered for that code by name. The host process's own handlers also hear every event a
// client raises.
#include "server/api.h"
#include "server/state.h"

#include "data/value.h"
#include "exec/log.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace pmix::server {

using ClientKey = std::pair<std::string, pmix_rank_t>;

bool EventRegistry::wants(const ClientKey& client, pmix_status_t code) const {
    auto it = registrations.find(client);
    if (it == registrations.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [code](const Codes& c) {
        return c.empty() || std::find(c.begin(), c.end(), code) != c.end();
    });
}

bool EventRegistry::names(const ClientKey& client, pmix_status_t code) const {
    auto it = registrations.find(client);
    if (it == registrations.end()) return false;
    return std::any_of(it->second.begin(), it->second.end(), [code](const Codes& c) {
        return std::find(c.begin(), c.end(), code) != c.end();
    });
}

void EventRegistry::add(const ClientKey& client, Codes codes) {
    registrations[client].push_back(std::move(codes));
}

void EventRegistry::remove(const ClientKey& client, const Codes& codes) {
    auto it = registrations.find(client);
    if (it == registrations.end()) return;
    auto& regs = it->second;
    if (auto r = std::find(regs.begin(), regs.end(), codes); r != regs.end()) regs.erase(r);
    if (regs.empty()) registrations.erase(it);
}

namespace {

bool proc_matches(const pmix_proc_t& want, const pmix_proc_t& who) {
    return ns_of(want) == ns_of(who) && (want.rank == PMIX_RANK_WILDCARD || want.rank == who.rank);
}

// PMIX_EVENT_CUSTOM_RANGE: one proc or a data array of procs.
bool in_custom_range(const Event& ev, const pmix_proc_t& who) {
    for (std::size_t i = 0; i < ev.ninfo; ++i) {
        const pmix_info_t& in = ev.info[i];
        if (std::strncmp(in.key, PMIX_EVENT_CUSTOM_RANGE, PMIX_MAX_KEYLEN) != 0) continue;
        if (in.value.type == PMIX_PROC && in.value.data.proc != nullptr) {
            return proc_matches(*in.value.data.proc, who);
        }
        if (in.value.type == PMIX_DATA_ARRAY && in.value.data.darray != nullptr &&
            in.value.data.darray->type == PMIX_PROC) {
            const auto* procs = static_cast<const pmix_proc_t*>(in.value.data.darray->array);
            for (std::size_t k = 0; k < in.value.data.darray->size; ++k) {
                if (proc_matches(procs[k], who)) return true;
            }
        }
    }
    return false;
}

bool in_range(const Event& ev, const pmix_proc_t& who) {
    switch (ev.range) {
        case PMIX_RANGE_PROC_LOCAL:
        case PMIX_RANGE_RM:
            return false;
        case PMIX_RANGE_NAMESPACE:
            return ns_of(ev.source) == ns_of(who);
        case PMIX_RANGE_CUSTOM:
            return in_custom_range(ev, who);
        default:
            return true;
    }
}

bool reaches_beyond_node(pmix_data_range_t range) {
    return range == PMIX_RANGE_NAMESPACE || range == PMIX_RANGE_SESSION ||
           range == PMIX_RANGE_GLOBAL || range == PMIX_RANGE_RM || range == PMIX_RANGE_UNDEF;
}

// True when the host took the event for distribution.
bool tell_host(State& s, const Event& ev) {
    if (s.module.notify_event == nullptr || !reaches_beyond_node(ev.range)) return false;
    auto* notice = new HostNotice{ev.source, {}};
    if (notice->info.assign_copy(ev.info, ev.ninfo) != PMIX_SUCCESS) {
        delete notice;
        return false;
    }
    const pmix_status_t rc =
        s.module.notify_event(ev.code, &notice->source, ev.range, notice->info.data(),
                              notice->info.size(), host_notice_done, notice);
    if (rc != PMIX_SUCCESS) delete notice;  // no callback comes for a refused or finished call
    return rc == PMIX_SUCCESS || rc == PMIX_OPERATION_SUCCEEDED;
}

}  // namespace

void host_notice_done(pmix_status_t, void* cbdata) { delete static_cast<HostNotice*>(cbdata); }

bool EventCache::cached_code(pmix_status_t code) {
    return code == PMIX_EVENT_JOB_START || code == PMIX_LAUNCH_COMPLETE ||
           code == PMIX_EVENT_JOB_END || code == PMIX_READY_FOR_DEBUG;
}

namespace {
// The namespace an event is about: PMIX_NSPACE, else its first affected proc's.
std::string event_nspace(const Event& ev) {
    for (std::size_t i = 0; i < ev.ninfo; ++i) {
        const pmix_info_t& in = ev.info[i];
        if (std::strncmp(in.key, PMIX_NSPACE, PMIX_MAX_KEYLEN) == 0 &&
            in.value.type == PMIX_STRING && in.value.data.string != nullptr) {
            return in.value.data.string;
        }
    }
    for (std::size_t i = 0; i < ev.ninfo; ++i) {
        const pmix_info_t& in = ev.info[i];
        if (std::strncmp(in.key, PMIX_EVENT_AFFECTED_PROC, PMIX_MAX_KEYLEN) == 0 &&
            in.value.type == PMIX_PROC && in.value.data.proc != nullptr) {
            return ns_of(*in.value.data.proc);
        }
    }
    return {};
}

// The namespaces a PMIX_DEBUGGER_RELEASE names (its custom range, affected proc(s)); `all` when it
// names none (every held process of the range).
void released_nspaces(const Event& ev, std::vector<std::string>& out, bool& all) {
    for (std::size_t i = 0; i < ev.ninfo; ++i) {
        const pmix_info_t& in = ev.info[i];
        const bool named = std::strncmp(in.key, PMIX_EVENT_CUSTOM_RANGE, PMIX_MAX_KEYLEN) == 0 ||
                           std::strncmp(in.key, PMIX_EVENT_AFFECTED_PROC, PMIX_MAX_KEYLEN) == 0 ||
                           std::strncmp(in.key, PMIX_EVENT_AFFECTED_PROCS, PMIX_MAX_KEYLEN) == 0;
        if (!named) continue;
        if (in.value.type == PMIX_PROC && in.value.data.proc != nullptr)
            out.push_back(ns_of(*in.value.data.proc));
        const pmix_data_array_t* a = in.value.data.darray;
        if (in.value.type == PMIX_DATA_ARRAY && a != nullptr && a->type == PMIX_PROC &&
            a->array != nullptr)
            for (std::size_t k = 0; k < a->size; ++k)
                out.push_back(ns_of(static_cast<const pmix_proc_t*>(a->array)[k]));
    }
    all = out.empty();
}
}  // namespace

// A job's PMIX_READY_FOR_DEBUG stays while it is held: a release or its end drops it, so that a
// handler registered afterwards is not told to debug (and release) a job that runs already.
void EventCache::forget_ready(const Event& ev) {
    std::vector<std::string> nspaces;
    bool all = false;
    if (ev.code == PMIX_DEBUGGER_RELEASE) released_nspaces(ev, nspaces, all);
    else if (ev.code == PMIX_EVENT_JOB_END) nspaces.push_back(event_nspace(ev));
    else return;
    std::erase_if(entries, [&](const Entry& e) {
        return e.code == PMIX_READY_FOR_DEBUG &&
               (all || std::find(nspaces.begin(), nspaces.end(), e.nspace) != nspaces.end());
    });
}

void EventCache::keep(const Event& ev) {
    forget_ready(ev);
    if (!cached_code(ev.code)) return;
    Entry entry;
    entry.code = ev.code;
    entry.source = ev.source;
    entry.range = ev.range;
    entry.nspace = event_nspace(ev);
    if (entry.nspace.empty() || entry.info.assign_copy(ev.info, ev.ninfo) != PMIX_SUCCESS) return;
    std::erase_if(entries,
                  [&](const Entry& e) { return e.code == entry.code && e.nspace == entry.nspace; });
    if (entries.size() >= kMax) entries.pop_front();
    entries.push_back(std::move(entry));
}

void State::replay_cached_events(const Client& c, const std::vector<pmix_status_t>& codes,
                                 std::size_t handler_id) {
    for (const EventCache::Entry& entry : event_cache.entries) {
        if (std::find(codes.begin(), codes.end(), entry.code) == codes.end()) continue;
        Event ev;
        ev.code = entry.code;
        ev.source = entry.source;
        ev.range = entry.range;
        ev.info = entry.info.data();
        ev.ninfo = entry.info.size();
        if (!in_range(ev, c.proc) || !c.conn || c.conn->closed()) continue;
        data::InfoArray info;
        if (info.assign_copy(ev.info, ev.ninfo) != PMIX_SUCCESS ||
            info.append(proto::kEventReplayFor, &handler_id, PMIX_SIZE) != PMIX_SUCCESS) {
            continue;
        }
        proto::Writer w;
        w.status(ev.code).proc(ev.source).infos(info.data(), info.size());
        if (w.status_code() != PMIX_SUCCESS) continue;
        (void)c.conn->send(static_cast<std::uint32_t>(proto::Op::kEvent), w.take());
    }
}

std::size_t State::deliver_event(const Event& ev) {
    event_cache.keep(ev);
    proto::Writer w;
    w.status(ev.code).proc(ev.source).infos(ev.info, ev.ninfo);
    if (w.status_code() != PMIX_SUCCESS) return 0;
    const wire::Bytes frame = w.take();
    std::size_t sent = 0;
    for (auto& [key, c] : clients) {
        if (!c.conn || c.conn->closed() || c.finalized) continue;
        if (proc_matches(ev.source, c.proc) && ev.source.rank != PMIX_RANK_WILDCARD) continue;
        if (!in_range(ev, c.proc) || !events.wants(key, ev.code)) continue;
        if (ev.named_only && !events.names(key, ev.code)) continue;
        if (c.conn->send(static_cast<std::uint32_t>(proto::Op::kEvent), frame) == PMIX_SUCCESS) {
            ++sent;
        }
    }
    return sent;
}

void State::events_request(const ProcKey& who, Client& c, proto::Reader& r, wire::Connection& conn,
                           const wire::Frame& frame) {
    const auto op = static_cast<proto::Op>(frame.op);
    if (op == proto::Op::kRegisterEvents || op == proto::Op::kDeregisterEvents) {
        std::vector<pmix_status_t> codes;
        data::InfoArray info;
        r.statuses(&codes);
        if (op == proto::Op::kRegisterEvents) r.infos(&info);
        if (r.finish() != PMIX_SUCCESS) {
            conn.close("undecodable event registration", wire::CloseKind::bad_frame);
            return;
        }
        if (op == proto::Op::kDeregisterEvents) {
            events.remove(who, codes);
            reply_status(conn, frame, PMIX_SUCCESS);
            return;
        }
        const pmix_info_t* id = info.find(proto::kEventHandlerId);
        events.add(who, codes);
        reply_status(conn, frame, PMIX_SUCCESS);
        if (id != nullptr && id->value.type == PMIX_SIZE) {
            replay_cached_events(c, codes, id->value.data.size);
        }
        return;
    }
    Event ev;
    data::InfoArray info;
    r.status(&ev.code);
    r.proc(&ev.source);
    r.range(&ev.range);
    r.infos(&info);
    if (r.finish() != PMIX_SUCCESS) {
        slog(exec::LogLevel::error, "undecodable notify request; closing that connection");
        conn.close("undecodable notify request", wire::CloseKind::bad_frame);
        return;
    }
    ev.info = info.data();
    ev.ninfo = info.size();
    if (ev.code == PMIX_GROUP_LEADER_SELECTED &&
        leader_vote_request(*this, who, ev.info, ev.ninfo)) {
        reply_status(conn, frame, PMIX_SUCCESS);  // a vote (groups.h): for this server only
        return;
    }
    event_cache.forget_ready(ev);  // a release the host distributes: its READY goes now
    if (!tell_host(*this, ev)) deliver_event(ev);
    // The host process's own handlers hear it too, whatever the range, as OpenPMIx 4.2's server
    // runs its local handlers for every event it passes on (a Slurm step's default handler
    // kills the step on any event; measured under srun on both libraries).
    deliver_to_host(*this, ev.code, ev.source, ev.info, ev.ninfo);
    reply_status(conn, frame, PMIX_SUCCESS);
}

namespace {
std::atomic<HostEventSink> g_host_sink{nullptr};
}  // namespace

void set_host_event_sink(HostEventSink sink) noexcept { g_host_sink.store(sink); }

void deliver_to_host(State& s, pmix_status_t code, const pmix_proc_t& source,
                     const pmix_info_t* info, size_t ninfo, std::chrono::milliseconds delay) {
    if (g_host_sink.load() == nullptr) return;
    auto copy = std::make_shared<data::InfoArray>();
    if (pmix_status_t rc = copy->assign_copy(info, ninfo); rc != PMIX_SUCCESS) {
        slog(exec::LogLevel::error,
             "an event for the host's handlers could not be copied (status " + std::to_string(rc) +
                 "); not delivered");
        return;
    }
    auto run = [code, source, copy] {
        if (HostEventSink sink = g_host_sink.load(); sink != nullptr) {
            exec::invoke_guarded("host event handler",
                                 [&] { sink(code, source, copy->data(), copy->size()); });
        }
    };
    if (delay.count() > 0) {
        s.ex->run_after(delay, std::move(run));  // dropped if the server finalizes first
    } else {
        s.ex->post(std::move(run));
    }
}

// OpenPMIx 4.2 holds a lost client's event for its host for pmix_event_caching_window seconds
// (default 1, "suppresses event cascades when processes abnormally terminate"); the same MCA
// variable sets ours. A Slurm step's default handler kills the whole step on that event, so
// delivering it at once killed ranks that OpenPMIx lets finish on their own (measured under srun
// on two nodes).
std::chrono::milliseconds caching_window_from(const char* value) {
    if (value == nullptr) return std::chrono::milliseconds(1000);
    char* end = nullptr;
    const long seconds = std::strtol(value, &end, 10);
    if (end == value || *end != '\0' || seconds < 0 || seconds > 3600) {
        slog(exec::LogLevel::warn, std::string("PMIX_MCA_pmix_event_caching_window=\"") + value +
                                       "\" is not a number of seconds (0-3600); using 1");
        return std::chrono::milliseconds(1000);
    }
    return std::chrono::milliseconds(seconds * 1000);
}

std::chrono::milliseconds lost_client_window() {
    static const std::chrono::milliseconds window =
        caching_window_from(std::getenv("PMIX_MCA_pmix_event_caching_window"));
    return window;
}

void State::events_client_lost(const ProcKey& who) {
    auto it = clients.find(who);
    const bool died = it != clients.end() && !it->second.finalized && !finalizing;
    events.forget(who);
    if (!died) return;
    pmix_info_t affected;
    std::memset(&affected, 0, sizeof affected);
    std::strncpy(affected.key, PMIX_EVENT_AFFECTED_PROC, PMIX_MAX_KEYLEN);
    data::value_load(&affected.value, &it->second.proc, PMIX_PROC);
    Event ev;
    ev.code = PMIX_ERR_LOST_CONNECTION;
    ev.source = it->second.proc;
    ev.range = PMIX_RANGE_NAMESPACE;
    ev.info = &affected;
    ev.ninfo = 1;
    // OpenPMIx raises it for the host only (range PROC_LOCAL). Peers that ask for this code by
    // name hear about it too; default handlers do not: Open MPI's treat any event as fatal, and a
    // rank aborting on it raced mpirun's own waitpid-driven teardown (exit status 195 = -61
    // instead of the dead rank's, measured ~1 run in 5 under load).
    ev.named_only = true;
    deliver_event(ev);
    deliver_to_host(*this, ev.code, ev.source, &affected, 1, lost_client_window());
    data::info_destruct(&affected);
}

}  // namespace pmix::server
