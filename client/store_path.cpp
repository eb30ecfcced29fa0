// client/store_path.cpp - see store_path.h.
#include "client/store_path.h"
#include "client/peer_segments.h"

#include "base/env_names.h"
#include "data/directives.h"
#include "data/value.h"
#include "exec/log.h"
#include "gds/qualified.h"
#include "gds/store.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace pmix::client::store_path {

namespace {

std::unique_ptr<gds::StoreReader> g_reader;      // owned; replaced only at init/teardown
std::atomic<gds::StoreReader*> g_fast{nullptr};  // what Gets use; null = server path only
pmix_proc_t g_me{};  // written before g_fast is published, read after acquiring it

// PMIX_GET_POINTER_VALUES answers: the pmix_value_t handed out lives in a view kept until
// PMIx_Finalize (the Standard gives the caller no way to release it), one per stored value.
std::mutex g_views_mu;
std::vector<std::unique_ptr<gds::ValueView>> g_views;
std::vector<pmix_value_t*> g_retained;  // pointer-mode answers from the server

using data::flag_true;
using data::key_is;

// Directives the store can honour itself (the data qualifiers among them, gds/qualified.h); any
// other qualifier (PMIX_GET_REFRESH_CACHE, ...) sends the Get to the server, which knows them all.
// *qualified: a data qualifier is among them (parsed only then: the pointer-mode Get, which
// passes one directive, paid 0.04 us per call when every Get parsed its directives for them).
bool eligible(const pmix_info_t* info, std::size_t ninfo, bool* pointer, bool* qualified) {
    *pointer = false;
    *qualified = false;
    for (std::size_t i = 0; i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        if (key_is(in, PMIX_GET_POINTER_VALUES)) {
            *pointer = flag_true(in);
        } else if (!key_is(in, PMIX_OPTIONAL) && !key_is(in, PMIX_IMMEDIATE) &&
                   !key_is(in, PMIX_TIMEOUT) && !key_is(in, PMIX_GET_STATIC_VALUES)) {
            if (!gds::is_data_qualifier(in)) return false;
            *qualified = true;
        }
    }
    return true;
}

void disable(pmix_status_t why) {
    if (g_fast.exchange(nullptr) != nullptr) {
        exec::log_warn("pmix client", "shared store refused a read (status " + std::to_string(why) +
                                          "); asking the server from now on");
    }
}

pmix_status_t read_copy(gds::StoreReader& r, std::string_view ns, const gds::Entity& e,
                        std::string_view key, pmix_value_t** out) {
    auto* v = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
    if (v == nullptr) return PMIX_ERR_NOMEM;
    const pmix_status_t rc = r.get(ns, e, key, v);
    if (rc != PMIX_SUCCESS) {
        std::free(v);
        return rc;
    }
    *out = v;
    return PMIX_SUCCESS;
}

// Pointer mode hands out one pmix_value_t per stored value, kept until PMIx_Finalize: stored
// values never change (a later put appends a new one), so a repeated Get of the same value
// returns the same pointer and memory does not grow with the number of Gets. Each thread finds
// its earlier answers in its own table (no lock on a hit): a direct-mapped array in front of a
// map, keyed by where the value lives, found with StoreReader::locate (no decoding). A miss
// builds a view and registers it under g_views_mu. Measured on the e2e bench: a new view per Get
// (lock and malloc every call) 0.47-0.86 us; decode into a probe view + unordered_map 0.10-0.13 us.
struct PointerCache {
    static constexpr std::size_t kRecent = 512;
    std::uint64_t epoch = 0;
    std::pair<const void*, const pmix_value_t*> recent[kRecent] = {};
    std::unordered_map<const void*, const pmix_value_t*> answers;

