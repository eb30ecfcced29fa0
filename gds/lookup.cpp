// gds/lookup.cpp - lookups in one namespace (see lookup.h).
#include "gds/lookup.h"

#include "gds/keys.h"

#include <algorithm>
#include <cstring>

namespace pmix::gds {

using namespace layout;

namespace {

bool valid_encoding(std::uint16_t aux) noexcept {
    return aux >= static_cast<std::uint16_t>(Encoding::scalar) &&
           aux <= static_cast<std::uint16_t>(Encoding::codec);
}

template <typename T>
bool load(const RegionReader& region, Ref ref, T& out) noexcept {
    const std::byte* raw = region.resolve(ref, sizeof(T));
    if (raw == nullptr) {
        return false;
    }
    std::memcpy(&out, raw, sizeof(T));
    return true;
}

}  // namespace

pmix_status_t NamespaceView::key_id(std::string_view key, std::uint32_t& id) const noexcept {
    const std::uint64_t text_hash = keys::hash_text(key);
    id = keys::standard_id(key, text_hash);
    if (id != 0) {
        return PMIX_SUCCESS;
    }
    RegionReader::Hit hit;
    const pmix_status_t rc =
        region_.find(snap_, Probe::name(Space::key_name, key, text_hash), sizeof(NameRecord), hit);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    NameRecord r;
    std::memcpy(&r, hit.bytes, sizeof(r));
    if (r.head.kind != Kind::name || r.id < kDynamicKeyBase) {
        return kErrCorrupt;
    }
    id = r.id;
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceView::key_name(std::uint32_t id, std::string_view& out) const noexcept {
    if (id < kDynamicKeyBase) {
        out = keys::standard_name(id);
        return out.empty() ? kErrCorrupt : PMIX_SUCCESS;
    }
    RegionReader::Hit hit;
    const pmix_status_t rc = region_.find(snap_, Probe::key_id(id), sizeof(NameRecord), hit);
    if (rc != PMIX_SUCCESS) {
        return rc == PMIX_ERR_NOT_FOUND ? kErrCorrupt : rc;  // a stored key id must have a name
    }
    NameRecord r;
    std::memcpy(&r, hit.bytes, sizeof(r));
    if (r.length == 0 || r.length > PMIX_MAX_KEYLEN) {
        return kErrCorrupt;
    }
    const std::byte* raw = region_.resolve(hit.ref, sizeof(r) + r.length + 1);
    if (raw == nullptr) {
        return kErrCorrupt;
    }
    out = std::string_view(reinterpret_cast<const char*>(raw) + sizeof(r), r.length);
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceView::entity(const Entity& e, Space& space,
                                    std::uint32_t& id) const noexcept {
    id = e.id;
    switch (e.level) {
        case Level::job:
            space = Space::job;
            return PMIX_SUCCESS;
        case Level::app:
            space = Space::app;
            return PMIX_SUCCESS;
        case Level::proc:
            space = Space::proc;
            return e.id < PMIX_RANK_VALID ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
        case Level::session:
            space = Space::session;
            return PMIX_SUCCESS;
        case Level::node:
            break;
        default:
            return PMIX_ERR_BAD_PARAM;
    }
    space = Space::node;
    if (e.host.empty()) {
        return PMIX_SUCCESS;
    }
    if (e.host.size() > PMIX_MAX_NSLEN) {
        return PMIX_ERR_BAD_PARAM;
    }
    RegionReader::Hit hit;
    const pmix_status_t rc =
        region_.find(snap_, Probe::name(Space::host_name, e.host), sizeof(NameRecord), hit);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    NameRecord r;
    std::memcpy(&r, hit.bytes, sizeof(r));
    if (r.head.kind != Kind::name) {
        return kErrCorrupt;
    }
    id = r.id;
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceView::blob(Ref ref, enc::Stored& stored) const noexcept {
    BlobHeader h{};
    if (!load(region_, ref, h) || h.kind != Kind::blob) {
        return kErrCorrupt;
    }
    const std::byte* raw = region_.resolve(ref, sizeof(h) + std::size_t{h.size});
    if (raw == nullptr) {
        return kErrCorrupt;
    }
    stored.bytes = raw + sizeof(h);
    stored.size = h.size;
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceView::record_value(Space space, std::uint32_t entity, std::uint32_t key,
                                          FoundValue& out) const noexcept {
    RegionReader::Hit hit;
    pmix_status_t rc =
        region_.find(snap_, Probe::value(space, entity, key), sizeof(ValueRecord), hit);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    ValueRecord r;
    std::memcpy(&r, hit.bytes, sizeof(r));
    // Older versions are reached through prev: check that each is still the same identity.
    if (r.head.kind != Kind::value || !valid_encoding(r.head.aux) ||
        r.level != static_cast<std::uint8_t>(space) || r.entity != entity || r.key != key) {
        return kErrCorrupt;
    }
    out.scope = r.scope;
    out.generation = r.head.generation;
    out.source = hit.bytes;
    out.stored = enc::Stored{static_cast<Encoding>(r.head.aux), r.type, r.size, r.payload, nullptr};
    if (out.stored.encoding == Encoding::scalar) {
        return r.size <= sizeof(r.payload) ? PMIX_SUCCESS : kErrCorrupt;
    }
    rc = blob(r.payload, out.stored);
    return rc == PMIX_SUCCESS && out.stored.size != r.size ? kErrCorrupt : rc;
}

pmix_status_t NamespaceView::column_value(std::uint32_t rank, std::uint32_t key,
                                          std::uint32_t newer_than,
                                          FoundValue& out) const noexcept {
    RegionReader::Hit hit;
    pmix_status_t rc = region_.find(snap_, Probe::column(key), sizeof(ColumnRecord), hit);
    while (rc == PMIX_SUCCESS) {
        ColumnRecord c;
        std::memcpy(&c, hit.bytes, sizeof(c));
        if (c.head.kind != Kind::column || c.key != key || !valid_encoding(c.head.aux)) {
            return kErrCorrupt;
        }
        if (c.head.generation <= newer_than) {
            return PMIX_ERR_NOT_FOUND;  // every older column loses to the record already found
        }
        if (rank >= c.first && rank - c.first < c.count) {
            const auto encoding = static_cast<Encoding>(c.head.aux);
            const bool scalar = encoding == Encoding::scalar;
            if (c.elem_size == 0 || c.elem_size > 8 || (!scalar && c.elem_size != 8)) {
                return kErrCorrupt;
            }
            const std::size_t at = sizeof(c) + std::size_t{rank - c.first} * c.elem_size;
            const std::byte* raw = region_.resolve(hit.ref, at + c.elem_size);
            if (raw == nullptr) {
                return kErrCorrupt;
            }
            std::uint64_t bits = 0;
            std::memcpy(&bits, raw + at, c.elem_size);
            out.scope = c.scope;
            out.generation = c.head.generation;
            out.source = raw + at;
            out.stored = enc::Stored{encoding, c.type, c.elem_size, bits, nullptr};
            return scalar ? PMIX_SUCCESS : blob(bits, out.stored);
        }
        if (c.head.prev == 0) {
            return PMIX_ERR_NOT_FOUND;
        }
        if ((c.head.prev & kRefMask) >= (hit.ref & kRefMask)) {
            return kErrCorrupt;
        }
        rc = region_.visible(snap_, c.head.prev, sizeof(ColumnRecord), hit);
    }
    return rc;
}

pmix_status_t NamespaceView::value(Space space, std::uint32_t entity, std::uint32_t key,
                                   FoundValue& out) const noexcept {
    pmix_status_t rc = record_value(space, entity, key, out);
    if (space != Space::proc || (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND)) {
        return rc;
    }
    if (snap_.columns == 0) {
        return rc;  // the namespace has no columns at all: skip the second probe
    }
    FoundValue column;
    const pmix_status_t crc =
        column_value(entity, key, rc == PMIX_SUCCESS ? out.generation : 0, column);
    if (crc == PMIX_SUCCESS) {
        out = column;
        return PMIX_SUCCESS;
    }
    return crc == PMIX_ERR_NOT_FOUND ? rc : crc;
}

pmix_status_t NamespaceView::column_keys(std::uint32_t rank,
                                         std::vector<std::uint32_t>& out) const {
    // Every column reachable from this snapshot's root was committed at or before it.
    for (Ref ref = snap_.columns; ref != 0;) {
        ColumnRecord c{};
        if (!load(region_, ref, c) || c.head.kind != Kind::column) {
            return kErrCorrupt;
        }
        if (rank >= c.first && rank - c.first < c.count) {
            out.push_back(c.key);
        }
        if (c.next_column != 0 && (c.next_column & kRefMask) >= (ref & kRefMask)) {
            return kErrCorrupt;
        }
        ref = c.next_column;
    }
    return PMIX_SUCCESS;
}

pmix_status_t NamespaceView::keys_of(Space space, std::uint32_t entity,
                                     std::vector<std::uint32_t>& out) const {
    RegionReader::Hit hit;
    pmix_status_t rc = region_.find(snap_, Probe::head(space, entity), sizeof(HeadRecord), hit);
    if (rc == PMIX_SUCCESS) {
        HeadRecord h;
        std::memcpy(&h, hit.bytes, sizeof(h));
        if (h.head.kind != Kind::head) {
            return kErrCorrupt;
        }
        // The head's siblings were all written before it, hence visible with it.
        for (Ref v = h.newest; v != 0;) {
            ValueRecord r{};
            if (!load(region_, v, r) || r.head.kind != Kind::value ||
                (r.sibling != 0 && (r.sibling & kRefMask) >= (v & kRefMask))) {
                return kErrCorrupt;
            }
            out.push_back(r.key);
            v = r.sibling;
        }
    } else if (rc != PMIX_ERR_NOT_FOUND) {
        return rc;
    }
    if (space == Space::proc) {
        rc = column_keys(entity, out);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out.empty() ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS;
}

}  // namespace pmix::gds
