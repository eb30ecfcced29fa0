// server/own_segments.cpp - see own_segments.h.
#include "server/own_segments.h"
#include "server/state.h"

#include "exec/log.h"
#include "gds/proc_segment.h"
#include "gds/store.h"

#include <utility>

namespace pmix::server {

gds::StoreReader* fresh_segment_of(State& s, const ProcKey& target) {
    auto c = s.clients.find(target);
    if (c == s.clients.end() || !c->second.own_segment || c->second.lost) return nullptr;
    return s.own_segments.reader(target);
}

OwnSegments::OwnSegments() = default;
OwnSegments::~OwnSegments() = default;

void OwnSegments::announced(const ProcKey& who, std::string announcement) {
    Entry& e = entries_[who];
    e = Entry{};
    e.announcement = std::move(announcement);
}

void OwnSegments::forget(const ProcKey& who) { entries_.erase(who); }

void OwnSegments::distrust(const ProcKey& who) {
    if (auto it = entries_.find(who); it != entries_.end()) it->second.unreadable = true;
}

gds::StoreReader* OwnSegments::reader(const ProcKey& who) {
    auto it = entries_.find(who);
    if (it == entries_.end() || it->second.unreadable) return nullptr;
    Entry& e = it->second;
    if (e.reader == nullptr) {
        pmix_status_t rc = PMIX_SUCCESS;
        e.reader = gds::open_peer_segment(e.announcement, who.first, who.second, &rc);
        if (e.reader == nullptr) {
            e.unreadable = true;
            exec::log_debug("pmix server", "segment " + e.announcement + " of " + who.first + ":" +
                                               std::to_string(who.second) + " not read (status " +
                                               std::to_string(rc) + "); the store answers");
            return nullptr;
        }
    }
    if (e.reader->retired(who.first) == gds::StoreReader::Retired::abandoned) {
        e.unreadable = true;  // its commits since went to the store synchronously
        return nullptr;
    }
    return e.reader.get();
}

}  // namespace pmix::server
