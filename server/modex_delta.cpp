// server/modex_delta.cpp - snapshots, deltas and held versions of the modex (modex_delta.h).
#include "server/modex_delta.h"

#include "base/env_names.h"
#include "wire/proto/message.h"

#include <cstdlib>
#include <cstring>
#include <random>
#include <set>

namespace pmix::server {

namespace {

// Bounds of what the sender remembers: participant sets (each costs 8 bytes per process) and
// fences whose answer has not come (a fence that failed or timed out never reports).
constexpr std::size_t kMaxSets = 64;
constexpr std::size_t kMaxInFlight = 256;
constexpr std::size_t kHeaderBytes = 24;
// The shipments of every set (DeltaBase::any).
const std::string& any_set() {
    static const std::string name = "*";
    return name;
}

void put_u64(unsigned char* p, std::uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

std::uint64_t get_u64(const unsigned char* p) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
    return v;
}

std::vector<std::uint8_t> encoded(const pmix_value_t& v) {
    proto::Writer w;
    w.value(v);
    return w.take();
}

}  // namespace

void make_modex_header(const ModexHeader& h, pmix_info_t* out) {
    std::memset(out, 0, sizeof *out);
    std::strncpy(out->key, kModexHeaderKey, PMIX_MAX_KEYLEN);
    auto* bytes = static_cast<unsigned char*>(std::malloc(kHeaderBytes));
    if (bytes == nullptr) return;  // an undefined value: the group then reads as headerless
    put_u64(bytes, h.epoch);
    put_u64(bytes + 8, h.base);
    put_u64(bytes + 16, h.version);
    out->value.type = PMIX_BYTE_OBJECT;
    out->value.data.bo.bytes = reinterpret_cast<char*>(bytes);
    out->value.data.bo.size = kHeaderBytes;
}

bool read_modex_header(const pmix_info_t& in, ModexHeader* out) {
    if (std::strncmp(in.key, kModexHeaderKey, PMIX_MAX_KEYLEN) != 0 ||
        in.value.type != PMIX_BYTE_OBJECT || in.value.data.bo.size != kHeaderBytes ||
        in.value.data.bo.bytes == nullptr) {
        return false;
    }
    const auto* p = reinterpret_cast<const unsigned char*>(in.value.data.bo.bytes);
    out->epoch = get_u64(p);
    out->base = get_u64(p + 8);
    out->version = get_u64(p + 16);
    return out->epoch != 0 && out->version != 0 && out->base <= out->version;
}

std::uint64_t ModexLog::observe(const ProcKey& proc, const pmix_info_t* infos, std::size_t n) {
    ProcLog& log = procs_[proc];
    // The number this snapshot gets if anything changed; taken from the counter only then.
    const std::uint64_t fresh = next_;
    bool changed = log.version == 0;  // the first snapshot is a version even when empty
    for (std::size_t i = 0; i < n; ++i) {
        const std::string_view key(infos[i].key, strnlen(infos[i].key, PMIX_MAX_KEYLEN));
        std::vector<std::uint8_t> bytes = encoded(infos[i].value);
        auto it = log.keys.find(key);
        if (it == log.keys.end()) {
            log.keys.emplace(std::string(key), KeyLog{std::move(bytes), fresh});
            changed = true;
        } else if (it->second.bytes != bytes) {
            it->second.bytes = std::move(bytes);
            it->second.changed = fresh;
            changed = true;
        }
    }
    // A key no longer exported (Put again with PMIX_LOCAL) is forgotten, so that its return
    // counts as a change even with the bytes it had: kept, its old change number let a delta
    // leave it out for a receiver that had never held it (randomized rounds, seed 2699492750).
    if (log.keys.size() > n) {
        std::set<std::string_view> present;
        for (std::size_t i = 0; i < n; ++i)
            present.emplace(infos[i].key, strnlen(infos[i].key, PMIX_MAX_KEYLEN));
        std::erase_if(log.keys, [&](const auto& e) { return present.count(e.first) == 0; });
    }
    if (changed) {
        log.version = fresh;
        ++next_;
    }
    return log.version;
}

bool ModexLog::changed_since(const ProcKey& proc, std::string_view key, std::uint64_t base) const {
    if (base == 0) return true;
    auto p = procs_.find(proc);
    if (p == procs_.end()) return true;
    auto k = p->second.keys.find(key);
    return k == p->second.keys.end() || k->second.changed > base;
}

DeltaBase delta_base_from_env() {
    const char* v = std::getenv(env::kModexDelta);
    if (v == nullptr) return DeltaBase::set;
    const std::string_view s(v);
    return s == "off" ? DeltaBase::off : s == "any" ? DeltaBase::any : DeltaBase::set;
}

std::uint64_t ModexLog::base_for(const std::string& signature, const ProcKey& proc) const {
    if (policy_ == DeltaBase::off) return 0;
    auto s = shipped_.find(policy_ == DeltaBase::any ? any_set() : signature);
    if (s == shipped_.end()) return 0;
    auto v = s->second.find(proc);
    return v == s->second.end() ? 0 : v->second;
}

void ModexLog::shipping(std::uint64_t fence_id, const std::string& signature, const ProcKey& proc,
                        std::uint64_t version) {
    Shipment& s = in_flight_[fence_id];
    s.signature = signature;
    s.versions[proc] = version;
    while (in_flight_.size() > kMaxInFlight) in_flight_.erase(in_flight_.begin());
}

void ModexLog::fence_done(std::uint64_t fence_id, bool success) {
    auto it = in_flight_.find(fence_id);
    if (it == in_flight_.end()) return;
    if (success) {
        const std::string& sig = policy_ == DeltaBase::any ? any_set() : it->second.signature;
        auto& set = shipped_[sig];
        for (const auto& [proc, version] : it->second.versions) set[proc] = version;
        set_used_[sig] = ++use_clock_;
        while (shipped_.size() > kMaxSets) {
            auto oldest = set_used_.begin();
            for (auto u = set_used_.begin(); u != set_used_.end(); ++u) {
                if (u->second < oldest->second) oldest = u;
            }
            shipped_.erase(oldest->first);
            set_used_.erase(oldest);
        }
    }
    in_flight_.erase(it);
}

void ModexLog::forget_namespace(const std::string& nspace) {
    std::erase_if(procs_, [&](const auto& e) { return e.first.first == nspace; });
    for (auto& [sig, set] : shipped_) {
        std::erase_if(set, [&](const auto& e) { return e.first.first == nspace; });
    }
    for (auto& [id, s] : in_flight_) {
        std::erase_if(s.versions, [&](const auto& e) { return e.first.first == nspace; });
    }
}

bool ModexHeld::applies(const ProcKey& proc, const ModexHeader& h) const {
    if (h.base == 0) return true;
    auto it = held_.find(proc);
    return it != held_.end() && it->second.epoch == h.epoch && it->second.version >= h.base;
}

void ModexHeld::stored(const ProcKey& proc, const ModexHeader& h) {
    // After a delta every key of snapshot h.version is present and each value is that
    // snapshot's or a newer one's, which is all that rule 2 asks of a holder of h.version.
    held_[proc] = ModexHeader{h.epoch, 0, h.version};
}

void ModexHeld::forget_namespace(const std::string& nspace) {
    std::erase_if(held_, [&](const auto& e) { return e.first.first == nspace; });
}

std::uint64_t write_modex_group(proto::Writer& w, ModexLog& log, const pmix_proc_t& proc,
                                const pmix_info_t* infos, std::size_t n, std::uint64_t base) {
    const ProcKey key{std::string(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN)), proc.rank};
    const std::uint64_t version = log.observe(key, infos, n);
    // Shallow copies: the writer only reads them.
    std::vector<pmix_info_t> group(1);
    for (std::size_t i = 0; i < n; ++i) {
        const std::string_view k(infos[i].key, strnlen(infos[i].key, PMIX_MAX_KEYLEN));
        if (log.changed_since(key, k, base)) group.push_back(infos[i]);
    }
    if (group.size() == n + 1) base = 0;  // everything changed: that is the full data
    make_modex_header(ModexHeader{log.epoch(), base, version}, &group[0]);
    w.proc(proc).infos(group.data(), group.size());
    std::free(group[0].value.data.bo.bytes);
    return version;
}

ModexGroup split_modex_group(const data::InfoArray& infos) {
    ModexGroup g;
    g.values.reserve(infos.size());
    for (std::size_t i = 0; i < infos.size(); ++i) {
        const pmix_info_t& in = infos.data()[i];
        if (std::strncmp(in.key, kModexHeaderKey, PMIX_MAX_KEYLEN) == 0) {
            // Only ours sends it; a malformed one makes the group read as whole data.
            g.has_header = read_modex_header(in, &g.header);
            continue;
        }
        g.values.push_back(&in);
    }
    return g;
}

std::uint64_t new_modex_epoch() {
    std::random_device rd;
    std::uint64_t e = 0;
    while (e == 0) e = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    return e;
}

}  // namespace pmix::server
