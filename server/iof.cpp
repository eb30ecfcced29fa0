// server/iof.cpp - IO forwarding in the server: the cache, PMIx_server_IOF_deliver, kIofPull and
// kIofDeregister (rules in iof.h).
#include "server/iof.h"

#include "server/api.h"
#include "server/state.h"

#include "data/directives.h"
#include "data/value.h"
#include "wire/proto/message.h"

#include <algorithm>
#include <string_view>
#include <cstring>

namespace pmix::server {

using proto::Op;

namespace {
// handle_push: the host took the data at once (PMIX_OPERATION_SUCCEEDED); reply success.
constexpr pmix_status_t kReplySuccess = 1;
}  // namespace

namespace {

ProcKey key_of(const pmix_proc_t& p) {
    return {std::string(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN)), p.rank};
}

// Drops `n` bytes from the front of the cached chunks.
std::size_t trim_front(std::deque<IofChunk>& chunks, std::size_t n) {
    std::size_t dropped = 0;
    while (n > 0 && !chunks.empty()) {
        auto& first = chunks.front().bytes;
        const std::size_t cut = std::min(n, first.size());
        first.erase(first.begin(), first.begin() + static_cast<std::ptrdiff_t>(cut));
        n -= cut;
        dropped += cut;
        if (first.empty()) chunks.pop_front();
    }
    return dropped;
}

}  // namespace

bool iof_matches(const IofRegistration& reg, const pmix_proc_t& source,
                 pmix_iof_channel_t channel) noexcept {
    if ((reg.channels & channel) == 0) return false;
    return std::any_of(reg.procs.begin(), reg.procs.end(),
                       [&](const pmix_proc_t& p) { return PMIX_CHECK_PROCID(&source, &p); });
}

std::size_t IofTable::cache(IofChunk chunk) {
    Cached& c = cache_[{key_of(chunk.source), chunk.channel}];
    std::size_t dropped = 0;
    if (drop_oldest) {
        if (chunk.bytes.size() > cache_limit) {  // only its newest bytes can stay
            dropped += chunk.bytes.size() - cache_limit;
            chunk.bytes.erase(chunk.bytes.begin(),
                              chunk.bytes.end() - static_cast<std::ptrdiff_t>(cache_limit));
        }
        const std::size_t over = c.bytes + chunk.bytes.size() > cache_limit
                                     ? c.bytes + chunk.bytes.size() - cache_limit
                                     : 0;
        const std::size_t cut = trim_front(c.chunks, over);
        c.bytes -= cut;
        dropped += cut;
    } else {
        const std::size_t room = cache_limit - std::min(cache_limit, c.bytes);
        if (chunk.bytes.size() > room) {
            dropped += chunk.bytes.size() - room;
            chunk.bytes.resize(room);
        }
    }
    if (!chunk.bytes.empty() || chunk.info) {  // an empty chunk with info: PMIX_IOF_COMPLETE
        c.bytes += chunk.bytes.size();
        c.chunks.push_back(std::move(chunk));
    }
    return dropped;
}

std::vector<IofChunk> IofTable::take_cached(const IofRegistration& reg) {
    std::vector<IofChunk> out;
    for (auto it = cache_.begin(); it != cache_.end();) {
        pmix_proc_t source{};
        PMIX_LOAD_PROCID(&source, it->first.first.first.c_str(), it->first.first.second);
        if (!iof_matches(reg, source, it->first.second)) {
            ++it;
            continue;
        }
        for (auto& ch : it->second.chunks) out.push_back(std::move(ch));
        it = cache_.erase(it);
    }
    return out;
}

void IofTable::drop_namespace(const std::string& nspace) {
    std::erase_if(cache_, [&](const auto& kv) { return kv.first.first.first == nspace; });
    std::erase_if(registrations, [&](const auto& kv) {
        const std::vector<pmix_proc_t>& procs = kv.second.procs;
        return !procs.empty() && std::all_of(procs.begin(), procs.end(), [&](const pmix_proc_t& p) {
            return std::string_view(p.nspace, strnlen(p.nspace, PMIX_MAX_NSLEN)) == nspace;
        });
    });
}

std::size_t IofTable::cached_bytes() const noexcept {
    std::size_t n = 0;
    for (const auto& [k, c] : cache_) n += c.bytes;
    return n;
}

