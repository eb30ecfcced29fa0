// core/data/type_table.cpp - per-type facts: element size and where a pmix_value_t keeps it.
#include "data/detail.h"
#include "data/scalar_width.h"
#include "data/value.h"

#include <sys/time.h>

#include <array>

namespace pmix::data::detail {
namespace {

constexpr std::size_t k_types = PMIX_STOR_ACCESS_TYPE + 1;
using Table = std::array<TypeInfo, k_types>;  // size 0 marks a type that does not exist

constexpr TypeInfo scalar(std::size_t size) { return {size, Storage::inline_union, true}; }
constexpr TypeInfo owning_inline(std::size_t size) { return {size, Storage::inline_union, false}; }
constexpr TypeInfo boxed(std::size_t size, bool trivial = false) {
    return {size, Storage::pointer, trivial};
}

// Every scalar lives at offset 0 of the value union, so the inline element of every scalar type
// is simply &value->data. PMIX_TIMEVAL is a struct but owns nothing and sits there too.
constexpr void add_scalars(Table& t) {
    for (std::size_t type = 0; type < k_types; ++type) {
        if (const std::size_t width = scalar_width(static_cast<pmix_data_type_t>(type));
            width != 0) {
            t[type] = scalar(width);
        }
    }
    t[PMIX_TIMEVAL] = scalar(sizeof(struct timeval));
}

// Structs with a named union member that is a pointer (proc, darray, coord, ...) are boxed; the
// six types without any union member (value, app, info, pdata, query, kval) are boxed in data.ptr.
constexpr void add_structs(Table& t) {
    t[PMIX_STRING] = owning_inline(sizeof(char*));
    t[PMIX_REGEX] = owning_inline(sizeof(char*));
    t[PMIX_BYTE_OBJECT] = owning_inline(sizeof(pmix_byte_object_t));
    t[PMIX_COMPRESSED_STRING] = owning_inline(sizeof(pmix_byte_object_t));
    t[PMIX_COMPRESSED_BYTE_OBJECT] = owning_inline(sizeof(pmix_byte_object_t));
    t[PMIX_ENVAR] = owning_inline(sizeof(pmix_envar_t));
    t[PMIX_PROC] = boxed(sizeof(pmix_proc_t), true);
    t[PMIX_PROC_NSPACE] = boxed(sizeof(pmix_nspace_t), true);
    t[PMIX_VALUE] = boxed(sizeof(pmix_value_t));
    t[PMIX_APP] = boxed(sizeof(pmix_app_t));
    t[PMIX_INFO] = boxed(sizeof(pmix_info_t));
    t[PMIX_PDATA] = boxed(sizeof(pmix_pdata_t));
    t[PMIX_KVAL] = boxed(sizeof(kval_t));
    t[PMIX_QUERY] = boxed(sizeof(pmix_query_t));
    t[PMIX_PROC_INFO] = boxed(sizeof(pmix_proc_info_t));
    t[PMIX_DATA_ARRAY] = boxed(sizeof(pmix_data_array_t));
    t[PMIX_COORD] = boxed(sizeof(pmix_coord_t));
    t[PMIX_REGATTR] = boxed(sizeof(pmix_regattr_t));
    t[PMIX_PROC_CPUSET] = boxed(sizeof(pmix_cpuset_t));
    t[PMIX_GEOMETRY] = boxed(sizeof(pmix_geometry_t));
    t[PMIX_DEVICE_DIST] = boxed(sizeof(pmix_device_distance_t));
    t[PMIX_ENDPOINT] = boxed(sizeof(pmix_endpoint_t));
    t[PMIX_TOPO] = boxed(sizeof(pmix_topology_t));
    t[PMIX_PROC_STATS] = boxed(sizeof(pmix_proc_stats_t));
    t[PMIX_DISK_STATS] = boxed(sizeof(pmix_disk_stats_t));
    t[PMIX_NET_STATS] = boxed(sizeof(pmix_net_stats_t));
    t[PMIX_NODE_STATS] = boxed(sizeof(pmix_node_stats_t));
    t[PMIX_DATA_BUFFER] = boxed(sizeof(pmix_data_buffer_t));
}

constexpr Table build_table() {
    Table t{};
    add_scalars(t);
    add_structs(t);
    return t;
}

constexpr Table k_table = build_table();

// 66 types: PMIX_BOOL..PMIX_STOR_ACCESS_TYPE without the removed 26, 29 and 44.
static_assert([] {
    std::size_t n = 0;
    for (const TypeInfo& info : k_table) {
        n += info.size != 0 ? 1 : 0;
    }
    return n;
}() == 66);

}  // namespace

const TypeInfo* type_info(pmix_data_type_t type) noexcept {
    if (type >= k_types || k_table[type].size == 0) {
        return nullptr;
    }
    return &k_table[type];
}

std::size_t argv_count(char* const* argv) noexcept {
    std::size_t n = 0;
    while (argv != nullptr && argv[n] != nullptr) {
        ++n;
    }
    return n;
}

bool argv_copy(char**& dst, char* const* src) noexcept {
    dst = nullptr;
    if (src == nullptr) {
        return true;
    }
    std::size_t n = argv_count(src);
    auto** out = static_cast<char**>(std::calloc(n + 1, sizeof(char*)));
    if (out == nullptr) {
        return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (!dup_string(out[i], src[i])) {
            argv_free(out);
            return false;
        }
    }
    dst = out;
    return true;
}

void argv_free(char**& argv) noexcept {
    if (argv == nullptr) {
        return;
    }
    for (std::size_t i = 0; argv[i] != nullptr; ++i) {
        std::free(argv[i]);
    }
    std::free(argv);
    argv = nullptr;
}

void load_key(char (&dst)[PMIX_MAX_KEYLEN + 1], const char* src) noexcept {
    std::memset(dst, 0, sizeof(dst));
    if (src != nullptr) {
        std::memcpy(dst, src, ::strnlen(src, PMIX_MAX_KEYLEN));
    }
}

}  // namespace pmix::data::detail

namespace pmix::data {

bool is_known_type(pmix_data_type_t type) noexcept { return detail::type_info(type) != nullptr; }

std::size_t element_size(pmix_data_type_t type) noexcept {
    const detail::TypeInfo* info = detail::type_info(type);
    return info == nullptr ? 0 : info->size;
}

bool value_holds_pointer(pmix_data_type_t type) noexcept {
    const detail::TypeInfo* info = detail::type_info(type);
    return info != nullptr && info->storage == detail::Storage::pointer;
}

}  // namespace pmix::data
