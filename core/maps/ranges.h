// core/maps/ranges.h - decimal numbers and "a-b" range lists, the grammar shared by node regexes,
// proc maps, cpuset strings and locality strings.
//
// Strict on purpose: digits only (no sign, no spaces, no hex), overflow is an error, and a range
// must not run backwards. These strings come from hosts and peers; a typo must surface as a
// clear error rather than as a silently different node or rank list.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pmix::maps {

// "first-last" inclusive. `open` marks a range with no upper end ("4-" in hwloc's list syntax);
// `last` is then meaningless.
struct Range {
    std::uint64_t first = 0;
    std::uint64_t last = 0;
    bool open = false;

    std::uint64_t count() const noexcept { return last - first + 1; }  // closed ranges only
};

// The whole of `text` as an unsigned decimal no greater than `max`; nullopt otherwise.
std::optional<std::uint64_t> parse_decimal(std::string_view text, std::uint64_t max) noexcept;

// "N" or "N-M" with N <= M <= max; with `allow_open`, also "N-" (see Range::open).
std::optional<Range> parse_range(std::string_view text, std::uint64_t max,
                                 bool allow_open = false) noexcept;

// A comma-separated list of ranges ("0-3,7,9-10"); the empty string is the empty list.
// `what` names the list in error messages ("cpu list", "rank list", ...).
Result<std::vector<Range>> parse_range_list(std::string_view text, std::uint64_t max,
                                            std::string_view what, bool allow_open = false);

// Split at every `sep`; "" gives one empty piece, "a," gives {"a", ""}.
std::vector<std::string_view> split(std::string_view text, char sep);

// True when some value lies in both lists.
bool ranges_intersect(const std::vector<Range>& a, const std::vector<Range>& b) noexcept;

// Append "first" or "first-last" (or "first-" for an open range) to `out`.
void append_range(std::string& out, const Range& range);

}  // namespace pmix::maps