    static std::size_t slot(const void* source) noexcept {
        const auto bits = reinterpret_cast<std::uintptr_t>(source) >> 3;
        return static_cast<std::size_t>((bits * 0x9e3779b97f4a7c15ull) >> 55) & (kRecent - 1);
    }
    const pmix_value_t* find(const void* source) noexcept {
        auto& r = recent[slot(source)];
        if (r.first == source) return r.second;
        auto hit = answers.find(source);
        if (hit == answers.end()) return nullptr;
        r = {source, hit->second};
        return hit->second;
    }
    void add(const void* source, const pmix_value_t* value) {
        answers[source] = value;
        recent[slot(source)] = {source, value};
    }
    void clear() noexcept {
        answers.clear();
        for (auto& r : recent) r = {nullptr, nullptr};
    }
};
thread_local PointerCache t_pointers;
std::atomic<std::uint64_t> g_epoch{1};  // bumped by close(): every thread's table is stale

const pmix_value_t* keep_view(gds::StoreReader& r, std::string_view ns, const gds::Entity& e,
                              std::string_view key, pmix_status_t* rc) {
    auto view = std::make_unique<gds::ValueView>();
    *rc = r.get_view(ns, e, key, *view);
    if (*rc != PMIX_SUCCESS) return nullptr;
    const pmix_value_t* kept = &view->value();
    PointerCache& cache = t_pointers;
    std::lock_guard lock(g_views_mu);
    g_views.push_back(std::move(view));
    cache.add(g_views.back()->source(), kept);
    return kept;
}

pmix_status_t read_view(gds::StoreReader& r, std::string_view ns, const gds::Entity& e,
                        std::string_view key, pmix_value_t** out) {
    const void* source = nullptr;
    pmix_status_t rc = r.locate(ns, e, key, &source);
    if (rc != PMIX_SUCCESS) return rc;
    PointerCache& cache = t_pointers;
    const std::uint64_t epoch = g_epoch.load(std::memory_order_acquire);
    if (cache.epoch != epoch) {
        cache.clear();
        cache.epoch = epoch;
    }
    if (const pmix_value_t* hit = cache.find(source)) {
        *out = const_cast<pmix_value_t*>(hit);
        return PMIX_SUCCESS;
    }
    const pmix_value_t* kept = keep_view(r, ns, e, key, &rc);
    if (kept == nullptr) return rc;
    *out = const_cast<pmix_value_t*>(kept);
    return PMIX_SUCCESS;
}

pmix_status_t read(gds::StoreReader& r, std::string_view ns, const gds::Entity& e,
                   std::string_view key, bool pointer, pmix_value_t** out) {
    return pointer ? read_view(r, ns, e, key, out) : read_copy(r, ns, e, key, out);
}

// The node, app, job or session a qualified Get names, or (q.kind none, after the job level
// missed) the caller's node or app for a node- or app-level key (gds/qualified.h).
[[gnu::noinline]] pmix_status_t read_places(gds::StoreReader& r, std::string_view ns,
                                            pmix_rank_t rank, std::string_view key,
                                            const gds::Qualifiers& q, bool pointer,
                                            pmix_value_t** out) {
    gds::Places places;
    gds::qualified_places(r, ns, rank, g_me, key, q, places);
    pmix_status_t rc = PMIX_ERR_NOT_FOUND;
    for (int i = 0; i < places.count && rc == PMIX_ERR_NOT_FOUND; ++i) {
        rc = read(r, places.at[i].nspace, places.at[i].entity, key, pointer, out);
    }
    return rc;
}

// A Get with data qualifiers (rank WILDCARD or UNDEF). A bad qualifier goes to the server, which
// reports it.
[[gnu::noinline]] pmix_status_t read_qualified(gds::StoreReader& r, std::string_view ns,
                                               pmix_rank_t rank, std::string_view key,
                                               const pmix_info_t* info, std::size_t ninfo,
                                               bool pointer, pmix_value_t** out) {
    gds::Qualifiers q;
    if (gds::parse_qualifiers(info, ninfo, q) != PMIX_SUCCESS) return PMIX_ERR_NOT_FOUND;
    return read_places(r, ns, rank, key, q, pointer, out);
}

// A peer's proc-level key: its own segment first (newest data, peer_segments.h), then the
// server's store (registration data; what the peer committed without a segment).
// `self`: the caller's own keys (try_get_own), read after its cache, which holds all it put: its
// own segment has nothing more, so it is not mapped a second time.
pmix_status_t read_proc(gds::StoreReader& r, std::string_view ns, pmix_rank_t rank, bool self,
                        std::string_view key, bool pointer, pmix_value_t** out) {
    const std::string_view own(g_me.nspace, strnlen(g_me.nspace, PMIX_MAX_NSLEN));
    if (gds::StoreReader* peer = self ? nullptr : peer_segments::reader_for(r, ns, own, rank)) {
        const pmix_status_t rc = read(*peer, ns, gds::Entity::proc(rank), key, pointer, out);
        if (rc == PMIX_SUCCESS || rc == PMIX_ERR_NOMEM) return rc;
        if (rc == gds::kErrCorrupt) peer_segments::distrust(rank);
    }
    return read(r, ns, gds::Entity::proc(rank), key, pointer, out);
}

}  // namespace

void open_from_env(const pmix_proc_t& me) {
    const char* locator = std::getenv(env::kGdsLocator);
    if (locator == nullptr || *locator == '\0') return;
    pmix_status_t rc = PMIX_SUCCESS;
    auto reader = gds::open_shm_reader(locator, &rc);
    if (reader == nullptr) {
        exec::log_warn("pmix client", std::string("cannot open the shared store '") + locator +
                                          "' (status " + std::to_string(rc) +
                                          "); every Get asks the server");
        return;
    }
    g_reader = std::move(reader);
    g_me = me;
    g_fast.store(g_reader.get(), std::memory_order_release);
}

