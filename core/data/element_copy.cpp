// core/data/element_copy.cpp - deep copy of one element of any type, and of element arrays.
//
// Every copy_* helper below writes into zeroed storage field by field, so when one allocation
// fails, destruct_element() on the half-built element releases exactly what was allocated.
#include "data/detail.h"
#include "data/value.h"

namespace pmix::data {
namespace {

using detail::argv_copy;
using detail::copy_elements;
using detail::dup_string;

constexpr pmix_status_t ok = PMIX_SUCCESS;
constexpr pmix_status_t nomem = PMIX_ERR_NOMEM;

pmix_status_t copy_bytes(pmix_byte_object_t* d, const pmix_byte_object_t* s) {
    if (s->bytes == nullptr || s->size == 0) {
        return ok;  // an empty object stays {NULL, 0}
    }
    d->bytes = static_cast<char*>(std::malloc(s->size));
    if (d->bytes == nullptr) {
        return nomem;
    }
    std::memcpy(d->bytes, s->bytes, s->size);
    d->size = s->size;
    return ok;
}

pmix_status_t copy_app(pmix_app_t* d, const pmix_app_t* s) {
    if (!dup_string(d->cmd, s->cmd) || !argv_copy(d->argv, s->argv) || !argv_copy(d->env, s->env) ||
        !dup_string(d->cwd, s->cwd)) {
        return nomem;
    }
    d->maxprocs = s->maxprocs;
    void* info = nullptr;
    pmix_status_t rc = copy_elements(info, s->info, s->ninfo, PMIX_INFO);
    if (rc == ok && info != nullptr) {
        d->info = static_cast<pmix_info_t*>(info);
        d->ninfo = s->ninfo;
    }
    return rc;
}

pmix_status_t copy_pdata(pmix_pdata_t* d, const pmix_pdata_t* s) {
    d->proc = s->proc;
    detail::load_key(d->key, s->key);
    return value_xfer(&d->value, &s->value);
}

pmix_status_t copy_kval(kval_t* d, const kval_t* s) {
    if (!dup_string(d->key, s->key)) {
        return nomem;
    }
    if (s->value == nullptr) {
        return ok;
    }
    d->value = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
    return d->value == nullptr ? nomem : value_xfer(d->value, s->value);
}

pmix_status_t copy_pinfo(pmix_proc_info_t* d, const pmix_proc_info_t* s) {
    d->proc = s->proc;
    d->pid = s->pid;
    d->exit_code = s->exit_code;
    d->state = s->state;
    bool fine =
        dup_string(d->hostname, s->hostname) && dup_string(d->executable_name, s->executable_name);
    return fine ? ok : nomem;
}

pmix_status_t copy_darray(pmix_data_array_t* d, const pmix_data_array_t* s) {
    d->type = s->type;
    // An array without storage is copied as empty (size 0) so nobody indexes a NULL array later.
    if (s->array == nullptr || s->size == 0) {
        return ok;
    }
    pmix_status_t rc = copy_elements(d->array, s->array, s->size, s->type);
    if (rc == ok) {
        d->size = s->size;
    }
    return rc;
}

pmix_status_t copy_query(pmix_query_t* d, const pmix_query_t* s) {
    if (!argv_copy(d->keys, s->keys)) {
        return nomem;
    }
    void* quals = nullptr;
    pmix_status_t rc = copy_elements(quals, s->qualifiers, s->nqual, PMIX_INFO);
    if (rc == ok && quals != nullptr) {
        d->qualifiers = static_cast<pmix_info_t*>(quals);
        d->nqual = s->nqual;
    }
    return rc;
}

pmix_status_t copy_envar(pmix_envar_t* d, const pmix_envar_t* s) {
    d->separator = s->separator;
    return dup_string(d->envar, s->envar) && dup_string(d->value, s->value) ? ok : nomem;
}

pmix_status_t copy_coord(pmix_coord_t* d, const pmix_coord_t* s) {
    d->view = s->view;
    if (s->coord == nullptr || s->dims == 0) {
        return ok;
    }
    d->coord = static_cast<std::uint32_t*>(std::calloc(s->dims, sizeof(std::uint32_t)));
    if (d->coord == nullptr) {
        return nomem;
    }
    std::memcpy(d->coord, s->coord, s->dims * sizeof(std::uint32_t));
    d->dims = s->dims;
    return ok;
}

pmix_status_t copy_regattr(pmix_regattr_t* d, const pmix_regattr_t* s) {
    detail::load_key(d->string, s->string);
    d->type = s->type;
    return dup_string(d->name, s->name) && argv_copy(d->description, s->description) ? ok : nomem;
}

pmix_status_t copy_geometry(pmix_geometry_t* d, const pmix_geometry_t* s) {
    d->fabric = s->fabric;
    if (!dup_string(d->uuid, s->uuid) || !dup_string(d->osname, s->osname)) {
        return nomem;
    }
    void* coords = nullptr;
    pmix_status_t rc = copy_elements(coords, s->coordinates, s->ncoords, PMIX_COORD);
    if (rc == ok && coords != nullptr) {
        d->coordinates = static_cast<pmix_coord_t*>(coords);
        d->ncoords = s->ncoords;
    }
    return rc;
}

pmix_status_t copy_devdist(pmix_device_distance_t* d, const pmix_device_distance_t* s) {
    d->type = s->type;
    d->mindist = s->mindist;
    d->maxdist = s->maxdist;
    return dup_string(d->uuid, s->uuid) && dup_string(d->osname, s->osname) ? ok : nomem;
}

pmix_status_t copy_endpoint(pmix_endpoint_t* d, const pmix_endpoint_t* s) {
    if (!dup_string(d->uuid, s->uuid) || !dup_string(d->osname, s->osname)) {
        return nomem;
    }
    return copy_bytes(&d->endpt, &s->endpt);
}

// The copy holds the not-yet-unpacked part of the source (what PMIx_Data_copy_payload moves),
// with its read position at the start.
pmix_status_t copy_dbuf(pmix_data_buffer_t* d, const pmix_data_buffer_t* s) {
    if (s->base_ptr == nullptr || s->unpack_ptr == nullptr || s->pack_ptr <= s->unpack_ptr) {
        return ok;
    }
    auto n = static_cast<std::size_t>(s->pack_ptr - s->unpack_ptr);
    d->base_ptr = static_cast<char*>(std::malloc(n));
    if (d->base_ptr == nullptr) {
        return nomem;
    }
    std::memcpy(d->base_ptr, s->unpack_ptr, n);
    d->unpack_ptr = d->base_ptr;
    d->pack_ptr = d->base_ptr + n;
    d->bytes_allocated = n;
    d->bytes_used = n;
    return ok;
}

// The statistics structs are mostly numbers: copy wholesale, then replace the owned pointers.
pmix_status_t copy_pstats(pmix_proc_stats_t* d, const pmix_proc_stats_t* s) {
    *d = *s;
    d->node = nullptr;
    d->cmd = nullptr;
    return dup_string(d->node, s->node) && dup_string(d->cmd, s->cmd) ? ok : nomem;
}

pmix_status_t copy_dkstats(pmix_disk_stats_t* d, const pmix_disk_stats_t* s) {
    *d = *s;
    return dup_string(d->disk, s->disk) ? ok : nomem;
}

pmix_status_t copy_netstats(pmix_net_stats_t* d, const pmix_net_stats_t* s) {
    *d = *s;
    return dup_string(d->net_interface, s->net_interface) ? ok : nomem;
}

pmix_status_t copy_ndstats(pmix_node_stats_t* d, const pmix_node_stats_t* s) {
    *d = *s;
    d->node = nullptr;
    d->diskstats = nullptr;
    d->ndiskstats = 0;
    d->netstats = nullptr;
    d->nnetstats = 0;
    if (!dup_string(d->node, s->node)) {
        return nomem;
    }
    void* disks = nullptr;
    pmix_status_t rc = copy_elements(disks, s->diskstats, s->ndiskstats, PMIX_DISK_STATS);
    if (rc != ok) {
        return rc;
    }
    d->diskstats = static_cast<pmix_disk_stats_t*>(disks);
    d->ndiskstats = disks == nullptr ? 0 : s->ndiskstats;
    void* nets = nullptr;
    rc = copy_elements(nets, s->netstats, s->nnetstats, PMIX_NET_STATS);
    if (rc == ok) {
        d->netstats = static_cast<pmix_net_stats_t*>(nets);
        d->nnetstats = nets == nullptr ? 0 : s->nnetstats;
    }
    return rc;
}

template <typename T>
const T* as(const void* p) {
    return static_cast<const T*>(p);
}

// Types whose element owns memory. `dst` is zeroed storage of element_size(type) bytes.
pmix_status_t copy_owning(void* dst, const void* src, pmix_data_type_t type) {
    switch (type) {
        case PMIX_STRING:
        case PMIX_REGEX:
            return dup_string(*static_cast<char**>(dst), *as<char*>(src)) ? ok : nomem;
        case PMIX_VALUE:
            return value_xfer(static_cast<pmix_value_t*>(dst), as<pmix_value_t>(src));
        case PMIX_INFO:
            return info_xfer(static_cast<pmix_info_t*>(dst), as<pmix_info_t>(src));
        case PMIX_APP:
            return copy_app(static_cast<pmix_app_t*>(dst), as<pmix_app_t>(src));
        case PMIX_PDATA:
            return copy_pdata(static_cast<pmix_pdata_t*>(dst), as<pmix_pdata_t>(src));
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            return copy_bytes(static_cast<pmix_byte_object_t*>(dst), as<pmix_byte_object_t>(src));
        case PMIX_KVAL:
            return copy_kval(static_cast<kval_t*>(dst), as<kval_t>(src));
        case PMIX_PROC_INFO:
            return copy_pinfo(static_cast<pmix_proc_info_t*>(dst), as<pmix_proc_info_t>(src));
        case PMIX_DATA_ARRAY:
            return copy_darray(static_cast<pmix_data_array_t*>(dst), as<pmix_data_array_t>(src));
        case PMIX_QUERY:
            return copy_query(static_cast<pmix_query_t*>(dst), as<pmix_query_t>(src));
        case PMIX_ENVAR:
            return copy_envar(static_cast<pmix_envar_t*>(dst), as<pmix_envar_t>(src));
        case PMIX_COORD:
            return copy_coord(static_cast<pmix_coord_t*>(dst), as<pmix_coord_t>(src));
        case PMIX_REGATTR:
            return copy_regattr(static_cast<pmix_regattr_t*>(dst), as<pmix_regattr_t>(src));
        case PMIX_PROC_CPUSET:
            return detail::copy_cpuset(static_cast<pmix_cpuset_t*>(dst), as<pmix_cpuset_t>(src));
        case PMIX_TOPO:
            return detail::copy_topology(static_cast<pmix_topology_t*>(dst),
                                         as<pmix_topology_t>(src));
        case PMIX_GEOMETRY:
            return copy_geometry(static_cast<pmix_geometry_t*>(dst), as<pmix_geometry_t>(src));
        case PMIX_DEVICE_DIST:
            return copy_devdist(static_cast<pmix_device_distance_t*>(dst),
                                as<pmix_device_distance_t>(src));
        case PMIX_ENDPOINT:
            return copy_endpoint(static_cast<pmix_endpoint_t*>(dst), as<pmix_endpoint_t>(src));
        case PMIX_DATA_BUFFER:
            return copy_dbuf(static_cast<pmix_data_buffer_t*>(dst), as<pmix_data_buffer_t>(src));
        case PMIX_PROC_STATS:
            return copy_pstats(static_cast<pmix_proc_stats_t*>(dst), as<pmix_proc_stats_t>(src));
        case PMIX_DISK_STATS:
            return copy_dkstats(static_cast<pmix_disk_stats_t*>(dst), as<pmix_disk_stats_t>(src));
        case PMIX_NET_STATS:
            return copy_netstats(static_cast<pmix_net_stats_t*>(dst), as<pmix_net_stats_t>(src));
        case PMIX_NODE_STATS:
            return copy_ndstats(static_cast<pmix_node_stats_t*>(dst), as<pmix_node_stats_t>(src));
        default:
            return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
}

}  // namespace

pmix_status_t copy_element(void* dst, const void* src, pmix_data_type_t type) noexcept {
    const detail::TypeInfo* info = detail::type_info(type);
    if (info == nullptr) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    if (dst == nullptr || src == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (type == PMIX_PROC_NSPACE) {
        // Callers often pass a short string rather than a full pmix_nspace_t (OpenPMIx copies
        // up to the terminator), so never read past the first NUL.
        char ns[PMIX_MAX_NSLEN + 1] = {0};
        std::memcpy(ns, src, ::strnlen(static_cast<const char*>(src), PMIX_MAX_NSLEN));
        std::memcpy(dst, ns, sizeof(ns));
        return ok;
    }
    if (info->trivial) {
        std::memmove(dst, src, info->size);
        return ok;
    }
    std::memset(dst, 0, info->size);
    pmix_status_t rc = copy_owning(dst, src, type);
    if (rc != ok) {
        destruct_element(dst, type);
    }
    return rc;
}

namespace detail {

pmix_status_t copy_elements(void*& dst, const void* src, std::size_t n,
                            pmix_data_type_t type) noexcept {
    dst = nullptr;
    if (n == 0 || src == nullptr) {
        return ok;
    }
    const TypeInfo* info = type_info(type);
    if (info == nullptr) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    auto* out = static_cast<char*>(std::calloc(n, info->size));
    if (out == nullptr) {
        return nomem;
    }
    const auto* in = static_cast<const char*>(src);
    if (info->trivial) {
        std::memcpy(out, in, n * info->size);
        dst = out;
        return ok;
    }
    for (std::size_t i = 0; i < n; ++i) {
        pmix_status_t rc = copy_element(out + i * info->size, in + i * info->size, type);
        if (rc != ok) {
            free_elements(out, i, type);
            return rc;
        }
    }
    dst = out;
    return ok;
}

}  // namespace detail
}  // namespace pmix::data
