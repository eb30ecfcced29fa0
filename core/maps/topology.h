// core/maps/topology.h - this node's hardware topology (hwloc), shared by every locality and
// cpuset operation, and PMIx_Load_topology / PMIx_Topology_destruct.
//
// One topology per process: the one a host hands over (adopt_topology, from the server's init
// attributes) or, failing that, our own hwloc discovery, done once on first use (a few ms, ~20 ms
// with I/O devices). It is never destroyed before exit, so the pointer PMIx_Load_topology hands
// out stays valid however callers behave - OpenPMIx hands out the same shared pointer, and
// destroying it there frees the library's own copy; here PMIx_Topology_destruct recognises it
// and releases only the source string.
#pragma once

#include "base/result.h"

#include <hwloc.h>
#include <pmix_common.h>

#include <string>
#include <string_view>

namespace pmix::maps {

struct NodeTopology {
    hwloc_topology_t topology = nullptr;
    std::string source;  // "hwloc:<version>" for our discovery, as OpenPMIx reports it
};

// The process-wide topology, discovering it on first use. PMIX_ERR_NOT_SUPPORTED if hwloc fails.
Result<NodeTopology> node_topology();

// Use `topology` (owned by the host, loaded, never destroyed while we run) from now on.
// A topology we discovered earlier stays alive for pointers already handed out.
// PMIX_ERR_BAD_PARAM for a NULL topology or a source that is not hwloc's.
pmix_status_t adopt_topology(hwloc_topology_t topology, std::string_view source);

// True for the topology node_topology() returns or returned before an adopt_topology().
bool is_shared_topology(const void* topology) noexcept;

// PMIx_Load_topology. `topo.source`, when set, asks for a particular provider/version: it must
// be a prefix (case-insensitive) of ours, otherwise PMIX_ERR_NOT_SUPPORTED. When unset it is
// filled with a malloc'd copy of ours. `topo.topology` receives the shared topology.
pmix_status_t load_topology(pmix_topology_t& topo);

// PMIx_Topology_destruct: destroys a topology unless it is the shared one, frees the source and
// leaves both fields NULL.
void destruct_topology(pmix_topology_t& topo) noexcept;

// True when `source` names hwloc ("hwloc", "hwloc:2.9.0", any case); false for NULL.
bool is_hwloc_source(const char* source) noexcept;

}  // namespace pmix::maps
