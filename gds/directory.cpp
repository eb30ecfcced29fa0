// gds/directory.cpp - the directory's entries and their sequence lock (directory.h, layout.h).
#include "gds/directory.h"

#include "gds/index.h"
#include "gds/keys.h"
#include "gds/region.h"

#include <algorithm>
#include <cstring>

namespace pmix::gds {

using namespace layout;

namespace {

constexpr std::size_t kWords = sizeof(DirEntry) / sizeof(std::uint64_t);
static_assert(sizeof(DirEntry) % sizeof(std::uint64_t) == 0 && kSegmentHeaderBytes % 8 == 0);

// Entries a directory segment of `size` bytes holds (its hash words come first).
constexpr std::size_t entries_in(std::size_t size) noexcept {
    return size < kSegmentHeaderBytes
               ? 0
               : (size - kSegmentHeaderBytes) / (sizeof(std::uint64_t) + sizeof(DirEntry));
}

// Never 0, the mark of a free entry.
std::uint64_t dir_hash(std::string_view nspace) noexcept { return keys::hash_text(nspace) | 1; }

std::size_t entry_offset(std::size_t size, std::size_t index) noexcept {
    return kSegmentHeaderBytes + entries_in(size) * sizeof(std::uint64_t) +
           index * sizeof(DirEntry);
}

}  // namespace

// ---- writer -------------------------------------------------------------------------------------

DirectoryWriter::DirectoryWriter(std::shared_ptr<Backing> backing, std::size_t first_segment_bytes)
    : backing_(std::move(backing)), first_bytes_(first_segment_bytes) {}

DirectoryWriter::~DirectoryWriter() = default;

pmix_status_t DirectoryWriter::init() { return add_segment(); }

pmix_status_t DirectoryWriter::add_segment() {
    if (segments_.size() >= kMaxSegments) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    const std::size_t size =
        segments_.empty() ? std::max<std::size_t>(first_bytes_, 4096)
                          : std::min<std::size_t>(segments_.back()->size() * 2, kMaxSegmentBytes);
    const auto index = static_cast<std::uint32_t>(segments_.size());
    std::unique_ptr<WritableSegment> segment;
    const pmix_status_t rc = create_segment(*backing_, size, index, "", 0, access_, segment);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (!segments_.empty()) {
        chain_segment(*segments_.back(), segment->name());
    }
    for (std::uint32_t i = 0; i < entries_in(segment->size()); ++i) {
        free_.insert(Place{index, i});
    }
    segments_.push_back(std::move(segment));
    // The chain's length last: a reader that sees it also sees the new segment named in `next`.
    auto* header = reinterpret_cast<SegmentHeader*>(segments_.front()->base());
    store_release(&header->root, segments_.size());
    return PMIX_SUCCESS;
}

std::uint64_t* DirectoryWriter::hash_word(Place at) const noexcept {
    return reinterpret_cast<std::uint64_t*>(segments_[at.segment]->base() + kSegmentHeaderBytes) +
           at.index;
}

// The sequence lock's writer side: `sequence` odd, the other words, `sequence` even. Every word is
// release-stored, so a reader that sees any new word sees the odd `sequence` too.
void DirectoryWriter::write_entry(Place at, const DirEntry& entry) noexcept {
    WritableSegment& segment = *segments_[at.segment];
    auto* words =
        reinterpret_cast<std::uint64_t*>(segment.base() + entry_offset(segment.size(), at.index));
    std::uint64_t source[kWords];
    std::memcpy(source, &entry, sizeof(entry));
    const std::uint64_t sequence = __atomic_load_n(&words[0], __ATOMIC_RELAXED);
    __atomic_store_n(&words[0], sequence + 1, __ATOMIC_RELAXED);
    for (std::size_t i = 1; i < kWords; ++i) {
        store_release(&words[i], source[i]);
    }
    store_release(&words[0], sequence + 2);
}

pmix_status_t DirectoryWriter::add(std::string_view nspace, std::uint32_t incarnation,
                                   const std::string& segment) {
    if (nspace.empty() || nspace.size() >= sizeof(DirEntry::nspace) || incarnation == 0 ||
        segment.empty() || segment.size() >= kNameBytes) {
        return PMIX_ERR_BAD_PARAM;
    }
    auto it = live_.find(nspace);
    if (it == live_.end()) {
        if (free_.empty()) {
            if (const pmix_status_t rc = add_segment(); rc != PMIX_SUCCESS) {
                return rc;
            }
        }
        it = live_.emplace(std::string(nspace), *free_.begin()).first;
        free_.erase(free_.begin());
    }
    DirEntry entry{};
    entry.incarnation = incarnation;
    entry.length = static_cast<std::uint32_t>(nspace.size());
    std::memcpy(entry.segment, segment.data(), segment.size());
    std::memcpy(entry.nspace, nspace.data(), nspace.size());
    write_entry(it->second, entry);
    store_release(hash_word(it->second), dir_hash(nspace));  // after the entry is complete
    return PMIX_SUCCESS;
}

void DirectoryWriter::remove(std::string_view nspace) noexcept {
    const auto it = live_.find(nspace);
    if (it == live_.end()) {
        return;
    }
    store_release(hash_word(it->second), 0);  // new lookups skip it before it changes
    write_entry(it->second, DirEntry{});
    free_.insert(it->second);
    live_.erase(it);
}

pmix_status_t DirectoryWriter::share(const SegmentAccess& access) {
    access_ = access;
    for (const auto& segment : segments_) {
        if (pmix_status_t rc = backing_->share(segment->name(), access); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

DirectoryStats DirectoryWriter::stats() const noexcept {
    DirectoryStats st;
    st.namespaces = live_.size();
    st.segments = segments_.size();
    for (const auto& segment : segments_) {
        st.capacity += entries_in(segment->size());
        st.bytes_reserved += segment->size();
    }
    return st;
}

// ---- reader -------------------------------------------------------------------------------------

pmix_status_t DirectoryReader::open(std::shared_ptr<Backing> backing, std::string_view name,
                                    std::unique_ptr<DirectoryReader>& out) {
    std::unique_ptr<MappedSegment> first;
    const pmix_status_t rc = open_segment(*backing, name, 0, "", 0, first);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    std::unique_ptr<DirectoryReader> reader(new DirectoryReader(std::move(backing)));
    reader->segments_.push_back(std::move(first));
    out = std::move(reader);
    return PMIX_SUCCESS;
}

// Maps the segments chained since the last lookup.
pmix_status_t DirectoryReader::map_chain() noexcept {
    const auto* header = reinterpret_cast<const SegmentHeader*>(segments_.front()->base());
    const std::uint64_t count = load_acquire(&header->root);
    if (count == 0 || count > kMaxSegments) {
        return kErrCorrupt;
    }
    try {
        while (segments_.size() < count) {
            char name[kNameBytes];
            std::memcpy(name, segments_.back()->base() + offsetof(SegmentHeader, next),
                        sizeof(name));
            const std::size_t len = ::strnlen(name, sizeof(name));
            if (len == 0 || len == sizeof(name)) {
                return kErrCorrupt;
            }
            std::unique_ptr<MappedSegment> next;
            const pmix_status_t rc =
                open_segment(*backing_, std::string_view(name, len),
                             static_cast<std::uint32_t>(segments_.size()), "", 0, next);
            if (rc != PMIX_SUCCESS) {
                return rc == PMIX_ERR_NOT_FOUND ? kErrCorrupt : rc;  // chained, so it must exist
            }
            segments_.push_back(std::move(next));
        }
    } catch (const std::bad_alloc&) {
        return PMIX_ERR_NOMEM;
    }
    return PMIX_SUCCESS;
}

// The sequence lock's reader side: a copy between two equal, even readings of `sequence`; false
// when the entry was being changed. No entry of a namespace alive during the whole lookup changes
// (the writer changes an entry only to add or remove its namespace), so a lookup skips a changing
// entry instead of waiting for it: a writer that died in the middle of a change (or a damaged
// segment, as the store's fuzzer made one) cannot hold a reader up.
bool DirectoryReader::read_entry(const MappedSegment& segment, std::size_t index,
                                 DirEntry& out) const noexcept {
    const auto* words = reinterpret_cast<const std::uint64_t*>(segment.base() +
                                                               entry_offset(segment.size(), index));
    std::uint64_t copy[kWords];
    copy[0] = load_acquire(&words[0]);
    if ((copy[0] & 1) != 0) {
        return false;
    }
    for (std::size_t i = 1; i < kWords; ++i) {
        copy[i] = load_acquire(&words[i]);
    }
    if (load_acquire(&words[0]) != copy[0]) {
        return false;
    }
    std::memcpy(&out, copy, sizeof(out));
    return true;
}

pmix_status_t DirectoryReader::find(std::string_view nspace, Found& out) {
    if (nspace.empty() || nspace.size() >= sizeof(DirEntry::nspace)) {
        return PMIX_ERR_NOT_FOUND;
    }
    pmix_status_t rc = map_chain();
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    const std::uint64_t hash = dir_hash(nspace);
    for (const auto& segment : segments_) {
        const auto* hashes =
            reinterpret_cast<const std::uint64_t*>(segment->base() + kSegmentHeaderBytes);
        for (std::size_t i = 0, n = entries_in(segment->size()); i < n; ++i) {
            if (load_acquire(&hashes[i]) != hash) {
                continue;
            }
            DirEntry entry;
            if (!read_entry(*segment, i, entry) || entry.incarnation == 0 ||
                entry.length != nspace.size() ||
                std::memcmp(entry.nspace, nspace.data(), nspace.size()) != 0) {
                continue;  // changing, freed or reused since its hash word was read
            }
            const std::size_t len = ::strnlen(entry.segment, sizeof(entry.segment));
            if (len == 0 || len == sizeof(entry.segment)) {
                return kErrCorrupt;
            }
            out.incarnation = entry.incarnation;
            out.segment.assign(entry.segment, len);
            return PMIX_SUCCESS;
        }
    }
    return PMIX_ERR_NOT_FOUND;
}

}  // namespace pmix::gds
