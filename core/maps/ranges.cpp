// core/maps/ranges.cpp - see ranges.h.
#include "maps/ranges.h"

#include <charconv>
#include <string>

namespace pmix::maps {

std::optional<std::uint64_t> parse_decimal(std::string_view text, std::uint64_t max) noexcept {
    if (text.empty()) {
        return std::nullopt;
    }
    for (char c : text) {
        if (c < '0' || c > '9') {  // from_chars alone would accept nothing else, but be explicit
            return std::nullopt;
        }
    }
    std::uint64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value > max) {
        return std::nullopt;
    }
    return value;
}

std::optional<Range> parse_range(std::string_view text, std::uint64_t max,
                                 bool allow_open) noexcept {
    const auto dash = text.find('-');
    if (dash == std::string_view::npos) {
        auto value = parse_decimal(text, max);
        if (!value) {
            return std::nullopt;
        }
        return Range{*value, *value, false};
    }
    auto first = parse_decimal(text.substr(0, dash), max);
    if (!first) {
        return std::nullopt;
    }
    const auto tail = text.substr(dash + 1);
    if (tail.empty()) {
        if (!allow_open) {
            return std::nullopt;
        }
        return Range{*first, 0, true};
    }
    auto last = parse_decimal(tail, max);
    if (!last || *last < *first) {
        return std::nullopt;
    }
    return Range{*first, *last, false};
}

Result<std::vector<Range>> parse_range_list(std::string_view text, std::uint64_t max,
                                            std::string_view what, bool allow_open) {
    using Result = Result<std::vector<Range>>;
    std::vector<Range> ranges;
    if (text.empty()) {
        return Result::success(std::move(ranges));
    }
    for (auto piece : split(text, ',')) {
        auto range = parse_range(piece, max, allow_open);
        if (!range) {
            return Result::failure(PMIX_ERR_BAD_PARAM,
                                   std::string(what) + ": '" + std::string(piece) +
                                       "' is not a number or range (limit " + std::to_string(max) +
                                       ") in '" + std::string(text) + "'");
        }
        ranges.push_back(*range);
    }
    return Result::success(std::move(ranges));
}

std::vector<std::string_view> split(std::string_view text, char sep) {
    std::vector<std::string_view> pieces;
    std::size_t start = 0;
    for (;;) {
        const auto at = text.find(sep, start);
        if (at == std::string_view::npos) {
            pieces.push_back(text.substr(start));
            return pieces;
        }
        pieces.push_back(text.substr(start, at - start));
        start = at + 1;
    }
}

bool ranges_intersect(const std::vector<Range>& a, const std::vector<Range>& b) noexcept {
    // Lists are short (a handful of entries per locality field), so the quadratic scan is cheaper
    // than sorting.
    for (const auto& x : a) {
        for (const auto& y : b) {
            const bool x_below_y = !x.open && x.last < y.first;
            const bool y_below_x = !y.open && y.last < x.first;
            if (!x_below_y && !y_below_x) {
                return true;
            }
        }
    }
    return false;
}

void append_range(std::string& out, const Range& range) {
    out += std::to_string(range.first);
    if (range.open) {
        out += '-';
    } else if (range.last != range.first) {
        out += '-';
        out += std::to_string(range.last);
    }
}

}  // namespace pmix::maps
