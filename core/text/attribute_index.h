// attribute_index.h - private to core/text: the compiled attribute dictionary and the
// compile-time sorted indexes the lookups binary-search.
//
// The table itself is generated from the headers (attributes.cmake); this header holds the
// hand-written part shared by the generated file and attributes.cpp.
#pragma once

#include "text/text.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace pmix::text::detail {

constexpr char ascii_lower(char c) noexcept {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// strcasecmp-style three-way comparison (ASCII only; keys and names are ASCII).
constexpr int compare_nocase(std::string_view a, std::string_view b) noexcept {
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) {
        const char x = ascii_lower(a[i]);
        const char y = ascii_lower(b[i]);
        if (x != y) {
            return static_cast<unsigned char>(x) < static_cast<unsigned char>(y) ? -1 : 1;
        }
    }
    return a.size() == b.size() ? 0 : (a.size() < b.size() ? -1 : 1);
}

using AttributeField = const char* AttributeInfo::*;

// Positions of the entries sorted by one field, case-insensitively. Entries with equal keys keep
// the order a linear first-match search would give (which is what OpenPMIx does), except that a
// name listed in `preferred` comes first: it records OpenPMIx's order where ours differs.
template <std::size_t N, std::size_t P>
constexpr std::array<std::uint16_t, N> sort_attribute_index(
    const AttributeInfo (&entries)[N], AttributeField field,
    const std::array<std::string_view, P>& preferred) {
    static_assert(N < UINT16_MAX, "attribute index is 16 bits wide");
    std::array<std::uint16_t, N> idx{};
    for (std::size_t i = 0; i < N; ++i) {
        idx[i] = static_cast<std::uint16_t>(i);
    }
    auto rank = [&](std::uint16_t i) {
        const std::string_view name = entries[i].name;
        const bool pref = std::find(preferred.begin(), preferred.end(), name) != preferred.end();
        return pref ? 0 : 1;
    };
    std::sort(idx.begin(), idx.end(), [&](std::uint16_t a, std::uint16_t b) {
        const int c = compare_nocase(entries[a].*field, entries[b].*field);
        if (c != 0) {
            return c < 0;
        }
        if (rank(a) != rank(b)) {
            return rank(a) < rank(b);
        }
        return a < b;
    });
    return idx;
}

// The generated dictionary: entries in header order plus the two sorted indexes.
struct AttributeTable {
    std::span<const AttributeInfo> entries;
    std::span<const std::uint16_t> by_name;
    std::span<const std::uint16_t> by_string;
};

// Defined in the generated attribute_table.cpp.
const AttributeTable& attribute_table() noexcept;

}  // namespace pmix::text::detail
