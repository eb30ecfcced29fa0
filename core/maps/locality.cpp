// core/maps/locality.cpp - see locality.h.
#include "maps/locality.h"

#include "maps/ranges.h"

#include <strings.h>

#include <array>
#include <cstdint>
#include <vector>

namespace pmix::maps {
namespace {

// Object indices in a locality string are logical indices within one level; no machine comes
// near this, and the cap keeps a corrupt string from describing an absurd set.
constexpr std::uint64_t kMaxIndex = (std::uint64_t{1} << 20) - 1;

struct Level {
    std::string_view tag;
    pmix_locality_t share_bit;
};

// The tags OpenPMIx writes and the PMIX_LOCALITY_SHARE_* bit each one sets.
constexpr std::array<Level, 7> kLevels{{
    {"NM", PMIX_LOCALITY_SHARE_NUMA},
    {"SK", PMIX_LOCALITY_SHARE_PACKAGE},
    {"L3", PMIX_LOCALITY_SHARE_L3CACHE},
    {"L2", PMIX_LOCALITY_SHARE_L2CACHE},
    {"L1", PMIX_LOCALITY_SHARE_L1CACHE},
    {"CR", PMIX_LOCALITY_SHARE_CORE},
    {"HT", PMIX_LOCALITY_SHARE_HWTHREAD},
}};

// Tag for the object types that appear in locality strings; empty for the rest (groups, dies,
// instruction caches, L4/L5, I/O and misc objects are skipped, as in OpenPMIx).
std::string_view tag_of(hwloc_obj_type_t type) noexcept {
    switch (type) {
        case HWLOC_OBJ_NUMANODE:
            return "NM";
        case HWLOC_OBJ_PACKAGE:
            return "SK";
        case HWLOC_OBJ_L3CACHE:
            return "L3";
        case HWLOC_OBJ_L2CACHE:
            return "L2";
        case HWLOC_OBJ_L1CACHE:
            return "L1";
        case HWLOC_OBJ_CORE:
            return "CR";
        case HWLOC_OBJ_PU:
            return "HT";
        default:
            return {};
    }
}

// Append "<tag><indices>" for the objects at `depth` that overlap `cpuset`, if any.
void append_level(std::string& out, hwloc_topology_t topology, int depth, std::string_view tag,
                  hwloc_const_bitmap_t cpuset) {
    const int count = hwloc_get_nbobjs_by_depth(topology, depth);
    std::vector<Range> hits;
    for (int i = 0; i < count; ++i) {
        hwloc_obj_t obj = hwloc_get_obj_by_depth(topology, depth, static_cast<unsigned>(i));
        if (obj == nullptr || obj->cpuset == nullptr ||
            !hwloc_bitmap_intersects(obj->cpuset, cpuset)) {
            continue;
        }
        const auto index = static_cast<std::uint64_t>(i);
        if (!hits.empty() && hits.back().last + 1 == index) {
            hits.back().last = index;
        } else {
            hits.push_back(Range{index, index, false});
        }
    }
    if (hits.empty()) {
        return;
    }
    if (!out.empty()) {
        out += ':';
    }
    out += tag;
    for (std::size_t i = 0; i < hits.size(); ++i) {
        if (i > 0) {
            out += ',';
        }
        append_range(out, hits[i]);
    }
}

struct Field {
    const Level* level = nullptr;
    std::vector<Range> indices;
};

Result<std::vector<Field>> parse_locality(std::string_view text) {
    using Result = Result<std::vector<Field>>;
    if (text.size() >= 6 && ::strncasecmp(text.data(), "hwloc:", 6) == 0) {
        text.remove_prefix(6);
    }
    std::vector<Field> fields;
    if (text.empty()) {
        return Result::success(std::move(fields));
    }
    for (auto piece : split(text, ':')) {
        const Level* level = nullptr;
        for (const auto& candidate : kLevels) {
            if (piece.starts_with(candidate.tag)) {
                level = &candidate;
                break;
            }
        }
        if (level == nullptr) {
            return Result::failure(PMIX_ERR_BAD_PARAM, "locality field '" + std::string(piece) +
                                                           "' has no known level tag");
        }
        auto indices = parse_range_list(piece.substr(2), kMaxIndex,
                                        "locality field '" + std::string(piece) + "'",
                                        /*allow_open=*/true);
        if (!indices.ok()) {
            return forward_failure<std::vector<Field>>(indices);
        }
        fields.push_back(Field{level, std::move(indices.value)});
    }
    return Result::success(std::move(fields));
}

}  // namespace

Result<std::optional<std::string>> locality_string(hwloc_topology_t topology,
                                                   hwloc_const_bitmap_t cpuset) {
    using Result = Result<std::optional<std::string>>;
    if (topology == nullptr) {
        return Result::failure(PMIX_ERR_BAD_PARAM, "no topology");
    }
    if (cpuset == nullptr || hwloc_bitmap_isfull(cpuset)) {
        return Result::success(std::nullopt);
    }
    std::string out;
    const int depth = hwloc_topology_get_depth(topology);
    // Depth 0 is the machine itself: every process shares it, so it carries no information.
    for (int d = 1; d < depth; ++d) {
        const auto tag = tag_of(hwloc_get_depth_type(topology, d));
        if (!tag.empty()) {
            append_level(out, topology, d, tag, cpuset);
        }
    }
    // hwloc 2 keeps NUMA nodes off the main tree (memory children), so they come last.
    append_level(out, topology, HWLOC_TYPE_DEPTH_NUMANODE, "NM", cpuset);
    if (out.empty()) {
        return Result::success(std::nullopt);
    }
    return Result::success(std::optional<std::string>(std::move(out)));
}

Result<pmix_locality_t> relative_locality(std::string_view first, std::string_view second) {
    using Result = Result<pmix_locality_t>;
    auto a = parse_locality(first);
    if (!a.ok()) {
        return forward_failure<pmix_locality_t>(a);
    }
    auto b = parse_locality(second);
    if (!b.ok()) {
        return forward_failure<pmix_locality_t>(b);
    }
    pmix_locality_t shared = PMIX_LOCALITY_SHARE_NODE;
    for (const auto& fa : a.value) {
        // Compare with the first field of the same level in the other string (as OpenPMIx does).
        for (const auto& fb : b.value) {
            if (fb.level == fa.level) {
                if (ranges_intersect(fa.indices, fb.indices)) {
                    shared |= fa.level->share_bit;
                }
                break;
            }
        }
    }
    return Result::success(shared);
}

}  // namespace pmix::maps
