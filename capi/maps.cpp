// capi/maps.cpp - node/proc maps, cpusets, topology and locality: PMIx_generate_regex/ppn,
// PMIx_Parse_cpuset_string, PMIx_Get_cpuset, PMIx_Load_topology, PMIx_Topology_destruct,
// PMIx_Cpuset_destruct, PMIx_Get_relative_locality, PMIx_server_generate_locality_string,
// PMIx_server_generate_cpuset_string, PMIx_Compute_distances(_nb).
//
// Unlike OpenPMIx these work without PMIx_Init/PMIx_server_init: they need no connection, and a
// host may well build its maps before it initialises. Outputs are written only on success.
//
// Other deliberate differences from OpenPMIx 4.2.2:
// - PMIx_generate_regex/ppn: same pmix[...] syntax, but only adjacent names merge (the order is
//   always kept), a lone number stays a plain name, the proc map is always compressed (never
//   raw:), and malformed input (empty names, brackets, bad ranks) is PMIX_ERR_BAD_PARAM.
// - PMIx_Get_relative_locality accepts strings with or without "hwloc:" and returns
//   PMIX_SUCCESS; OpenPMIx demands the prefix its own generator never writes and then returns
//   PMIX_ERR_TAKE_NEXT_OPTION alongside the right bits.
// - PMIx_Parse_cpuset_string: a malformed list is PMIX_ERR_BAD_PARAM (OpenPMIx yields an empty
//   set); another provider's prefix is PMIX_ERR_NOT_SUPPORTED (OpenPMIx leaks its internal
//   PMIX_ERR_TAKE_NEXT_OPTION).
// - PMIx_Get_cpuset treats its argument as output only (python3-pmix passes it uninitialised).
// - PMIx_Topology_destruct on the shared topology PMIx_Load_topology handed out releases only
//   the source string instead of destroying the library's copy.
// - PMIx_Compute_distances(_nb): computed as OpenPMIx does (core/maps/distances.h), but info
//   without PMIX_DEVICE_TYPE means every type (OpenPMIx: none, so PMIX_ERR_NOT_FOUND), a cpuset
//   outside the topology is PMIX_ERR_BAD_PARAM, and a device that has no id is left out rather
//   than failing the call.
// Cpuset strings ("hwloc:0-3") and locality strings ("SK0:L30:L20:L10:CR0:HT0:NM0") are
// byte-identical to OpenPMIx's: the test api.maps_match_openpmix diffs them.
#include "server/api.h"
#include "shim_support.h"

#include "maps/cpuset.h"
#include "maps/distances.h"
#include "maps/locality.h"
#include "maps/node_regex.h"
#include "maps/topology.h"

#include <pmix.h>
#include <pmix_server.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using pmix::capi::any_null;
using pmix::capi::guarded;

pmix_status_t PMIx_generate_regex(const char* input, char** regex) {
    return guarded([&] {
        if (any_null(input, regex)) {
            return PMIX_ERR_BAD_PARAM;
        }
        auto result = pmix::maps::generate_regex(input);
        return result.ok() ? pmix::capi::dup_string(result.value, regex) : result.status;
    });
}

pmix_status_t PMIx_generate_ppn(const char* input, char** ppn) {
    return guarded([&] {
        if (any_null(input, ppn)) {
            return PMIX_ERR_BAD_PARAM;
        }
        auto result = pmix::maps::generate_ppn(input);
        return result.ok() ? pmix::capi::dup_string(result.value, ppn) : result.status;
    });
}

pmix_status_t PMIx_Parse_cpuset_string(const char* cpuset_string, pmix_cpuset_t* cpuset) {
    return guarded([&] {
        if (any_null(cpuset_string, cpuset)) {
            return PMIX_ERR_BAD_PARAM;
        }
        auto bitmap = pmix::maps::parse_cpuset_string(cpuset_string);
        if (!bitmap.ok()) {
            return bitmap.status;
        }
        char* source = ::strdup("hwloc");
        if (source == nullptr) {
            return PMIX_ERR_NOMEM;
        }
        cpuset->source = source;
        cpuset->bitmap = bitmap.value.release();
        return PMIX_SUCCESS;
    });
}

