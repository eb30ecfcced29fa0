// core/maps/distances.h - PMIx_Compute_distances: how far the devices of a node are from a set
// of PUs, in hwloc topology levels, computed as OpenPMIx 4.2.2 does (src/hwloc/pmix_hwloc.c).
//
// For each OS device of a requested type (network, OpenFabrics, GPU; block, DMA and coprocessor
// devices are never reported, as in OpenPMIx), the distance is measured from the deepest object
// that covers the whole cpuset (`cover`) to the nearest ancestor of the device that has a cpuset
// (`anchor`), through their common ancestor A: topology depth - A's depth, or, when A is the
// whole machine, cover's depth + topology depth (further than anything inside a package).
// mindist == maxdist: every PU of the set shares `cover`.
//
// Device ids (the uuid), as OpenPMIx writes them: "ipv4://<Address>" for a network device whose
// hwloc Address has 5 colons (a MAC; OpenPMIx's name for it), "ipv6://<Address>" for 19 (an
// InfiniBand hardware address), "fab://<NodeGUID>::<SysImageGUID>" for OpenFabrics,
// "gpu://<host>::<name>" for GPUs (their "card*" twins skipped). A device whose id cannot be
// formed (no address) is left out; OpenPMIx fails the whole call instead.
#pragma once

#include "base/result.h"

#include <hwloc.h>
#include <pmix_common.h>

#include <string>
#include <vector>

namespace pmix::maps {

struct DeviceDistance {
    std::string uuid, osname;
    pmix_device_type_t type = PMIX_DEVTYPE_UNKNOWN;
    std::uint16_t mindist = 0, maxdist = 0;
};

struct DistanceRequest {
    pmix_device_type_t types = 0;  // PMIX_DEVTYPE_* bits; 0 = every type
    std::vector<std::string> ids;  // PMIX_DEVICE_ID: osname or uuid (any case); empty = all
    std::string hostname;          // for GPU ids
};

// The request from PMIx_Compute_distances' info: PMIX_DEVICE_TYPE (pmix_device_type_t bits,
// OR'd over repeats; none given: every type) and PMIX_DEVICE_ID (strings); other keys are
// ignored. PMIX_ERR_TYPE_MISMATCH for a value of the wrong type, PMIX_ERR_BAD_PARAM for
// info NULL with ninfo > 0.
Result<DistanceRequest> parse_distance_request(const pmix_info_t* info, std::size_t ninfo);

// PMIX_ERR_BAD_PARAM for a NULL topology or cpuset, or a cpuset with no PU of the topology;
// PMIX_ERR_NOT_AVAILABLE when only the whole machine covers the cpuset (OpenPMIx's answer: no
// useful distance); PMIX_ERR_NOT_FOUND when no device matches.
Result<std::vector<DeviceDistance>> compute_distances(hwloc_topology_t topology,
                                                      hwloc_const_bitmap_t cpuset,
                                                      const DistanceRequest& request);

}  // namespace pmix::maps
