// server/own_segments.h - the server reading its clients' own modex segments (gds/proc_segment.h).
//
// Why: a client's commits after its segment's announcement are in the segment when PMIx_Commit
// returns, but their messages to the server wait until the client next sends it anything, or
// for 2 ms (client/commit_segment.cpp). A peer that passed a fence on the fence board and asks the
// server (PMIx_Get_nb, PMIX_GET_REFRESH_CACHE, key = NULL, or a peer that cannot read the
// segment itself) must still get that data: a Get of a local client's key reads the client's
// segment first, as a peer would, and the store after. Opened on first use (read-only, every
// check of open_peer_segment), kept per client until it finalizes, is lost, or announces
// another; a segment that fails a check, or that its owner abandoned, is not read again.
// Server loop thread only.
#pragma once

#include "server/clients.h"

#include <pmix_common.h>

#include <map>
#include <memory>
#include <string>

namespace pmix::gds {
class StoreReader;
}

namespace pmix::server {

struct State;

// The segment of local client `target` while it can hold data the store does not have yet
// (announced, not lost, readable), or nullptr.
gds::StoreReader* fresh_segment_of(State& s, const ProcKey& target);

class OwnSegments {
public:
    OwnSegments();
    ~OwnSegments();
    OwnSegments(const OwnSegments&) = delete;
    OwnSegments& operator=(const OwnSegments&) = delete;

    // The server accepted `announcement` for `who` (replaces an earlier one).
    void announced(const ProcKey& who, std::string announcement);
    // `who` finalized, was lost or deregistered: nothing of it is read any more.
    void forget(const ProcKey& who);
    // The reader of who's segment, or nullptr (none announced, unreadable, abandoned).
    gds::StoreReader* reader(const ProcKey& who);
    // A read of who's segment found it damaged (kErrCorrupt): never read it again.
    void distrust(const ProcKey& who);

private:
    struct Entry {
        std::string announcement;
        std::unique_ptr<gds::StoreReader> reader;
        bool unreadable = false;
    };
    std::map<ProcKey, Entry> entries_;
};

}  // namespace pmix::server
