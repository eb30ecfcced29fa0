// gds/store_reader.cpp - StoreReader: attached namespaces and the get path.
//
// The get path, stated gate by gate (a fast path names every case that falls back):
//   1. namespace -> Attachment: the thread's last one (LastUsed), else a lock-free table (an
//      array swapped whole on growth);
//   2. one acquire-load of the namespace's root (the snapshot), validated once per new root per
//      thread (a published root never changes);
//   3. key -> id (standard table, or one probe of the namespace's interned names);
//   4. one index probe for (entity, key), plus one for a rank column when the namespace has any;
//   5. decode: scalars inline, strings/bytes one malloc+memcpy (get) or none (get_view).
// Falls back to the slow path (mutex, shm_open/mmap) only when the namespace is not attached yet,
// was deleted (it may have been registered anew), or a record lives in a chained segment this
// reader has not mapped yet. It never returns a partial answer: a lookup works on one snapshot.
//
// Attachments are reached without a lock, so one is freed only when no other thread can hold it:
// while a single thread has ever read through the reader (a server's progress thread, the one
// that detaches namespaces) detach() frees the namespace's attachment and rebuilds the table at
// once; a reader used by several threads keeps ~100 bytes per namespace it detached (the
// mappings go at once) until it is destroyed.
#include "gds/reader.h"

#include "gds/directory.h"

#include "gds/encode.h"
#include "gds/keys.h"
#include "gds/lookup.h"
#include "gds/region.h"

#include "data/value.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

namespace pmix::gds {

using namespace layout;

namespace {

struct Attachment {
    std::string nspace;
    std::unique_ptr<RegionReader> region;
    std::atomic<bool> detached{false};
    // The root up to which warm() last read the region through (any thread).
    mutable std::atomic<Ref> warmed{0};
};

// A decoded value released however the visitor returns.
struct OwnedValue {
    pmix_value_t v{};
    OwnedValue() { v.type = PMIX_UNDEF; }
    ~OwnedValue() { data::value_destruct(&v); }
    OwnedValue(const OwnedValue&) = delete;
    OwnedValue& operator=(const OwnedValue&) = delete;
};

// Length checks only: a string with an embedded NUL matches nothing and reads as a miss.
bool valid_text(std::string_view s, std::size_t max) noexcept {
    return !s.empty() && s.size() <= max;
}

// Open addressing over Attachment pointers. Replaced wholesale when it grows; old tables are
// kept until the reader is destroyed, so a concurrent lookup never reads freed memory.
struct Table {
    explicit Table(std::size_t n) : capacity(n), slots(new std::atomic<Attachment*>[n]) {
        for (std::size_t i = 0; i < n; ++i) {
            slots[i].store(nullptr, std::memory_order_relaxed);
        }
    }
    std::size_t capacity;
    std::unique_ptr<std::atomic<Attachment*>[]> slots;
    std::size_t used = 0;
};

// Per thread, the namespace this thread last read through a reader and the root it validated:
// a repeated get of the same namespace skips the namespace table and the root's checks (the root
// Ref is still acquire-loaded every time). Reader ids are never reused, so an entry left by a
// destroyed reader matches nothing.
struct LastUsed {
    std::uint64_t reader = 0;
    const Attachment* attachment = nullptr;
    RegionReader::Snapshot snap;
};
thread_local LastUsed t_last;
// The reader this thread last registered with (EngineReader::note_thread).
thread_local std::uint64_t t_registered = 0;
std::atomic<std::uint64_t> g_reader_ids{0};

class EngineReader final : public StoreReader {
public:
    EngineReader(std::shared_ptr<Backing> backing, std::unique_ptr<DirectoryReader> directory)
        : backing_(std::move(backing)), directory_(std::move(directory)) {
        tables_.push_back(std::make_unique<Table>(16));
        table_.store(tables_.back().get(), std::memory_order_release);
    }

    pmix_status_t attach(std::string_view nspace) override {
        if (!valid_text(nspace, PMIX_MAX_NSLEN)) {
            return PMIX_ERR_BAD_PARAM;
        }
        try {
            std::lock_guard lock(mutex_);
            return attach_locked(nspace);
        } catch (const std::bad_alloc&) {
            return PMIX_ERR_NOMEM;
        }
    }

    void detach(std::string_view nspace) noexcept override {
        std::lock_guard lock(mutex_);
        for (auto& a : attachments_) {
            if (a->nspace == nspace) {
                a->detached.store(true, std::memory_order_release);
                a->region.reset();
            }
        }
        reclaim();
    }

