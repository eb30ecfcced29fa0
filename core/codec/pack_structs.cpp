// core/codec/pack_structs.cpp - flat structs built from strings and numbers: proc, proc_info,
// coord, geometry, device distance, endpoint, registered attribute.
#include "codec/coders.h"

#include <cstdlib>

namespace pmix::codec::detail {
namespace {

// Run `fn(element)` over n typed elements, stopping at the first failure.
template <typename T, typename Fn>
pmix_status_t each(const void* elems, std::size_t n, Fn fn) noexcept {
    const T* e = static_cast<const T*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = fn(e[i]);
    }
    return rc;
}

template <typename T, typename Fn>
pmix_status_t each_mut(void* elems, std::size_t n, Fn fn) noexcept {
    T* e = static_cast<T*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = fn(e[i]);
    }
    return rc;
}

pmix_status_t pack_one_proc(Writer& w, const pmix_proc_t& p) noexcept {
    pmix_status_t rc = pack_bounded(w, p.nspace, PMIX_MAX_NSLEN);
    return rc == PMIX_SUCCESS ? put(w.u32(p.rank)) : rc;
}

pmix_status_t unpack_one_proc(Reader& r, pmix_proc_t& p) noexcept {
    pmix_status_t rc = unpack_bounded(r, p.nspace, PMIX_MAX_NSLEN);
    return rc == PMIX_SUCCESS ? got(r.u32(p.rank)) : rc;
}

pmix_status_t pack_procs(Writer& w, const void* elems, std::size_t n) noexcept {
    return each<pmix_proc_t>(elems, n, [&](const pmix_proc_t& p) { return pack_one_proc(w, p); });
}

pmix_status_t unpack_procs(Reader& r, void* elems, std::size_t n) noexcept {
    return each_mut<pmix_proc_t>(elems, n, [&](pmix_proc_t& p) { return unpack_one_proc(r, p); });
}

pmix_status_t pack_pinfos(Writer& w, const void* elems, std::size_t n) noexcept {
    return each<pmix_proc_info_t>(elems, n, [&](const pmix_proc_info_t& p) {
        pmix_status_t rc = pack_one_proc(w, p.proc);
        if (rc == PMIX_SUCCESS) {
            rc = pack_string(w, p.hostname);
        }
        if (rc == PMIX_SUCCESS) {
            rc = pack_string(w, p.executable_name);
        }
        if (rc == PMIX_SUCCESS) {
            rc = put(w.i32(p.pid) && w.i32(p.exit_code) && w.u8(p.state));
        }
        return rc;
    });
}

pmix_status_t unpack_pinfos(Reader& r, void* elems, std::size_t n) noexcept {
    return each_mut<pmix_proc_info_t>(elems, n, [&](pmix_proc_info_t& p) {
        pmix_status_t rc = unpack_one_proc(r, p.proc);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_string(r, p.hostname);
        }
        if (rc == PMIX_SUCCESS) {
            rc = unpack_string(r, p.executable_name);
        }
        std::int32_t pid = 0;
        std::int32_t code = 0;
        if (rc == PMIX_SUCCESS &&
            (rc = got(r.i32(pid) && r.i32(code) && r.u8(p.state))) == PMIX_SUCCESS) {
            p.pid = pid;
            p.exit_code = code;
        }
        return rc;
    });
}

pmix_status_t pack_coords(Writer& w, const void* elems, std::size_t n) noexcept {
    return each<pmix_coord_t>(elems, n, [&](const pmix_coord_t& c) {
        pmix_status_t rc = put(w.u8(c.view));
        return rc == PMIX_SUCCESS ? pack_array(w, c.coord, c.dims, PMIX_UINT32) : rc;
    });
}

pmix_status_t unpack_coords(Reader& r, void* elems, std::size_t n) noexcept {
    return each_mut<pmix_coord_t>(elems, n, [&](pmix_coord_t& c) {
        pmix_status_t rc = got(r.u8(c.view));
        void* arr = nullptr;
        if (rc == PMIX_SUCCESS &&
            (rc = unpack_array(r, arr, c.dims, PMIX_UINT32)) == PMIX_SUCCESS) {
            c.coord = static_cast<std::uint32_t*>(arr);
        }
        return rc;
    });
}

pmix_status_t pack_geometries(Writer& w, const void* elems, std::size_t n) noexcept {
    return each<pmix_geometry_t>(elems, n, [&](const pmix_geometry_t& g) {
        pmix_status_t rc = put(w.u64(g.fabric));
        if (rc == PMIX_SUCCESS) {
            rc = pack_string(w, g.uuid);
        }
        if (rc == PMIX_SUCCESS) {
            rc = pack_string(w, g.osname);
        }
        return rc == PMIX_SUCCESS ? pack_array(w, g.coordinates, g.ncoords, PMIX_COORD) : rc;
    });
}

