// gds/directory.h - a store's directory: namespace -> (incarnation, name of its segment 0).
//
// A chain of segments of fixed-size entries (layout::DirEntry), not a region: an entry whose
// namespace was deleted is reused by the next one, so a server that runs jobs one after another
// keeps the directory it had after the first (a region appended two records and two roots per
// job and never shrank: 983,040 bytes of /dev/shm after 2,000 jobs, 196,608 after 250).
//
// Readers are other processes that map it read-only and never lock it against the writer: an
// entry is changed under a sequence lock (layout.h), so a reader copies either the whole old or
// the whole new entry, never a mix, and skips an entry that is being changed (only adding or
// removing a namespace changes its entry). A namespace alive during a whole lookup is always
// found; one added or removed meanwhile may or may not be. The entry only names a segment: the
// segment's own header (namespace, incarnation) decides, so a reader that found a stale entry
// opens a name that is gone or not that namespace's.
#pragma once

#include "gds/backing.h"
#include "gds/layout.h"
#include "gds/store.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace pmix::gds {

class DirectoryWriter {
public:
    DirectoryWriter(std::shared_ptr<Backing> backing, std::size_t first_segment_bytes);
    ~DirectoryWriter();
    DirectoryWriter(const DirectoryWriter&) = delete;
    DirectoryWriter& operator=(const DirectoryWriter&) = delete;

    pmix_status_t init();  // segment 0, empty

    // Readers find `nspace` at `segment` from now on (an entry of the same namespace is
    // rewritten: lookups meanwhile may miss it, as if it were removed and added).
    // Chains a segment twice the size of the last when every entry is taken.
    pmix_status_t add(std::string_view nspace, std::uint32_t incarnation,
                      const std::string& segment);
    // Readers no longer find `nspace`; its entry is free for the next add. Absent: nothing.
    void remove(std::string_view nspace) noexcept;

    pmix_status_t share(const SegmentAccess& access);
    const std::string& first_name() const noexcept { return segments_.front()->name(); }
    DirectoryStats stats() const noexcept;

private:
    struct Place {
        std::uint32_t segment;
        std::uint32_t index;
        auto operator<=>(const Place&) const = default;
    };
    pmix_status_t add_segment();
    void write_entry(Place at, const layout::DirEntry& entry) noexcept;
    std::uint64_t* hash_word(Place at) const noexcept;

    std::shared_ptr<Backing> backing_;
    std::size_t first_bytes_;
    std::vector<std::unique_ptr<WritableSegment>> segments_;
    std::map<std::string, Place, std::less<>> live_;
    std::set<Place> free_;  // lowest first: live entries stay at the front
    std::optional<SegmentAccess> access_;
};

// Not thread-safe: the store reader calls it under its mutex (attach is a slow path).
class DirectoryReader {
public:
    static pmix_status_t open(std::shared_ptr<Backing> backing, std::string_view name,
                              std::unique_ptr<DirectoryReader>& out);

    struct Found {
        std::uint32_t incarnation = 0;
        std::string segment;
    };
    // PMIX_ERR_NOT_FOUND: no live entry of that namespace. kErrCorrupt: a segment of the chain
    // fails its checks, or the entry names no segment.
    pmix_status_t find(std::string_view nspace, Found& out);

private:
    explicit DirectoryReader(std::shared_ptr<Backing> backing) : backing_(std::move(backing)) {}
    pmix_status_t map_chain() noexcept;
    bool read_entry(const MappedSegment& segment, std::size_t index,
                    layout::DirEntry& out) const noexcept;

    std::shared_ptr<Backing> backing_;
    std::vector<std::unique_ptr<MappedSegment>> segments_;
};

}  // namespace pmix::gds
