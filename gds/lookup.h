// gds/lookup.h - a reader's lookups inside one namespace at one snapshot. Every record reached is
// bounds-checked (RegionReader::resolve) and shape-checked here before anything is decoded.
#pragma once

#include "gds/encode.h"
#include "gds/region.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace pmix::gds {

struct FoundValue {
    enc::Stored stored;
    std::uint8_t scope = 0;
    std::uint32_t generation = 0;
    const void* source = nullptr;  // where the value lives in the mapping (ValueView::source)
};

class NamespaceView {
public:
    NamespaceView(const RegionReader& region, const RegionReader::Snapshot& snap) noexcept
        : region_(region), snap_(snap) {}

    // Key string -> id: standard keys by table, others through the namespace's interned names.
    pmix_status_t key_id(std::string_view key, std::uint32_t& id) const noexcept;
    pmix_status_t key_name(std::uint32_t id, std::string_view& out) const noexcept;

    // Entity -> (space, id); a node named by host goes through its alias.
    pmix_status_t entity(const Entity& e, layout::Space& space, std::uint32_t& id) const noexcept;

    // Newest value of (space, entity, key): the entity's own record or, for processes, the
    // newest column covering the rank, whichever was committed later.
    pmix_status_t value(layout::Space space, std::uint32_t entity, std::uint32_t key,
                        FoundValue& out) const noexcept;

    // Every key id the entity has (unsorted duplicates removed).
    pmix_status_t keys_of(layout::Space space, std::uint32_t entity,
                          std::vector<std::uint32_t>& out) const;

private:
    pmix_status_t record_value(layout::Space space, std::uint32_t entity, std::uint32_t key,
                               FoundValue& out) const noexcept;
    pmix_status_t column_value(std::uint32_t rank, std::uint32_t key, std::uint32_t newer_than,
                               FoundValue& out) const noexcept;
    pmix_status_t blob(layout::Ref ref, enc::Stored& stored) const noexcept;
    pmix_status_t column_keys(std::uint32_t rank, std::vector<std::uint32_t>& out) const;

    const RegionReader& region_;
    const RegionReader::Snapshot& snap_;
};

}  // namespace pmix::gds
