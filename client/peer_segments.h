// client/peer_segments.h - reading a local peer's own modex segment (gds/proc_segment.h).
//
// A Get of a peer's proc-level key in the own namespace first looks in that peer's segment, when
// the server's store names one for it (kSegmentKey): the peer writes it at each commit before it
// reaches the next fence, so data a board fence (which never reaches the server) just made
// visible is there even while the server is still applying the commit it was also sent. Attached
// on first use, under this table's mutex, and kept mapped until PMIx_Finalize. A segment that
// fails a check (open, owner stamp, any Ref or stamp during a lookup) or that its owner abandoned
// (a failed write) is not read again: the Gets of that peer read the server's store, until the
// server's store names another segment for it (the peer finalized and initialised again). A
// segment its owner closed (PMIx_Finalize) is read until such a new announcement.
#pragma once

#include <pmix_common.h>

#include <string_view>

// Declared, not included: the client links gds PRIVATE, so its headers may not include gds's
// (arch.build_refuses).
namespace pmix::gds {
class StoreReader;
}

namespace pmix::client::peer_segments {

// The reader of `rank`'s segment in namespace `ns` (the own one), or nullptr: none announced
// (yet), distrusted, abandoned, not openable, another namespace, or turned off
// (PMIX_CPP_COMMIT_SEGMENT=off).
// `server` is the server's store, where the announcement is read.
gds::StoreReader* reader_for(gds::StoreReader& server, std::string_view ns,
                             std::string_view own_ns, pmix_rank_t rank) noexcept;

// A lookup in `rank`'s segment returned kErrCorrupt: never read that segment again.
void distrust(pmix_rank_t rank) noexcept;

// PMIx_Finalize: drops every attachment (after the pointer-mode views into them are gone).
void close() noexcept;

// PMIX_CPP_COMMIT_SEGMENT is "off" or "0" (read once): the synchronous commit, no segments.
bool disabled() noexcept;

}  // namespace pmix::client::peer_segments
