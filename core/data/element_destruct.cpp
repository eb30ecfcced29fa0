// core/data/element_destruct.cpp - release what one element owns; free element arrays.
#include "data/detail.h"
#include "data/value.h"

namespace pmix::data {
namespace {

using detail::argv_free;
using detail::free_string;

void release_app(pmix_app_t* a) {
    free_string(a->cmd);
    argv_free(a->argv);
    argv_free(a->env);
    free_string(a->cwd);
    free_elements(a->info, a->ninfo, PMIX_INFO);
}

void release_kval(kval_t* kv) {
    free_string(kv->key);
    if (kv->value != nullptr) {
        value_destruct(kv->value);
        std::free(kv->value);
    }
}

void release_query(pmix_query_t* q) {
    argv_free(q->keys);
    free_elements(q->qualifiers, q->nqual, PMIX_INFO);
}

void release_geometry(pmix_geometry_t* g) {
    free_string(g->uuid);
    free_string(g->osname);
    free_elements(g->coordinates, g->ncoords, PMIX_COORD);
}

void release_ndstats(pmix_node_stats_t* n) {
    free_string(n->node);
    free_elements(n->diskstats, n->ndiskstats, PMIX_DISK_STATS);
    free_elements(n->netstats, n->nnetstats, PMIX_NET_STATS);
}

template <typename T>
T* as(void* p) {
    return static_cast<T*>(p);
}

void release(void* e, pmix_data_type_t type) {
    switch (type) {
        case PMIX_STRING:
        case PMIX_REGEX:
            std::free(*as<char*>(e));
            break;
        case PMIX_VALUE:
            value_destruct(as<pmix_value_t>(e));
            break;
        case PMIX_INFO:
            info_destruct(as<pmix_info_t>(e));
            break;
        case PMIX_APP:
            release_app(as<pmix_app_t>(e));
            break;
        case PMIX_PDATA:
            value_destruct(&as<pmix_pdata_t>(e)->value);
            break;
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            std::free(as<pmix_byte_object_t>(e)->bytes);
            break;
        case PMIX_KVAL:
            release_kval(as<kval_t>(e));
            break;
        case PMIX_PROC_INFO:
            std::free(as<pmix_proc_info_t>(e)->hostname);
            std::free(as<pmix_proc_info_t>(e)->executable_name);
            break;
        case PMIX_DATA_ARRAY:
            data_array_destruct(as<pmix_data_array_t>(e));
            break;
        case PMIX_QUERY:
            release_query(as<pmix_query_t>(e));
            break;
        case PMIX_ENVAR:
            std::free(as<pmix_envar_t>(e)->envar);
            std::free(as<pmix_envar_t>(e)->value);
            break;
        case PMIX_COORD:
            std::free(as<pmix_coord_t>(e)->coord);
            break;
        case PMIX_REGATTR:
            std::free(as<pmix_regattr_t>(e)->name);
            argv_free(as<pmix_regattr_t>(e)->description);
            break;
        case PMIX_PROC_CPUSET:
            detail::destruct_cpuset(as<pmix_cpuset_t>(e));
            break;
        case PMIX_TOPO:
            detail::destruct_topology(as<pmix_topology_t>(e));
            break;
        case PMIX_GEOMETRY:
            release_geometry(as<pmix_geometry_t>(e));
            break;
        case PMIX_DEVICE_DIST:
            std::free(as<pmix_device_distance_t>(e)->uuid);
            std::free(as<pmix_device_distance_t>(e)->osname);
            break;
        case PMIX_ENDPOINT:
            std::free(as<pmix_endpoint_t>(e)->uuid);
            std::free(as<pmix_endpoint_t>(e)->osname);
            std::free(as<pmix_endpoint_t>(e)->endpt.bytes);
            break;
        case PMIX_DATA_BUFFER:
            std::free(as<pmix_data_buffer_t>(e)->base_ptr);
            break;
        case PMIX_PROC_STATS:
            std::free(as<pmix_proc_stats_t>(e)->node);
            std::free(as<pmix_proc_stats_t>(e)->cmd);
            break;
        case PMIX_DISK_STATS:
            std::free(as<pmix_disk_stats_t>(e)->disk);
            break;
        case PMIX_NET_STATS:
            std::free(as<pmix_net_stats_t>(e)->net_interface);
            break;
        case PMIX_NODE_STATS:
            release_ndstats(as<pmix_node_stats_t>(e));
            break;
        default:
            break;  // trivial types own nothing
    }
}

}  // namespace

void destruct_element(void* element, pmix_data_type_t type) noexcept {
    const detail::TypeInfo* info = detail::type_info(type);
    if (element == nullptr || info == nullptr) {
        return;
    }
    if (!info->trivial) {
        release(element, type);
    }
    std::memset(element, 0, info->size);
}

void free_elements(void* array, std::size_t n, pmix_data_type_t type) noexcept {
    if (array == nullptr) {
        return;
    }
    // Unknown element types can only be freed as a block (their contents are not ours to walk).
    const detail::TypeInfo* info = detail::type_info(type);
    if (info != nullptr && !info->trivial) {
        auto* bytes = static_cast<char*>(array);
        for (std::size_t i = 0; i < n; ++i) {
            destruct_element(bytes + i * info->size, type);
        }
    }
    std::free(array);
}

}  // namespace pmix::data