void close() {
    g_fast.store(nullptr, std::memory_order_release);
    g_epoch.fetch_add(1, std::memory_order_acq_rel);
    {
        std::lock_guard lock(g_views_mu);
        g_views.clear();
        for (pmix_value_t* v : g_retained) {
            data::value_destruct(v);
            std::free(v);
        }
        g_retained.clear();
    }
    peer_segments::close();  // after the views into them
    g_reader.reset();
}

namespace {

// try_get's body; `own` lets the caller's own proc-level keys through (try_get_own).
pmix_status_t read_for(const pmix_proc_t* proc, const char* key, const pmix_info_t* info,
                       std::size_t ninfo, pmix_value_t** out, bool own) noexcept {
    gds::StoreReader* r = g_fast.load(std::memory_order_acquire);
    bool pointer = false, qualified = false;
    if (r == nullptr || key == nullptr || (info == nullptr && ninfo > 0) ||
        strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN ||
        !eligible(info, ninfo, &pointer, &qualified)) {
        return PMIX_ERR_NOT_FOUND;
    }
    try {
        const pmix_proc_t& me = g_me;
        std::string_view ns(me.nspace, strnlen(me.nspace, PMIX_MAX_NSLEN));
        pmix_rank_t rank = PMIX_RANK_UNDEF;
        if (proc != nullptr) {
            rank = proc->rank;
            if (proc->nspace[0] != '\0') ns = {proc->nspace, strnlen(proc->nspace, PMIX_MAX_NSLEN)};
        }
        const bool job = rank == PMIX_RANK_WILDCARD || rank == PMIX_RANK_UNDEF;
        const bool self = rank == me.rank && ns == std::string_view(me.nspace);
        if (own ? !self : (!job && (rank >= PMIX_RANK_VALID || self))) return PMIX_ERR_NOT_FOUND;
        pmix_status_t rc = PMIX_ERR_NOT_FOUND;
        if (qualified && job) {
            rc = read_qualified(*r, ns, rank, key, info, ninfo, pointer, out);
        } else {
            if (!job) rc = read_proc(*r, ns, rank, self, key, pointer, out);
            // As the server answers: a proc's own keys first, then the job level; then, for a
            // node- or app-level key, the caller's node or app (only after a miss: the common
            // Get pays nothing for it).
            if (rc == PMIX_ERR_NOT_FOUND) rc = read(*r, ns, gds::Entity::job(), key, pointer, out);
            if (rc == PMIX_ERR_NOT_FOUND && job) {
                rc = read_places(*r, ns, rank, key, gds::Qualifiers{}, pointer, out);
            }
        }
        if (rc == gds::kErrCorrupt) {
            disable(rc);
            return PMIX_ERR_NOT_FOUND;
        }
        return rc == PMIX_SUCCESS || rc == PMIX_ERR_NOMEM ? rc : PMIX_ERR_NOT_FOUND;
    } catch (...) {
        return PMIX_ERR_NOT_FOUND;
    }
}

}  // namespace

pmix_status_t try_get(const pmix_proc_t* proc, const char* key, const pmix_info_t* info,
                      std::size_t ninfo, pmix_value_t** out) noexcept {
    return read_for(proc, key, info, ninfo, out, false);
}

pmix_status_t try_get_own(const pmix_proc_t& me, const char* key, const pmix_info_t* info,
                          std::size_t ninfo, pmix_value_t** out) noexcept {
    return read_for(&me, key, info, ninfo, out, true);
}

void warm_after_fence() noexcept {
    gds::StoreReader* r = g_fast.load(std::memory_order_acquire);
    if (r != nullptr) r->warm({g_me.nspace, strnlen(g_me.nspace, PMIX_MAX_NSLEN)});
}

bool pointer_mode(const pmix_info_t* info, std::size_t ninfo) noexcept {
    for (std::size_t i = 0; info != nullptr && i < ninfo; ++i) {
        if (key_is(info[i], PMIX_GET_POINTER_VALUES)) return flag_true(info[i]);
    }
    return false;
}

void retain_until_finalize(pmix_value_t* value) noexcept {
    if (value == nullptr) return;
    try {
        std::lock_guard lock(g_views_mu);
        g_retained.push_back(value);
    } catch (...) {
        // Out of memory: the value stays allocated (a leak, never a dangling pointer).
    }
}

}  // namespace pmix::client::store_path
