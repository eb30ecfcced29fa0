// gds/region.h - a region: a chain of segments with one hash index and one generation root.
//
// A namespace's data is one region; a store's directory of namespaces is another. The writer
// appends records (never modifying a published one), stages index updates, and publish() makes
// everything visible with a single release-store of the root Ref into segment 0's header.
// Readers acquire-load that Ref once per lookup (a Snapshot) and ignore any record newer than
// the snapshot's generation, so a lookup never sees half a commit.
#pragma once

#include "gds/backing.h"
#include "gds/index.h"
#include "gds/layout.h"
#include "gds/store.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmix::gds {

class RegionWriter {
public:
    RegionWriter(std::shared_ptr<Backing> backing, const StoreOptions& options, std::string nspace,
                 std::uint32_t incarnation);
    ~RegionWriter();
    RegionWriter(const RegionWriter&) = delete;
    RegionWriter& operator=(const RegionWriter&) = delete;

    // Create segment 0 and publish an empty index (generation 1).
    pmix_status_t init();

    // Generation that records written now will carry (visible after the next publish()).
    std::uint32_t next_generation() const noexcept { return generation_ + 1; }

    // `bytes` of fresh, zeroed, 8-aligned space; chains a new segment when the current one is
    // full. PMIX_ERR_BAD_PARAM when `bytes` can never fit a segment.
    pmix_status_t allocate(std::size_t bytes, layout::Ref& out);
    std::byte* at(layout::Ref ref) const noexcept;

    template <typename T>
    void write(layout::Ref ref, const T& record) noexcept {
        std::memcpy(at(ref), &record, sizeof(T));
    }
    template <typename T>
    T read(layout::Ref ref) const noexcept {
        T record;
        std::memcpy(&record, at(ref), sizeof(T));
        return record;
    }

    // Newest record of the probe's identity, including ones staged for the next publish; 0 if
    // none.
    layout::Ref find(const Probe& probe) const noexcept;

    // Make `newest` the newest record of the probe's identity at the next publish().
    void stage(const Probe& probe, layout::Ref newest);

    // Head of the region's column list (ColumnRecord::next_column chain).
    layout::Ref columns() const noexcept { return columns_; }
    void set_columns(layout::Ref head) noexcept { columns_ = head; }

    // Write staged index updates, append a RootRecord and release-store it.
    pmix_status_t publish(std::uint32_t flags = 0);

    // Release-stores `how` (layout::kRetiredClosed / kRetiredAbandoned) in segment 0's header.
    void retire(std::uint64_t how) noexcept;

    // Gives every segment, and each one chained later, this access (backing.h).
    pmix_status_t share(const SegmentAccess& access);

    const std::string& first_name() const noexcept;
    std::vector<std::string> names() const;
    NamespaceStats stats() const noexcept;

private:
    pmix_status_t add_segment(std::size_t min_bytes);
    std::size_t probe_index(const Probe& probe, bool& found) const noexcept;
    void grow();
    pmix_status_t flush_index();

    std::shared_ptr<Backing> backing_;
    StoreOptions options_;
    std::string nspace_;
    std::uint32_t incarnation_;
    std::vector<std::unique_ptr<WritableSegment>> segments_;
    std::vector<std::size_t> used_;        // bytes allocated in each segment
    std::optional<SegmentAccess> access_;  // set once shared: new segments get it too

    // The index as it will be after the next publish: slot words, the full hash of each used
    // slot (so growing never reads the segment), and which slots changed since the last publish.
    std::vector<layout::Slot> mirror_;
    std::vector<std::uint64_t> hashes_;
    std::vector<std::size_t> dirty_;
    bool rebuilt_ = true;  // mirror_ needs a fresh slot array in the segment
    std::size_t live_ = 0;
    layout::Ref slots_ = 0;

    std::uint32_t generation_ = 0;
    layout::Ref root_ = 0;
    layout::Ref columns_ = 0;
};

class RegionReader {
public:
    // Map segment 0 of a region and check its header (magic, stamps, size, namespace,
    // incarnation). PMIX_ERR_NOT_FOUND if the name is gone, kErrCorrupt if it is not ours.
    static pmix_status_t open(std::shared_ptr<Backing> backing, std::string_view name,
                              std::string_view nspace, std::uint32_t incarnation,
                              std::unique_ptr<RegionReader>& out);
    ~RegionReader();
    RegionReader(const RegionReader&) = delete;
    RegionReader& operator=(const RegionReader&) = delete;