    pmix_status_t get(std::string_view nspace, const Entity& entity, std::string_view key,
                      pmix_value_t* out, unsigned scopes) noexcept override {
        if (out == nullptr) {
            return PMIX_ERR_BAD_PARAM;
        }
        FoundValue found;
        const pmix_status_t rc = lookup(nspace, entity, key, scopes, found);
        return rc != PMIX_SUCCESS ? rc : enc::decode_copy(found.stored, out);
    }

    pmix_status_t get_view(std::string_view nspace, const Entity& entity, std::string_view key,
                           ValueView& out, unsigned scopes) noexcept override {
        out.reset();
        FoundValue found;
        const pmix_status_t rc = lookup(nspace, entity, key, scopes, found);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        const pmix_status_t drc = enc::decode_view(found.stored, out);
        if (drc == PMIX_SUCCESS) {
            ViewAccess::set_source(out, found.source);
        }
        return drc;
    }

    pmix_status_t locate(std::string_view nspace, const Entity& entity, std::string_view key,
                         const void** source, unsigned scopes) noexcept override {
        if (source == nullptr) {
            return PMIX_ERR_BAD_PARAM;
        }
        FoundValue found;
        const pmix_status_t rc = lookup(nspace, entity, key, scopes, found);
        *source = rc == PMIX_SUCCESS ? found.source : nullptr;
        return rc;
    }

    pmix_status_t visit(std::string_view nspace, const Entity& entity, const Visitor& visitor,
                        unsigned scopes) override;

    void warm(std::string_view nspace) noexcept override;
    Retired retired(std::string_view nspace) noexcept override;
    std::uint64_t version(std::string_view nspace) noexcept override;

private:
    Attachment* find(std::string_view nspace) const noexcept;
    void publish(Attachment* a);
    static void place(Table& t, Attachment* a) noexcept;
    pmix_status_t attach_locked(std::string_view nspace);
    void note_thread() noexcept;
    void reclaim() noexcept;
    pmix_status_t ready(std::string_view nspace, const RegionReader*& region,
                        RegionReader::Snapshot& snap) noexcept;
    pmix_status_t lookup(std::string_view nspace, const Entity& entity, std::string_view key,
                         unsigned scopes, FoundValue& out) noexcept;

