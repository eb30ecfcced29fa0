// core/maps/node_regex.cpp - see node_regex.h for the formats.
#include "maps/node_regex.h"

#include "maps/ranges.h"

#include <cstdint>
#include <optional>

namespace pmix::maps {
namespace {

constexpr std::string_view kTag = "pmix[";
constexpr std::string_view kRawTag = "raw:";
constexpr std::string_view kBlobTag = "blob:";

// 18 decimal digits always fit in uint64_t, so a zero-padded field of that width round-trips.
constexpr std::uint64_t kMaxWidth = 18;

bool is_alpha(char c) noexcept { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
bool is_alnum(char c) noexcept { return is_alpha(c) || is_digit(c); }

// Error messages quote the input; a map can be megabytes long, so keep the quote short.
std::string quote(std::string_view text) {
    constexpr std::size_t kMax = 64;
    std::string q = "'";
    q += text.size() > kMax ? std::string(text.substr(0, kMax)) + "..." : std::string(text);
    q += "'";
    return q;
}

std::uint64_t largest_with_digits(std::uint64_t width) noexcept {
    std::uint64_t limit = 1;
    for (std::uint64_t i = 0; i < width; ++i) {
        limit *= 10;
    }
    return limit - 1;
}

std::string padded(std::uint64_t value, std::uint64_t width) {
    std::string digits = std::to_string(value);
    if (digits.size() < width) {
        digits.insert(0, width - digits.size(), '0');
    }
    return digits;
}

// ---- generation --------------------------------------------------------------------------------

// A host name cut around its first run of digits, when it can be compressed: letters, digits,
// then letters and digits ("c0n1" -> "c" 0 "n1"). Any other character keeps the name plain, as in
// OpenPMIx (so both generators agree on what a prefix is).
struct NumberedName {
    std::string_view prefix;
    std::uint64_t number = 0;
    std::uint64_t width = 0;
    std::string_view suffix;
};

std::optional<NumberedName> split_numbered(std::string_view name) {
    std::size_t i = 0;
    while (i < name.size() && is_alpha(name[i])) {
        ++i;
    }
    const std::size_t digits_at = i;
    while (i < name.size() && is_digit(name[i])) {
        ++i;
    }
    const std::size_t width = i - digits_at;
    if (width == 0 || width > kMaxWidth) {
        return std::nullopt;
    }
    for (std::size_t j = i; j < name.size(); ++j) {
        if (!is_alnum(name[j])) {
            return std::nullopt;
        }
    }
    auto number = parse_decimal(name.substr(digits_at, width), largest_with_digits(width));
    if (!number) {
        return std::nullopt;
    }
    return NumberedName{name.substr(0, digits_at), *number, width, name.substr(i)};
}

// One element of the output: a plain name, or a run of adjacent names sharing prefix, suffix
// and width.
struct Item {
    std::string_view first_name;  // a run of one is written as this name
    std::optional<NumberedName> shape;
    std::vector<Range> numbers;
    std::size_t names = 1;

    bool joins(const NumberedName& n) const noexcept {
        return shape && shape->prefix == n.prefix && shape->suffix == n.suffix &&
               shape->width == n.width;
    }

    void add(std::uint64_t number) {
        ++names;
        if (number == numbers.back().last + 1) {  // cannot wrap: numbers have <= 18 digits
            numbers.back().last = number;
        } else {
            numbers.push_back(Range{number, number, false});
        }
    }

    void append_to(std::string& out) const {
        if (!shape || names == 1) {
            out += first_name;
            return;
        }
        out += shape->prefix;
        out += '[';
        out += std::to_string(shape->width);
        out += ':';
        for (std::size_t i = 0; i < numbers.size(); ++i) {
            if (i > 0) {
                out += ',';
            }
            append_range(out, numbers[i]);
        }
        out += ']';
        out += shape->suffix;
    }
};

// ---- parsing -----------------------------------------------------------------------------------

// Strip "pmix[...]" or "raw:"; plain lists pass through.
Result<std::string_view> unwrap(std::string_view text, std::string_view what) {
    using Result = Result<std::string_view>;
    if (text.starts_with(kTag)) {
        if (!text.ends_with(']')) {
            return Result::failure(PMIX_ERR_BAD_PARAM, std::string(what) + " " + quote(text) +
                                                           ": 'pmix[' without a closing ']'");
        }
        return Result::success(text.substr(kTag.size(), text.size() - kTag.size() - 1));
    }
    if (text.starts_with(kRawTag)) {
        return Result::success(text.substr(kRawTag.size()));
    }
    if (text.starts_with(kBlobTag)) {
        return Result::failure(
            PMIX_ERR_NOT_SUPPORTED,
            std::string(what) + ": OpenPMIx's compressed 'blob:' form is not supported");
    }
    return Result::success(text);
}

// Split a node-map body at the commas outside brackets ("a[2:1-3,5]b,c" -> two items).
Result<std::vector<std::string_view>> split_items(std::string_view body) {
    using Result = Result<std::vector<std::string_view>>;
    std::vector<std::string_view> items;
    if (body.empty()) {
        return Result::success(std::move(items));
    }
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
        const char c = body[i];
        if (c == '[' && ++depth > 1) {
            return Result::failure(
                PMIX_ERR_BAD_PARAM,
                "node map " + quote(body) + ": nested '[' at offset " + std::to_string(i));
        }
        if (c == ']' && --depth < 0) {
            return Result::failure(
                PMIX_ERR_BAD_PARAM,
                "node map " + quote(body) + ": unmatched ']' at offset " + std::to_string(i));
        }
        if (c == ',' && depth == 0) {
            items.push_back(body.substr(start, i - start));
            start = i + 1;
        }
    }
    if (depth != 0) {
        return Result::failure(PMIX_ERR_BAD_PARAM, "node map " + quote(body) + ": unclosed '['");
    }
    items.push_back(body.substr(start));
    return Result::success(std::move(items));
}

// Refuse a range that would take an expansion of `have` entries past `limit`.
bool fits(std::size_t have, const Range& range, std::size_t limit) noexcept {
    return range.count() <= limit && have + range.count() <= limit;
}

std::string too_many(std::string_view what, std::size_t limit) {
    return std::string(what) + " expands to more than " + std::to_string(limit) + " entries";
}

// One item of a node map, checked but not yet expanded.
struct Piece {
    std::string_view plain;  // the name itself when there is no bracket group
    std::string_view prefix;
    std::string_view suffix;
    std::uint64_t width = 0;
    std::vector<Range> numbers;  // empty for a plain name
};

Result<Piece> parse_item(std::string_view item) {
    using Result = Result<Piece>;
    const auto open = item.find('[');
    if (open == std::string_view::npos) {
        if (item.empty()) {
            return Result::failure(PMIX_ERR_BAD_PARAM, "node map has an empty node name");
        }
        return Result::success(Piece{item, {}, {}, 0, {}});
    }
    const auto close = item.find(']', open);  // present: split_items checked the balance
    Piece piece{{}, item.substr(0, open), item.substr(close + 1), 0, {}};
    const auto inner = item.substr(open + 1, close - open - 1);
    if (piece.suffix.find('[') != std::string_view::npos) {
        return Result::failure(PMIX_ERR_BAD_PARAM,
                               "node map item " + quote(item) + " has two bracket groups");
    }
    const auto colon = inner.find(':');
    const auto width = colon == std::string_view::npos
                           ? std::nullopt
                           : parse_decimal(inner.substr(0, colon), kMaxWidth);
    if (!width || *width == 0) {
        return Result::failure(PMIX_ERR_BAD_PARAM, "node map item " + quote(item) +
                                                       ": expected '[<width 1-18>:<numbers>]'");
    }
    piece.width = *width;
    auto ranges = parse_range_list(inner.substr(colon + 1), largest_with_digits(*width),
                                   "node numbers of " + quote(item));
    if (!ranges.ok()) {
        return forward_failure<Piece>(ranges);
    }
    if (ranges.value.empty()) {
        return Result::failure(PMIX_ERR_BAD_PARAM, "node map item " + quote(item) + " is empty");
    }
    piece.numbers = std::move(ranges.value);
    return Result::success(std::move(piece));
}

void expand(const Piece& piece, std::vector<std::string>& names) {
    if (piece.numbers.empty()) {
        names.emplace_back(piece.plain);
        return;
    }
    for (const auto& range : piece.numbers) {
        for (std::uint64_t k = 0; k < range.count(); ++k) {
            std::string name(piece.prefix);
            name += padded(range.first + k, piece.width);
            name += piece.suffix;
            names.push_back(std::move(name));
        }
    }
}

// "0-3,5" with ranks bounded by PMIX_RANK_VALID (the special ranks are not process ranks).
Result<std::vector<Range>> rank_ranges(std::string_view node) {
    return parse_range_list(node, PMIX_RANK_VALID, "rank list");
}

}  // namespace

Result<std::string> generate_regex(std::string_view node_list) {
    using Result = Result<std::string>;
    std::vector<Item> items;
    if (!node_list.empty()) {
        for (auto name : split(node_list, ',')) {
            if (name.empty()) {
                return Result::failure(PMIX_ERR_BAD_PARAM,
                                       "node list " + quote(node_list) + " has an empty name");
            }
            if (name.find_first_of("[]") != std::string_view::npos) {
                return Result::failure(PMIX_ERR_BAD_PARAM,
                                       "node name " + quote(name) + " contains '[' or ']'");
            }
            auto numbered = split_numbered(name);
            if (numbered && !items.empty() && items.back().joins(*numbered)) {
                items.back().add(numbered->number);
                continue;
            }
            Item item{name, numbered, {}, 1};
            if (numbered) {
                item.numbers.push_back(Range{numbered->number, numbered->number, false});
            }
            items.push_back(std::move(item));
        }
    }
    std::string out(kTag);
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i > 0) {
            out += ',';
        }
        items[i].append_to(out);
    }
    out += ']';
    return Result::success(std::move(out));
}

