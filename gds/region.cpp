// gds/region.cpp - segment chains, the index and publication (see region.h).
#include "gds/region.h"

#include "gds/keys.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace pmix::gds {

using namespace layout;

namespace {

constexpr std::size_t kFirstCapacity = 1024;  // index slots of a new region (8 KiB)

constexpr std::size_t round8(std::size_t n) noexcept { return (n + 7) & ~std::size_t{7}; }

void copy_name(char (&dst)[kNameBytes], const std::string& name) noexcept {
    std::memset(dst, 0, sizeof(dst));
    std::memcpy(dst, name.data(), std::min(name.size(), sizeof(dst) - 1));
}

}  // namespace

// ---- writer -------------------------------------------------------------------------------------

RegionWriter::RegionWriter(std::shared_ptr<Backing> backing, const StoreOptions& options,
                           std::string nspace, std::uint32_t incarnation)
    : backing_(std::move(backing)),
      options_(options),
      nspace_(std::move(nspace)),
      incarnation_(incarnation) {}

RegionWriter::~RegionWriter() = default;

pmix_status_t RegionWriter::init() {
    mirror_.assign(kFirstCapacity, 0);
    hashes_.assign(kFirstCapacity, 0);
    rebuilt_ = true;
    const pmix_status_t rc = add_segment(0);
    return rc != PMIX_SUCCESS ? rc : publish();
}

