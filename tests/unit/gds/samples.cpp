// tests/unit/gds/samples.cpp - sample values of every data type (see samples.h).
#include "samples.h"

#include "data/value.h"

#include <hwloc.h>

#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include <cstdlib>
#include <cstring>
#include <mutex>

namespace gds_test {
namespace {

char* dup(const std::string& s) { return ::strdup(s.c_str()); }

char** argv_of(const std::string& a, const std::string& b) {
    auto** v = static_cast<char**>(std::calloc(3, sizeof(char*)));
    v[0] = dup(a);
    v[1] = dup(b);
    return v;
}

void set_key(char (&key)[PMIX_MAX_KEYLEN + 1], const std::string& s) {
    std::memset(key, 0, sizeof(key));
    std::memcpy(key, s.data(), std::min(s.size(), sizeof(key) - 1));
}

void fill_proc(pmix_proc_t& p, unsigned seed) {
    std::memset(&p, 0, sizeof(p));
    const std::string ns = "ns." + std::to_string(seed);
    std::memcpy(p.nspace, ns.data(), ns.size());
    p.rank = seed;
}

void fill_bo(pmix_byte_object_t& bo, unsigned seed) {
    bo.size = seed % 23 + 1;
    bo.bytes = static_cast<char*>(std::malloc(bo.size));
    for (std::size_t i = 0; i < bo.size; ++i) {
        bo.bytes[i] = static_cast<char>(seed * 7 + i);  // includes NULs on purpose
    }
}

void fill_info(pmix_info_t& info, unsigned seed) {
    std::memset(&info, 0, sizeof(info));
    set_key(info.key, "info.key." + std::to_string(seed));
    info.value.type = PMIX_UINT32;
    info.value.data.uint32 = seed;
}

hwloc_topology_t machine() {
    static hwloc_topology_t topo = [] {
        hwloc_topology_t t = nullptr;
        hwloc_topology_init(&t);
        hwloc_topology_load(t);
        return t;
    }();
    return topo;
}

void fill_array(pmix_data_array_t& a, unsigned seed) {
    static const pmix_data_type_t kinds[] = {PMIX_UINT32, PMIX_STRING, PMIX_INFO, PMIX_PROC,
                                             PMIX_BOOL};
    const pmix_data_type_t t = kinds[seed % 5];
    const std::size_t n = seed % 4 + 2;
    pmix::data::data_array_init(&a, n, t);
    for (std::size_t i = 0; i < n; ++i) {
        const auto s = static_cast<unsigned>(seed + i);
        switch (t) {
            case PMIX_UINT32:
                static_cast<std::uint32_t*>(a.array)[i] = s * 3;
                break;
            case PMIX_STRING:
                static_cast<char**>(a.array)[i] = dup("elem." + std::to_string(s));
                break;
            case PMIX_INFO:
                fill_info(static_cast<pmix_info_t*>(a.array)[i], s);
                break;
            case PMIX_PROC:
                fill_proc(static_cast<pmix_proc_t*>(a.array)[i], s);
                break;
            default:
                static_cast<bool*>(a.array)[i] = (s & 1) != 0;
                break;
        }
    }
}

void fill_coord(pmix_coord_t& c, unsigned seed) {
    c.view = PMIX_COORD_LOGICAL_VIEW;
    c.dims = 3;
    c.coord = static_cast<std::uint32_t*>(std::calloc(3, sizeof(std::uint32_t)));
    for (std::uint32_t i = 0; i < 3; ++i) {
        c.coord[i] = seed + i;
    }
}

void fill_stats(pmix_data_type_t type, void* e, unsigned seed) {
    const std::string s = std::to_string(seed);
    switch (type) {
        case PMIX_PROC_STATS: {
            auto& p = *static_cast<pmix_proc_stats_t*>(e);
            p.node = dup("node" + s);
            fill_proc(p.proc, seed);
            p.pid = static_cast<pid_t>(seed);
            p.cmd = dup("cmd" + s);
            p.state = 'R';
            p.percent_cpu = 1.5f;
            p.num_threads = 4;
            p.sample_time.tv_sec = seed;
            break;
        }
        case PMIX_DISK_STATS: {
            auto& d = *static_cast<pmix_disk_stats_t*>(e);
            d.disk = dup("sda" + s);
            d.num_reads_completed = seed;
            d.milliseconds_io = seed * 2ull;
            break;
        }
        case PMIX_NET_STATS: {
            auto& n = *static_cast<pmix_net_stats_t*>(e);
            n.net_interface = dup("eth" + s);
            n.num_bytes_sent = seed * 1000ull;
            break;
        }
        default: {
            auto& n = *static_cast<pmix_node_stats_t*>(e);
            n.node = dup("node" + s);
            n.la = 0.5f;
            n.total_mem = 1024.0f;
            n.ndiskstats = 1;
            n.diskstats =
                static_cast<pmix_disk_stats_t*>(std::calloc(1, sizeof(pmix_disk_stats_t)));
            fill_stats(PMIX_DISK_STATS, n.diskstats, seed);
            n.nnetstats = 1;
            n.netstats = static_cast<pmix_net_stats_t*>(std::calloc(1, sizeof(pmix_net_stats_t)));
            fill_stats(PMIX_NET_STATS, n.netstats, seed);
            break;
        }
    }
}

void fill_scalar(pmix_data_type_t type, void* e, unsigned seed) {
    const std::size_t n = pmix::data::element_size(type);
    switch (type) {
        case PMIX_BOOL:
            *static_cast<bool*>(e) = (seed & 1) != 0;
            return;
        case PMIX_FLOAT:
            *static_cast<float*>(e) = static_cast<float>(seed) + 0.25f;
            return;
        case PMIX_DOUBLE:
            *static_cast<double*>(e) = seed * 1.5;
            return;
        case PMIX_TIMEVAL: {
            auto& tv = *static_cast<struct timeval*>(e);
            tv.tv_sec = seed;
            tv.tv_usec = seed % 1000000;
            return;
        }
        default: {
            const std::uint64_t bits = 0x0102030405060708ull * (seed + 1);
            std::memcpy(e, &bits, std::min<std::size_t>(n, sizeof(bits)));
            return;
        }
    }
}

// The fabric-description types.
void fill_fabric(pmix_data_type_t type, void* e, unsigned seed) {
    const std::string s = std::to_string(seed);
    switch (type) {
        case PMIX_GEOMETRY: {
            auto& g = *static_cast<pmix_geometry_t*>(e);
            g.fabric = seed;
            g.uuid = dup("uuid" + s);
            g.osname = dup("ib" + s);
            g.ncoords = 1;
            g.coordinates = static_cast<pmix_coord_t*>(std::calloc(1, sizeof(pmix_coord_t)));
            fill_coord(g.coordinates[0], seed);
            break;
        }
        case PMIX_DEVICE_DIST: {
            auto& d = *static_cast<pmix_device_distance_t*>(e);
            d.uuid = dup("dev" + s);
            d.osname = dup("mlx" + s);
            d.type = PMIX_DEVTYPE_NETWORK;
            d.mindist = static_cast<std::uint16_t>(seed);
            d.maxdist = static_cast<std::uint16_t>(seed + 10);
            break;
        }
        case PMIX_ENDPOINT: {
            auto& ep = *static_cast<pmix_endpoint_t*>(e);
            ep.uuid = dup("ep" + s);
            ep.osname = dup("hfi" + s);
            fill_bo(ep.endpt, seed);
            break;
        }
        default:
            break;
    }
}

void fill_more(pmix_data_type_t type, void* e, unsigned seed) {
    const std::string s = std::to_string(seed);
    switch (type) {
        case PMIX_ENVAR: {
            auto& v = *static_cast<pmix_envar_t*>(e);
            v.envar = dup("PATH" + s);
            v.value = dup("/bin:" + s);
            v.separator = ':';
            break;
        }
        case PMIX_COORD:
            fill_coord(*static_cast<pmix_coord_t*>(e), seed);
            break;
        case PMIX_REGATTR: {
            auto& r = *static_cast<pmix_regattr_t*>(e);
            r.name = dup("PMIX_ATTR_" + s);
            set_key(r.string, "pmix.attr." + s);
            r.type = PMIX_INT;
            r.description = argv_of("first line", "second " + s);
            break;
        }
        case PMIX_TOPO: {
            pmix_topology_t t{const_cast<char*>("hwloc"), machine()};
            pmix::data::copy_element(e, &t, PMIX_TOPO);
            break;
        }
        case PMIX_PROC_CPUSET: {
            auto& c = *static_cast<pmix_cpuset_t*>(e);
            c.source = dup("hwloc");
            hwloc_bitmap_t b = hwloc_bitmap_alloc();
            hwloc_bitmap_set_range(b, 0, static_cast<int>(seed % 4));
            c.bitmap = b;
            break;
        }
        case PMIX_DATA_BUFFER: {
            auto& d = *static_cast<pmix_data_buffer_t*>(e);
            const std::size_t n = seed % 9 + 3;
            d.base_ptr = static_cast<char*>(std::malloc(n));
            std::memset(d.base_ptr, static_cast<int>(seed), n);
            d.pack_ptr = d.base_ptr + n;
            d.unpack_ptr = d.base_ptr;
            d.bytes_allocated = n;
            d.bytes_used = n;
            break;
        }
        case PMIX_GEOMETRY:
        case PMIX_DEVICE_DIST:
        case PMIX_ENDPOINT:
            fill_fabric(type, e, seed);
            break;
        default:
            fill_stats(type, e, seed);
            break;
    }
}

// Types that hold other values or info arrays.
void fill_composite(pmix_data_type_t type, void* e, unsigned seed) {
    const std::string s = std::to_string(seed);
    switch (type) {
        case PMIX_PDATA: {
            auto& p = *static_cast<pmix_pdata_t*>(e);
            fill_proc(p.proc, seed);
            set_key(p.key, "pdata." + s);
            make_u32(&p.value, seed);
            break;
        }
        case PMIX_APP: {
            auto& a = *static_cast<pmix_app_t*>(e);
            a.cmd = dup("/bin/app" + s);
            a.argv = argv_of("app", "-n" + s);
            a.env = argv_of("A=1", "B=" + s);
            a.cwd = dup("/tmp");
            a.maxprocs = static_cast<int>(seed);
            a.ninfo = 2;
            a.info = static_cast<pmix_info_t*>(std::calloc(2, sizeof(pmix_info_t)));
            fill_info(a.info[0], seed);
            fill_info(a.info[1], seed + 1);
            break;
        }
        case PMIX_KVAL: {
            auto& kv = *static_cast<pmix::data::kval_t*>(e);
            kv.key = dup("kval." + s);
            kv.value = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
            make_u64(kv.value, seed);
            break;
        }
        case PMIX_QUERY: {
            auto& q = *static_cast<pmix_query_t*>(e);
            q.keys = argv_of("pmix.qry.a", "pmix.qry." + s);
            q.nqual = 1;
            q.qualifiers = static_cast<pmix_info_t*>(std::calloc(1, sizeof(pmix_info_t)));
            fill_info(q.qualifiers[0], seed);
            break;
        }
        default:
            break;
    }
}

void fill_struct(pmix_data_type_t type, void* e, unsigned seed) {
    const std::string s = std::to_string(seed);
    switch (type) {
        case PMIX_STRING:
            *static_cast<char**>(e) = dup("string value " + s);
            break;
        case PMIX_REGEX:
            *static_cast<char**>(e) = dup("pmix[3:0-" + s + "]");
            break;
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            fill_bo(*static_cast<pmix_byte_object_t*>(e), seed);
            break;
        case PMIX_PROC:
            fill_proc(*static_cast<pmix_proc_t*>(e), seed);
            break;
        case PMIX_PROC_NSPACE:
            std::snprintf(static_cast<char*>(e), PMIX_MAX_NSLEN, "job.%u", seed);
            break;
        case PMIX_VALUE:
            make_string(static_cast<pmix_value_t*>(e), "nested " + s);
            break;
        case PMIX_INFO:
            fill_info(*static_cast<pmix_info_t*>(e), seed);
            break;
        case PMIX_PDATA:
        case PMIX_APP:
        case PMIX_KVAL:
        case PMIX_QUERY:
            fill_composite(type, e, seed);
            break;
        case PMIX_PROC_INFO: {
            auto& p = *static_cast<pmix_proc_info_t*>(e);
            fill_proc(p.proc, seed);
            p.hostname = dup("host" + s);
            p.executable_name = dup("a.out");
            p.pid = static_cast<pid_t>(1000 + seed);
            p.exit_code = static_cast<int>(seed);
            p.state = PMIX_PROC_STATE_RUNNING;
            break;
        }
        case PMIX_DATA_ARRAY:
            fill_array(*static_cast<pmix_data_array_t*>(e), seed);
            break;
        default:
            fill_more(type, e, seed);
            break;
    }
}

// Before any test: remove objects left by test processes that died without cleaning up (a
// crash can skip destructors), so that the leftover checks see only this run.
class StaleSweeper : public ::testing::Environment {
public:
    void SetUp() override {
        const std::string prefix = std::string(kShmPrefix + 1) + "-";
        DIR* d = ::opendir("/dev/shm");
        if (d == nullptr) {
            return;
        }
        while (const dirent* e = ::readdir(d)) {
            const std::string name = e->d_name;
            if (name.rfind(prefix, 0) != 0) {
                continue;
            }
            const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
            if (pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
                ::shm_unlink(("/" + name).c_str());
            }
        }
        ::closedir(d);
    }
};
[[maybe_unused]] auto* const g_sweeper = ::testing::AddGlobalTestEnvironment(new StaleSweeper);

}  // namespace

std::vector<pmix_data_type_t> all_types() {
    std::vector<pmix_data_type_t> out;
    for (pmix_data_type_t t = PMIX_BOOL; t <= PMIX_STOR_ACCESS_TYPE; ++t) {
        if (pmix::data::is_known_type(t)) {
            out.push_back(t);
        }
    }
    return out;
}

std::string type_label(pmix_data_type_t type) { return "type" + std::to_string(type); }

Value::~Value() { pmix::data::value_destruct(&v); }

void make_sample(pmix_data_type_t type, unsigned seed, pmix_value_t* out) {
    alignas(16) unsigned char element[2048] = {};
    const std::size_t size = pmix::data::element_size(type);
    if (size == 0 || size > sizeof(element)) {
        std::abort();  // a type this helper does not know: a test bug
    }
    const bool scalar = type != PMIX_STRING && type != PMIX_REGEX && type != PMIX_BYTE_OBJECT &&
                        type != PMIX_COMPRESSED_STRING && type != PMIX_COMPRESSED_BYTE_OBJECT &&
                        type != PMIX_ENVAR && !pmix::data::value_holds_pointer(type);
    if (scalar) {
        fill_scalar(type, element, seed);
    } else {
        fill_struct(type, element, seed);
    }
    out->type = PMIX_UNDEF;
    if (pmix::data::value_adopt(out, element, type) != PMIX_SUCCESS) {
        std::abort();
    }
}

void make_string(pmix_value_t* out, const std::string& s) {
    out->type = PMIX_STRING;
    out->data.string = dup(s);
}
void make_u64(pmix_value_t* out, std::uint64_t x) {
    out->type = PMIX_UINT64;
    out->data.uint64 = x;
}
void make_u32(pmix_value_t* out, std::uint32_t x) {
    out->type = PMIX_UINT32;
    out->data.uint32 = x;
}

bool same(const pmix_value_t& a, const pmix_value_t& b) {
    return a.type == b.type && pmix::data::value_compare(&a, &b) == PMIX_EQUAL;
}

std::vector<std::string> shm_objects(const std::string& prefix) {
    std::vector<std::string> out;
    const std::string want = prefix + "-" + std::to_string(::getpid()) + "-";
    if (DIR* d = ::opendir("/dev/shm")) {
        while (const dirent* e = ::readdir(d)) {
            if (std::strncmp(e->d_name, want.c_str(), want.size()) == 0) {
                out.emplace_back(e->d_name);
            }
        }
        ::closedir(d);
    }
    return out;
}

}  // namespace gds_test
