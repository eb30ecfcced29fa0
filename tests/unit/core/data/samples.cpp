// samples.cpp - deterministic sample elements for every PMIx data type.
#include "samples.h"

#include <hwloc.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/time.h>

namespace pmix::data::test {
namespace {

char* dup(const std::string& s) { return ::strdup(s.c_str()); }

std::string tag(const char* what, int seed) {
    return std::string(what) + "-" + std::to_string(seed);
}

char** argv_of(std::initializer_list<std::string> items) {
    auto** argv = static_cast<char**>(std::calloc(items.size() + 1, sizeof(char*)));
    std::size_t i = 0;
    for (const std::string& s : items) {
        argv[i++] = dup(s);
    }
    return argv;
}

void fill_bytes(pmix_byte_object_t* bo, int seed) {
    std::string text = tag("bytes", seed);
    bo->size = text.size();
    bo->bytes = static_cast<char*>(std::malloc(bo->size));
    std::memcpy(bo->bytes, text.data(), bo->size);
}

void fill_proc(pmix_proc_t* p, int seed) {
    std::snprintf(p->nspace, sizeof(p->nspace), "ns-%d", seed);
    p->rank = static_cast<pmix_rank_t>(seed);
}

void fill_info(pmix_info_t* info, int seed) {
    int n = seed * 7;
    info_load(info, tag("test.key", seed).c_str(), &n, PMIX_INT);
}

void* infos(std::size_t n, int seed) {
    auto* array = static_cast<pmix_info_t*>(std::calloc(n, sizeof(pmix_info_t)));
    for (std::size_t i = 0; i < n; ++i) {
        fill_info(&array[i], seed + static_cast<int>(i));
    }
    return array;
}

void fill_coord(pmix_coord_t* c, int seed) {
    c->view = PMIX_COORD_LOGICAL_VIEW;
    c->dims = 3;
    c->coord = static_cast<std::uint32_t*>(std::calloc(3, sizeof(std::uint32_t)));
    for (std::uint32_t i = 0; i < 3; ++i) {
        c->coord[i] = static_cast<std::uint32_t>(seed) * 10 + i;
    }
}

void fill_disk(pmix_disk_stats_t* d, int seed) {
    d->disk = dup(tag("sda", seed));
    d->num_reads_completed = static_cast<std::uint64_t>(seed);
    d->weighted_milliseconds_io = static_cast<std::uint64_t>(seed) * 100;
}

void fill_net(pmix_net_stats_t* n, int seed) {
    n->net_interface = dup(tag("eth", seed));
    n->num_bytes_recvd = static_cast<std::uint64_t>(seed) * 1000;
    n->num_send_errs = static_cast<std::uint64_t>(seed);
}

void fill_topology(pmix_topology_t* t, int seed) {
    hwloc_topology_t topo = nullptr;
    hwloc_topology_init(&topo);
    std::string synthetic = "pack:1 core:" + std::to_string(seed) + " pu:2";
    hwloc_topology_set_synthetic(topo, synthetic.c_str());
    hwloc_topology_load(topo);
    t->source = dup("hwloc");
    t->topology = topo;
}

void fill_cpuset(pmix_cpuset_t* c, int seed) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    hwloc_bitmap_set_range(set, 0, seed);
    c->source = dup("hwloc");
    c->bitmap = set;
}

void fill_dbuf(pmix_data_buffer_t* d, int seed) {
    std::string payload = tag("payload", seed);
    d->base_ptr = static_cast<char*>(std::malloc(payload.size()));
    std::memcpy(d->base_ptr, payload.data(), payload.size());
    d->unpack_ptr = d->base_ptr;
    d->pack_ptr = d->base_ptr + payload.size();
    d->bytes_allocated = payload.size();
    d->bytes_used = payload.size();
}

// Fixed-size types: an integer pattern of the element size, chosen so seeds order like values.
void fill_number(void* e, pmix_data_type_t type, int seed) {
    switch (type) {
        case PMIX_BOOL:
            *static_cast<bool*>(e) = (seed % 2) == 1;
            return;
        case PMIX_FLOAT:
            *static_cast<float*>(e) = static_cast<float>(seed) + 0.5f;
            return;
        case PMIX_DOUBLE:
            *static_cast<double*>(e) = seed + 0.25;
            return;
        case PMIX_TIMEVAL: {
            auto* tv = static_cast<struct timeval*>(e);
            tv->tv_sec = seed;
            tv->tv_usec = seed * 10;
            return;
        }
        case PMIX_POINTER:
            *static_cast<void**>(e) = reinterpret_cast<void*>(0x1000u * seed);
            return;
        default:
            break;
    }
    auto n = static_cast<std::uint64_t>(seed);
    std::memcpy(e, &n, element_size(type));  // little-endian: the low bytes carry the seed
}

void fill_struct_more(void* e, pmix_data_type_t type, int seed) {
    switch (type) {
        case PMIX_GEOMETRY: {
            auto* g = static_cast<pmix_geometry_t*>(e);
            g->fabric = static_cast<std::size_t>(seed);
            g->uuid = dup(tag("uuid", seed));
            g->osname = dup(tag("mlx5_", seed));
            g->ncoords = 2;
            g->coordinates = static_cast<pmix_coord_t*>(std::calloc(2, sizeof(pmix_coord_t)));
            fill_coord(&g->coordinates[0], seed);
            fill_coord(&g->coordinates[1], seed + 1);
            return;
        }
        case PMIX_DEVICE_DIST: {
            auto* d = static_cast<pmix_device_distance_t*>(e);
            d->uuid = dup(tag("gpu-uuid", seed));
            d->osname = dup(tag("card", seed));
            d->type = PMIX_DEVTYPE_GPU;
            d->mindist = static_cast<std::uint16_t>(seed);
            d->maxdist = static_cast<std::uint16_t>(seed + 1);
            return;
        }
        case PMIX_ENDPOINT: {
            auto* ep = static_cast<pmix_endpoint_t*>(e);
            ep->uuid = dup(tag("ep-uuid", seed));
            ep->osname = dup(tag("ib", seed));
            fill_bytes(&ep->endpt, seed);
            return;
        }
        case PMIX_PROC_STATS: {
            auto* s = static_cast<pmix_proc_stats_t*>(e);
            s->node = dup(tag("node", seed));
            fill_proc(&s->proc, seed);
            s->pid = 100 + seed;
            s->cmd = dup(tag("a.out", seed));
            s->state = 'R';
            s->percent_cpu = static_cast<float>(seed);
            s->num_threads = static_cast<std::uint16_t>(seed);
            s->sample_time.tv_sec = seed;
            return;
        }
        case PMIX_DISK_STATS:
            fill_disk(static_cast<pmix_disk_stats_t*>(e), seed);
            return;
        case PMIX_NET_STATS:
            fill_net(static_cast<pmix_net_stats_t*>(e), seed);
            return;
        case PMIX_NODE_STATS: {
            auto* n = static_cast<pmix_node_stats_t*>(e);
            n->node = dup(tag("node", seed));
            n->la = static_cast<float>(seed);
            n->total_mem = 1024.0f * seed;
            n->ndiskstats = 1;
            n->diskstats =
                static_cast<pmix_disk_stats_t*>(std::calloc(1, sizeof(pmix_disk_stats_t)));
            fill_disk(n->diskstats, seed);
            n->nnetstats = 1;
            n->netstats = static_cast<pmix_net_stats_t*>(std::calloc(1, sizeof(pmix_net_stats_t)));
            fill_net(n->netstats, seed);
            return;
        }
        case PMIX_DATA_BUFFER:
            fill_dbuf(static_cast<pmix_data_buffer_t*>(e), seed);
            return;
        case PMIX_TOPO:
            fill_topology(static_cast<pmix_topology_t*>(e), seed);
            return;
        case PMIX_PROC_CPUSET:
            fill_cpuset(static_cast<pmix_cpuset_t*>(e), seed);
            return;
        default:
            fill_number(e, type, seed);
            return;
    }
}

// Structs built from other sample parts.
void fill_composite(void* e, pmix_data_type_t type, int seed) {
    switch (type) {
        case PMIX_APP: {
            auto* a = static_cast<pmix_app_t*>(e);
            a->cmd = dup(tag("/bin/app", seed));
            a->argv = argv_of({tag("/bin/app", seed), "-n", std::to_string(seed)});
            a->env = argv_of({tag("VAR=x", seed)});
            a->cwd = dup("/tmp");
            a->maxprocs = seed;
            a->ninfo = 2;
            a->info = static_cast<pmix_info_t*>(infos(2, seed));
            return;
        }
        case PMIX_PDATA: {
            auto* pd = static_cast<pmix_pdata_t*>(e);
            fill_proc(&pd->proc, seed);
            std::snprintf(pd->key, sizeof(pd->key), "pdata.key.%d", seed);
            std::string s = tag("published", seed);
            value_load(&pd->value, s.c_str(), PMIX_STRING);
            return;
        }
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            fill_bytes(static_cast<pmix_byte_object_t*>(e), seed);
            return;
        case PMIX_KVAL: {
            auto* kv = static_cast<kval_t*>(e);
            kv->key = dup(tag("kval", seed));
            kv->value = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
            value_load(kv->value, &seed, PMIX_INT);
            return;
        }
        case PMIX_PROC_INFO: {
            auto* pi = static_cast<pmix_proc_info_t*>(e);
            fill_proc(&pi->proc, seed);
            pi->hostname = dup(tag("host", seed));
            pi->executable_name = dup(tag("exe", seed));
            pi->pid = 1000 + seed;
            pi->exit_code = seed;
            pi->state = PMIX_PROC_STATE_RUNNING;
            return;
        }
        case PMIX_QUERY: {
            auto* q = static_cast<pmix_query_t*>(e);
            q->keys = argv_of({tag("query.key", seed), "pmix.qry.ns"});
            q->nqual = 1;
            q->qualifiers = static_cast<pmix_info_t*>(infos(1, seed));
            return;
        }
        case PMIX_REGATTR: {
            auto* ra = static_cast<pmix_regattr_t*>(e);
            ra->name = dup(tag("PMIX_TEST_ATTR", seed));
            std::snprintf(ra->string, sizeof(ra->string), "pmix.test.%d", seed);
            ra->type = PMIX_UINT32;
            ra->description = argv_of({"first line", tag("second line", seed)});
            return;
        }
        default:
            fill_struct_more(e, type, seed);
            return;
    }
}

void fill_struct(void* e, pmix_data_type_t type, int seed) {
    switch (type) {
        case PMIX_STRING:
            *static_cast<char**>(e) = dup(tag("string", seed));
            return;
        case PMIX_REGEX:
            *static_cast<char**>(e) = dup("pmix[node" + std::to_string(seed) + "]");
            return;
        case PMIX_VALUE: {
            std::string s = tag("inner", seed);
            value_load(static_cast<pmix_value_t*>(e), s.c_str(), PMIX_STRING);
            return;
        }
        case PMIX_INFO:
            fill_info(static_cast<pmix_info_t*>(e), seed);
            return;
        case PMIX_PROC:
            fill_proc(static_cast<pmix_proc_t*>(e), seed);
            return;
        case PMIX_PROC_NSPACE:
            std::snprintf(static_cast<char*>(e), sizeof(pmix_nspace_t), "nspace-%d", seed);
            return;
        case PMIX_DATA_ARRAY: {
            auto* d = static_cast<pmix_data_array_t*>(e);
            data_array_init(d, 3, PMIX_STRING);
            for (int i = 0; i < 3; ++i) {
                static_cast<char**>(d->array)[i] = dup(tag("elem", seed * 10 + i));
            }
            return;
        }
        case PMIX_ENVAR: {
            auto* ev = static_cast<pmix_envar_t*>(e);
            ev->envar = dup(tag("PATH", seed));
            ev->value = dup(tag("/opt/bin", seed));
            ev->separator = ':';
            return;
        }
        case PMIX_COORD:
            fill_coord(static_cast<pmix_coord_t*>(e), seed);
            return;
        default:
            fill_composite(e, type, seed);
            return;
    }
}

}  // namespace