    struct Snapshot {
        layout::Ref root = 0;  // the RootRecord this snapshot was validated from
        std::uint32_t generation = 0;
        std::uint32_t flags = 0;
        const std::uint64_t* slots = nullptr;
        std::uint64_t capacity = 0;
        layout::Ref columns = 0;
    };
    // The current root, validated. kErrCorrupt when it is not a well-formed root in bounds.
    pmix_status_t snapshot(Snapshot& out) const noexcept;
    // Just the current root's Ref (acquire): a published root never changes, so a snapshot
    // validated from the same Ref is still valid.
    layout::Ref root() const noexcept;
    // Segment 0's `retired` word (acquire): 0 while the writer may still publish.
    std::uint64_t retired() const noexcept;

    // The first `bytes` bytes at `ref`, or nullptr when any of them lies outside the segment's
    // mapping (or the segment cannot be mapped). Maps chained segments on first use.
    const std::byte* resolve(layout::Ref ref, std::size_t bytes) const noexcept {
        const std::uint32_t seg = layout::ref_segment(ref);
        if (seg >= layout::kMaxSegments) {
            return nullptr;
        }
        const std::byte* base = bases_[seg].load(std::memory_order_acquire);
        if (base == nullptr) [[unlikely]] {
            return resolve_unmapped(ref, bytes);
        }
        const std::size_t size = sizes_[seg];
        const std::uint64_t off = layout::ref_offset(ref);
        if (off < sizeof(layout::SegmentHeader) || off > size || bytes > size - off) {
            return nullptr;
        }
        return base + off;
    }

    // A record found by a lookup: its Ref and its first `need` bytes (checked to be mapped).
    struct Hit {
        layout::Ref ref = 0;
        const std::byte* bytes = nullptr;
    };

    // Newest record of the probe's identity visible in `snap`.
    pmix_status_t find(const Snapshot& snap, const Probe& probe, std::size_t need,
                       Hit& out) const noexcept;

    // From `ref` back along `prev` to the newest version visible in `snap`.
    pmix_status_t visible(const Snapshot& snap, layout::Ref ref, std::size_t need,
                          Hit& out) const noexcept;

    // Reads one byte per cache line of what lies between `from` (exclusive; 0 = the start of
    // `to`'s segment) and `to` (inclusive of the record there), at most `limit` bytes ending at
    // `to`: the commits between two roots, which are appended in order. Nothing when `from` is in
    // a later segment than `to` or either is out of bounds.
    void touch(layout::Ref from, layout::Ref to, std::size_t limit) const noexcept;

    std::uint32_t incarnation() const noexcept { return incarnation_; }

private:
    RegionReader(std::shared_ptr<Backing> backing, std::string nspace, std::uint32_t incarnation);
    pmix_status_t adopt(std::uint32_t index, std::unique_ptr<MappedSegment> segment) noexcept;
    bool map_through(std::uint32_t index) const noexcept;
    const std::byte* resolve_unmapped(layout::Ref ref, std::size_t bytes) const noexcept;

    std::shared_ptr<Backing> backing_;
    std::string nspace_;
    std::uint32_t incarnation_;
    // Segment i's mapping: `bases_[i]` is release-stored after `sizes_[i]`, so a reader that sees
    // a base also sees its size. Filled in order, under map_mutex_ (a slow path).
    std::unique_ptr<std::atomic<const std::byte*>[]> bases_;
    std::unique_ptr<std::size_t[]> sizes_;
    mutable std::mutex map_mutex_;
    mutable std::vector<std::unique_ptr<MappedSegment>> owned_;
};

// Check a segment header (shared by open and chained segments).
pmix_status_t check_header(const MappedSegment& segment, std::uint32_t index,
                           std::string_view nspace, std::uint32_t incarnation) noexcept;

// Segments of a chain, shared by regions and the directory (directory.h). create_segment makes
// one of `size` bytes (given `access` when set, before anyone learns its name) and writes its
// header; chain_segment names `next_name` in the header of the one before it; open_segment maps
// one by name and checks its header.
pmix_status_t create_segment(Backing& backing, std::size_t size, std::uint32_t index,
                             std::string_view nspace, std::uint32_t incarnation,
                             const std::optional<SegmentAccess>& access,
                             std::unique_ptr<WritableSegment>& out);
void chain_segment(WritableSegment& previous, const std::string& next_name) noexcept;
pmix_status_t open_segment(Backing& backing, std::string_view name, std::uint32_t index,
                           std::string_view nspace, std::uint32_t incarnation,
                           std::unique_ptr<MappedSegment>& out);

}  // namespace pmix::gds
