// core/data/hwloc_ops.cpp - PMIX_PROC_CPUSET and PMIX_TOPO, whose payloads are hwloc objects.
//
// A cpuset/topology is ours to duplicate or free only when its `source` names hwloc (OpenPMIx
// checks the first five characters, case-insensitively). Anything else is opaque: copying it is
// PMIX_ERR_NOT_SUPPORTED and destructing it frees only the source string.
#include "data/detail.h"

#include <hwloc.h>
#include <strings.h>

#include <cstdio>
#include <string>

namespace pmix::data::detail {
namespace {

bool is_hwloc(const char* source) noexcept {
    return source != nullptr && ::strncasecmp(source, "hwloc", 5) == 0;
}

pmix_value_cmp_t order(int r) noexcept {
    return r < 0 ? PMIX_VALUE2_GREATER : (r > 0 ? PMIX_VALUE1_GREATER : PMIX_EQUAL);
}

// Both sources must be hwloc for the payloads to be comparable.
bool comparable(const char* a, const char* b, pmix_value_cmp_t& verdict) noexcept {
    if (a == nullptr && b == nullptr) {
        verdict = PMIX_VALUE_COMPARISON_NOT_AVAIL;
        return false;
    }
    if (a == nullptr || b == nullptr || ::strcasecmp(a, b) != 0) {
        verdict = PMIX_VALUE_INCOMPATIBLE_OBJECTS;
        return false;
    }
    if (!is_hwloc(a)) {
        verdict = PMIX_VALUE_COMPARISON_NOT_AVAIL;
        return false;
    }
    return true;
}

void append_object(std::string& out, const std::string& indent, hwloc_obj_t obj) {
    char type[64];
    hwloc_obj_type_snprintf(type, sizeof(type), obj, 1);
    out += indent + "Type: " + type + " Number of child objects: " + std::to_string(obj->arity);
    out += "\n" + indent + "\tName=" + (obj->name != nullptr ? obj->name : "NULL");
    if (obj->cpuset != nullptr) {
        char* set = nullptr;
        if (hwloc_bitmap_asprintf(&set, obj->cpuset) >= 0 && set != nullptr) {
            out += "\n" + indent + "\tCpuset:  " + set;
        }
        std::free(set);
    }
    out += "\n";
    for (unsigned i = 0; i < obj->arity; ++i) {
        append_object(out, indent + "\t", obj->children[i]);
    }
}

}  // namespace

pmix_status_t copy_cpuset(pmix_cpuset_t* dst, const pmix_cpuset_t* src) noexcept {
    if (src->bitmap != nullptr && !is_hwloc(src->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (!dup_string(dst->source, src->source)) {
        return PMIX_ERR_NOMEM;
    }
    if (src->bitmap != nullptr) {
        dst->bitmap = hwloc_bitmap_dup(static_cast<hwloc_const_bitmap_t>(src->bitmap));
        if (dst->bitmap == nullptr) {
            return PMIX_ERR_NOMEM;
        }
    }
    return PMIX_SUCCESS;
}

void destruct_cpuset(pmix_cpuset_t* cpuset) noexcept {
    if (cpuset->bitmap != nullptr && is_hwloc(cpuset->source)) {
        hwloc_bitmap_free(static_cast<hwloc_bitmap_t>(cpuset->bitmap));
    }
    cpuset->bitmap = nullptr;
    free_string(cpuset->source);
}

pmix_status_t copy_topology(pmix_topology_t* dst, const pmix_topology_t* src) noexcept {
    if (src->topology != nullptr && !is_hwloc(src->source)) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (!dup_string(dst->source, src->source)) {
        return PMIX_ERR_NOMEM;
    }
    if (src->topology != nullptr) {
        // hwloc_topology_dup needs a loaded topology; an unloaded one is a caller error.
        hwloc_topology_t copy = nullptr;
        if (hwloc_topology_dup(&copy, static_cast<hwloc_topology_t>(src->topology)) != 0) {
            return PMIX_ERROR;
        }
        dst->topology = copy;
    }
    return PMIX_SUCCESS;
}

void destruct_topology(pmix_topology_t* topo) noexcept {
    if (topo->topology != nullptr && is_hwloc(topo->source)) {
        hwloc_topology_destroy(static_cast<hwloc_topology_t>(topo->topology));
    }
    topo->topology = nullptr;
    free_string(topo->source);
}

pmix_value_cmp_t compare_cpuset(const pmix_cpuset_t* a, const pmix_cpuset_t* b) noexcept {
    pmix_value_cmp_t verdict = PMIX_EQUAL;
    if (!comparable(a->source, b->source, verdict)) {
        return verdict;
    }
    if (a->bitmap == nullptr || b->bitmap == nullptr) {
        return a->bitmap == b->bitmap
                   ? PMIX_EQUAL
                   : (a->bitmap != nullptr ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
    }
    // hwloc orders bitmaps by their highest set bit, which is a total order on cpusets.
    return order(hwloc_bitmap_compare(static_cast<hwloc_const_bitmap_t>(a->bitmap),
                                      static_cast<hwloc_const_bitmap_t>(b->bitmap)));
}

pmix_value_cmp_t compare_topology(const pmix_topology_t* a, const pmix_topology_t* b) noexcept {
    pmix_value_cmp_t verdict = PMIX_EQUAL;
    if (!comparable(a->source, b->source, verdict)) {
        return verdict;
    }
    if (a->topology == nullptr || b->topology == nullptr) {
        return a->topology == b->topology
                   ? PMIX_EQUAL
                   : (a->topology != nullptr ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
    }
    // Compare the rendered trees, as OpenPMIx does: two topologies are equal when hwloc describes
    // them identically.
    char* ta = nullptr;
    char* tb = nullptr;
    pmix_value_cmp_t result = PMIX_VALUE_COMPARISON_NOT_AVAIL;
    if (topology_text(a, &ta) && topology_text(b, &tb)) {
        result = order(std::strcmp(ta, tb));
    }
    std::free(ta);
    std::free(tb);
    return result;
}

bool cpuset_text(const pmix_cpuset_t* cpuset, char** out) noexcept {
    *out = nullptr;
    if (cpuset->bitmap == nullptr) {
        return dup_string(*out, "NULL");
    }
    if (!is_hwloc(cpuset->source)) {
        return false;
    }
    return hwloc_bitmap_list_asprintf(out, static_cast<hwloc_const_bitmap_t>(cpuset->bitmap)) >= 0;
}

bool topology_text(const pmix_topology_t* topo, char** out) noexcept {
    *out = nullptr;
    if (topo->topology == nullptr) {
        return dup_string(*out, "NULL");
    }
    if (!is_hwloc(topo->source)) {
        return false;
    }
    try {
        std::string text;
        append_object(text, "", hwloc_get_root_obj(static_cast<hwloc_topology_t>(topo->topology)));
        return dup_string(*out, text.c_str());
    } catch (...) {
        return false;
    }
}

}  // namespace pmix::data::detail