pmix_status_t create_segment(Backing& backing, std::size_t size, std::uint32_t index,
                             std::string_view nspace, std::uint32_t incarnation,
                             const std::optional<SegmentAccess>& access,
                             std::unique_ptr<WritableSegment>& out) {
    std::unique_ptr<WritableSegment> segment;
    pmix_status_t rc = backing.create(size, segment);
    if (rc == PMIX_SUCCESS && access) {
        rc = backing.share(segment->name(), *access);  // before any reader learns the name
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    SegmentHeader h{};
    h.magic = kMagic;
    h.layout_stamp = kLayoutStamp;
    h.keys_stamp = keys::keys_stamp();
    h.size = segment->size();
    h.index = index;
    h.incarnation = incarnation;
    h.writer_pid = static_cast<std::uint64_t>(::getpid());
    std::memcpy(h.nspace, nspace.data(), std::min(nspace.size(), sizeof(h.nspace) - 1));
    std::memcpy(segment->base(), &h, sizeof(h));
    out = std::move(segment);
    return PMIX_SUCCESS;
}

void chain_segment(WritableSegment& previous, const std::string& next_name) noexcept {
    copy_name(reinterpret_cast<SegmentHeader*>(previous.base())->next, next_name);
}

pmix_status_t RegionWriter::add_segment(std::size_t min_bytes) {
    if (segments_.size() >= kMaxSegments) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    std::size_t size = std::max<std::size_t>(options_.segment_bytes, 4096);
    if (options_.grow && !segments_.empty()) {
        size = std::max(size, segments_.back()->size() * 2);
    }
    size = round8(std::max(size, kSegmentHeaderBytes + min_bytes));
    size = std::min<std::size_t>(size, kMaxSegmentBytes);
    if (kSegmentHeaderBytes + min_bytes > size) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::unique_ptr<WritableSegment> segment;
    const pmix_status_t rc =
        create_segment(*backing_, size, static_cast<std::uint32_t>(segments_.size()), nspace_,
                       incarnation_, access_, segment);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (!segments_.empty()) {
        // Written before any record in the new segment is published, so a reader that reaches
        // such a record through an acquire-load also sees the name.
        chain_segment(*segments_.back(), segment->name());
    }
    segments_.push_back(std::move(segment));
    used_.push_back(kSegmentHeaderBytes);
    return PMIX_SUCCESS;
}

pmix_status_t RegionWriter::allocate(std::size_t bytes, Ref& out) {
    bytes = round8(bytes);
    if (bytes == 0 || bytes > kMaxSegmentBytes - kSegmentHeaderBytes) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (segments_.empty() || segments_.back()->size() - used_.back() < bytes) {
        const pmix_status_t rc = add_segment(bytes);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    const auto index = static_cast<std::uint32_t>(segments_.size() - 1);
    out = make_ref(index, used_.back());
    used_.back() += bytes;
    return PMIX_SUCCESS;
}

std::byte* RegionWriter::at(Ref ref) const noexcept {
    return segments_[ref_segment(ref)]->base() + ref_offset(ref);
}

std::size_t RegionWriter::probe_index(const Probe& probe, bool& found) const noexcept {
    const std::size_t mask = mirror_.size() - 1;
    auto resolve = [this](Ref ref, std::size_t) -> const std::byte* { return at(ref); };
    std::size_t i = probe.hash & mask;
    while (mirror_[i] != 0) {
        if (hashes_[i] == probe.hash &&
            match_record(probe, mirror_[i] & kRefMask, resolve) == Match::yes) {
            found = true;
            return i;
        }
        i = (i + 1) & mask;
    }
    found = false;
    return i;
}

Ref RegionWriter::find(const Probe& probe) const noexcept {
    bool found = false;
    const std::size_t i = probe_index(probe, found);
    return found ? (mirror_[i] & kRefMask) : 0;
}

void RegionWriter::grow() {
    std::vector<Slot> old_slots = std::move(mirror_);
    std::vector<std::uint64_t> old_hashes = std::move(hashes_);
    mirror_.assign(old_slots.size() * 2, 0);
    hashes_.assign(old_slots.size() * 2, 0);
    const std::size_t mask = mirror_.size() - 1;
    for (std::size_t j = 0; j < old_slots.size(); ++j) {
        if (old_slots[j] == 0) {
            continue;
        }
        std::size_t i = old_hashes[j] & mask;
        while (mirror_[i] != 0) {
            i = (i + 1) & mask;
        }
        mirror_[i] = old_slots[j];
        hashes_[i] = old_hashes[j];
    }
    dirty_.clear();
    rebuilt_ = true;
}

void RegionWriter::stage(const Probe& probe, Ref newest) {
    bool found = false;
    std::size_t i = probe_index(probe, found);
    if (!found) {
        // Keep the load at most 1/2 so that probe sequences stay short for readers.
        if ((live_ + 1) * 2 > mirror_.size()) {
            grow();
            i = probe_index(probe, found);
        }
        ++live_;
    }
    mirror_[i] = make_slot(probe.hash, newest);
    hashes_[i] = probe.hash;
    if (!rebuilt_) {
        dirty_.push_back(i);
    }
}

pmix_status_t RegionWriter::flush_index() {
    if (rebuilt_) {
        // A new slot array: readers reach it only through the root published after it.
        Ref ref = 0;
        const pmix_status_t rc = allocate(mirror_.size() * sizeof(Slot), ref);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        std::memcpy(at(ref), mirror_.data(), mirror_.size() * sizeof(Slot));
        slots_ = ref;
        rebuilt_ = false;
        return PMIX_SUCCESS;
    }
    // In place: each slot is release-stored after the record it names was written. A reader on
    // an older root may see the new slot early; the record's generation tells it to follow prev.
    auto* slots = reinterpret_cast<std::uint64_t*>(at(slots_));
    for (const std::size_t i : dirty_) {
        store_release(&slots[i], mirror_[i]);
    }
    dirty_.clear();
    return PMIX_SUCCESS;
}

pmix_status_t RegionWriter::publish(std::uint32_t flags) {
    pmix_status_t rc = flush_index();
    Ref ref = 0;
    if (rc == PMIX_SUCCESS) {
        rc = allocate(sizeof(RootRecord), ref);
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    RootRecord root{};
    root.head = RecordHead{root_, next_generation(), Kind::root, 0};
    root.slots = slots_;
    root.capacity = mirror_.size();
    root.columns = columns_;
    root.segments = static_cast<std::uint32_t>(segments_.size());
    root.flags = flags;
    write(ref, root);
    // The one publication point: everything above happens-before a reader's acquire of it.
    auto* header = reinterpret_cast<SegmentHeader*>(segments_.front()->base());
    store_release(&header->root, ref);
    root_ = ref;
    ++generation_;
    return PMIX_SUCCESS;
}

void RegionWriter::retire(std::uint64_t how) noexcept {
    auto* header = reinterpret_cast<SegmentHeader*>(segments_.front()->base());
    store_release(&header->retired, how);
}

pmix_status_t RegionWriter::share(const SegmentAccess& access) {
    access_ = access;
    for (const auto& segment : segments_) {
        if (pmix_status_t rc = backing_->share(segment->name(), access); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

const std::string& RegionWriter::first_name() const noexcept { return segments_.front()->name(); }

std::vector<std::string> RegionWriter::names() const {
    std::vector<std::string> out;
    for (const auto& s : segments_) {
        out.push_back(s->name());
    }
    return out;
}

NamespaceStats RegionWriter::stats() const noexcept {
    NamespaceStats st;
    st.generation = generation_;
    st.segments = segments_.size();
    for (std::size_t i = 0; i < segments_.size(); ++i) {
        st.bytes_reserved += segments_[i]->size();
        st.bytes_used += used_[i];
    }
    return st;
}

// ---- reader -------------------------------------------------------------------------------------

pmix_status_t check_header(const MappedSegment& segment, std::uint32_t index,
                           std::string_view nspace, std::uint32_t incarnation) noexcept {
    if (segment.size() < kSegmentHeaderBytes) {
        return kErrCorrupt;
    }
    // Field by field: `root` and `next` may be written by the writer right now (they are read
    // only through acquire-ordered paths), every other field is immutable.
    SegmentHeader h{};
    const std::byte* b = segment.base();
    std::memcpy(&h, b, offsetof(SegmentHeader, root));
    std::memcpy(&h.index, b + offsetof(SegmentHeader, index),
                offsetof(SegmentHeader, next) - offsetof(SegmentHeader, index));
    std::memcpy(h.nspace, b + offsetof(SegmentHeader, nspace), sizeof(h.nspace));
    const std::size_t ns_len = ::strnlen(h.nspace, sizeof(h.nspace));
    if (h.magic != kMagic || h.layout_stamp != kLayoutStamp || h.keys_stamp != keys::keys_stamp() ||
        h.size != segment.size() || h.index != index || ns_len == sizeof(h.nspace)) {
        return kErrCorrupt;
    }
    // A different incarnation or namespace is a stale or foreign name, not damage.
    if (h.incarnation != incarnation || std::string_view(h.nspace, ns_len) != nspace) {
        return PMIX_ERR_NOT_FOUND;
    }
    return PMIX_SUCCESS;
}

pmix_status_t open_segment(Backing& backing, std::string_view name, std::uint32_t index,
                           std::string_view nspace, std::uint32_t incarnation,
                           std::unique_ptr<MappedSegment>& out) {
    std::unique_ptr<MappedSegment> segment;
    pmix_status_t rc = backing.open(name, segment);
    rc = rc != PMIX_SUCCESS ? rc : check_header(*segment, index, nspace, incarnation);
    if (rc == PMIX_SUCCESS) {
        out = std::move(segment);
    }
    return rc;
}

RegionReader::RegionReader(std::shared_ptr<Backing> backing, std::string nspace,
                           std::uint32_t incarnation)
    : backing_(std::move(backing)),
      nspace_(std::move(nspace)),
      incarnation_(incarnation),
      bases_(new std::atomic<const std::byte*>[kMaxSegments]),
      sizes_(new std::size_t[kMaxSegments]()) {
    for (std::uint32_t i = 0; i < kMaxSegments; ++i) {
        bases_[i].store(nullptr, std::memory_order_relaxed);
    }
}

RegionReader::~RegionReader() = default;

pmix_status_t RegionReader::open(std::shared_ptr<Backing> backing, std::string_view name,
                                 std::string_view nspace, std::uint32_t incarnation,
                                 std::unique_ptr<RegionReader>& out) {
    std::unique_ptr<MappedSegment> segment;
    pmix_status_t rc = backing->open(name, segment);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    std::unique_ptr<RegionReader> reader(
        new RegionReader(std::move(backing), std::string(nspace), incarnation));
    rc = reader->adopt(0, std::move(segment));
    if (rc == PMIX_SUCCESS) {
        out = std::move(reader);
    }
    return rc;
}

pmix_status_t RegionReader::adopt(std::uint32_t index,
                                  std::unique_ptr<MappedSegment> segment) noexcept {
    const pmix_status_t rc = check_header(*segment, index, nspace_, incarnation_);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    try {
        owned_.push_back(std::move(segment));
    } catch (...) {
        return PMIX_ERR_NOMEM;
    }
    sizes_[index] = owned_.back()->size();
    bases_[index].store(owned_.back()->base(), std::memory_order_release);
    return PMIX_SUCCESS;
}

bool RegionReader::map_through(std::uint32_t index) const noexcept {
    std::lock_guard lock(map_mutex_);
    auto* self = const_cast<RegionReader*>(this);  // mappings are caches, not state
    while (bases_[index].load(std::memory_order_acquire) == nullptr) {
        const auto last = static_cast<std::uint32_t>(owned_.size() - 1);
        // `next` was written before any record of the next segment was published, and we got
        // here by following such a record: the name is complete.
        char name[kNameBytes];
        std::memcpy(name, owned_.back()->base() + offsetof(SegmentHeader, next), sizeof(name));
        const std::size_t len = ::strnlen(name, sizeof(name));
        if (len == 0 || len == sizeof(name)) {
            return false;  // a Ref names a segment that was never chained: damage
        }
        std::unique_ptr<MappedSegment> next;
        try {
            if (backing_->open(std::string_view(name, len), next) != PMIX_SUCCESS ||
                self->adopt(last + 1, std::move(next)) != PMIX_SUCCESS) {
                return false;
            }
        } catch (...) {
            return false;
        }
    }
    return true;
}

const std::byte* RegionReader::resolve_unmapped(Ref ref, std::size_t bytes) const noexcept {
    return map_through(ref_segment(ref)) ? resolve(ref, bytes) : nullptr;
}

Ref RegionReader::root() const noexcept {
    const auto* header = reinterpret_cast<const SegmentHeader*>(
        bases_[0].load(std::memory_order_relaxed));  // segment 0 is mapped before the reader exists
    return load_acquire(&header->root);
}

std::uint64_t RegionReader::retired() const noexcept {
    const auto* header =
        reinterpret_cast<const SegmentHeader*>(bases_[0].load(std::memory_order_relaxed));
    return load_acquire(&header->retired);
}

pmix_status_t RegionReader::snapshot(Snapshot& out) const noexcept {
    const Ref ref = root();
    const std::byte* raw = resolve(ref, sizeof(RootRecord));
    if (raw == nullptr) {
        return kErrCorrupt;
    }
    RootRecord root;
    std::memcpy(&root, raw, sizeof(root));
    if (root.head.kind != Kind::root || root.capacity < 8 || root.capacity > (1ull << 32) ||
        (root.capacity & (root.capacity - 1)) != 0) {
        return kErrCorrupt;
    }
    const std::byte* slots = resolve(root.slots, root.capacity * sizeof(Slot));
    if (slots == nullptr) {
        return kErrCorrupt;
    }
    out.root = ref;
    out.generation = root.head.generation;
    out.flags = root.flags;
    out.slots = reinterpret_cast<const std::uint64_t*>(slots);
    out.capacity = root.capacity;
    out.columns = root.columns;
    return PMIX_SUCCESS;
}

pmix_status_t RegionReader::visible(const Snapshot& snap, Ref ref, std::size_t need,
                                    Hit& out) const noexcept {
    need = std::max(need, sizeof(RecordHead));
    for (;;) {
        const std::byte* raw = resolve(ref, need);
        if (raw == nullptr) {
            return kErrCorrupt;
        }
        RecordHead head;
        std::memcpy(&head, raw, sizeof(head));
        if (head.generation <= snap.generation) {
            out = Hit{ref, raw};
            return PMIX_SUCCESS;
        }
        // Older versions sit at strictly lower Refs (append-only), which also bounds the walk.
        if (head.prev == 0) {
            return PMIX_ERR_NOT_FOUND;
        }
        if ((head.prev & kRefMask) >= (ref & kRefMask)) {
            return kErrCorrupt;
        }
        ref = head.prev;
    }
}

pmix_status_t RegionReader::find(const Snapshot& snap, const Probe& probe, std::size_t need,
                                 Hit& out) const noexcept {
    auto resolver = [this](Ref ref, std::size_t n) { return resolve(ref, n); };
    const std::uint64_t mask = snap.capacity - 1;
    std::uint64_t i = probe.hash & mask;
    for (std::uint64_t n = 0; n < snap.capacity; ++n, i = (i + 1) & mask) {
        const Slot slot = load_acquire(&snap.slots[i]);
        if (slot == 0) {
            return PMIX_ERR_NOT_FOUND;
        }
        if (!slot_matches_tag(slot, probe.hash)) {
            continue;
        }
        switch (match_record(probe, slot & kRefMask, resolver)) {
            case Match::corrupt:
                return kErrCorrupt;
            case Match::yes:
                return visible(snap, slot & kRefMask, need, out);
            case Match::no:
                break;
        }
    }
    return PMIX_ERR_NOT_FOUND;
}

void RegionReader::touch(Ref from, Ref to, std::size_t limit) const noexcept {
    const std::uint32_t seg = ref_segment(to);
    const std::uint64_t end = ref_offset(to) + sizeof(RootRecord);
    std::uint64_t begin = kSegmentHeaderBytes;
    if (from != 0 && ref_segment(from) == seg) {
        begin = ref_offset(from);
    } else if (from != 0 && ref_segment(from) > seg) {
        return;
    }
    if (begin >= end) {
        return;
    }
    begin = std::max<std::uint64_t>(begin, end > limit ? end - limit : 0);
    const std::byte* bytes = resolve(make_ref(seg, begin), end - begin);
    if (bytes == nullptr) {
        return;
    }
    unsigned sum = 0;
    for (std::uint64_t i = 0; i < end - begin; i += 64) {
        sum += static_cast<unsigned>(*reinterpret_cast<const volatile std::uint8_t*>(bytes + i));
    }
    asm volatile("" : : "r"(sum));  // the loads are the point: keep them
}

}  // namespace pmix::gds
