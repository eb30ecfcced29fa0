// server/monitor.cpp - kMonitor and kHeartbeat: the heartbeat and file monitors of monitor.h,
// PMIX_MONITOR_CANCEL, and every other monitor passed to the host's `monitor` upcall (from this
// loop task, which is no host call) or refused with PMIX_ERR_NOT_SUPPORTED when it has none, as
// OpenPMIx 4.2.2's server does.
#include "server/api.h"
#include "server/monitor.h"
#include "server/state.h"

#include "data/directives.h"
#include "data/info_array.h"
#include "data/value.h"

#include <sys/stat.h>

#include <cstring>
#include <memory>

namespace pmix::server {

namespace {

using proto::Op;

constexpr const char* kMonitorKnown[] = {PMIX_MONITOR_ID,
                                  PMIX_MONITOR_HEARTBEAT_TIME,
                                  PMIX_MONITOR_HEARTBEAT_DROPS,
                                  PMIX_MONITOR_FILE_SIZE,
                                  PMIX_MONITOR_FILE_ACCESS,
                                  PMIX_MONITOR_FILE_MODIFY,
                                  PMIX_MONITOR_FILE_CHECK_TIME,
                                  PMIX_MONITOR_FILE_DROPS,
                                  PMIX_RANGE,
                                  PMIX_TIMEOUT};

// A non-negative integer of any integer type; false for anything else.
bool read_count(const pmix_value_t& v, std::uint32_t* out) {
    long long n = -1;
    switch (v.type) {
        case PMIX_UINT32:
            n = v.data.uint32;
            break;
        case PMIX_INT32:
            n = v.data.int32;
            break;
        case PMIX_UINT16:
            n = v.data.uint16;
            break;
        case PMIX_INT16:
            n = v.data.int16;
            break;
        case PMIX_UINT8:
            n = v.data.uint8;
            break;
        case PMIX_INT8:
            n = v.data.int8;
            break;
        case PMIX_INT:
            n = v.data.integer;
            break;
        case PMIX_UINT:
            n = v.data.uint;
            break;
        case PMIX_UINT64:
            n = v.data.uint64 > 0xffffffffu ? -1 : static_cast<long long>(v.data.uint64);
            break;
        case PMIX_INT64:
            n = v.data.int64;
            break;
        case PMIX_SIZE:
            n = v.data.size > 0xffffffffu ? -1 : static_cast<long long>(v.data.size);
            break;
        default:
            return false;
    }
    if (n < 0 || n > 0xffffffffLL) return false;
    *out = static_cast<std::uint32_t>(n);
    return true;
}

// The directives of a heartbeat or file monitor into `m`; PMIX_ERR_BAD_PARAM for a malformed one.
pmix_status_t read_directives(const data::InfoArray& dirs, ProcessMonitor* m) {
    std::uint32_t seconds = 0;
    for (std::size_t i = 0; i < dirs.size(); ++i) {
        const pmix_info_t& d = dirs.data()[i];
        bool ok = true;
        const bool hb = m->kind == ProcessMonitor::Kind::heartbeat;
        if (data::key_is(d, PMIX_MONITOR_ID)) {
            ok = d.value.type == PMIX_STRING && d.value.data.string != nullptr;
            if (ok && m->id.empty()) m->id = d.value.data.string;
        } else if (data::key_is(d, PMIX_RANGE)) {
            ok = d.value.type == PMIX_DATA_RANGE;
            if (ok) m->range = d.value.data.range;
        } else if (data::key_is(d,
                                hb ? PMIX_MONITOR_HEARTBEAT_TIME : PMIX_MONITOR_FILE_CHECK_TIME)) {
            ok = read_count(d.value, &seconds);
        } else if (data::key_is(d, hb ? PMIX_MONITOR_HEARTBEAT_DROPS : PMIX_MONITOR_FILE_DROPS)) {
            ok = read_count(d.value, &m->drops);
        } else if (data::key_is(d, PMIX_MONITOR_FILE_SIZE)) {
            m->watch_size = data::flag_true(d);
        } else if (data::key_is(d, PMIX_MONITOR_FILE_ACCESS)) {
            m->watch_access = data::flag_true(d);
        } else if (data::key_is(d, PMIX_MONITOR_FILE_MODIFY)) {
            m->watch_modify = data::flag_true(d);
        }
        if (!ok) return PMIX_ERR_BAD_PARAM;
    }
    m->period = std::chrono::seconds(seconds);
    if (seconds == 0) return PMIX_ERR_BAD_PARAM;  // no sampling period: nothing to watch
    if (m->kind == ProcessMonitor::Kind::file &&
        !(m->watch_size || m->watch_access || m->watch_modify)) {
        return PMIX_ERR_BAD_PARAM;
    }
    return PMIX_SUCCESS;
}

void raise_alert(State& s, const ProcessMonitor& m) {
    const bool hb = m.kind == ProcessMonitor::Kind::heartbeat;
    pmix_proc_t source{};
    std::strncpy(source.nspace, m.requester.first.c_str(), PMIX_MAX_NSLEN);
    source.rank = m.requester.second;
    data::InfoArray info;
    info.append(PMIX_EVENT_AFFECTED_PROC, &source, PMIX_PROC);
    if (!m.id.empty()) info.append(PMIX_MONITOR_ID, m.id.c_str(), PMIX_STRING);
    Event ev;
    ev.code = m.code != PMIX_SUCCESS ? m.code
              : hb                   ? PMIX_MONITOR_HEARTBEAT_ALERT
                                     : PMIX_MONITOR_FILE_ALERT;
    ev.source = source;
    ev.range = m.range;
    ev.info = info.data();
    ev.ninfo = info.size();
    slog(exec::LogLevel::info, std::string(hb ? "heartbeat" : "file") + " monitor of " +
                                   m.requester.first + ":" + std::to_string(m.requester.second) +
                                   " tripped after " + std::to_string(m.misses) + " misses");
    if (m.range != PMIX_RANGE_PROC_LOCAL) s.deliver_event(ev);
    deliver_to_host(s, ev.code, source, ev.info, ev.ninfo);
}

// One sample of a file monitor: true when something watched changed (the first sample is the
// baseline and counts as a change). A file that cannot be stat'ed is looked at again next time.
bool file_changed(ProcessMonitor& m, bool* missing) {
    struct stat st {};
    *missing = ::stat(m.path.c_str(), &st) != 0;
    if (*missing) return true;
    auto differs = [](const timespec& a, const timespec& b) {
        return a.tv_sec != b.tv_sec || a.tv_nsec != b.tv_nsec;
    };
    bool changed = !m.sampled || (m.watch_size && st.st_size != m.last_size) ||
                   (m.watch_access && differs(st.st_atim, m.last_access)) ||
                   (m.watch_modify && differs(st.st_mtim, m.last_modify));
    m.sampled = true;
    m.last_size = st.st_size;
    m.last_access = st.st_atim;
    m.last_modify = st.st_mtim;
    return changed;
}

void arm(State& s, std::uint64_t id, ProcessMonitor& m);

void check(State& s, std::uint64_t id) {
    auto it = s.monitors.active.find(id);
    if (it == s.monitors.active.end()) return;
    ProcessMonitor& m = it->second;
    m.timer = exec::kInvalidTimer;
    if (auto c = s.clients.find(m.requester); c == s.clients.end() || !c->second.conn) {
        s.monitors.active.erase(it);  // deregistered or gone: nobody left to watch
        return;
    }
    bool missing = false;
    const bool alive =
        m.kind == ProcessMonitor::Kind::heartbeat ? m.beats > 0 : file_changed(m, &missing);
    m.beats = 0;
    m.misses = alive ? 0 : m.misses + 1;
    if (m.misses >= std::max<std::uint32_t>(1, m.drops)) {
        raise_alert(s, m);
        s.monitors.active.erase(it);
        return;
    }
    arm(s, id, m);
}

void arm(State& s, std::uint64_t id, ProcessMonitor& m) {
    State* sp = &s;
    m.timer = s.ex->run_after(m.period, [sp, id] { check(*sp, id); });
}

std::size_t cancel_monitors(State& s, const ProcKey& who, const char* id) {
    std::size_t n = 0;
    for (auto it = s.monitors.active.begin(); it != s.monitors.active.end();) {
        ProcessMonitor& m = it->second;
        if (m.requester != who || (id != nullptr && m.id != id)) {
            ++it;
            continue;
        }
        if (m.timer != exec::kInvalidTimer) s.ex->cancel(m.timer);
        it = s.monitors.active.erase(it);
        ++n;
    }
    return n;
}

// The host's `monitor` upcall for a monitor the library does not run.
struct HostMonitorCall {
    ReplyTo to;
    pmix_proc_t proc{};
    pmix_info_t monitor{};
    data::InfoArray directives;
    ~HostMonitorCall() { data::info_destruct(&monitor); }
};

void reply_infos(const ReplyTo& to, pmix_status_t status, const pmix_info_t* info, size_t n) {
    auto conn = to.conn.lock();
    if (!conn) return;
    proto::Writer w;
    w.status(status);
    if (status == PMIX_SUCCESS) w.infos(info, n);
    conn->reply(to.request, w.take());
}

void host_monitor_done(pmix_status_t status, pmix_info_t* info, size_t ninfo, void* cbdata,
                       pmix_release_cbfunc_t release_fn, void* release_cbdata) {
    std::unique_ptr<HostMonitorCall> call(static_cast<HostMonitorCall*>(cbdata));
    reply_infos(call->to, status, info, ninfo);  // copies
    // release_fn is the host's: never on the stack of its upcall (it may hold the lock it takes).
    if (release_fn != nullptr)
        call_host_later([release_fn, release_cbdata] { release_fn(release_cbdata); });
}

pmix_status_t to_host(State& s, const Client& c, std::unique_ptr<HostMonitorCall> call,
                      pmix_status_t error) {
    if (s.module.monitor == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    call->proc = c.proc;
    HostMonitorCall* raw = call.get();
    pmix_status_t rc = s.module.monitor(&raw->proc, &raw->monitor, error, raw->directives.data(),
                                        raw->directives.size(), host_monitor_done, raw);
    if (rc == PMIX_SUCCESS) {
        call.release();
        return PMIX_SUCCESS;
    }
    reply_infos(call->to, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc, nullptr, 0);
    return PMIX_SUCCESS;
}

pmix_status_t start_monitor(State& s, const ProcKey& who, const HostMonitorCall& call,
                            pmix_status_t error, ProcessMonitor::Kind kind) {
    ProcessMonitor m;
    m.kind = kind;
    m.requester = who;
    m.code = error;
    if (kind == ProcessMonitor::Kind::file) {
        if (call.monitor.value.type != PMIX_STRING || call.monitor.value.data.string == nullptr) {
            return PMIX_ERR_BAD_PARAM;
        }
        m.path = call.monitor.value.data.string;
    }
    if (pmix_status_t rc = read_directives(call.directives, &m); rc != PMIX_SUCCESS) return rc;
    const std::uint64_t id = s.monitors.next_id++;
    ProcessMonitor& stored = s.monitors.active.emplace(id, std::move(m)).first->second;
    if (kind == ProcessMonitor::Kind::file) {
        bool missing = false;
        file_changed(stored, &missing);  // the baseline
    }
    arm(s, id, stored);
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t State::monitor_request(const ProcKey& who, Client& c, proto::Reader& r,
                                     wire::Connection& conn, const wire::Frame& frame) {
    if (static_cast<Op>(frame.op) == Op::kHeartbeat) {
        if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
        heartbeat_from(who);
        reply_status(conn, frame, PMIX_SUCCESS);
        return PMIX_SUCCESS;
    }
    auto call = std::make_unique<HostMonitorCall>();
    call->to = ReplyTo::of(conn, frame);
    pmix_status_t error = PMIX_SUCCESS;
    r.raw(&call->monitor, 1, PMIX_INFO);
    r.status(&error);
    r.infos(&call->directives);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    const pmix_info_t& mon = call->monitor;
    pmix_status_t rc = PMIX_ERR_NOT_SUPPORTED;
    if (data::key_is(mon, PMIX_SEND_HEARTBEAT)) {
        heartbeat_from(who);
        rc = PMIX_SUCCESS;
    } else if (data::key_is(mon, PMIX_MONITOR_CANCEL)) {
        const char* id = mon.value.type == PMIX_STRING ? mon.value.data.string : nullptr;
        if (cancel_monitors(*this, who, id) > 0) {
            rc = PMIX_SUCCESS;
        } else {  // none of ours: perhaps the host's, else nothing of that name
            rc = to_host(*this, c, std::move(call), error);
            if (rc == PMIX_ERR_NOT_SUPPORTED) rc = PMIX_ERR_NOT_FOUND;
            if (rc == PMIX_SUCCESS) return PMIX_SUCCESS;
        }
    } else if (data::key_is(mon, PMIX_MONITOR_HEARTBEAT) || data::key_is(mon, PMIX_MONITOR_FILE)) {
        if (data::unknown_required(call->directives.data(), call->directives.size(), kMonitorKnown)) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
        const auto kind = data::key_is(mon, PMIX_MONITOR_FILE) ? ProcessMonitor::Kind::file
                                                               : ProcessMonitor::Kind::heartbeat;
        rc = start_monitor(*this, who, *call, error, kind);
    } else {
        return to_host(*this, c, std::move(call), error);
    }
    if (rc == PMIX_SUCCESS) reply_infos(ReplyTo::of(conn, frame), PMIX_SUCCESS, nullptr, 0);
    return rc;
}

void State::heartbeat_from(const ProcKey& who) {
    for (auto& [id, m] : monitors.active) {
        if (m.requester == who && m.kind == ProcessMonitor::Kind::heartbeat) ++m.beats;
    }
}

void State::monitors_client_lost(const ProcKey& who) { cancel_monitors(*this, who, nullptr); }

}  // namespace pmix::server
