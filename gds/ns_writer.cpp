// gds/ns_writer.cpp - staging and committing one namespace (see ns_writer.h).
#include "gds/ns_writer.h"

#include "gds/keys.h"

#include <algorithm>
#include <cstring>

namespace pmix::gds {

using namespace layout;

namespace {

constexpr std::size_t kDedupMax = 256;  // payloads up to this size are shared when equal

constexpr std::uint64_t entity_key(Space level, std::uint32_t entity) noexcept {
    return (std::uint64_t{static_cast<std::uint8_t>(level)} << 32) | entity;
}

}  // namespace

NamespaceWriter::NamespaceWriter(std::shared_ptr<Backing> backing, const StoreOptions& options,
                                 std::string nspace, std::uint32_t incarnation)
    : region_(std::move(backing), options, std::move(nspace), incarnation),
      incarnation_(incarnation) {}

std::uint32_t NamespaceWriter::intern_key(std::string_view key) {
    if (const std::uint32_t id = keys::standard_id(key); id != 0) {
        return id;
    }
    if (const auto it = keys_.find(key); it != keys_.end()) {
        return it->second;
    }
    keys_.emplace(std::string(key), next_key_);
    new_names_.push_back({Space::key_name, std::string(key), next_key_});
    return next_key_++;
}

std::uint32_t NamespaceWriter::host_id(std::string_view host) {
    if (const auto it = hosts_.find(host); it != hosts_.end()) {
        return it->second;
    }
    hosts_.emplace(std::string(host), next_host_);
    new_names_.push_back({Space::host_name, std::string(host), next_host_});
    return next_host_++;
}

pmix_status_t NamespaceWriter::stage_alias(std::string_view host, std::uint32_t node_id) {
    if (const auto it = hosts_.find(host); it != hosts_.end() && it->second == node_id) {
        return PMIX_SUCCESS;
    }
    hosts_.insert_or_assign(std::string(host), node_id);
    new_names_.push_back({Space::host_name, std::string(host), node_id});
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceWriter::stage_put(Space level, std::uint32_t entity, std::string_view host,
                                         std::string_view key, std::uint8_t scope,
                                         const pmix_value_t& value) {
    Pending p{level, scope, entity, 0, {}, arena_.size()};
    const pmix_status_t rc = enc::encode(value, p.meta, arena_);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    p.key = intern_key(key);
    if (!host.empty()) {
        p.entity = host_id(host);
    }
    if (level == Space::proc && extend_run(p.entity, p.key, scope, p.meta, p.offset)) {
        return PMIX_SUCCESS;
    }
    pending_.push_back(p);
    return PMIX_SUCCESS;
}

NamespaceWriter::Run& NamespaceWriter::run_of(std::uint32_t key) {
    auto& slot = last_run_[key & 7u];
    if (slot.second != nullptr && slot.first == key) {
        return *slot.second;
    }
    Run& run = runs_[key];
    slot = {key, &run};
    return run;
}

// True when the put joined (or started) its key's run; false when it goes to pending_.
bool NamespaceWriter::extend_run(std::uint32_t entity, std::uint32_t key, std::uint8_t scope,
                                 const enc::Encoded& meta, std::size_t offset) {
    Run& run = run_of(key);
    if (run.broken) {
        return false;
    }
    const bool scalar = meta.encoding == Encoding::scalar;
    const RunElement elem{scalar ? meta.scalar : offset, meta.size};
    if (run.elems.empty()) {
        run.first = entity;
        run.shape = meta;
        run.scope = scope;
        run.elems.push_back(elem);
        return true;
    }
    const bool continues = entity == run.first + run.elems.size() && scope == run.scope &&
                           meta.type == run.shape.type && meta.encoding == run.shape.encoding &&
                           (!scalar || meta.size == run.shape.size);
    if (continues) {
        run.elems.push_back(elem);
        return true;
    }
    run_to_pending(key, run);
    run.broken = true;
    return false;
}

// The run's puts as ordinary staged puts (they precede, in put order, whatever comes next).
void NamespaceWriter::run_to_pending(std::uint32_t key, Run& run) {
    const bool scalar = run.shape.encoding == Encoding::scalar;
    pending_.reserve(pending_.size() + run.elems.size());
    for (std::size_t i = 0; i < run.elems.size(); ++i) {
        enc::Encoded meta = run.shape;
        meta.size = run.elems[i].size;
        meta.scalar = scalar ? run.elems[i].bits : 0;
        pending_.push_back(Pending{Space::proc, run.scope,
                                   run.first + static_cast<std::uint32_t>(i), key, meta,
                                   scalar ? 0 : static_cast<std::size_t>(run.elems[i].bits)});
    }
    run.elems.clear();
}

pmix_status_t NamespaceWriter::write_names() {
    for (const NewName& n : new_names_) {
        Ref ref = 0;
        const pmix_status_t rc = region_.allocate(sizeof(NameRecord) + n.text.size() + 1, ref);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        const Probe by_name = Probe::name(n.space, n.text);
        NameRecord r{};
        r.head = RecordHead{region_.find(by_name), region_.next_generation(), Kind::name,
                            static_cast<std::uint16_t>(n.space)};
        r.id = n.id;
        r.length = static_cast<std::uint32_t>(n.text.size());
        region_.write(ref, r);
        std::memcpy(region_.at(ref) + sizeof(r), n.text.data(), n.text.size());
        region_.stage(by_name, ref);
        if (n.space == Space::key_name) {
            region_.stage(Probe::key_id(n.id), ref);  // reverse lookup for key = NULL walks
        }
    }
    new_names_.clear();
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceWriter::write_blob(std::size_t offset, std::size_t size, Ref& out) {
    const std::byte* bytes = arena_.data() + offset;
    std::uint64_t h = 0;
    if (size <= kDedupMax) {
        h = keys::hash_string(0xb10b, {reinterpret_cast<const char*>(bytes), size});
        if (const auto it = blobs_.find(h); it != blobs_.end()) {
            const auto old = region_.read<BlobHeader>(it->second);
            if (old.size == size &&
                std::memcmp(region_.at(it->second) + sizeof(BlobHeader), bytes, size) == 0) {
                out = it->second;
                return PMIX_SUCCESS;
            }
        }
    }
    const pmix_status_t rc = region_.allocate(sizeof(BlobHeader) + size, out);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    region_.write(out, BlobHeader{static_cast<std::uint32_t>(size), Kind::blob, 0});
    if (size != 0) {
        std::memcpy(region_.at(out) + sizeof(BlobHeader), bytes, size);
    }
    if (size <= kDedupMax) {
        blobs_[h] = out;
    }
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceWriter::write_value(const Pending& p, Newest& newest) {
    ValueRecord r{};
    r.payload = p.meta.scalar;
    if (p.meta.encoding != Encoding::scalar) {
        const pmix_status_t rc = write_blob(p.offset, p.meta.size, r.payload);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    Ref ref = 0;
    const pmix_status_t rc = region_.allocate(sizeof(ValueRecord), ref);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    const Probe probe = Probe::value(p.level, p.entity, p.key);
    const std::uint64_t ek = entity_key(p.level, p.entity);
    auto [it, first_this_commit] = newest.try_emplace(ek, 0);
    if (first_this_commit) {
        if (const Ref head = region_.find(Probe::head(p.level, p.entity)); head != 0) {
            it->second = region_.read<HeadRecord>(head).newest;
        }
    }
    r.head = RecordHead{region_.find(probe), region_.next_generation(), Kind::value,
                        static_cast<std::uint16_t>(p.meta.encoding)};
    r.sibling = it->second;
    r.key = p.key;
    r.entity = p.entity;
    r.level = static_cast<std::uint8_t>(p.level);
    r.scope = p.scope;
    r.type = p.meta.type;
    r.size = p.meta.size;
    region_.write(ref, r);
    region_.stage(probe, ref);
    it->second = ref;
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceWriter::write_heads(const Newest& newest) {
    for (const auto& [ek, ref] : newest) {
        const auto level = static_cast<Space>(ek >> 32);
        const auto entity = static_cast<std::uint32_t>(ek);
        const Probe probe = Probe::head(level, entity);
        Ref head_ref = 0;
        const pmix_status_t rc = region_.allocate(sizeof(HeadRecord), head_ref);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        HeadRecord h{};
        h.head = RecordHead{region_.find(probe), region_.next_generation(), Kind::head, 0};
        h.newest = ref;
        h.entity = entity;
        h.level = static_cast<std::uint8_t>(level);
        region_.write(head_ref, h);
        region_.stage(probe, head_ref);
    }
    return PMIX_SUCCESS;
}

bool NamespaceWriter::same_column(const Pending& a, const Pending& b) const noexcept {
    return a.key == b.key && b.entity == a.entity + 1 && a.meta.type == b.meta.type &&
           a.meta.encoding == b.meta.encoding && a.scope == b.scope &&
           (a.meta.encoding != Encoding::scalar || a.meta.size == b.meta.size);
}

// One key's process-level puts (in put order) -> records and column runs. Sorted by rank,
// stably, so that of several puts of one rank the last survives.
void NamespaceWriter::split_group(std::vector<std::size_t>& group,
                                  std::vector<std::size_t>& records,
                                  std::vector<std::vector<std::size_t>>& columns) const {
    const auto by_rank = [this](std::size_t a, std::size_t b) {
        return pending_[a].entity < pending_[b].entity;
    };
    if (!std::is_sorted(group.begin(), group.end(), by_rank)) {
        std::stable_sort(group.begin(), group.end(), by_rank);  // registrations come sorted
    }
    std::vector<std::size_t> last;  // the surviving put of each rank
    last.reserve(group.size());
    for (std::size_t i = 0; i < group.size(); ++i) {
        if (i + 1 == group.size() || pending_[group[i]].entity != pending_[group[i + 1]].entity) {
            last.push_back(group[i]);
        }
    }
    for (std::size_t i = 0; i < last.size();) {
        std::size_t j = i + 1;
        while (j < last.size() && same_column(pending_[last[j - 1]], pending_[last[j]])) {
            ++j;
        }
        const auto first = last.begin() + static_cast<std::ptrdiff_t>(i);
        const auto end = last.begin() + static_cast<std::ptrdiff_t>(j);
        if (j - i >= kMinColumn) {
            columns.emplace_back(first, end);
        } else {
            records.insert(records.end(), first, end);
        }
        i = j;
    }
}

// Split the staged puts into ones written as records and runs written as columns. Within one
// commit a later put of the same (entity, key) replaces an earlier one, so only the last of
// each survives among process-level puts (other levels keep every put, in order: the last one
// ends up newest anyway).
void NamespaceWriter::plan(std::vector<std::size_t>& records,
                           std::vector<std::vector<std::size_t>>& columns) const {
    std::unordered_map<std::uint32_t, std::size_t> group_of;  // key id -> groups index
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < pending_.size(); ++i) {
        if (pending_[i].level != Space::proc) {
            records.push_back(i);
            continue;
        }
        const auto [it, added] = group_of.try_emplace(pending_[i].key, groups.size());
        if (added) {
            groups.emplace_back();
        }
        groups[it->second].push_back(i);
    }
    for (auto& group : groups) {
        split_group(group, records, columns);
    }
    std::sort(records.begin(), records.end());  // keep put order among records
}

template <class ElementAt>
pmix_status_t NamespaceWriter::write_column_of(std::uint32_t key, std::uint32_t first,
                                               std::size_t count, const enc::Encoded& shape,
                                               std::uint8_t scope, ElementAt at) {
    const bool scalar = shape.encoding == Encoding::scalar;
    const std::size_t elem = scalar ? shape.size : sizeof(Ref);
    Ref ref = 0;
    pmix_status_t rc = region_.allocate(sizeof(ColumnRecord) + elem * count, ref);
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < count; ++i) {
        std::uint64_t bits = 0;
        rc = at(i, bits);
        std::memcpy(region_.at(ref) + sizeof(ColumnRecord) + i * elem, &bits, elem);
    }
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    const Probe probe = Probe::column(key);
    ColumnRecord c{};
    c.head = RecordHead{region_.find(probe), region_.next_generation(), Kind::column,
                        static_cast<std::uint16_t>(shape.encoding)};
    c.next_column = region_.columns();
    c.key = key;
    c.first = first;
    c.count = static_cast<std::uint32_t>(count);
    c.scope = scope;
    c.elem_size = static_cast<std::uint8_t>(elem);
    c.type = shape.type;
    region_.write(ref, c);
    region_.stage(probe, ref);
    region_.set_columns(ref);
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceWriter::write_column(const std::vector<std::size_t>& run) {
    const Pending& first = pending_[run.front()];
    const bool scalar = first.meta.encoding == Encoding::scalar;
    return write_column_of(first.key, first.entity, run.size(), first.meta, first.scope,
                           [&](std::size_t i, std::uint64_t& bits) {
                               const Pending& p = pending_[run[i]];
                               bits = p.meta.scalar;
                               return scalar ? PMIX_SUCCESS
                                             : write_blob(p.offset, p.meta.size, bits);
                           });
}

pmix_status_t NamespaceWriter::write_run_column(std::uint32_t key, const Run& run) {
    const bool scalar = run.shape.encoding == Encoding::scalar;
    return write_column_of(key, run.first, run.elems.size(), run.shape, run.scope,
                           [&](std::size_t i, std::uint64_t& bits) {
                               const RunElement& e = run.elems[i];
                               bits = e.bits;
                               return scalar ? PMIX_SUCCESS : write_blob(e.bits, e.size, bits);
                           });
}

pmix_status_t NamespaceWriter::commit() {
    // Runs too short for a column are written as records, through the same plan as other puts.
    for (auto& [key, run] : runs_) {
        if (!run.broken && !run.elems.empty() && run.elems.size() < kMinColumn) {
            run_to_pending(key, run);
        }
    }
    std::vector<std::size_t> records;
    std::vector<std::vector<std::size_t>> columns;
    plan(records, columns);
    pmix_status_t rc = write_names();
    Newest newest;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < records.size(); ++i) {
        rc = write_value(pending_[records[i]], newest);
    }
    if (rc == PMIX_SUCCESS) {
        rc = write_heads(newest);
    }
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < columns.size(); ++i) {
        rc = write_column(columns[i]);
    }
    for (auto it = runs_.begin(); rc == PMIX_SUCCESS && it != runs_.end(); ++it) {
        if (!it->second.broken && !it->second.elems.empty()) {
            rc = write_run_column(it->first, it->second);
        }
    }
    pending_.clear();
    arena_.clear();
    runs_.clear();
    for (auto& slot : last_run_) {
        slot = {0, nullptr};
    }
    return rc != PMIX_SUCCESS ? rc : region_.publish();
}

}  // namespace pmix::gds