    const std::uint64_t id_ = g_reader_ids.fetch_add(1, std::memory_order_relaxed) + 1;
    std::shared_ptr<Backing> backing_;
    std::unique_ptr<DirectoryReader> directory_;  // under mutex_
    std::atomic<Table*> table_{nullptr};
    std::mutex mutex_;  // attach/detach and each thread's first lookup only
    std::vector<std::unique_ptr<Table>> tables_;
    std::vector<std::unique_ptr<Attachment>> attachments_;
    // Threads that looked up through this reader (note_thread), under mutex_.
    std::thread::id sole_thread_{};
    bool several_threads_ = false;
};

Attachment* EngineReader::find(std::string_view nspace) const noexcept {
    const Table* t = table_.load(std::memory_order_acquire);
    const std::size_t mask = t->capacity - 1;
    for (std::size_t i = keys::hash_string(0x6e73, nspace) & mask, n = 0; n < t->capacity;
         i = (i + 1) & mask, ++n) {
        Attachment* a = t->slots[i].load(std::memory_order_acquire);
        if (a == nullptr || a->nspace == nspace) {
            return a;
        }
    }
    return nullptr;
}

// Put `a` in its namespace's slot of `t` (replacing an attachment of the same namespace).
void EngineReader::place(Table& t, Attachment* a) noexcept {
    const std::size_t mask = t.capacity - 1;
    for (std::size_t i = keys::hash_string(0x6e73, a->nspace) & mask;; i = (i + 1) & mask) {
        Attachment* cur = t.slots[i].load(std::memory_order_relaxed);
        if (cur == nullptr || cur->nspace == a->nspace) {
            t.used += cur == nullptr ? 1 : 0;
            t.slots[i].store(a, std::memory_order_release);  // a's fields before a's address
            return;
        }
    }
}

// Make `a` the attachment of its namespace (under mutex_).
void EngineReader::publish(Attachment* a) {
    Table* t = table_.load(std::memory_order_relaxed);
    if ((t->used + 1) * 2 > t->capacity) {
        auto bigger = std::make_unique<Table>(t->capacity * 2);
        for (std::size_t i = 0; i < t->capacity; ++i) {
            if (Attachment* old = t->slots[i].load(std::memory_order_relaxed)) {
                place(*bigger, old);
            }
        }
        tables_.push_back(std::move(bigger));
        t = tables_.back().get();
        table_.store(t, std::memory_order_release);  // the table's contents before its address
    }
    place(*t, a);
}

// Called by a thread before its first lookup through this reader.
void EngineReader::note_thread() noexcept {
    std::lock_guard lock(mutex_);
    const std::thread::id self = std::this_thread::get_id();
    if (sole_thread_ == std::thread::id{}) {
        sole_thread_ = self;
    } else if (sole_thread_ != self) {
        several_threads_ = true;
    }
    t_registered = id_;
}

// Frees detached attachments and the tables that named them (under mutex_), when no other thread
// can be looking at them: none but the caller ever looked up through this reader. The caller's
// own LastUsed may name one of them; it is forgotten.
void EngineReader::reclaim() noexcept {
    if (several_threads_ ||
        (sole_thread_ != std::thread::id{} && sole_thread_ != std::this_thread::get_id())) {
        return;
    }
    const auto gone = [](const std::unique_ptr<Attachment>& a) {
        return a->detached.load(std::memory_order_relaxed);
    };
    if (std::none_of(attachments_.begin(), attachments_.end(), gone)) {
        return;
    }
    try {
        std::size_t capacity = 16;
        const auto live = static_cast<std::size_t>(
            attachments_.size() - std::count_if(attachments_.begin(), attachments_.end(), gone));
        while ((live + 1) * 2 > capacity) {
            capacity *= 2;
        }
        auto fresh = std::make_unique<Table>(capacity);
        tables_.reserve(tables_.size() + 1);  // the last allocation: nothing changed before it
        std::erase_if(attachments_, gone);
        for (const auto& a : attachments_) {
            place(*fresh, a.get());
        }
        tables_.push_back(std::move(fresh));
        table_.store(tables_.back().get(), std::memory_order_release);
        tables_.erase(tables_.begin(), tables_.end() - 1);
        if (t_last.reader == id_) {
            t_last = LastUsed{};
        }
    } catch (const std::bad_alloc&) {
        // Kept until the next detach or the reader's end: nothing was changed.
    }
}

pmix_status_t EngineReader::attach_locked(std::string_view nspace) {
    DirectoryReader::Found d;
    pmix_status_t rc = directory_->find(nspace, d);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    Attachment* current = find(nspace);
    if (current != nullptr && !current->detached.load(std::memory_order_relaxed) &&
        current->region->incarnation() == d.incarnation) {
        return PMIX_SUCCESS;
    }
    auto a = std::make_unique<Attachment>();
    a->nspace = std::string(nspace);
    rc = RegionReader::open(backing_, d.segment, nspace, d.incarnation, a->region);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    attachments_.push_back(std::move(a));
    publish(attachments_.back().get());
    if (current != nullptr) {
        // An earlier incarnation, out of the table now: lookups that still hold it see its
        // deleted root and come back here.
        current->detached.store(true, std::memory_order_release);
        reclaim();
    }
    return PMIX_SUCCESS;
}

pmix_status_t EngineReader::ready(std::string_view nspace, const RegionReader*& region,
                                  RegionReader::Snapshot& snap) noexcept {
    LastUsed& last = t_last;
    if (last.reader == id_ && last.attachment->nspace == nspace &&
        !last.attachment->detached.load(std::memory_order_acquire) &&
        last.attachment->region->root() == last.snap.root) {
        region = last.attachment->region.get();
        snap = last.snap;
        return PMIX_SUCCESS;
    }
    if (t_registered != id_) {
        note_thread();
    }
    for (int attempt = 0; attempt < 2; ++attempt) {
        const Attachment* a = find(nspace);
        if (a != nullptr && !a->detached.load(std::memory_order_acquire)) {
            const pmix_status_t rc = a->region->snapshot(snap);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
            if ((snap.flags & kRootDeleted) == 0) {
                region = a->region.get();
                last = LastUsed{id_, a, snap};
                return PMIX_SUCCESS;
            }
        }
        if (attempt == 0) {
            // Not attached, detached, or deleted (perhaps registered anew): the slow path.
            const pmix_status_t rc = attach(nspace);
            if (rc != PMIX_SUCCESS) {
                return rc;
            }
        }
    }
    return PMIX_ERR_NOT_FOUND;
}

void EngineReader::warm(std::string_view nspace) noexcept {
    if (!valid_text(nspace, PMIX_MAX_NSLEN)) {
        return;
    }
    const RegionReader* region = nullptr;
    RegionReader::Snapshot snap;
    if (ready(nspace, region, snap) != PMIX_SUCCESS) {
        return;
    }
    // Where the previous warm stopped is kept with the attachment, not taken from the thread's
    // last view: between two fences a client's Gets may all go through other readers (its peers'
    // own modex segments), and then every warm started over and read the last 256 KiB again.
    // Measured (release, 64 processes, Put/Commit/Fence/Get loop): that was 6-7% of the loop's CPU.
    const Ref before = t_last.attachment->warmed.exchange(snap.root, std::memory_order_acq_rel);
    if (snap.root != before) {
        region->touch(before, snap.root, kWarmBytes);
    }
}

std::uint64_t EngineReader::version(std::string_view nspace) noexcept {
    const RegionReader* region = nullptr;
    RegionReader::Snapshot snap;
    if (!valid_text(nspace, PMIX_MAX_NSLEN) || ready(nspace, region, snap) != PMIX_SUCCESS) {
        return 0;
    }
    // The root moves with every commit; the attachment (never freed while this reader lives)
    // tells a namespace registered anew, whose first roots may sit where the old ones did.
    const auto attachment = reinterpret_cast<std::uintptr_t>(t_last.attachment);
    return (snap.root ^ (attachment * 0x9e3779b97f4a7c15ull)) | 1;
}

StoreReader::Retired EngineReader::retired(std::string_view nspace) noexcept {
    const RegionReader* region = nullptr;
    RegionReader::Snapshot snap;
    if (!valid_text(nspace, PMIX_MAX_NSLEN) || ready(nspace, region, snap) != PMIX_SUCCESS) {
        return Retired::live;  // nothing attached: a Get finds out what is wrong
    }
    switch (region->retired()) {
        case 0:
            return Retired::live;
        case layout::kRetiredClosed:
            return Retired::closed;
        default:
            return Retired::abandoned;  // abandoned, or a value no writer sets: not trusted
    }
}

pmix_status_t EngineReader::lookup(std::string_view nspace, const Entity& entity,
                                   std::string_view key, unsigned scopes,
                                   FoundValue& out) noexcept {
    if (!valid_text(nspace, PMIX_MAX_NSLEN) || !valid_text(key, PMIX_MAX_KEYLEN)) {
        return PMIX_ERR_BAD_PARAM;
    }
    const RegionReader* region = nullptr;
    RegionReader::Snapshot snap;
    pmix_status_t rc = ready(nspace, region, snap);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    const NamespaceView view(*region, snap);
    Space space = Space::job;
    std::uint32_t id = 0;
    std::uint32_t key_id = 0;
    rc = view.entity(entity, space, id);
    rc = rc != PMIX_SUCCESS ? rc : view.key_id(key, key_id);
    rc = rc != PMIX_SUCCESS ? rc : view.value(space, id, key_id, out);
    if (rc == PMIX_SUCCESS && (scopes & scope_bit(out.scope)) == 0) {
        return PMIX_ERR_NOT_FOUND;
    }
    return rc;
}

pmix_status_t EngineReader::visit(std::string_view nspace, const Entity& entity,
                                  const Visitor& visitor, unsigned scopes) {
    if (!valid_text(nspace, PMIX_MAX_NSLEN) || !visitor) {
        return PMIX_ERR_BAD_PARAM;
    }
    const RegionReader* region = nullptr;
    RegionReader::Snapshot snap;
    pmix_status_t rc = ready(nspace, region, snap);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    const NamespaceView view(*region, snap);
    Space space = Space::job;
    std::uint32_t id = 0;
    std::vector<std::uint32_t> keys;
    rc = view.entity(entity, space, id);
    rc = rc != PMIX_SUCCESS ? rc : view.keys_of(space, id, keys);
    std::size_t delivered = 0;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < keys.size(); ++i) {
        FoundValue found;
        std::string_view name;
        rc = view.key_name(keys[i], name);
        rc = rc != PMIX_SUCCESS ? rc : view.value(space, id, keys[i], found);
        if (rc == PMIX_SUCCESS && (scopes & scope_bit(found.scope)) == 0) {
            continue;  // filtered out by scope
        }
        OwnedValue value;
        rc = rc != PMIX_SUCCESS ? rc : enc::decode_copy(found.stored, &value.v);
        if (rc == PMIX_SUCCESS) {
            ++delivered;
            visitor(name, value.v);
        }
    }
    return rc != PMIX_SUCCESS ? rc : (delivered == 0 ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS);
}

}  // namespace

pmix_status_t open_reader(std::shared_ptr<Backing> backing, std::string_view directory,
                          std::unique_ptr<StoreReader>& out) noexcept {
    try {
        std::unique_ptr<DirectoryReader> dir;
        const pmix_status_t rc = DirectoryReader::open(backing, directory, dir);
        if (rc == PMIX_SUCCESS) {
            out = std::make_unique<EngineReader>(std::move(backing), std::move(dir));
        }
        return rc;
    } catch (const std::bad_alloc&) {
        return PMIX_ERR_NOMEM;
    }
}

}  // namespace pmix::gds
