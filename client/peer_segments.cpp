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
#include <vector>

namespace pmix::client::peer_segments {

namespace {

// What this process knows of one peer's segment. `reader` is the segment read for that peer now,
// or nullptr: none could be opened for `announcement`, it failed a check, or its owner abandoned
// it; only a different announcement (the owner initialised again) is tried after that.
struct Peer {
    std::string announcement;  // what the server's store named when last attached
    gds::StoreReader* reader = nullptr;
    // The server's store's version (StoreReader::version) when the announcement was last read:
    // while it is unchanged the answer is too, and the lookup is skipped. Measured before
    // (release, 256 processes, Gets of peers that never made a segment, as an MPI job's single
    // modex commit leaves them): 35-100 ns more per Get than with segments off.
    std::uint64_t checked_at = 0;
};

// Readers are never freed before close(): a Get on another thread may still use one it was
// handed (lock-free lookups), as the store's own reader keeps its attachments.
std::mutex g_mu;
std::unordered_map<pmix_rank_t, Peer> g_peers;
std::vector<std::unique_ptr<gds::StoreReader>> g_kept;

std::string announced(gds::StoreReader& server, std::string_view ns, pmix_rank_t rank) {
    pmix_value_t v{};
    std::string out;
    if (server.get(ns, gds::Entity::proc(rank), gds::kSegmentKey, &v) == PMIX_SUCCESS) {
        if (v.type == PMIX_STRING && v.data.string != nullptr) out = v.data.string;
        data::value_destruct(&v);
    }
    return out;
}

void attach(Peer& p, std::string announcement, std::string_view ns, pmix_rank_t rank) {
    p.announcement = std::move(announcement);
    pmix_status_t rc = PMIX_SUCCESS;
    auto reader = gds::open_peer_segment(p.announcement, ns, rank, &rc);
    p.reader = reader.get();
    if (reader != nullptr) {
        g_kept.push_back(std::move(reader));
        return;
    }
    exec::log_debug("pmix client", "segment " + p.announcement + " of rank " +
                                       std::to_string(rank) + " not read (status " +
                                       std::to_string(rc) + "); its data is read from the server's store");
}

// Whether the server's store may name another segment for `p` than when last read; notes now.
bool worth_asking(Peer& p, gds::StoreReader& server, std::string_view ns) noexcept {
    const std::uint64_t now = server.version(ns);
    if (now != 0 && now == p.checked_at) return false;
    p.checked_at = now;
    return true;
}

// The peer's segment as it stands at this Get (see Peer).
gds::StoreReader* current(Peer& p, gds::StoreReader& server, std::string_view ns,
                          pmix_rank_t rank) {
    if (p.reader != nullptr) {
        switch (p.reader->retired(ns)) {
            case gds::StoreReader::Retired::live:
                return p.reader;
            case gds::StoreReader::Retired::abandoned:
                // A write failed after the announcement: the server's store has every commit
                // since (the owner committed synchronously before abandoning it).
                p.reader = nullptr;
                return nullptr;
            case gds::StoreReader::Retired::closed:
                // Finalized. The server's store named no segment for it any more before the
                // owner closed this one, and has all of its data; a new announcement is the
                // process initialised again.
                if (!worth_asking(p, server, ns)) return p.reader;
                if (std::string now = announced(server, ns, rank); now != p.announcement) {
                    p.reader = nullptr;
                    p.announcement.clear();
                    if (!now.empty()) attach(p, std::move(now), ns, rank);
                }
                return p.reader;
        }
    }
    if (!worth_asking(p, server, ns)) return p.reader;
    if (std::string now = announced(server, ns, rank); !now.empty() && now != p.announcement) {
        attach(p, std::move(now), ns, rank);
    }
    return p.reader;
}

}  // namespace

bool disabled() noexcept {
    // On unless PMIX_CPP_COMMIT_SEGMENT is "off" or "0" (read once).
    static const bool off = [] {
        const char* v = std::getenv(env::kCommitSegment);
        return v != nullptr && (std::strcmp(v, "off") == 0 || std::strcmp(v, "0") == 0);
    }();
    return off;
}

gds::StoreReader* reader_for(gds::StoreReader& server, std::string_view ns,
                             std::string_view own_ns, pmix_rank_t rank) noexcept {
    if (ns != own_ns || disabled()) return nullptr;
    try {
        std::lock_guard lock(g_mu);
        // A peer seen before, or not: asked again only when the server's store changed.
        return current(g_peers[rank], server, ns, rank);
    } catch (...) {
        return nullptr;
    }
}

void distrust(pmix_rank_t rank) noexcept {
    std::lock_guard lock(g_mu);
    if (auto it = g_peers.find(rank); it != g_peers.end() && it->second.reader != nullptr) {
        it->second.reader = nullptr;  // stays mapped (g_kept): another thread may hold it
        exec::log_warn("pmix client", "segment " + it->second.announcement + " of rank " +
                                          std::to_string(rank) +
                                          " is damaged; its data is read from the server's store");
    }
}

void close() noexcept {
    std::lock_guard lock(g_mu);
    g_peers.clear();
    g_kept.clear();
}

}  // namespace pmix::client::peer_segments