Result<std::string> generate_ppn(std::string_view rank_lists) {
    using Result = Result<std::string>;
    std::string out(kTag);
    if (!rank_lists.empty()) {
        bool first_node = true;
        for (auto node : split(rank_lists, ';')) {
            auto ranges = rank_ranges(node);
            if (!ranges.ok()) {
                return forward_failure<std::string>(ranges);
            }
            // Merge ranges that continue each other ("0,1,2-4" -> "0-4"); order is kept.
            std::vector<Range> merged;
            for (const auto& r : ranges.value) {
                if (!merged.empty() && r.first == merged.back().last + 1) {
                    merged.back().last = r.last;
                } else {
                    merged.push_back(r);
                }
            }
            if (!first_node) {
                out += ';';
            }
            first_node = false;
            for (std::size_t i = 0; i < merged.size(); ++i) {
                if (i > 0) {
                    out += ',';
                }
                append_range(out, merged[i]);
            }
        }
    }
    out += ']';
    return Result::success(std::move(out));
}

Result<std::vector<std::string>> parse_nodes(std::string_view regex) {
    using Names = std::vector<std::string>;
    auto body = unwrap(regex, "node map");
    if (!body.ok()) {
        return forward_failure<Names>(body);
    }
    auto items = split_items(body.value);
    if (!items.ok()) {
        return forward_failure<Names>(items);
    }
    // Check and count everything first: nothing is allocated for a map that will be refused.
    std::vector<Piece> pieces;
    std::size_t total = 0;
    for (auto item : items.value) {
        auto piece = parse_item(item);
        if (!piece.ok()) {
            return forward_failure<Names>(piece);
        }
        const std::vector<Range> one{Range{0, 0, false}};
        for (const auto& range : piece.value.numbers.empty() ? one : piece.value.numbers) {
            if (!fits(total, range, kMaxMapNodes)) {
                return Result<Names>::failure(PMIX_ERR_BAD_PARAM,
                                              too_many("node map", kMaxMapNodes));
            }
            total += range.count();
        }
        pieces.push_back(std::move(piece.value));
    }
    Names names;
    names.reserve(total);
    for (const auto& piece : pieces) {
        expand(piece, names);
    }
    return Result<Names>::success(std::move(names));
}

