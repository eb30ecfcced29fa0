// core/data/detail.h - internal to core/data: per-type facts and small C-memory helpers.
// Not for other parts of the library (they use value.h / info_list.h).
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace pmix::data::detail {

// Where a pmix_value_t keeps the element of a type.
enum class Storage : std::uint8_t {
    inline_union,  // the element sits at &value->data (scalars, char*, byte objects, envars)
    pointer,       // value->data.ptr points at one malloc'd element
};

struct TypeInfo {
    std::size_t size;  // element size as stored in a pmix_data_array_t
    Storage storage;
    bool trivial;  // element owns nothing: copy is memcpy, destruct is a no-op
};

// nullptr for PMIX_UNDEF, holes (26, 29, 44) and anything unknown.
const TypeInfo* type_info(pmix_data_type_t type) noexcept;

// pmix_cmd_t is internal to OpenPMIx (a uint8_t); PMIX_COMMAND elements use this.
using command_t = std::uint8_t;

// The pointer-or-null strdup every struct copy needs; false only when allocation failed.
inline bool dup_string(char*& dst, const char* src) noexcept {
    dst = nullptr;
    if (src == nullptr) {
        return true;
    }
    dst = ::strdup(src);
    return dst != nullptr;
}

inline void free_string(char*& s) noexcept {
    std::free(s);
    s = nullptr;
}

// NULL-terminated argv arrays (pmix_app_t argv/env, pmix_query_t keys, regattr description).
std::size_t argv_count(char* const* argv) noexcept;
bool argv_copy(char**& dst, char* const* src) noexcept;
void argv_free(char**& argv) noexcept;

// Deep-copy `n` elements of `type` into a fresh calloc'd array (nullptr when n == 0 or src is
// NULL). On failure nothing is left allocated.
pmix_status_t copy_elements(void*& dst, const void* src, std::size_t n,
                            pmix_data_type_t type) noexcept;

// Key copy that never reads past PMIX_MAX_KEYLEN and zero-fills the rest.
void load_key(char (&dst)[PMIX_MAX_KEYLEN + 1], const char* src) noexcept;

// Ordering helpers (compare.cpp / compare_structs.cpp). Numbers compare by value (OpenPMIx uses
// memcmp, whose order is byte order; equality is the same either way).
template <typename T>
pmix_value_cmp_t compare_number(T a, T b) noexcept {
    if (a > b) {
        return PMIX_VALUE1_GREATER;
    }
    return a < b ? PMIX_VALUE2_GREATER : PMIX_EQUAL;
}
// NULL sorts before any string.
pmix_value_cmp_t compare_strings(const char* a, const char* b) noexcept;
pmix_value_cmp_t compare_bytes(const pmix_byte_object_t* a, const pmix_byte_object_t* b) noexcept;
// Element types that are structs owning memory (everything copy_element does not memcpy).
pmix_value_cmp_t compare_struct(const void* a, const void* b, pmix_data_type_t type) noexcept;

// hwloc-backed types (hwloc_ops.cpp). copy_*: `dst` is zeroed storage.
pmix_status_t copy_cpuset(pmix_cpuset_t* dst, const pmix_cpuset_t* src) noexcept;
void destruct_cpuset(pmix_cpuset_t* cpuset) noexcept;
pmix_status_t copy_topology(pmix_topology_t* dst, const pmix_topology_t* src) noexcept;
void destruct_topology(pmix_topology_t* topo) noexcept;
pmix_value_cmp_t compare_cpuset(const pmix_cpuset_t* a, const pmix_cpuset_t* b) noexcept;
pmix_value_cmp_t compare_topology(const pmix_topology_t* a, const pmix_topology_t* b) noexcept;
// Renderings without any prefix; false when the object cannot be printed (non-hwloc source).
bool cpuset_text(const pmix_cpuset_t* cpuset, char** out) noexcept;
bool topology_text(const pmix_topology_t* topo, char** out) noexcept;

}  // namespace pmix::data::detail
