// gds/backing.h - where segment memory comes from: POSIX shared memory or the heap.
//
// The store engine (region.cpp, writer.cpp, reader.cpp) sees segments only as byte ranges with a
// name; a Backing creates them for the writer and opens them for readers. Both backings give the
// same guarantees the engine relies on: fresh segments are zero-filled, 8-byte aligned, and a
// reader's view of a segment stays valid for as long as the reader holds it, even after the
// writer released its own.
#pragma once

#include "gds/store.h"

#include <pmix_common.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace pmix::gds {

// A writer's segment. Destruction releases the writer's mapping and removes the name, so no
// segment outlives its writer (and readers that still map it keep their view).
class WritableSegment {
public:
    virtual ~WritableSegment() = default;
    std::byte* base() const noexcept { return base_; }
    std::size_t size() const noexcept { return size_; }
    const std::string& name() const noexcept { return name_; }

protected:
    WritableSegment(std::byte* base, std::size_t size, std::string name)
        : base_(base), size_(size), name_(std::move(name)) {}

private:
    std::byte* base_;
    std::size_t size_;
    std::string name_;
};

// A reader's view of a segment (shm: mapped PROT_READ).
class MappedSegment {
public:
    virtual ~MappedSegment() = default;
    const std::byte* base() const noexcept { return base_; }
    std::size_t size() const noexcept { return size_; }

protected:
    MappedSegment(const std::byte* base, std::size_t size) : base_(base), size_(size) {}

private:
    const std::byte* base_;
    std::size_t size_;
};

class Backing {
public:
    virtual ~Backing() = default;
    // A zero-filled segment of `size` bytes under a new, unique name.
    virtual pmix_status_t create(std::size_t size, std::unique_ptr<WritableSegment>& out) = 0;
    // PMIX_ERR_NOT_FOUND when no segment has that name (any more); kErrCorrupt when it cannot
    // be a segment (too small, too large).
    virtual pmix_status_t open(std::string_view name, std::unique_ptr<MappedSegment>& out) = 0;
    // Whether other processes can open this backing's segments.
    virtual bool shared() const noexcept = 0;
    // Opens a segment to more than its writer (see SegmentAccess in store.h). Heap: nothing to do.
    virtual pmix_status_t share(const std::string& name, const SegmentAccess& access) = 0;
};

// Readers populate the page tables of segments up to this size when they map them (the default
// first segment of a namespace, StoreOptions::segment_bytes); backing_shm.cpp says why not more.
inline constexpr std::uint64_t kPopulateBytes = std::uint64_t{1} << 20;

// After a reader mapped a segment of `size` bytes at `base` (PROT_READ, without MAP_POPULATE):
// maps the page tables of what the segment's header says is written (for a region's first
// segment: up to its newest root record) and kPopulateMargin beyond, where the next commits go;
// a directory or a chained segment whole. Nothing for a segment over kPopulateBytes. The header
// is not trusted: this only decides how much to prefault.
inline constexpr std::uint64_t kPopulateMargin = std::uint64_t{128} << 10;
void populate_written(const std::byte* base, std::size_t size) noexcept;

// Shared memory: shm_open + mmap (see backing_shm.cpp for why not Boost.Interprocess).
// Names are "<prefix>-<pid>-<counter>".
std::shared_ptr<Backing> make_shm_backing(std::string prefix);
// The status of a failed shm_open/ftruncate/mmap (no such segment, no permission, no space...).
pmix_status_t shm_status_from_errno(int err) noexcept;
// A new shared-memory object "<stem>-<pid>-<counter>" (0600, never an existing one), sized and
// its pages reserved: on success `fd` is open (the caller maps and closes it) and `name` is set;
// on failure nothing is left behind. `acceptable`, when given, vets each candidate name
// (PMIX_ERR_BAD_PARAM when it refuses one). Used by the store's segments and the fence boards.
pmix_status_t create_shm_object(const std::string& stem, std::size_t size,
                                bool (*acceptable)(std::string_view), int& fd, std::string& name);
// Gives the object `name` the group and mode of `access` (fchown/fchmod; the owner stays the
// writer). PMIX_ERR_NO_PERMISSIONS when the kernel refuses (a non-root writer and a group it is
// not a member of).
pmix_status_t share_shm_object(const std::string& name, const SegmentAccess& access);

// Sealed memfds (backing_memfd.cpp): nobody can shrink or grow them, so no reader can be made to
// fault; named "/proc/<pid>/fd/<fd>", openable by the writer's uid only; gone with the writer.
// Its open() accepts only such names and only objects that carry the seals. share() is
// PMIX_ERR_NOT_SUPPORTED.
std::shared_ptr<Backing> make_memfd_backing();
// "/proc/<digits>/fd/<digits>", shorter than a header's name field; *pid (optional) the first
// number.
bool memfd_name_of(std::string_view name, pid_t* pid) noexcept;
// Opens such a name read-only: a regular object with both seals and a plausible segment size
// (else kErrCorrupt). On success `fd` is open (the caller closes it) and `size` is its size.
pmix_status_t open_sealed_memfd(std::string_view name, int& fd, std::size_t& size);

// malloc'd blocks, reachable by name only from readers that share this Backing object.
std::shared_ptr<Backing> make_heap_backing();

}  // namespace pmix::gds
