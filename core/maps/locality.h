// core/maps/locality.h - locality strings (PMIX_LOCALITY_STRING) and relative locality.
//
// A locality string lists, for one process's cpuset, the objects of each level it overlaps:
// "SK0:L30:L20:L10:CR0:HT0:NM0" = package 0, L3/L2/L1 cache 0, core 0, hardware thread 0, NUMA
// node 0; indices are hwloc logical indices in hwloc's list syntax ("CR0-1,4"). The levels come
// top-down as the topology orders them, NUMA last (a memory child in hwloc 2), exactly as
// OpenPMIx 4.2.2 writes them: hosts such as PRRTE put these strings into the job data and every
// client compares them, so ours must be byte-identical (checked against Debian's OpenPMIx).
//
// Relative locality: two strings are compared level by level; a level whose index lists intersect
// sets its PMIX_LOCALITY_SHARE_* bit, and PMIX_LOCALITY_SHARE_NODE is always set (a locality
// string only exists for processes on this node). An optional "hwloc:" prefix is accepted on
// either string: OpenPMIx 4.2.2 insists on it although its own generator never writes it, and then
// reports PMIX_ERR_TAKE_NEXT_OPTION even after computing the answer. We return PMIX_SUCCESS with
// the same bits.
#pragma once

#include "base/result.h"

#include <hwloc.h>
#include <pmix_common.h>

#include <optional>
#include <string>
#include <string_view>

namespace pmix::maps {

// The locality string of `cpuset` in `topology`; nullopt when there is none: no cpuset, a full
// one (an unbound process has no locality) or one touching no object.
Result<std::optional<std::string>> locality_string(hwloc_topology_t topology,
                                                   hwloc_const_bitmap_t cpuset);

// PMIx_Get_relative_locality. An unknown level tag or a malformed index list is
// PMIX_ERR_BAD_PARAM.
Result<pmix_locality_t> relative_locality(std::string_view first, std::string_view second);

}  // namespace pmix::maps
