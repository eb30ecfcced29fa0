// core/data/print_structs.cpp - rendering of the struct element types (info, arrays, apps,
// queries, fabric and statistics structs). Nested objects are printed with a deeper prefix.
#include "data/detail.h"
#include "data/names.h"
#include "data/render.h"
#include "data/value.h"

#include <cinttypes>

namespace pmix::data::detail {
namespace {

const char* or_null(const char* s) { return s != nullptr ? s : "NULL"; }

std::string info_text(const char* prefix, const pmix_info_t* info) {
    std::string value;
    render_value(value, prefix, &info->value);
    std::string dirs = format("%sData type: PMIX_INFO_DIRECTIVES\tValue: %s", pfx(prefix),
                              names::info_directives(info->flags));
    std::string key(info->key, ::strnlen(info->key, PMIX_MAX_KEYLEN));
    return format("%sKEY: %s\n%s\t%s\n%s\t%s", pfx(prefix), names::attribute_name(key.c_str()),
                  pfx(prefix), dirs.c_str(), pfx(prefix), value.c_str());
}

std::string app_text(const char* prefix, const pmix_app_t* a) {
    std::string out = format("%sData type: PMIX_APP\tCmd: %s\tMaxprocs: %d\tCwd: %s", pfx(prefix),
                             or_null(a->cmd), a->maxprocs, or_null(a->cwd));
    std::string sub = std::string(pfx(prefix)) + "\t";
    for (std::size_t i = 0; a->argv != nullptr && a->argv[i] != nullptr; ++i) {
        out += format("\n%sArgv[%zu]: %s", sub.c_str(), i, a->argv[i]);
    }
    for (std::size_t i = 0; a->env != nullptr && a->env[i] != nullptr; ++i) {
        out += format("\n%sEnv[%zu]: %s", sub.c_str(), i, a->env[i]);
    }
    for (std::size_t i = 0; a->info != nullptr && i < a->ninfo; ++i) {
        out += "\n" + info_text(sub.c_str(), &a->info[i]);
    }
    return out;
}

std::string pdata_text(const char* prefix, const pmix_pdata_t* pd) {
    std::string proc;
    std::string value;
    render(proc, prefix, &pd->proc, PMIX_PROC);
    render_value(value, prefix, &pd->value);
    std::string key(pd->key, ::strnlen(pd->key, PMIX_MAX_KEYLEN));
    return format("%s  %s  KEY: %s %s", pfx(prefix), proc.c_str(),
                  names::attribute_name(key.c_str()), value.c_str());
}

std::string kval_text(const char* prefix, const kval_t* kv) {
    std::string value;
    render_value(value, nullptr, kv->value);
    return format("%sData type: PMIX_KVAL\tKey: %s\t%s", pfx(prefix), or_null(kv->key),
                  value.c_str());
}

std::string pinfo_text(const char* prefix, const pmix_proc_info_t* pi) {
    std::string sub = std::string(pfx(prefix)) + "\t";
    std::string proc;
    render(proc, sub.c_str(), &pi->proc, PMIX_PROC);
    return format(
        "%sData type: PMIX_PROC_INFO\tValue:\n%s\n%sHostname: %s\tExecutable: %s\n"
        "%sPid: %ld\tExit code: %d\tState: %s",
        pfx(prefix), proc.c_str(), sub.c_str(), or_null(pi->hostname), or_null(pi->executable_name),
        sub.c_str(), static_cast<long>(pi->pid), pi->exit_code, names::proc_state(pi->state));
}

pmix_status_t darray_text(std::string& out, const char* prefix, const pmix_data_array_t* d) {
    std::string body;
    std::size_t size = element_size(d->type);
    for (std::size_t i = 0; d->array != nullptr && size != 0 && i < d->size; ++i) {
        std::string item;
        const char* e = static_cast<const char*>(d->array) + i * size;
        if (render(item, prefix, e, d->type) != PMIX_SUCCESS) {
            item = format(" Data type: %s(%d)\tValue: UNPRINTABLE", names::data_type(d->type),
                          static_cast<int>(d->type));
        }
        body += body.empty() ? item : "\n" + std::string(pfx(prefix)) + item;
    }
    out = format("%sData type: PMIX_DATA_ARRAY\tType: %s\tSize: %zu\n%s%s", pfx(prefix),
                 names::data_type(d->type), d->size, pfx(prefix),
                 body.empty() ? "NULL" : body.c_str());
    return PMIX_SUCCESS;
}

std::string query_text(const char* prefix, const pmix_query_t* q) {
    std::string sub = std::string(pfx(prefix)) + "\t";
    std::string out = format("%sData type: PMIX_QUERY\tValue:", pfx(prefix));
    for (std::size_t i = 0; q->keys != nullptr && q->keys[i] != nullptr; ++i) {
        out += format("\n%sKey: %s", sub.c_str(), q->keys[i]);
    }
    for (std::size_t i = 0; q->qualifiers != nullptr && i < q->nqual; ++i) {
        out += "\n" + info_text(sub.c_str(), &q->qualifiers[i]);
    }
    return out;
}

std::string coord_text(const char* prefix, const pmix_coord_t* c) {
    const char* view = c->view == PMIX_COORD_VIEW_UNDEF      ? "UNDEF"
                       : c->view == PMIX_COORD_LOGICAL_VIEW  ? "LOGICAL"
                       : c->view == PMIX_COORD_PHYSICAL_VIEW ? "PHYSICAL"
                                                             : "UNRECOGNIZED";
    return format("%sData type: PMIX_COORD\tView: %s\tDims: %zu", pfx(prefix), view, c->dims);
}

std::string geometry_text(const char* prefix, const pmix_geometry_t* g) {
    std::string out = format("%sData type: PMIX_GEOMETRY\tValue: Fabric: %zu UUID: %s OSName: %s",
                             pfx(prefix), g->fabric, or_null(g->uuid), or_null(g->osname));
    for (std::size_t i = 0; g->coordinates != nullptr && i < g->ncoords; ++i) {
        out += "\n" + coord_text(prefix, &g->coordinates[i]);
    }
    return out;
}

pmix_status_t hwloc_text(std::string& out, const char* prefix, const void* e,
                         pmix_data_type_t type) {
    char* text = nullptr;
    bool fine = type == PMIX_TOPO ? topology_text(static_cast<const pmix_topology_t*>(e), &text)
                                  : cpuset_text(static_cast<const pmix_cpuset_t*>(e), &text);
    if (!fine) {
        std::free(text);
        return PMIX_ERR_NOT_SUPPORTED;  // not an hwloc object: nothing we can render
    }
    out = format("%sData type: %s\tValue: %s", pfx(prefix),
                 type == PMIX_TOPO ? "PMIX_TOPO" : "PMIX_CPUSET", text);
    std::free(text);
    return PMIX_SUCCESS;
}

std::string pstats_text(const char* prefix, const pmix_proc_stats_t* s) {
    std::string proc;
    render(proc, "", &s->proc, PMIX_PROC);
    return format(
        "%sPMIX_PROC_STATS SAMPLED AT: %ld.%06ld\n%snode: %s proc: %s pid: %ld cmd: %s "
        "state: %c pri: %d #threads: %d Processor: %d\n%s\ttime: %ld.%06ld cpu: %5.2f  "
        "PSS: %8.2f  VMsize: %8.2f PeakVMSize: %8.2f RSS: %8.2f\n",
        pfx(prefix), static_cast<long>(s->sample_time.tv_sec),
        static_cast<long>(s->sample_time.tv_usec), pfx(prefix), or_null(s->node),
        proc.c_str() + 6 /* drop "PROC: " */, static_cast<long>(s->pid), or_null(s->cmd),
        s->state != '\0' ? s->state : '-', s->priority, s->num_threads, s->processor, pfx(prefix),
        static_cast<long>(s->time.tv_sec), static_cast<long>(s->time.tv_usec),
        double(s->percent_cpu), double(s->pss), double(s->vsize), double(s->peak_vsize),
        double(s->rss));
}

std::string dkstats_text(const char* prefix, const pmix_disk_stats_t* d) {
    const char* p = pfx(prefix);
    return format("%sPMIX_DISK_STATS Disk: %s\n%sNumReadsCompleted: %" PRIu64
                  " NumReadsMerged: %" PRIu64 " NumSectorsRead: %" PRIu64
                  " MillisecReading: %" PRIu64 "\n%sNumWritesCompleted: %" PRIu64
                  " NumWritesMerged: %" PRIu64 " NumSectorsWrote: %" PRIu64
                  " MillisecWriting: %" PRIu64 "\n%sNumIOsInProgress: %" PRIu64
                  " MillisecondsIO: %" PRIu64 " WeightedMillisecsIO: %" PRIu64 "\n",
                  p, or_null(d->disk), p, d->num_reads_completed, d->num_reads_merged,
                  d->num_sectors_read, d->milliseconds_reading, p, d->num_writes_completed,
                  d->num_writes_merged, d->num_sectors_written, d->milliseconds_writing, p,
                  d->num_ios_in_progress, d->milliseconds_io, d->weighted_milliseconds_io);
}

std::string netstats_text(const char* prefix, const pmix_net_stats_t* n) {
    const char* p = pfx(prefix);
    return format("%sPMIX_NET_STATS Interface: %s\n%sNumBytesRecvd: %" PRIu64
                  " NumPacketsRecv: %" PRIu64 " NumRecvErrors: %" PRIu64
                  "\n%sNumBytesSent: %" PRIu64 " NumPacketsSent: %" PRIu64
                  " NumSendErrors: %" PRIu64 "\n",
                  p, or_null(n->net_interface), p, n->num_bytes_recvd, n->num_packets_recvd,
                  n->num_recv_errs, p, n->num_bytes_sent, n->num_packets_sent, n->num_send_errs);
}

std::string ndstats_text(const char* prefix, const pmix_node_stats_t* n) {
    const char* p = pfx(prefix);
    std::string out = format(
        "%sPMIX_NODE_STATS SAMPLED AT: %ld.%06ld\tNode: %s\n%sTotal Mem: %5.2f Free Mem: %5.2f "
        "Buffers: %5.2f Cached: %5.2f\n%sSwapCached: %5.2f SwapTotal: %5.2f SwapFree: %5.2f "
        "Mapped: %5.2f\n%s\tla: %5.2f\tla5: %5.2f\tla15: %5.2f\n",
        p, static_cast<long>(n->sample_time.tv_sec), static_cast<long>(n->sample_time.tv_usec),
        or_null(n->node), p, double(n->total_mem), double(n->free_mem), double(n->buffers),
        double(n->cached), p, double(n->swap_cached), double(n->swap_total), double(n->swap_free),
        double(n->mapped), p, double(n->la), double(n->la5), double(n->la15));
    for (std::size_t i = 0; n->diskstats != nullptr && i < n->ndiskstats; ++i) {
        out += dkstats_text(prefix, &n->diskstats[i]);
    }
    for (std::size_t i = 0; n->netstats != nullptr && i < n->nnetstats; ++i) {
        out += netstats_text(prefix, &n->netstats[i]);
    }
    return out;
}

template <typename T>
const T* as(const void* p) {
    return static_cast<const T*>(p);
}

}  // namespace

pmix_status_t render_struct(std::string& out, const char* prefix, const void* e,
                            pmix_data_type_t type) {
    const char* p = pfx(prefix);
    switch (type) {
        case PMIX_REGEX:
            out = format("%sData type: PMIX_REGEX\tName: %s", p, or_null(*as<char*>(e)));
            break;
        case PMIX_INFO:
            out = info_text(prefix, as<pmix_info_t>(e));
            break;
        case PMIX_APP:
            out = app_text(prefix, as<pmix_app_t>(e));
            break;
        case PMIX_PDATA:
            out = pdata_text(prefix, as<pmix_pdata_t>(e));
            break;
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            out = format("%sData type: %s\tSize: %zu", p, names::data_type(type),
                         as<pmix_byte_object_t>(e)->size);
            break;
        case PMIX_KVAL:
            out = kval_text(prefix, as<kval_t>(e));
            break;
        case PMIX_PROC_INFO:
            out = pinfo_text(prefix, as<pmix_proc_info_t>(e));
            break;
        case PMIX_DATA_ARRAY:
            return darray_text(out, prefix, as<pmix_data_array_t>(e));
        case PMIX_QUERY:
            out = query_text(prefix, as<pmix_query_t>(e));
            break;
        case PMIX_ENVAR: {
            const auto* ev = as<pmix_envar_t>(e);
            out = format("%sData type: PMIX_ENVAR\tName: %s\tValue: %s\tSeparator: %c", p,
                         or_null(ev->envar), or_null(ev->value),
                         ev->separator == '\0' ? ' ' : ev->separator);
            break;
        }
        case PMIX_COORD:
            out = coord_text(prefix, as<pmix_coord_t>(e));
            break;
        case PMIX_REGATTR: {
            const auto* ra = as<pmix_regattr_t>(e);
            std::string key(ra->string, ::strnlen(ra->string, PMIX_MAX_KEYLEN));
            out = format("%sData type: PMIX_REGATTR\tName: %s\tString: %s", p, or_null(ra->name),
                         key.empty() ? "NULL" : key.c_str());
            break;
        }
        case PMIX_PROC_CPUSET:
        case PMIX_TOPO:
            return hwloc_text(out, prefix, e, type);
        case PMIX_GEOMETRY:
            out = geometry_text(prefix, as<pmix_geometry_t>(e));
            break;
        case PMIX_DEVICE_DIST: {
            const auto* d = as<pmix_device_distance_t>(e);
            out = format(
                "%sData type: PMIX_DEVICE_DIST\tValue: UUID: %s OSName: %s Type: %s Min: %u "
                "Max: %u",
                p, or_null(d->uuid), or_null(d->osname), names::device_type(d->type),
                unsigned(d->mindist), unsigned(d->maxdist));
            break;
        }
        case PMIX_ENDPOINT: {
            const auto* ep = as<pmix_endpoint_t>(e);
            out = format("%sData type: PMIX_ENDPOINT\tValue: %s(%s) #bytes: %zu", p,
                         or_null(ep->uuid), or_null(ep->osname), ep->endpt.size);
            break;
        }
        case PMIX_DATA_BUFFER:
            out = format("%sPMIX_DATA_BUFFER NumBytesUsed: %zu", p,
                         as<pmix_data_buffer_t>(e)->bytes_used);
            break;
        case PMIX_PROC_STATS:
            out = pstats_text(prefix, as<pmix_proc_stats_t>(e));
            break;
        case PMIX_DISK_STATS:
            out = dkstats_text(prefix, as<pmix_disk_stats_t>(e));
            break;
        case PMIX_NET_STATS:
            out = netstats_text(prefix, as<pmix_net_stats_t>(e));
            break;
        case PMIX_NODE_STATS:
            out = ndstats_text(prefix, as<pmix_node_stats_t>(e));
            break;
        default:
            return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    return PMIX_SUCCESS;
}

}  // namespace pmix::data::detail
