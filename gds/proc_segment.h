// gds/proc_segment.h - a process's own modex segment (issue 20, item 2): PMIx_Commit without a
// server round trip.
//
// A client that commits data creates a store of its own (the same engine as the server's store:
// one writer, append-only records, one release-store of the root per commit, readers check every
// Ref and the layout and key stamps) holding one namespace, its own, in which it writes only its
// own rank's committed puts with their scope, plus an owner stamp "<rank>:<pid>:<nonce>" at job
// level. Its segments are sealed memfds (StoreOptions::sealed, backing_memfd.cpp): nobody, the
// owner included, can shrink one under a peer's mapping, and they vanish with the owner. Peers
// on the node, of the owner's uid, map them read-only through /proc/<owner pid>/fd.
//
// The announcement "<locator>#<nonce>" (the nonce makes every segment's announcement distinct,
// though a descriptor number is reused after PMIx_Finalize and PMIx_Init) goes to the server
// once, in the client's first commit; the server checks it (check_announced: the locator names
// the client's pid, the object is a sealed memfd of the client's uid that nobody else may write)
// and records it in its own store under kSegmentKey for that rank. The server is its store's only
// writer, so a client cannot point its peers at a segment for another rank; and a reader only
// ever looks up the announcing rank in a segment, so whatever a segment holds, a peer reads from
// it at most what that rank could have put anyway. A segment that fails a check is not read
// (client/peer_segments.cpp) and the server's store, which receives every commit too, answers.
//
// The owner retires its segment (StoreWriter::retire): closed at PMIx_Finalize (the data stays
// valid; a later announcement replaces it), abandoned when a write to it failed after the
// announcement (the commit then went to the server synchronously, and peers read the server's
// store from then on).
#pragma once

#include "gds/store.h"

#include <pmix_common.h>

#include <sys/types.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace pmix::gds {

// In the server's store, per rank (stored without scope: never shipped as modex, hidden from a
// Get of every key): the locator of that rank's own segment.
inline constexpr char kSegmentKey[] = "pmix.cpp.modex.seg";
// In a process's own segment, at job level: "<rank>:<pid>:<nonce>".
inline constexpr char kOwnerKey[] = "pmix.cpp.seg.owner";

struct ModexPut {
    pmix_scope_t scope;
    std::string_view key;
    const pmix_value_t* value;
};

class OwnSegment {
public:
    // PMIX_ERR_NOT_SUPPORTED (or another error) where memfds or seals are refused.
    static pmix_status_t create(std::string_view nspace, pmix_rank_t rank,
                                std::unique_ptr<OwnSegment>& out);
    // Publishes `puts` as one new generation (scope UNDEF stored as GLOBAL, as the server does).
    // A failure leaves readers on the previous generation.
    pmix_status_t commit(const ModexPut* puts, std::size_t n);
    // Closed (PMIx_Finalize) or abandoned (a failed write): see the file comment.
    void retire(bool abandoned) noexcept;
    // What the server records and peers open: "<locator>#<nonce>".
    const std::string& announcement() const noexcept { return announcement_; }
    // The writer itself (tests use it to damage their own segment).
    StoreWriter& writer() noexcept { return *store_; }

private:
    std::unique_ptr<StoreWriter> store_;
    std::string nspace_, announcement_;
    pmix_rank_t rank_ = PMIX_RANK_UNDEF;
};

// Opens a segment announced for (nspace, rank) and checks its owner stamp names that rank and the
// announcement's nonce. kErrCorrupt for a segment that is not one (bad stamps, wrong owner, not a
// sealed memfd); PMIX_ERR_NOT_FOUND when it is gone (its owner ended). `pid_out`, when given,
// receives the pid of the stamp.
std::unique_ptr<StoreReader> open_peer_segment(std::string_view announcement, std::string_view nspace,
                                               pmix_rank_t rank, pmix_status_t* status,
                                               pid_t* pid_out = nullptr);

// The server's check of an announced segment (see above). PMIX_SUCCESS or why it is refused.
// Without `deep`, the name (the pid) and the object (sealed memfd, owner uid, no write bit for
// others) only:
// what only the server can check. `deep` also maps the segment and checks its owner stamp
// (namespace, rank, pid), which every peer checks anyway when it attaches (open_peer_segment),
// and costs the server's thread 95-120 us per client (release build, measured): 7 ms serialised
// at N = 64, so the server leaves it to the peers.
pmix_status_t check_announced(std::string_view announcement, std::string_view nspace,
                              pmix_rank_t rank, pid_t pid, uid_t uid, bool deep = false);

// The prefix of a store locator "<prefix>-<pid>-<n>" (empty when it is not that shape).
std::string prefix_of_locator(std::string_view locator);

}  // namespace pmix::gds
