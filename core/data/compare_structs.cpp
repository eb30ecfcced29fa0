// core/data/compare_structs.cpp - ordering of the struct element types, field by field in the
// order OpenPMIx uses. Objects that describe different things (coordinates in different views,
// geometries of different fabrics, distances to different device types) are
// PMIX_VALUE_INCOMPATIBLE_OBJECTS rather than greater or smaller.
#include "data/detail.h"
#include "data/value.h"

namespace pmix::data::detail {
namespace {

// First non-equal verdict wins; later fields are only looked at while everything is equal.
class Order {
public:
    template <typename F>
    Order& then(F&& next) {
        if (result_ == PMIX_EQUAL) {
            result_ = next();
        }
        return *this;
    }
    Order& str(const char* a, const char* b) {
        return then([&] { return compare_strings(a, b); });
    }
    template <typename T>
    Order& num(T a, T b) {
        return then([&] { return compare_number(a, b); });
    }
    pmix_value_cmp_t result() const { return result_; }

private:
    pmix_value_cmp_t result_ = PMIX_EQUAL;
};

pmix_value_cmp_t arrays(const void* a, std::size_t na, const void* b, std::size_t nb,
                        pmix_data_type_t type) {
    if (a == nullptr || b == nullptr) {
        na = a == nullptr ? 0 : na;
        nb = b == nullptr ? 0 : nb;
    }
    if (na != nb) {
        return compare_number(na, nb);
    }
    std::size_t size = element_size(type);
    for (std::size_t i = 0; i < na; ++i) {
        pmix_value_cmp_t r = compare_element(static_cast<const char*>(a) + i * size,
                                             static_cast<const char*>(b) + i * size, type);
        if (r != PMIX_EQUAL) {
            return r;
        }
    }
    return PMIX_EQUAL;
}

pmix_value_cmp_t argvs(char* const* a, char* const* b) {
    std::size_t na = argv_count(a);
    std::size_t nb = argv_count(b);
    return arrays(a, na, b, nb, PMIX_STRING);
}

pmix_value_cmp_t keys(const char* a, const char* b) {
    return compare_number(std::strncmp(a, b, PMIX_MAX_KEYLEN + 1), 0);
}

pmix_value_cmp_t procs(const pmix_proc_t& a, const pmix_proc_t& b) {
    return compare_element(&a, &b, PMIX_PROC);
}

pmix_value_cmp_t info(const pmix_info_t* a, const pmix_info_t* b) {
    return Order()
        .then([&] { return keys(a->key, b->key); })
        .then([&] { return value_compare(&a->value, &b->value); })
        .result();
}

pmix_value_cmp_t app(const pmix_app_t* a, const pmix_app_t* b) {
    return Order()
        .str(a->cmd, b->cmd)
        .then([&] { return argvs(a->argv, b->argv); })
        .then([&] { return argvs(a->env, b->env); })
        .str(a->cwd, b->cwd)
        .num(a->maxprocs, b->maxprocs)
        .then([&] { return arrays(a->info, a->ninfo, b->info, b->ninfo, PMIX_INFO); })
        .result();
}

pmix_value_cmp_t pdata(const pmix_pdata_t* a, const pmix_pdata_t* b) {
    return Order()
        .then([&] { return procs(a->proc, b->proc); })
        .then([&] { return keys(a->key, b->key); })
        .then([&] { return value_compare(&a->value, &b->value); })
        .result();
}

pmix_value_cmp_t kval(const kval_t* a, const kval_t* b) {
    return Order()
        .str(a->key, b->key)
        .then([&] {
            if (a->value == nullptr || b->value == nullptr) {
                return compare_number(a->value != nullptr, b->value != nullptr);
            }
            return value_compare(a->value, b->value);
        })
        .result();
}

pmix_value_cmp_t pinfo(const pmix_proc_info_t* a, const pmix_proc_info_t* b) {
    return Order()
        .then([&] { return procs(a->proc, b->proc); })
        .str(a->hostname, b->hostname)
        .str(a->executable_name, b->executable_name)
        .num(a->pid, b->pid)
        .num(a->exit_code, b->exit_code)
        .num(a->state, b->state)
        .result();
}

pmix_value_cmp_t darray(const pmix_data_array_t* a, const pmix_data_array_t* b) {
    if (a->type != b->type) {
        return PMIX_VALUE_TYPE_DIFFERENT;
    }
    return arrays(a->array, a->size, b->array, b->size, a->type);
}

pmix_value_cmp_t query(const pmix_query_t* a, const pmix_query_t* b) {
    return Order()
        .then([&] { return argvs(a->keys, b->keys); })
        .then([&] { return arrays(a->qualifiers, a->nqual, b->qualifiers, b->nqual, PMIX_INFO); })
        .result();
}

pmix_value_cmp_t envar(const pmix_envar_t* a, const pmix_envar_t* b) {
    return Order()
        .str(a->envar, b->envar)
        .str(a->value, b->value)
        .num(a->separator, b->separator)
        .result();
}

pmix_value_cmp_t coord(const pmix_coord_t* a, const pmix_coord_t* b) {
    if (a->view != b->view) {
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    return arrays(a->coord, a->dims, b->coord, b->dims, PMIX_UINT32);
}

pmix_value_cmp_t regattr(const pmix_regattr_t* a, const pmix_regattr_t* b) {
    return Order()
        .str(a->name, b->name)
        .then([&] { return keys(a->string, b->string); })
        .num(a->type, b->type)
        .then([&] { return argvs(a->description, b->description); })
        .result();
}

pmix_value_cmp_t geometry(const pmix_geometry_t* a, const pmix_geometry_t* b) {
    if (a->fabric != b->fabric) {
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    return Order()
        .str(a->uuid, b->uuid)
        .str(a->osname, b->osname)
        .then([&] {
            return arrays(a->coordinates, a->ncoords, b->coordinates, b->ncoords, PMIX_COORD);
        })
        .result();
}

pmix_value_cmp_t devdist(const pmix_device_distance_t* a, const pmix_device_distance_t* b) {
    if (a->type != b->type) {
        return PMIX_VALUE_INCOMPATIBLE_OBJECTS;
    }
    return Order()
        .str(a->uuid, b->uuid)
        .str(a->osname, b->osname)
        .num(a->mindist, b->mindist)
        .num(a->maxdist, b->maxdist)
        .result();
}

pmix_value_cmp_t endpoint(const pmix_endpoint_t* a, const pmix_endpoint_t* b) {
    return Order()
        .str(a->uuid, b->uuid)
        .str(a->osname, b->osname)
        .then([&] { return compare_bytes(&a->endpt, &b->endpt); })
        .result();
}

// The unread part of a buffer is its content (that is what a copy carries).
pmix_byte_object_t unread(const pmix_data_buffer_t* d) {
    pmix_byte_object_t bo{nullptr, 0};
    if (d->base_ptr != nullptr && d->unpack_ptr != nullptr && d->pack_ptr > d->unpack_ptr) {
        bo.bytes = d->unpack_ptr;
        bo.size = static_cast<std::size_t>(d->pack_ptr - d->unpack_ptr);
    }
    return bo;
}

pmix_value_cmp_t dbuf(const pmix_data_buffer_t* a, const pmix_data_buffer_t* b) {
    pmix_byte_object_t x = unread(a);
    pmix_byte_object_t y = unread(b);
    return compare_bytes(&x, &y);
}

pmix_value_cmp_t tv(const struct timeval& a, const struct timeval& b) {
    return Order().num(a.tv_sec, b.tv_sec).num(a.tv_usec, b.tv_usec).result();
}

pmix_value_cmp_t pstats(const pmix_proc_stats_t* a, const pmix_proc_stats_t* b) {
    return Order()
        .str(a->node, b->node)
        .then([&] { return procs(a->proc, b->proc); })
        .num(a->pid, b->pid)
        .str(a->cmd, b->cmd)
        .num(a->state, b->state)
        .then([&] { return tv(a->time, b->time); })
        .num(a->percent_cpu, b->percent_cpu)
        .num(a->priority, b->priority)
        .num(a->num_threads, b->num_threads)
        .num(a->pss, b->pss)
        .num(a->vsize, b->vsize)
        .num(a->rss, b->rss)
        .num(a->peak_vsize, b->peak_vsize)
        .num(a->processor, b->processor)
        .then([&] { return tv(a->sample_time, b->sample_time); })
        .result();
}

pmix_value_cmp_t dkstats(const pmix_disk_stats_t* a, const pmix_disk_stats_t* b) {
    return Order()
        .str(a->disk, b->disk)
        .num(a->num_reads_completed, b->num_reads_completed)
        .num(a->num_reads_merged, b->num_reads_merged)
        .num(a->num_sectors_read, b->num_sectors_read)
        .num(a->milliseconds_reading, b->milliseconds_reading)
        .num(a->num_writes_completed, b->num_writes_completed)
        .num(a->num_writes_merged, b->num_writes_merged)
        .num(a->num_sectors_written, b->num_sectors_written)
        .num(a->milliseconds_writing, b->milliseconds_writing)
        .num(a->num_ios_in_progress, b->num_ios_in_progress)
        .num(a->milliseconds_io, b->milliseconds_io)
        .num(a->weighted_milliseconds_io, b->weighted_milliseconds_io)
        .result();
}

pmix_value_cmp_t netstats(const pmix_net_stats_t* a, const pmix_net_stats_t* b) {
    return Order()
        .str(a->net_interface, b->net_interface)
        .num(a->num_bytes_recvd, b->num_bytes_recvd)
        .num(a->num_packets_recvd, b->num_packets_recvd)
        .num(a->num_recv_errs, b->num_recv_errs)
        .num(a->num_bytes_sent, b->num_bytes_sent)
        .num(a->num_packets_sent, b->num_packets_sent)
        .num(a->num_send_errs, b->num_send_errs)
        .result();
}

pmix_value_cmp_t ndstats(const pmix_node_stats_t* a, const pmix_node_stats_t* b) {
    return Order()
        .str(a->node, b->node)
        .num(a->la, b->la)
        .num(a->la5, b->la5)
        .num(a->la15, b->la15)
        .num(a->total_mem, b->total_mem)
        .num(a->free_mem, b->free_mem)
        .num(a->buffers, b->buffers)
        .num(a->cached, b->cached)
        .num(a->swap_cached, b->swap_cached)
        .num(a->swap_total, b->swap_total)
        .num(a->swap_free, b->swap_free)
        .num(a->mapped, b->mapped)
        .then([&] { return tv(a->sample_time, b->sample_time); })
        .then([&] {
            return arrays(a->diskstats, a->ndiskstats, b->diskstats, b->ndiskstats,
                          PMIX_DISK_STATS);
        })
        .then([&] {
            return arrays(a->netstats, a->nnetstats, b->netstats, b->nnetstats, PMIX_NET_STATS);
        })
        .result();
}

template <typename T>
const T* as(const void* p) {
    return static_cast<const T*>(p);
}

pmix_value_cmp_t dispatch(const void* a, const void* b, pmix_data_type_t type) {
    switch (type) {
        case PMIX_STRING:
        case PMIX_REGEX:
            return compare_strings(*as<char*>(a), *as<char*>(b));
        case PMIX_VALUE:
            return value_compare(as<pmix_value_t>(a), as<pmix_value_t>(b));
        case PMIX_INFO:
            return info(as<pmix_info_t>(a), as<pmix_info_t>(b));
        case PMIX_APP:
            return app(as<pmix_app_t>(a), as<pmix_app_t>(b));
        case PMIX_PDATA:
            return pdata(as<pmix_pdata_t>(a), as<pmix_pdata_t>(b));
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            return compare_bytes(as<pmix_byte_object_t>(a), as<pmix_byte_object_t>(b));
        case PMIX_KVAL:
            return kval(as<kval_t>(a), as<kval_t>(b));
        case PMIX_PROC_INFO:
            return pinfo(as<pmix_proc_info_t>(a), as<pmix_proc_info_t>(b));
        case PMIX_DATA_ARRAY:
            return darray(as<pmix_data_array_t>(a), as<pmix_data_array_t>(b));
        case PMIX_QUERY:
            return query(as<pmix_query_t>(a), as<pmix_query_t>(b));
        case PMIX_ENVAR:
            return envar(as<pmix_envar_t>(a), as<pmix_envar_t>(b));
        case PMIX_COORD:
            return coord(as<pmix_coord_t>(a), as<pmix_coord_t>(b));
        case PMIX_REGATTR:
            return regattr(as<pmix_regattr_t>(a), as<pmix_regattr_t>(b));
        case PMIX_PROC_CPUSET:
            return compare_cpuset(as<pmix_cpuset_t>(a), as<pmix_cpuset_t>(b));
        case PMIX_TOPO:
            return compare_topology(as<pmix_topology_t>(a), as<pmix_topology_t>(b));
        case PMIX_GEOMETRY:
            return geometry(as<pmix_geometry_t>(a), as<pmix_geometry_t>(b));
        case PMIX_DEVICE_DIST:
            return devdist(as<pmix_device_distance_t>(a), as<pmix_device_distance_t>(b));
        case PMIX_ENDPOINT:
            return endpoint(as<pmix_endpoint_t>(a), as<pmix_endpoint_t>(b));
        case PMIX_DATA_BUFFER:
            return dbuf(as<pmix_data_buffer_t>(a), as<pmix_data_buffer_t>(b));
        case PMIX_PROC_STATS:
            return pstats(as<pmix_proc_stats_t>(a), as<pmix_proc_stats_t>(b));
        case PMIX_DISK_STATS:
            return dkstats(as<pmix_disk_stats_t>(a), as<pmix_disk_stats_t>(b));
        case PMIX_NET_STATS:
            return netstats(as<pmix_net_stats_t>(a), as<pmix_net_stats_t>(b));
        case PMIX_NODE_STATS:
            return ndstats(as<pmix_node_stats_t>(a), as<pmix_node_stats_t>(b));
        default:
            return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
}

}  // namespace

pmix_value_cmp_t compare_struct(const void* a, const void* b, pmix_data_type_t type) noexcept {
    return dispatch(a, b, type);
}

}  // namespace pmix::data::detail