pmix_status_t unpack_geometries(Reader& r, void* elems, std::size_t n) noexcept {
    return each_mut<pmix_geometry_t>(elems, n, [&](pmix_geometry_t& g) {
        std::uint64_t fabric = 0;
        pmix_status_t rc = got(r.u64(fabric));
        g.fabric = static_cast<std::size_t>(fabric);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_string(r, g.uuid);
        }
        if (rc == PMIX_SUCCESS) {
            rc = unpack_string(r, g.osname);
        }
        void* arr = nullptr;
        if (rc == PMIX_SUCCESS &&
            (rc = unpack_array(r, arr, g.ncoords, PMIX_COORD)) == PMIX_SUCCESS) {
            g.coordinates = static_cast<pmix_coord_t*>(arr);
        }
        return rc;
    });
}

pmix_status_t pack_devdists(Writer& w, const void* elems, std::size_t n) noexcept {
    return each<pmix_device_distance_t>(elems, n, [&](const pmix_device_distance_t& d) {
        pmix_status_t rc = pack_string(w, d.uuid);
        if (rc == PMIX_SUCCESS) {
            rc = pack_string(w, d.osname);
        }
        if (rc == PMIX_SUCCESS) {
            rc = put(w.u64(d.type) && w.u16(d.mindist) && w.u16(d.maxdist));
        }
        return rc;
    });
}

pmix_status_t unpack_devdists(Reader& r, void* elems, std::size_t n) noexcept {
    return each_mut<pmix_device_distance_t>(elems, n, [&](pmix_device_distance_t& d) {
        pmix_status_t rc = unpack_string(r, d.uuid);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_string(r, d.osname);
        }
        if (rc == PMIX_SUCCESS) {
            rc = got(r.u64(d.type) && r.u16(d.mindist) && r.u16(d.maxdist));
        }
        return rc;
    });
}

pmix_status_t pack_endpoints(Writer& w, const void* elems, std::size_t n) noexcept {
    return each<pmix_endpoint_t>(elems, n, [&](const pmix_endpoint_t& e) {
        pmix_status_t rc = pack_string(w, e.uuid);
        if (rc == PMIX_SUCCESS) {
            rc = pack_string(w, e.osname);
        }
        return rc == PMIX_SUCCESS ? pack_blob(w, e.endpt.bytes, e.endpt.size) : rc;
    });
}

pmix_status_t unpack_endpoints(Reader& r, void* elems, std::size_t n) noexcept {
    return each_mut<pmix_endpoint_t>(elems, n, [&](pmix_endpoint_t& e) {
        pmix_status_t rc = unpack_string(r, e.uuid);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_string(r, e.osname);
        }
        return rc == PMIX_SUCCESS ? unpack_blob(r, e.endpt.bytes, e.endpt.size) : rc;
    });
}

pmix_status_t pack_regattrs(Writer& w, const void* elems, std::size_t n) noexcept {
    return each<pmix_regattr_t>(elems, n, [&](const pmix_regattr_t& a) {
        pmix_status_t rc = pack_string(w, a.name);
        if (rc == PMIX_SUCCESS) {
            rc = pack_bounded(w, a.string, PMIX_MAX_KEYLEN);
        }
        if (rc == PMIX_SUCCESS) {
            rc = put(w.u16(a.type));
        }
        return rc == PMIX_SUCCESS ? pack_argv(w, a.description) : rc;
    });
}

pmix_status_t unpack_regattrs(Reader& r, void* elems, std::size_t n) noexcept {
    return each_mut<pmix_regattr_t>(elems, n, [&](pmix_regattr_t& a) {
        pmix_status_t rc = unpack_string(r, a.name);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_bounded(r, a.string, PMIX_MAX_KEYLEN);
        }
        if (rc == PMIX_SUCCESS) {
            rc = got(r.u16(a.type));
        }
        return rc == PMIX_SUCCESS ? unpack_argv(r, a.description) : rc;
    });
}

// Minimum wire sizes: a string is at least its 4-byte length, a blob its 8-byte size, a count 4.
constexpr Coder k_proc{sizeof(pmix_proc_t), 8, pack_procs, unpack_procs};
constexpr Coder k_pinfo{sizeof(pmix_proc_info_t), 8 + 4 + 4 + 9, pack_pinfos, unpack_pinfos};
constexpr Coder k_coord{sizeof(pmix_coord_t), 5, pack_coords, unpack_coords};
constexpr Coder k_geometry{sizeof(pmix_geometry_t), 8 + 4 + 4 + 4, pack_geometries,
                           unpack_geometries};
constexpr Coder k_devdist{sizeof(pmix_device_distance_t), 4 + 4 + 12, pack_devdists,
                          unpack_devdists};
constexpr Coder k_endpoint{sizeof(pmix_endpoint_t), 4 + 4 + 8, pack_endpoints, unpack_endpoints};
constexpr Coder k_regattr{sizeof(pmix_regattr_t), 4 + 4 + 2 + 4, pack_regattrs, unpack_regattrs};

}  // namespace

const Coder* struct_coder(pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_PROC:
            return &k_proc;
        case PMIX_PROC_INFO:
            return &k_pinfo;
        case PMIX_COORD:
            return &k_coord;
        case PMIX_GEOMETRY:
            return &k_geometry;
        case PMIX_DEVICE_DIST:
            return &k_devdist;
        case PMIX_ENDPOINT:
            return &k_endpoint;
        case PMIX_REGATTR:
            return &k_regattr;
        default:
            return nullptr;
    }
}

}  // namespace pmix::codec::detail
