// libhwloc and zlib, loaded on first use instead of by every process that loads libpmix.
//
// A rank of a typical job (PMIx_Init, Put, Commit, Fence, Get, Finalize) never calls them; only
// topology, cpuset, locality and compression work does (mostly servers and tools). As DT_NEEDED
// dependencies they were mapped, relocated and initialised in every rank, with libudev and libm
// behind libhwloc. Measured (release, loaded 2-vCPU host, 400 execs each): a C program linked to
// libhwloc + libz 1.57 ms per exec against 1.21-1.23 ms bare, i.e. ~0.35 ms per rank.
//
// Each function below has the C name and ABI of the library's own; libpmix binds its calls here
// (these objects come before the libraries on the link line, and --as-needed then drops them).
// The types are spelled opaquely on purpose: hwloc.h marks its declarations visibility
// "default", which would export these definitions from libpmix; with our own declarations they
// stay hidden (CXX_VISIBILITY_PRESET hidden), and `nm -D --defined-only` is unchanged.
// The library is opened with RTLD_GLOBAL, the scope a DT_NEEDED dependency had (hwloc's plugins
// look its symbols up there). It was a hard dependency before: a host without it could not load
// libpmix at all; now the first call that needs it says so and aborts.
#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

#ifndef PMIX_HWLOC_SONAME
#error "PMIX_HWLOC_SONAME must name libhwloc's SONAME (capi/CMakeLists.txt)"
#endif
#ifndef PMIX_ZLIB_SONAME
#error "PMIX_ZLIB_SONAME must name zlib's SONAME (capi/CMakeLists.txt)"
#endif

namespace {

struct LazyLibrary {
    const char* soname;
    std::atomic<void*> handle{nullptr};
};

LazyLibrary g_hwloc{PMIX_HWLOC_SONAME};
LazyLibrary g_zlib{PMIX_ZLIB_SONAME};

[[noreturn]] void unavailable(const char* what, const char* why) {
    std::fprintf(stderr, "libpmix: cannot load %s: %s\n", what, why != nullptr ? why : "?");
    std::abort();
}

void* library(LazyLibrary& lib) {
    void* handle = lib.handle.load(std::memory_order_acquire);
    if (handle == nullptr) {
        // Two threads may both open it: dlopen counts references and returns the same handle.
        handle = ::dlopen(lib.soname, RTLD_NOW | RTLD_GLOBAL);
        if (handle == nullptr) {
            unavailable(lib.soname, ::dlerror());
        }
        lib.handle.store(handle, std::memory_order_release);
    }
    return handle;
}

template <typename Fn>
Fn resolve(LazyLibrary& lib, std::atomic<Fn>& slot, const char* name) {
    Fn fn = slot.load(std::memory_order_acquire);
    if (fn == nullptr) {
        void* symbol = ::dlsym(library(lib), name);
        if (symbol == nullptr) {
            unavailable(name, ::dlerror());
        }
        fn = reinterpret_cast<Fn>(symbol);
        slot.store(fn, std::memory_order_release);
    }
    return fn;
}

}  // namespace

// Declares NAME with the ABI of the real one and defines it to call the real one.
#define PMIX_LAZY(lib, ret, name, params, args)                                 \
    extern "C" ret name params;                                                 \
    extern "C" ret name params {                                                \
        static std::atomic<ret(*) params> real{nullptr};                        \
        return resolve(lib, real, #name) args;                                  \
    }

// hwloc 2.x (hwloc.h, hwloc/export.h). bitmap, topology, obj: pointers to opaque structs;
// enums are passed as int.
using bitmap = void*;
using const_bitmap = const void*;
using topology = void*;
using obj = void*;

PMIX_LAZY(g_hwloc, bitmap, hwloc_bitmap_alloc, (void), ())
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_asprintf, (char** s, const_bitmap b), (s, b))
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_compare, (const_bitmap a, const_bitmap b), (a, b))
PMIX_LAZY(g_hwloc, bitmap, hwloc_bitmap_dup, (const_bitmap b), (b))
PMIX_LAZY(g_hwloc, void, hwloc_bitmap_free, (bitmap b), (b))
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_intersects, (const_bitmap a, const_bitmap b), (a, b))
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_isfull, (const_bitmap b), (b))
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_isincluded, (const_bitmap sub, const_bitmap super),
          (sub, super))
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_iszero, (const_bitmap b), (b))
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_list_asprintf, (char** s, const_bitmap b), (s, b))
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_list_sscanf, (bitmap b, const char* s), (b, s))
PMIX_LAZY(g_hwloc, int, hwloc_bitmap_set_range, (bitmap b, unsigned begin, int end),
          (b, begin, end))