// `cpuset` is an output: whatever it held is ignored (python3-pmix passes an uninitialised one).
pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t* cpuset, pmix_bind_envelope_t ref) {
    return guarded([&] {
        if (cpuset == nullptr) {
            return PMIX_ERR_BAD_PARAM;
        }
        auto bitmap = pmix::maps::current_binding(ref);
        if (!bitmap.ok()) {
            return bitmap.status;
        }
        char* source = ::strdup("hwloc");
        if (source == nullptr) {
            return PMIX_ERR_NOMEM;
        }
        cpuset->source = source;
        cpuset->bitmap = bitmap.value.release();
        return PMIX_SUCCESS;
    });
}

pmix_status_t PMIx_Load_topology(pmix_topology_t* topo) {
    return guarded([&] {
        if (topo == nullptr) {
            return PMIX_ERR_BAD_PARAM;
        }
        return pmix::maps::load_topology(*topo);
    });
}

void PMIx_Topology_destruct(pmix_topology_t* topo) {
    pmix::capi::guarded_void([&] {
        if (topo != nullptr) {
            pmix::maps::destruct_topology(*topo);
        }
    });
}

void PMIx_Cpuset_destruct(pmix_cpuset_t* cpuset) {
    pmix::capi::guarded_void([&] {
        if (cpuset != nullptr) {
            pmix::maps::destruct_cpuset(*cpuset);
        }
    });
}

pmix_status_t PMIx_Get_relative_locality(const char* locality1, const char* locality2,
                                         pmix_locality_t* locality) {
    return guarded([&] {
        if (any_null(locality1, locality2, locality)) {
            return PMIX_ERR_BAD_PARAM;
        }
        auto result = pmix::maps::relative_locality(locality1, locality2);
        if (result.ok()) {
            *locality = result.value;
        }
        return result.status;
    });
}

// An unbound process (no bitmap, or a full one) has no locality: PMIX_SUCCESS with NULL, as in
// OpenPMIx.
pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t* cpuset, char** locality) {
    return guarded([&] {
        if (any_null(cpuset, locality)) {
            return PMIX_ERR_BAD_PARAM;
        }
        if (cpuset->source != nullptr && !pmix::maps::is_hwloc_source(cpuset->source)) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
        if (cpuset->bitmap == nullptr) {
            *locality = nullptr;
            return PMIX_SUCCESS;
        }
        auto topology = pmix::maps::node_topology();
        if (!topology.ok()) {
            return topology.status;
        }
        auto text = pmix::maps::locality_string(topology.value.topology,
                                                static_cast<hwloc_const_bitmap_t>(cpuset->bitmap));
        if (!text.ok()) {
            return text.status;
        }
        if (!text.value) {
            *locality = nullptr;
            return PMIX_SUCCESS;
        }
        return pmix::capi::dup_string(*text.value, locality);
    });
}

pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t* cpuset,
                                                 char** cpuset_string) {
    return guarded([&] {
        if (cpuset_string == nullptr) {
            return PMIX_ERR_BAD_PARAM;
        }
        if (cpuset == nullptr) {
            *cpuset_string = nullptr;
            return PMIX_ERR_BAD_PARAM;
        }
        auto text = pmix::maps::cpuset_string(*cpuset);
        if (!text.ok()) {
            if (text.status == PMIX_ERR_BAD_PARAM) {
                *cpuset_string = nullptr;  // OpenPMIx clears the output for a missing bitmap
            }
            return text.status;
        }
        return pmix::capi::dup_string(text.value, cpuset_string);
    });
}

namespace {

// Fills a malloc'd pmix_device_distance_t array (PMIX_DEVICE_DIST_FREE releases it).
pmix_status_t export_distances(const std::vector<pmix::maps::DeviceDistance>& found,
                               pmix_device_distance_t** out, size_t* nout) {
    auto* array = static_cast<pmix_device_distance_t*>(
        std::calloc(found.size(), sizeof(pmix_device_distance_t)));
    if (array == nullptr) return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < found.size(); ++i) {
        array[i].uuid = ::strdup(found[i].uuid.c_str());
        array[i].osname = ::strdup(found[i].osname.c_str());
        array[i].type = found[i].type;
        array[i].mindist = found[i].mindist;
        array[i].maxdist = found[i].maxdist;
        if (array[i].uuid == nullptr || array[i].osname == nullptr) {
            PMIX_DEVICE_DIST_FREE(array, found.size());
            return PMIX_ERR_NOMEM;
        }
    }
    *out = array;
    *nout = found.size();
    return PMIX_SUCCESS;
}