pmix_status_t configure_iof(IofTable& t, const pmix_info_t* info, std::size_t ninfo) {
    const bool oldest = data::info_true(info, ninfo, PMIX_IOF_DROP_OLDEST);
    if (oldest && data::info_true(info, ninfo, PMIX_IOF_DROP_NEWEST)) return PMIX_ERR_BAD_PARAM;
    t.drop_oldest = oldest;
    const pmix_info_t* size = data::find_info(info, ninfo, PMIX_IOF_CACHE_SIZE);
    if (size == nullptr) return PMIX_SUCCESS;
    const pmix_value_t& v = size->value;
    long long n = -1;  // signed types: a negative size is refused
    switch (v.type) {
        case PMIX_UINT16:
            n = v.data.uint16;
            break;
        case PMIX_UINT32:
            n = v.data.uint32;
            break;
        case PMIX_UINT64:
            t.cache_limit = v.data.uint64;
            return PMIX_SUCCESS;
        case PMIX_SIZE:
            t.cache_limit = v.data.size;
            return PMIX_SUCCESS;
        case PMIX_INT:
            n = v.data.integer;
            break;
        case PMIX_INT32:
            n = v.data.int32;
            break;
        case PMIX_INT64:
            n = v.data.int64;
            break;
        default:
            return PMIX_ERR_BAD_PARAM;
    }
    if (n < 0) return PMIX_ERR_BAD_PARAM;
    t.cache_limit = static_cast<std::size_t>(n);
    return PMIX_SUCCESS;
}

// ---- delivery --------------------------------------------------------------------------------

namespace {

// Sends `chunk` to `reg`'s requester: source, channel, its handler id, the host's info, bytes.
void send_chunk(const IofRegistration& reg, const IofChunk& chunk) {
    auto conn = reg.conn.lock();
    if (!conn) return;
    proto::Writer w;
    w.proc(chunk.source).raw(&chunk.channel, 1, PMIX_IOF_CHANNEL).size(reg.client_id);
    w.infos(chunk.info ? chunk.info->data() : nullptr, chunk.info ? chunk.info->size() : 0);
    pmix_byte_object_t bo{reinterpret_cast<char*>(const_cast<std::uint8_t*>(chunk.bytes.data())),
                          chunk.bytes.size()};
    w.byte_object(bo);
    if (conn->send(static_cast<std::uint32_t>(Op::kIofData), w.take()) != PMIX_SUCCESS) {
        slog(exec::LogLevel::warn, "IO forwarding: " + std::to_string(chunk.bytes.size()) +
                                       " bytes for " + reg.requester.first + ":" +
                                       std::to_string(reg.requester.second) +
                                       " dropped (its connection is full or closed)");
    }
}

bool is_requester(const IofRegistration& reg, const pmix_proc_t& source) {
    return key_of(source) == reg.requester;
}

}  // namespace

void State::iof_deliver(IofChunk chunk) {
    bool taken = false;
    for (auto& [id, reg] : iof.registrations) {
        if (!reg.active || is_requester(reg, chunk.source) ||
            !iof_matches(reg, chunk.source, chunk.channel))
            continue;
        send_chunk(reg, chunk);
        taken = true;
    }
    if (taken) return;
    const std::size_t size = chunk.bytes.size();
    if (const std::size_t dropped = iof.cache(std::move(chunk)); dropped > 0) {
        slog(exec::LogLevel::debug, "IO forwarding cache full: " + std::to_string(dropped) +
                                        " of " + std::to_string(size) + " bytes dropped");
    }
}

pmix_status_t iof_deliver(const pmix_proc_t& source, pmix_iof_channel_t channel,
                          const pmix_byte_object_t& bo, const pmix_info_t* info, size_t ninfo,
                          pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (channel == PMIX_FWD_NO_CHANNELS || (channel & PMIX_FWD_STDIN_CHANNEL) != 0)
        return PMIX_ERR_BAD_PARAM;
    IofChunk chunk;
    chunk.source = source;
    chunk.channel = channel;
    if (bo.size > 0) chunk.bytes.assign(bo.bytes, bo.bytes + bo.size);
    if (ninfo > 0) {
        chunk.info = std::make_shared<data::InfoArray>();
        if (chunk.info->assign_copy(info, ninfo) != PMIX_SUCCESS) return PMIX_ERR_NOMEM;
    }
    // The data is ours now; delivery runs on the loop and the callback from there, never
    // inside this call.
    const pmix_status_t rc = post([chunk = std::move(chunk), cbfunc, cbdata]() mutable {
        if (auto st = current()) st->iof_deliver(std::move(chunk));
        if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
    });
    if (rc != PMIX_SUCCESS) return rc;
    return cbfunc == nullptr ? PMIX_OPERATION_SUCCEEDED : PMIX_SUCCESS;
}