PMIX_LAZY(g_hwloc, void, hwloc_free_xmlbuffer, (topology t, char* xml), (t, xml))
PMIX_LAZY(g_hwloc, int, hwloc_get_cpubind, (topology t, bitmap set, int flags), (t, set, flags))
PMIX_LAZY(g_hwloc, int, hwloc_get_depth_type, (topology t, int depth), (t, depth))
PMIX_LAZY(g_hwloc, unsigned, hwloc_get_nbobjs_by_depth, (topology t, int depth), (t, depth))
PMIX_LAZY(g_hwloc, obj, hwloc_get_obj_by_depth, (topology t, int depth, unsigned idx),
          (t, depth, idx))
PMIX_LAZY(g_hwloc, int, hwloc_get_type_depth, (topology t, int type), (t, type))
PMIX_LAZY(g_hwloc, int, hwloc_obj_type_snprintf, (char* s, std::size_t n, obj o, int verbose),
          (s, n, o, verbose))
PMIX_LAZY(g_hwloc, void, hwloc_topology_destroy, (topology t), (t))
PMIX_LAZY(g_hwloc, int, hwloc_topology_dup, (topology * out, topology t), (out, t))
PMIX_LAZY(g_hwloc, int, hwloc_topology_export_xmlbuffer,
          (topology t, char** xml, int* len, unsigned long flags), (t, xml, len, flags))
PMIX_LAZY(g_hwloc, int, hwloc_topology_get_depth, (topology t), (t))
PMIX_LAZY(g_hwloc, const_bitmap, hwloc_topology_get_topology_cpuset, (topology t), (t))
PMIX_LAZY(g_hwloc, int, hwloc_topology_init, (topology * out), (out))
PMIX_LAZY(g_hwloc, int, hwloc_topology_load, (topology t), (t))
PMIX_LAZY(g_hwloc, int, hwloc_topology_set_all_types_filter, (topology t, int filter),
          (t, filter))
PMIX_LAZY(g_hwloc, int, hwloc_topology_set_components,
          (topology t, unsigned long flags, const char* name), (t, flags, name))
PMIX_LAZY(g_hwloc, int, hwloc_topology_set_flags, (topology t, unsigned long flags), (t, flags))
PMIX_LAZY(g_hwloc, int, hwloc_topology_set_io_types_filter, (topology t, int filter),
          (t, filter))
PMIX_LAZY(g_hwloc, int, hwloc_topology_set_xmlbuffer, (topology t, const char* xml, int size),
          (t, xml, size))

// zlib (zlib.h): Bytef is unsigned char, uLong and uLongf unsigned long.
PMIX_LAZY(g_zlib, int, compress2,
          (unsigned char* dest, unsigned long* dest_len, const unsigned char* src,
           unsigned long src_len, int level),
          (dest, dest_len, src, src_len, level))
PMIX_LAZY(g_zlib, unsigned long, compressBound, (unsigned long src_len), (src_len))
PMIX_LAZY(g_zlib, int, uncompress2,
          (unsigned char* dest, unsigned long* dest_len, const unsigned char* src,
           unsigned long* src_len),
          (dest, dest_len, src, src_len))
