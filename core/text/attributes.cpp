// attributes.cpp - attribute dictionary lookups (PMIx_Get_attribute_string / _name).
//
// OpenPMIx walks its whole dictionary with strcasecmp on every call; we binary-search indexes that
// were sorted at compile time with the same case-insensitive order, so the answers are the same
// (including which name wins when two share a key string) at O(log n).
#include "attribute_index.h"

#include <algorithm>

namespace pmix::text {
namespace {

const AttributeInfo* find_in(std::span<const std::uint16_t> index, detail::AttributeField field,
                             std::string_view wanted) noexcept {
    const auto entries = detail::attribute_table().entries;
    // lower_bound lands on the first of several equal keys, which the index ordered so that the
    // entry OpenPMIx would find first comes first.
    const auto it = std::lower_bound(index.begin(), index.end(), wanted,
                                     [&](std::uint16_t i, std::string_view w) {
                                         return detail::compare_nocase(entries[i].*field, w) < 0;
                                     });
    if (it == index.end() || detail::compare_nocase(entries[*it].*field, wanted) != 0) {
        return nullptr;
    }
    return &entries[*it];
}

}  // namespace

std::span<const AttributeInfo> attributes() noexcept { return detail::attribute_table().entries; }

const AttributeInfo* find_attribute_by_name(std::string_view name) noexcept {
    return find_in(detail::attribute_table().by_name, &AttributeInfo::name, name);
}

const AttributeInfo* find_attribute_by_string(std::string_view key) noexcept {
    return find_in(detail::attribute_table().by_string, &AttributeInfo::string, key);
}

const char* attribute_string(const char* name) noexcept {
    if (name == nullptr) {
        return nullptr;
    }
    const AttributeInfo* info = find_attribute_by_name(name);
    return info != nullptr ? info->string : name;
}

const char* attribute_name(const char* key) noexcept {
    if (key == nullptr) {
        return nullptr;
    }
    const AttributeInfo* info = find_attribute_by_string(key);
    return info != nullptr ? info->name : key;
}

}  // namespace pmix::text
