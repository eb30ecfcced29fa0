// fabric/engine.cpp - collectives in flight over one transport (see engine.h).
#include "fabric/engine.h"

#include "exec/log.h"

#include <algorithm>

namespace pmix::fabric {
namespace {

// Ids of finished collectives remembered so that a straggling packet is dropped instead of
// being kept forever as "early" (a daemon runs one collective per fence).
constexpr std::size_t kFinishedMemory = 4096;

// A packet that does not decode is an error (corruption or a peer of another version); one its
// collective refuses was handled there, so it is only a warning.
void log_drop(exec::LogLevel level, std::uint32_t from, const std::string& why) {
    exec::log_at(level, "pmix-fabric",
                 "dropped a packet from rank " + std::to_string(from) + ": " + why);
}

}  // namespace

Engine::Engine(Transport& transport) : transport_(transport) {}

pmix_status_t Engine::start(CollectiveSpec spec, Bytes contribution, CollectiveDone done) {
    auto& m = spec.members;
    std::sort(m.begin(), m.end());
    m.erase(std::unique(m.begin(), m.end()), m.end());
    const std::uint32_t self = transport_.rank();
    if (!std::binary_search(m.begin(), m.end(), self) || m.back() >= transport_.size() ||
        (spec.algorithm == Algorithm::dissemination && !contribution.empty()) || !done ||
        !Collective::supports(spec.algorithm, static_cast<std::uint32_t>(m.size())) ||
        (spec.algorithm == Algorithm::bcast && self != m.front() && !contribution.empty())) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::vector<Completion> fired;
    {
        std::lock_guard lock(mu_);
        if (active_.count(spec.id) != 0 || finished_.count(spec.id) != 0) return PMIX_ERR_BAD_PARAM;
        for (std::uint32_t r : m) {
            if (lost_.count(r) != 0) return PMIX_ERR_LOST_CONNECTION;
        }
        Active a{
            std::make_unique<Collective>(spec.id, spec.algorithm, m, self, std::move(contribution)),
            std::move(done), spec.deadline};
        auto [it, inserted] = active_.emplace(spec.id, std::move(a));
        std::vector<Outgoing> out;
        it->second.collective->start(out);
        send_all(out, spec.id, fired);
        if (auto e = early_.find(spec.id); e != early_.end() && active_.count(spec.id) != 0) {
            std::vector<Bytes> kept = std::move(e->second);
            early_.erase(e);
            for (const Bytes& b : kept) {
                auto again = active_.find(spec.id);
                if (again == active_.end()) break;
                std::string why;
                if (auto p = decode_packet(b, why))
                    feed(again->second, *p, fired);  // checked on arrival
            }
        }
        if (auto again = active_.find(spec.id);
            again != active_.end() && again->second.collective->done()) {
            finish(spec.id, PMIX_SUCCESS, fired);  // a group of one, or everything was early
        }
    }
    run(fired);
    return PMIX_SUCCESS;
}

// Hands one decoded packet to its collective; completes it or drops the packet as it decides.
void Engine::feed(Active& a, const Packet& p, std::vector<Completion>& fired) {
    std::string why;
    std::vector<Outgoing> out;
    const std::uint64_t id = a.collective->id();
    if (!a.collective->accept(p, out, why)) {
        ++dropped_;
        log_drop(exec::LogLevel::warn, p.header.from, why);
        return;
    }
    send_all(out, id, fired);
    if (auto it = active_.find(id); it != active_.end() && it->second.collective->done()) {
        finish(id, PMIX_SUCCESS, fired);
    }
}

void Engine::on_packet(std::uint32_t from, std::span<const std::byte> bytes) {
    std::string why;
    auto p = decode_packet(bytes, why);
    if (p && p->header.from != from)
        why = "it claims to come from rank " + std::to_string(p->header.from);
    if (!p || p->header.from != from) {
        std::lock_guard lock(mu_);
        ++dropped_;
        log_drop(exec::LogLevel::error, from, why);
        return;
    }
    std::vector<Completion> fired;
    {
        std::lock_guard lock(mu_);
        const std::uint64_t id = p->header.collective;
        if (auto it = active_.find(id); it != active_.end()) {
            feed(it->second, *p, fired);
        } else if (finished_.count(id) == 0) {
            early_[id].emplace_back(bytes.begin(), bytes.end());
        }
    }
    run(fired);
}

void Engine::on_peer_lost(std::uint32_t peer) {
    std::vector<Completion> fired;
    {
        std::lock_guard lock(mu_);
        lost_.insert(peer);
        std::vector<std::uint64_t> doomed;
        for (const auto& [id, a] : active_) {
            const auto& m = a.collective->members();
            if (std::binary_search(m.begin(), m.end(), peer)) doomed.push_back(id);
        }
        for (std::uint64_t id : doomed) finish(id, PMIX_ERR_LOST_CONNECTION, fired);
    }
    run(fired);
}

Clock::time_point Engine::expire(Clock::time_point now) {
    std::vector<Completion> fired;
    Clock::time_point next = Clock::time_point::max();
    {
        std::lock_guard lock(mu_);
        std::vector<std::uint64_t> late;
        for (const auto& [id, a] : active_) {
            if (a.deadline <= now) late.push_back(id);
            else next = std::min(next, a.deadline);
        }
        for (std::uint64_t id : late) finish(id, PMIX_ERR_TIMEOUT, fired);
    }
    run(fired);
    return next;
}

void Engine::send_all(std::vector<Outgoing>& out, std::uint64_t id,
                      std::vector<Completion>& fired) {
    for (Outgoing& o : out) {
        if (!transport_.send(o.to, std::move(o.bytes))) {
            finish(id, PMIX_ERR_LOST_CONNECTION, fired);
            return;
        }
    }
    out.clear();
}

// Retires the collective before its completion runs (the completion may start the next one).
void Engine::finish(std::uint64_t id, pmix_status_t status, std::vector<Completion>& fired) {
    auto it = active_.find(id);
    if (it == active_.end()) return;
    Active a = std::move(it->second);
    active_.erase(it);
    remember_finished(id);
    std::vector<Bytes> result;
    if (status == PMIX_SUCCESS) result = a.collective->take_result();
    fired.emplace_back([done = std::move(a.done), status, r = std::move(result)]() mutable {
        done(status, std::move(r));
    });
}

void Engine::remember_finished(std::uint64_t id) {
    early_.erase(id);
    finished_.insert(id);
    finished_order_.push_back(id);
    if (finished_order_.size() > kFinishedMemory) {
        finished_.erase(finished_order_.front());
        finished_order_.pop_front();
    }
}

void Engine::run(std::vector<Completion>& fired) {
    for (auto& f : fired) exec::invoke_guarded("fabric collective completion", f);
}

std::size_t Engine::in_flight() const {
    std::lock_guard lock(mu_);
    return active_.size();
}

std::size_t Engine::dropped_packets() const {
    std::lock_guard lock(mu_);
    return dropped_;
}

}  // namespace pmix::fabric
