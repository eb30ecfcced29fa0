// client/peer_segments.cpp - see peer_segments.h.
#include "client/peer_segments.h"

#include "base/env_names.h"
#include "data/value.h"
#include "exec/log.h"
#include "gds/proc_segment.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace pmix::client::peer_segments {

namespace {

struct Peer {
    std::string locator;                 // what the server's store named when attached
    std::unique_ptr<gds::StoreReader> reader;
    bool distrusted = false;
};

// Readers are never freed before close(): a Get on another thread may still use one it was
// handed (lock-free lookups), as the store's own reader keeps its attachments.
std::mutex g_mu;
std::unordered_map<pmix_rank_t, Peer> g_peers;

std::string announced(gds::StoreReader& server, std::string_view ns, pmix_rank_t rank) {
    pmix_value_t v{};
    std::string out;
    if (server.get(ns, gds::Entity::proc(rank), gds::kSegmentKey, &v) == PMIX_SUCCESS) {
        if (v.type == PMIX_STRING && v.data.string != nullptr) out = v.data.string;
        data::value_destruct(&v);
    }
    return out;
}

void attach(Peer& p, std::string_view ns, pmix_rank_t rank) {
    pmix_status_t rc = PMIX_SUCCESS;
    p.reader = gds::open_peer_segment(p.locator, ns, rank, &rc);
    if (p.reader != nullptr) return;
    p.distrusted = true;
    exec::log_debug("pmix client", "segment " + p.locator + " of rank " + std::to_string(rank) +
                                       " refused (status " + std::to_string(rc) +
                                       "); its data is read from the server's store");
}

}  // namespace

bool disabled() noexcept {
    // Opt-in for now (PMIX_CPP_COMMIT_SEGMENT=on or 1): client/README.md lists what is still
    // missing before it can be the default (an owner that truncates its segment, a failed write
    // after the announcement, a process initialised again).
    static const bool off = [] {
        const char* v = std::getenv(env::kCommitSegment);
        return v == nullptr || (std::strcmp(v, "on") != 0 && std::strcmp(v, "1") != 0);
    }();
    return off;
}

gds::StoreReader* reader_for(gds::StoreReader& server, std::string_view ns,
                             std::string_view own_ns, pmix_rank_t rank) noexcept {
    if (ns != own_ns || disabled()) return nullptr;
    try {
        std::lock_guard lock(g_mu);
        auto it = g_peers.find(rank);
        if (it != g_peers.end()) {
            return it->second.distrusted ? nullptr : it->second.reader.get();
        }
        // Not announced yet: asked again at the next Get (one lookup in the server's store).
        std::string locator = announced(server, ns, rank);
        if (locator.empty()) return nullptr;
        Peer& p = g_peers[rank];
        p.locator = std::move(locator);
        attach(p, ns, rank);
        return p.distrusted ? nullptr : p.reader.get();
    } catch (...) {
        return nullptr;
    }
}

void distrust(pmix_rank_t rank) noexcept {
    std::lock_guard lock(g_mu);
    if (auto it = g_peers.find(rank); it != g_peers.end() && !it->second.distrusted) {
        it->second.distrusted = true;  // the reader stays mapped: another thread may hold it
        exec::log_warn("pmix client", "segment " + it->second.locator + " of rank " +
                                          std::to_string(rank) +
                                          " is damaged; its data is read from the server's store");
    }
}

void close() noexcept {
    std::lock_guard lock(g_mu);
    g_peers.clear();
}

}  // namespace pmix::client::peer_segments
