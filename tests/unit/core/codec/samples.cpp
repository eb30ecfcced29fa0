// tests/unit/core/codec/samples.cpp - sample builders for every PMIx data type.
#include "samples.h"

#include "codec/codec.h"
#include "data/value.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

namespace codec_test {
namespace {

char* dup(const char* s) { return s == nullptr ? nullptr : ::strdup(s); }

char** argv_of(std::initializer_list<const char*> items) {
    auto** argv = static_cast<char**>(std::calloc(items.size() + 1, sizeof(char*)));
    std::size_t i = 0;
    for (const char* s : items) {
        argv[i++] = dup(s);
    }
    return argv;
}

template <typename T>
T* array_of(pmix_data_type_t type, std::size_t n, int first_variant) {
    auto* arr = static_cast<T*>(std::calloc(n, sizeof(T)));
    for (std::size_t i = 0; i < n; ++i) {
        fill(type, &arr[i], first_variant + static_cast<int>(i));
    }
    return arr;
}

// Scalars: a distinct bit pattern per variant, including all-zero and all-ones.
void fill_bytes(void* e, std::size_t width, int k) {
    auto* p = static_cast<unsigned char*>(e);
    for (std::size_t i = 0; i < width; ++i) {
        switch (k % kVariants) {
            case 0:
                p[i] = 0;
                break;
            case 1:
                p[i] = 0xFF;
                break;
            case 2:
                p[i] = static_cast<unsigned char>(i + 1);
                break;
            default:
                p[i] = i + 1 == width ? 0x80 : 0x5A;
                break;
        }
    }
}

std::string long_string(std::size_t n, char c) { return std::string(n, c); }

void fill_proc(pmix_proc_t* p, int k) {
    std::memset(p, 0, sizeof(*p));
    switch (k % kVariants) {
        case 0:
            p->rank = 0;
            break;
        case 1:
            std::strcpy(p->nspace, "job-1");
            p->rank = PMIX_RANK_WILDCARD;
            break;
        case 2:
            std::memset(p->nspace, 'n', PMIX_MAX_NSLEN);
            p->rank = 7;
            break;
        default:
            std::strcpy(p->nspace, "x");
            p->rank = PMIX_RANK_UNDEF;
            break;
    }
}

void fill_info(pmix_info_t* info, int k) {
    std::memset(info, 0, sizeof(*info));
    if (k % kVariants == 2) {
        std::memset(info->key, 'k', PMIX_MAX_KEYLEN);  // the longest legal key
    } else {
        std::snprintf(info->key, sizeof(info->key), "pmix.test.%d", k);
    }
    // Any directive bits except PERSISTENT, which would make the sample not own its value.
    info->flags = (static_cast<pmix_info_directives_t>(k) * 0x10003u) & ~PMIX_INFO_PERSISTENT;
    fill(PMIX_VALUE, &info->value, k);
}

// Values: UNDEF, a number, a string, a boxed proc, then nested arrays.
void fill_value(pmix_value_t* v, int k) {
    std::memset(v, 0, sizeof(*v));
    switch (k % 6) {
        case 0:
            break;
        case 1:
            make_value(v, PMIX_INT32, 2);
            break;
        case 2:
            make_value(v, PMIX_STRING, 2);
            break;
        case 3:
            make_value(v, PMIX_PROC, 1);
            break;
        case 4:
            make_value(v, PMIX_DATA_ARRAY, 2);
            break;
        default:
            make_value(v, PMIX_DATA_ARRAY, 3);
            break;
    }
}

void fill_darray(pmix_data_array_t* d, int k) {
    std::memset(d, 0, sizeof(*d));
    switch (k % kVariants) {
        case 0:
            break;
        case 1:
            d->type = PMIX_UINT32;
            d->size = 3;
            d->array = array_of<std::uint32_t>(PMIX_UINT32, 3, 1);
            break;
        case 2:
            d->type = PMIX_STRING;
            d->size = 3;
            d->array = array_of<char*>(PMIX_STRING, 3, 0);
            break;
        default:
            // infos whose values are a proc and an array of strings: three levels deep
            d->type = PMIX_INFO;
            d->size = 2;
            d->array = array_of<pmix_info_t>(PMIX_INFO, 2, 3);
            break;
    }
}

void fill_app(pmix_app_t* a, int k) {
    std::memset(a, 0, sizeof(*a));
    if (k % 2 == 0) {
        return;
    }
    a->cmd = dup("a.out");
    a->argv = argv_of({"a.out", "-x", ""});
    a->env = argv_of({"A=1"});
    a->cwd = dup("/tmp");
    a->maxprocs = -4 + k;
    a->ninfo = 2;
    a->info = array_of<pmix_info_t>(PMIX_INFO, 2, 1);
}

void fill_query(pmix_query_t* q, int k) {
    std::memset(q, 0, sizeof(*q));
    if (k % 2 == 0) {
        return;
    }
    q->keys = argv_of({"pmix.qry.a", "pmix.qry.b"});
    q->nqual = 1;
    q->qualifiers = array_of<pmix_info_t>(PMIX_INFO, 1, 4);
}

void fill_coord(pmix_coord_t* c, int k) {
    std::memset(c, 0, sizeof(*c));
    if (k % 2 == 0) {
        return;
    }
    c->view = PMIX_COORD_LOGICAL_VIEW;
    c->dims = 3;
    c->coord = static_cast<std::uint32_t*>(std::calloc(3, sizeof(std::uint32_t)));
    for (std::uint32_t i = 0; i < 3; ++i) {
        c->coord[i] = 100 * static_cast<std::uint32_t>(k) + i;
    }
}

void fill_geometry(pmix_geometry_t* g, int k) {
    std::memset(g, 0, sizeof(*g));
    if (k % 2 == 0) {
        return;
    }
    g->fabric = 7;
    g->uuid = dup("uuid-1");
    g->osname = dup("eth0");
    g->ncoords = 2;
    g->coordinates = array_of<pmix_coord_t>(PMIX_COORD, 2, 1);
}

void fill_cpuset(pmix_cpuset_t* c, int k) {
    std::memset(c, 0, sizeof(*c));
    static const char* const lists[] = {nullptr, "0-3,8", "", "2,5-"};
    const char* list = lists[k % kVariants];
    if (list == nullptr) {
        return;
    }
    c->source = dup("hwloc");
    auto bm = hwloc_bitmap_alloc();
    hwloc_bitmap_list_sscanf(bm, list);
    c->bitmap = bm;
}

void fill_topology(pmix_topology_t* t, int k) {
    std::memset(t, 0, sizeof(*t));
    if (k % 2 == 0) {
        return;
    }
    hwloc_topology_t copy = nullptr;
    if (hwloc_topology_dup(&copy, machine_topology()) != 0) {
        throw std::runtime_error("hwloc_topology_dup failed");
    }
    t->source = dup("hwloc");
    t->topology = copy;
}

void fill_pstats(pmix_proc_stats_t* s, int k) {
    std::memset(s, 0, sizeof(*s));
    if (k % 2 == 0) {
        return;
    }
    s->node = dup("node01");
    fill_proc(&s->proc, k);
    s->pid = 4242;
    s->cmd = dup("/bin/app");
    s->state = 'R';
    s->time = {12, 345};
    s->percent_cpu = 99.5f;
    s->priority = -5;
    s->num_threads = 17;
    s->pss = 1.5f;
    s->vsize = 2.5f;
    s->rss = 3.5f;
    s->peak_vsize = 4.5f;
    s->processor = 3;
    s->sample_time = {1700000000, 999999};
}

void fill_dkstats(pmix_disk_stats_t* s, int k) {
    std::memset(s, 0, sizeof(*s));
    s->disk = k % 2 == 0 ? nullptr : dup("sda");
    std::uint64_t* first = &s->num_reads_completed;
    for (int i = 0; i < 11; ++i) {
        first[i] = static_cast<std::uint64_t>(k) * 1000 + static_cast<std::uint64_t>(i);
    }
}

void fill_netstats(pmix_net_stats_t* s, int k) {
    std::memset(s, 0, sizeof(*s));
    s->net_interface = k % 2 == 0 ? nullptr : dup("ib0");
    std::uint64_t* first = &s->num_bytes_recvd;
    for (int i = 0; i < 6; ++i) {
        first[i] = std::numeric_limits<std::uint64_t>::max() - static_cast<std::uint64_t>(k + i);
    }
}

void fill_ndstats(pmix_node_stats_t* s, int k) {
    std::memset(s, 0, sizeof(*s));
    if (k % 2 == 0) {
        return;
    }
    s->node = dup("node02");
    s->la = 0.5f;
    s->la5 = 1.25f;
    s->la15 = 2.0f;
    s->total_mem = 1024.0f;
    s->free_mem = 512.0f;
    s->mapped = 7.0f;
    s->sample_time = {5, 6};
    s->ndiskstats = 2;
    s->diskstats = array_of<pmix_disk_stats_t>(PMIX_DISK_STATS, 2, 0);
    s->nnetstats = 1;
    s->netstats = array_of<pmix_net_stats_t>(PMIX_NET_STATS, 1, 1);
}

void fill_dbuf(pmix_data_buffer_t* b, int k) {
    std::memset(b, 0, sizeof(*b));
    if (k % 2 == 0) {
        return;
    }
    std::int32_t n = 7 * k;
    const char* s = "inner";
    pmix::codec::pack(b, &n, 1, PMIX_INT32);
    pmix::codec::pack(b, &s, 1, PMIX_STRING);
}

void fill_bo(pmix_byte_object_t* bo, int k) {
    std::memset(bo, 0, sizeof(*bo));
    switch (k % kVariants) {
        case 0:
            break;
        case 1:
            bo->bytes = static_cast<char*>(std::malloc(4));
            std::memcpy(bo->bytes, "\0a\0b", 4);  // embedded NULs must survive
            bo->size = 4;
            break;
        default:
            bo->size = 1000u * static_cast<std::size_t>(k);
            bo->bytes = static_cast<char*>(std::malloc(bo->size));
            for (std::size_t i = 0; i < bo->size; ++i) {
                bo->bytes[i] = static_cast<char>(i * 7);
            }
            break;
    }
}

void fill_string(char** s, int k) {
    switch (k % kVariants) {
        case 0:
            *s = nullptr;
            break;
        case 1:
            *s = dup("");
            break;
        case 2:
            *s = dup("hello, world");
            break;
        default:
            *s = dup(long_string(5000, 's').c_str());
            break;
    }
}

void fill_scalar_special(pmix_data_type_t type, void* e, int k) {
    int v = k % kVariants;
    if (type == PMIX_BOOL) {
        *static_cast<bool*>(e) = v % 2 == 1;
    } else if (type == PMIX_FLOAT) {
        const float f[] = {0.0f, -1.5f, 3.25e10f, std::numeric_limits<float>::infinity()};
        *static_cast<float*>(e) = f[v];
    } else if (type == PMIX_DOUBLE) {
        const double d[] = {0.0, -2.75, 1e300, -std::numeric_limits<double>::denorm_min()};
        *static_cast<double*>(e) = d[v];
    } else if (type == PMIX_TIMEVAL) {
        auto* tv = static_cast<struct timeval*>(e);
        tv->tv_sec = v == 3 ? -1 : 1700000000 + v;
        tv->tv_usec = 999999 - v;
    } else {
        fill_bytes(e, pmix::data::element_size(type), k);
    }
}

}  // namespace

std::vector<pmix_data_type_t> all_types() {
    std::vector<pmix_data_type_t> types;
    for (pmix_data_type_t t = PMIX_BOOL; t <= PMIX_STOR_ACCESS_TYPE; ++t) {
        if (t != 26 && t != 29 && t != 44) {
            types.push_back(t);
        }
    }
    return types;
}

std::string type_name(pmix_data_type_t type) {
    static const char* const names[] = {"UNDEF",
                                        "BOOL",
                                        "BYTE",
                                        "STRING",
                                        "SIZE",
                                        "PID",
                                        "INT",
                                        "INT8",
                                        "INT16",
                                        "INT32",
                                        "INT64",
                                        "UINT",
                                        "UINT8",
                                        "UINT16",
                                        "UINT32",
                                        "UINT64",
                                        "FLOAT",
                                        "DOUBLE",
                                        "TIMEVAL",
                                        "TIME",
                                        "STATUS",
                                        "VALUE",
                                        "PROC",
                                        "APP",
                                        "INFO",
                                        "PDATA",
                                        "BUFFER",
                                        "BYTE_OBJECT",
                                        "KVAL",
                                        "MODEX",
                                        "PERSIST",
                                        "POINTER",
                                        "SCOPE",
                                        "DATA_RANGE",
                                        "COMMAND",
                                        "INFO_DIRECTIVES",
                                        "DATA_TYPE",
                                        "PROC_STATE",
                                        "PROC_INFO",
                                        "DATA_ARRAY",
                                        "PROC_RANK",
                                        "QUERY",
                                        "COMPRESSED_STRING",
                                        "ALLOC_DIRECTIVE",
                                        "INFO_ARRAY",
                                        "IOF_CHANNEL",
                                        "ENVAR",
                                        "COORD",
                                        "REGATTR",
                                        "REGEX",
                                        "JOB_STATE",
                                        "LINK_STATE",
                                        "PROC_CPUSET",
                                        "GEOMETRY",
                                        "DEVICE_DIST",
                                        "ENDPOINT",
                                        "TOPO",
                                        "DEVTYPE",
                                        "LOCTYPE",
                                        "COMPRESSED_BYTE_OBJECT",
                                        "PROC_NSPACE",
                                        "PROC_STATS",
                                        "DISK_STATS",
                                        "NET_STATS",
                                        "NODE_STATS",
                                        "DATA_BUFFER",
                                        "STOR_MEDIUM",
                                        "STOR_ACCESS",
                                        "STOR_PERSIST",
                                        "STOR_ACCESS_TYPE"};
    if (type < sizeof(names) / sizeof(names[0])) {
        return std::string("PMIX_") + names[type];
    }
    return "type_" + std::to_string(type);
}

void fill(pmix_data_type_t type, void* e, int k) {
    switch (type) {
        case PMIX_STRING:
            fill_string(static_cast<char**>(e), k);
            break;
        case PMIX_REGEX: {
            static const char* const rx[] = {nullptr, "pmix[node[2:1-3]]", "",
                                             "pmix[n[3:0-99,200]]@0(4)"};
            *static_cast<char**>(e) = dup(rx[k % kVariants]);
            break;
        }
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            fill_bo(static_cast<pmix_byte_object_t*>(e), k);
            break;
        case PMIX_PROC_NSPACE: {
            auto* ns = static_cast<pmix_nspace_t*>(e);
            std::memset(*ns, 0, sizeof(pmix_nspace_t));
            if (k % 3 == 1) {
                std::strcpy(*ns, "ns-1");
            } else if (k % 3 == 2) {
                std::memset(*ns, 'z', PMIX_MAX_NSLEN);
            }
            break;
        }
        case PMIX_POINTER: {
            static int target = 0;
            *static_cast<void**>(e) = k % 2 == 1 ? &target : nullptr;
            break;
        }
        case PMIX_ENVAR: {
            auto* ev = static_cast<pmix_envar_t*>(e);
            ev->envar = k % 2 == 1 ? dup("PATH") : nullptr;
            ev->value = k % 2 == 1 ? dup("/bin:/usr/bin") : nullptr;
            ev->separator = k % 2 == 1 ? ':' : '\0';
            break;
        }
        case PMIX_PROC:
            fill_proc(static_cast<pmix_proc_t*>(e), k);
            break;
        case PMIX_PROC_INFO: {
            auto* p = static_cast<pmix_proc_info_t*>(e);
            fill_proc(&p->proc, k);
            p->hostname = k % 2 == 1 ? dup("host") : nullptr;
            p->executable_name = k % 2 == 1 ? dup("exe") : nullptr;
            p->pid = 1000 + k;
            p->exit_code = -k;
            p->state = static_cast<pmix_proc_state_t>(k * 10);
            break;
        }
        case PMIX_COORD:
            fill_coord(static_cast<pmix_coord_t*>(e), k);
            break;
        case PMIX_GEOMETRY:
            fill_geometry(static_cast<pmix_geometry_t*>(e), k);
            break;
        case PMIX_DEVICE_DIST: {
            auto* d = static_cast<pmix_device_distance_t*>(e);
            d->uuid = k % 2 == 1 ? dup("gpu-uuid") : nullptr;
            d->osname = k % 2 == 1 ? dup("card0") : nullptr;
            d->type = PMIX_DEVTYPE_GPU;
            d->mindist = static_cast<std::uint16_t>(k);
            d->maxdist = 0xFFFF;
            break;
        }
        case PMIX_ENDPOINT: {
            auto* ep = static_cast<pmix_endpoint_t*>(e);
            ep->uuid = k % 2 == 1 ? dup("nic-uuid") : nullptr;
            ep->osname = k % 2 == 1 ? dup("hfi1_0") : nullptr;
            fill_bo(&ep->endpt, k);
            break;
        }
        case PMIX_REGATTR: {
            auto* a = static_cast<pmix_regattr_t*>(e);
            if (k % 2 == 1) {
                a->name = dup("PMIX_TIMEOUT");
                std::strcpy(a->string, "pmix.timeout");
                a->type = PMIX_INT;
                a->description = argv_of({"first line", "second line"});
            }
            break;
        }
        case PMIX_VALUE:
            fill_value(static_cast<pmix_value_t*>(e), k);
            break;
        case PMIX_INFO:
            fill_info(static_cast<pmix_info_t*>(e), k);
            break;
        case PMIX_PDATA: {
            auto* pd = static_cast<pmix_pdata_t*>(e);
            fill_proc(&pd->proc, k);
            std::snprintf(pd->key, sizeof(pd->key), "pdata.%d", k);
            fill_value(&pd->value, k);
            break;
        }
        case PMIX_KVAL: {
            auto* kv = static_cast<pmix::data::kval_t*>(e);
            kv->key = k % 2 == 1 ? dup("kval.key") : nullptr;
            if (k % kVariants >= 2) {
                kv->value = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
                fill_value(kv->value, k + 1);
            }
            break;
        }
        case PMIX_DATA_ARRAY:
            fill_darray(static_cast<pmix_data_array_t*>(e), k);
            break;
        case PMIX_APP:
            fill_app(static_cast<pmix_app_t*>(e), k);
            break;
        case PMIX_QUERY:
            fill_query(static_cast<pmix_query_t*>(e), k);
            break;
        case PMIX_PROC_CPUSET:
            fill_cpuset(static_cast<pmix_cpuset_t*>(e), k);
            break;
        case PMIX_TOPO:
            fill_topology(static_cast<pmix_topology_t*>(e), k);
            break;
        case PMIX_PROC_STATS:
            fill_pstats(static_cast<pmix_proc_stats_t*>(e), k);
            break;
        case PMIX_DISK_STATS:
            fill_dkstats(static_cast<pmix_disk_stats_t*>(e), k);
            break;
        case PMIX_NET_STATS:
            fill_netstats(static_cast<pmix_net_stats_t*>(e), k);
            break;
        case PMIX_NODE_STATS:
            fill_ndstats(static_cast<pmix_node_stats_t*>(e), k);
            break;
        case PMIX_DATA_BUFFER:
            fill_dbuf(static_cast<pmix_data_buffer_t*>(e), k);
            break;
        default:
            fill_scalar_special(type, e, k);
            break;
    }
}

Elements::Elements(pmix_data_type_t type, std::size_t n)
    : type_(type),
      n_(n),
      elem_size_(pmix::data::element_size(type)),
      data_(std::calloc(n == 0 ? 1 : n, elem_size_ == 0 ? 1 : elem_size_)) {}

Elements::Elements(Elements&& other) noexcept
    : type_(other.type_),
      n_(other.n_),
      elem_size_(other.elem_size_),
      data_(std::exchange(other.data_, nullptr)) {}

Elements::~Elements() {
    if (data_ == nullptr) {
        return;
    }
    for (std::size_t i = 0; i < n_; ++i) {
        pmix::data::destruct_element(at(i), type_);
    }
    std::free(data_);
}

Elements samples(pmix_data_type_t type, std::size_t n) {
    Elements e(type, n);
    for (std::size_t i = 0; i < n; ++i) {
        fill(type, e.at(i), static_cast<int>(i % kVariants));
    }
    return e;
}

void make_value(pmix_value_t* value, pmix_data_type_t type, int variant) {
    Elements one(type, 1);
    fill(type, one.at(0), variant);
    if (pmix::data::value_adopt(value, one.at(0), type) != PMIX_SUCCESS) {
        throw std::runtime_error("value_adopt failed for " + type_name(type));
    }
}

hwloc_topology_t machine_topology() {
    static hwloc_topology_t topo = [] {
        hwloc_topology_t t = nullptr;
        if (hwloc_topology_init(&t) != 0 || hwloc_topology_load(t) != 0) {
            throw std::runtime_error("hwloc topology discovery failed");
        }
        return t;
    }();
    return topo;
}

Buffer::~Buffer() { pmix::codec::reset(&b); }

void Buffer::load(const std::vector<unsigned char>& data) {
    pmix::codec::reset(&b);
    pmix_byte_object_t bo{nullptr, data.size()};
    if (!data.empty()) {
        bo.bytes = static_cast<char*>(std::malloc(data.size()));
        std::memcpy(bo.bytes, data.data(), data.size());
    }
    pmix::codec::load(&b, &bo);
}

std::vector<unsigned char> packed(const void* src, std::int32_t n, pmix_data_type_t type) {
    Buffer buf;
    if (pmix::codec::pack(buf.get(), src, n, type) != PMIX_SUCCESS) {
        throw std::runtime_error("pack failed for " + type_name(type));
    }
    return buf.bytes();
}

}  // namespace codec_test