Result<std::vector<std::vector<pmix_rank_t>>> parse_ppn(std::string_view ppn) {
    using Lists = std::vector<std::vector<pmix_rank_t>>;
    using Result = Result<Lists>;
    auto body = unwrap(ppn, "proc map");
    if (!body.ok()) {
        return forward_failure<Lists>(body);
    }
    Lists nodes;
    if (body.value.empty()) {
        return Result::success(std::move(nodes));
    }
    // As for node maps: check and count everything before building any list.
    std::vector<std::vector<Range>> per_node;
    std::size_t total = 0;
    for (auto node : split(body.value, ';')) {
        auto ranges = rank_ranges(node);
        if (!ranges.ok()) {
            return forward_failure<Lists>(ranges);
        }
        for (const auto& r : ranges.value) {
            if (!fits(total, r, kMaxMapRanks)) {
                return Result::failure(PMIX_ERR_BAD_PARAM, too_many("proc map", kMaxMapRanks));
            }
            total += r.count();
        }
        per_node.push_back(std::move(ranges.value));
    }
    for (const auto& ranges : per_node) {
        std::vector<pmix_rank_t> ranks;
        for (const auto& r : ranges) {
            for (std::uint64_t k = 0; k < r.count(); ++k) {
                ranks.push_back(static_cast<pmix_rank_t>(r.first + k));
            }
        }
        nodes.push_back(std::move(ranks));
    }
    return Result::success(std::move(nodes));
}

}  // namespace pmix::maps