// ---- registrations ---------------------------------------------------------------------------

namespace {

// What an iof_pull upcall waits on: which registration, where to reply, and the arrays the
// host may read until it calls back.
struct PullUpcall {
    std::uint64_t id = 0;
    bool stop = false;
    wire::ReplyTo to;
    std::vector<pmix_proc_t> procs;
    data::InfoArray info;
};

void pull_settled(State& s, const PullUpcall& u, pmix_status_t status) {
    auto it = s.iof.registrations.find(u.id);
    if (!u.stop && it != s.iof.registrations.end()) {
        if (status != PMIX_SUCCESS) {
            s.iof.registrations.erase(it);
        } else {
            it->second.active = true;
        }
    }
    reply_status(u.to, status);
    if (u.stop || status != PMIX_SUCCESS || it == s.iof.registrations.end()) return;
    for (const IofChunk& chunk : s.iof.take_cached(it->second)) send_chunk(it->second, chunk);
}

// The host's answer to iof_pull (any thread, maybe inside its upcall): continued on the loop.
void pull_done(pmix_status_t status, void* cbdata) {
    std::unique_ptr<PullUpcall> u(static_cast<PullUpcall*>(cbdata));
    const pmix_status_t rc = post([u = std::move(u), status]() mutable {
        if (auto st = current()) pull_settled(*st, *u, status);
    });
    (void)rc;  // server gone: nobody to answer
}

void ask_host(State& s, std::unique_ptr<PullUpcall> u, pmix_iof_channel_t channels) {
    PullUpcall* raw = u.get();
    const pmix_status_t rc =
        s.module.iof_pull(raw->procs.data(), raw->procs.size(), raw->info.data(), raw->info.size(),
                          channels, pull_done, raw);
    if (rc == PMIX_SUCCESS) {
        u.release();  // the host calls pull_done
    } else {
        pull_settled(s, *u, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
    }
}

pmix_status_t handle_pull(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                          const wire::Frame& frame) {
    auto u = std::make_unique<PullUpcall>();
    pmix_iof_channel_t channels = PMIX_FWD_NO_CHANNELS;
    std::size_t client_id = 0;
    r.procs(&u->procs);
    r.infos(&u->info);
    r.raw(&channels, 1, PMIX_IOF_CHANNEL);
    r.size(&client_id);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.iof_pull == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    if (u->procs.empty() || channels == PMIX_FWD_NO_CHANNELS ||
        (channels & PMIX_FWD_STDIN_CHANNEL) != 0)
        return PMIX_ERR_BAD_PARAM;
    IofRegistration reg;
    reg.requester = who;
    reg.client_id = client_id;
    reg.conn = conn.weak_from_this();
    reg.procs = u->procs;
    reg.channels = channels;
    u->id = s.iof.next_id++;
    u->to = wire::ReplyTo::of(conn, frame);
    s.iof.registrations.emplace(u->id, std::move(reg));
    ask_host(s, std::move(u), channels);
    return PMIX_SUCCESS;
}

pmix_status_t handle_deregister(State& s, const ProcKey& who, proto::Reader& r,
                                wire::Connection& conn, const wire::Frame& frame) {
    auto u = std::make_unique<PullUpcall>();
    std::size_t client_id = 0;
    r.size(&client_id);
    r.infos(&u->info);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    auto it =
        std::find_if(s.iof.registrations.begin(), s.iof.registrations.end(), [&](const auto& kv) {
            return kv.second.requester == who && kv.second.client_id == client_id;
        });
    if (it == s.iof.registrations.end()) return PMIX_ERR_NOT_FOUND;
    const pmix_iof_channel_t channels = it->second.channels;
    u->procs = std::move(it->second.procs);
    s.iof.registrations.erase(it);
    if (s.module.iof_pull == nullptr) return PMIX_SUCCESS;
    const bool yes = true;
    if (u->info.append(PMIX_IOF_STOP, &yes, PMIX_BOOL) != PMIX_SUCCESS) return PMIX_ERR_NOMEM;
    u->stop = true;
    u->to = wire::ReplyTo::of(conn, frame);
    ask_host(s, std::move(u), channels);
    return PMIX_SUCCESS;
}

// The host's answer to push_stdin (any thread, maybe inside its upcall): replied on the loop.
struct PushUpcall {
    wire::ReplyTo to;
    pmix_proc_t source{};
    std::vector<pmix_proc_t> targets;
    data::InfoArray info;
    pmix_byte_object_t bo{nullptr, 0};
    ~PushUpcall() { PMIX_BYTE_OBJECT_DESTRUCT(&bo); }
};

void push_done(pmix_status_t status, void* cbdata) {
    std::unique_ptr<PushUpcall> u(static_cast<PushUpcall*>(cbdata));
    const pmix_status_t rc = post([u = std::move(u), status]() mutable {
        if (current() != nullptr) reply_status(u->to, status);
    });
    (void)rc;  // server gone: nobody to answer
}

pmix_status_t handle_push(State& s, const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                          const wire::Frame& frame) {
    auto u = std::make_unique<PushUpcall>();
    r.procs(&u->targets);
    r.infos(&u->info);
    r.raw(&u->bo, 1, PMIX_BYTE_OBJECT);
    if (r.finish() != PMIX_SUCCESS) return PMIX_ERR_UNPACK_FAILURE;
    if (s.module.push_stdin == nullptr) return PMIX_ERR_NOT_SUPPORTED;
    if (u->targets.empty()) return PMIX_ERR_BAD_PARAM;
    PMIX_LOAD_PROCID(&u->source, who.first.c_str(), who.second);
    u->to = wire::ReplyTo::of(conn, frame);
    PushUpcall* raw = u.get();
    const pmix_status_t rc =
        s.module.push_stdin(&raw->source, raw->targets.data(), raw->targets.size(),
                            raw->info.data(), raw->info.size(), &raw->bo, push_done, raw);
    if (rc == PMIX_SUCCESS) {
        u.release();  // the host calls push_done
        return PMIX_SUCCESS;
    }
    return rc == PMIX_OPERATION_SUCCEEDED ? kReplySuccess : rc;
}

}  // namespace

void State::iof_request(const ProcKey& who, proto::Reader& r, wire::Connection& conn,
                        const wire::Frame& frame) {
    const auto op = static_cast<Op>(frame.op);
    const pmix_status_t rc = op == Op::kIofPull ? handle_pull(*this, who, r, conn, frame)
                             : op == Op::kIofDeregister
                                 ? handle_deregister(*this, who, r, conn, frame)
                                 : handle_push(*this, who, r, conn, frame);
    if (rc == kReplySuccess) {
        reply_status(conn, frame, PMIX_SUCCESS);
        return;
    }
    if (rc == PMIX_ERR_UNPACK_FAILURE) {
        slog(exec::LogLevel::error, "undecodable IO forwarding request from " + who.first + ":" +
                                        std::to_string(who.second) + "; closing that connection");
        conn.close("undecodable request", wire::CloseKind::bad_frame);
    } else if (rc != PMIX_SUCCESS) {
        reply_status(conn, frame, rc);
    }
}

pmix_iof_channel_t spawn_forward_channels(const pmix_info_t* info, std::size_t ninfo,
                                          bool tool) noexcept {
    static constexpr std::pair<const char*, pmix_iof_channel_t> kOutputs[] = {
        {PMIX_FWD_STDOUT, PMIX_FWD_STDOUT_CHANNEL},
        {PMIX_FWD_STDERR, PMIX_FWD_STDERR_CHANNEL},
        {PMIX_FWD_STDDIAG, PMIX_FWD_STDDIAG_CHANNEL}};
    pmix_iof_channel_t channels = PMIX_FWD_NO_CHANNELS;
    for (const auto& [key, channel] : kOutputs) {
        const pmix_info_t* given = data::find_info(info, ninfo, key);
        if (given == nullptr ? tool : data::flag_true(*given)) channels |= channel;
    }
    return channels;
}

void State::iof_forward_spawned(const ProcKey& requester, std::weak_ptr<wire::Connection> conn,
                                const std::string& nspace, pmix_iof_channel_t channels) {
    IofRegistration reg;
    reg.requester = requester;
    reg.client_id = 0;  // the requester's default handler (OpenPMIx sends remote_id 0 too)
    reg.conn = std::move(conn);
    pmix_proc_t all{};
    PMIX_LOAD_PROCID(&all, nspace.c_str(), PMIX_RANK_WILDCARD);
    reg.procs.push_back(all);
    reg.channels = channels;
    reg.active = true;
    auto& added = iof.registrations.emplace(iof.next_id++, std::move(reg)).first->second;
    for (const IofChunk& chunk : iof.take_cached(added)) send_chunk(added, chunk);
}

void State::iof_requester_gone(const ProcKey& who) {
    std::erase_if(iof.registrations, [&](const auto& kv) { return kv.second.requester == who; });
}

}  // namespace pmix::server