// NULL topology: this node's; NULL cpuset: the caller's binding (as OpenPMIx does).
pmix::Result<std::vector<pmix::maps::DeviceDistance>> distances_of(pmix_topology_t* topo,
                                                                   pmix_cpuset_t* cpuset,
                                                                   const pmix_info_t* info,
                                                                   size_t ninfo) {
    using R = pmix::Result<std::vector<pmix::maps::DeviceDistance>>;
    auto request = pmix::maps::parse_distance_request(info, ninfo);
    if (!request.ok())
        return pmix::forward_failure<std::vector<pmix::maps::DeviceDistance>>(request);
    hwloc_topology_t topology = nullptr;
    if (topo == nullptr) {
        auto node = pmix::maps::node_topology();
        if (!node.ok()) return pmix::forward_failure<std::vector<pmix::maps::DeviceDistance>>(node);
        topology = node.value.topology;
    } else {
        if (topo->source == nullptr || topo->topology == nullptr)
            return R::failure(PMIX_ERR_BAD_PARAM, "topology without source or content");
        if (!pmix::maps::is_hwloc_source(topo->source))
            return R::failure(PMIX_ERR_NOT_SUPPORTED, "not an hwloc topology");
        topology = static_cast<hwloc_topology_t>(topo->topology);
    }
    pmix::maps::Bitmap own;
    hwloc_const_bitmap_t bits = nullptr;
    if (cpuset == nullptr) {
        auto bound = pmix::maps::current_binding(PMIX_CPUBIND_PROCESS);
        if (!bound.ok())
            return pmix::forward_failure<std::vector<pmix::maps::DeviceDistance>>(bound);
        own = std::move(bound.value);
        bits = own.get();
    } else {
        if (cpuset->bitmap == nullptr)
            return R::failure(PMIX_ERR_BAD_PARAM, "cpuset without bitmap");
        if (cpuset->source != nullptr && !pmix::maps::is_hwloc_source(cpuset->source))
            return R::failure(PMIX_ERR_NOT_SUPPORTED, "not an hwloc cpuset");
        bits = static_cast<hwloc_const_bitmap_t>(cpuset->bitmap);
    }
    return pmix::maps::compute_distances(topology, bits, request.value);
}

struct DistanceAnswer {
    pmix_device_distance_t* dist = nullptr;
    size_t ndist = 0;
};

void release_distances(void* cbdata) {
    auto* answer = static_cast<DistanceAnswer*>(cbdata);
    if (answer->dist != nullptr) PMIX_DEVICE_DIST_FREE(answer->dist, answer->ndist);
    delete answer;
}

}  // namespace

// Computed in the caller's process, as OpenPMIx does when it has the topology (it asks its server
// only when it cannot load one; this library always can, or fails with hwloc's error).
pmix_status_t PMIx_Compute_distances(pmix_topology_t* topo, pmix_cpuset_t* cpuset,
                                     pmix_info_t info[], size_t ninfo,
                                     pmix_device_distance_t** distances, size_t* ndist) {
    return guarded([&] {
        if (any_null(distances, ndist)) return PMIX_ERR_BAD_PARAM;
        *distances = nullptr;
        *ndist = 0;
        auto found = distances_of(topo, cpuset, info, ninfo);
        if (!found.ok()) return found.status;
        return export_distances(found.value, distances, ndist);
    });
}

// The answer is computed here; the callback runs later on another thread, never inside this
// call. An error is returned at once and the callback is not called.
pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t* topo, pmix_cpuset_t* cpuset,
                                        pmix_info_t info[], size_t ninfo,
                                        pmix_device_dist_cbfunc_t cbfunc, void* cbdata) {
    return guarded([&] {
        if (cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
        auto found = distances_of(topo, cpuset, info, ninfo);
        if (!found.ok()) return found.status;
        auto answer = std::make_unique<DistanceAnswer>();
        if (pmix_status_t rc = export_distances(found.value, &answer->dist, &answer->ndist);
            rc != PMIX_SUCCESS) {
            return rc;
        }
        DistanceAnswer* raw = answer.release();
        pmix::server::call_host_later([raw, cbfunc, cbdata] {
            cbfunc(PMIX_SUCCESS, raw->dist, raw->ndist, cbdata, release_distances, raw);
        });
        return PMIX_SUCCESS;
    });
}