const std::vector<pmix_data_type_t>& all_types() {
    static const std::vector<pmix_data_type_t> types = [] {
        std::vector<pmix_data_type_t> t;
        for (pmix_data_type_t type = PMIX_BOOL; type <= PMIX_STOR_ACCESS_TYPE; ++type) {
            if (type != 26 && type != 29 && type != 44) {  // removed BUFFER, MODEX, INFO_ARRAY
                t.push_back(type);
            }
        }
        return t;
    }();
    return types;
}

void fill(void* element, pmix_data_type_t type, int seed) { fill_struct(element, type, seed); }

Element::Element(pmix_data_type_t type, int seed)
    : type_(type), storage_(std::calloc(1, element_size(type) + 1)) {
    fill(storage_, type, seed);
}

Element::~Element() {
    destruct_element(storage_, type_);
    std::free(storage_);
}

const void* Element::load_arg() const {
    if (type_ == PMIX_STRING || type_ == PMIX_REGEX || type_ == PMIX_POINTER) {
        return *static_cast<void* const*>(storage_);
    }
    return storage_;
}

const void* Element::copy_arg() const {
    if (type_ == PMIX_STRING || type_ == PMIX_REGEX) {
        return *static_cast<void* const*>(storage_);
    }
    return storage_;
}

std::string type_name(pmix_data_type_t type) {
    std::string out;
    pmix_data_type_t t = type;
    if (print(out, "", &t, PMIX_DATA_TYPE) != PMIX_SUCCESS) {
        return "?";
    }
    return out.substr(out.rfind(' ') + 1);  // "Data type: PMIX_DATA_TYPE\tValue: <name>"
}

}  // namespace pmix::data::test
