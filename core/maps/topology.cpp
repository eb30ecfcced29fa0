// core/maps/topology.cpp - see topology.h.
#include "maps/topology.h"

#include <strings.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace pmix::maps {
namespace {

struct State {
    std::mutex lock;
    hwloc_topology_t discovered = nullptr;
    std::string discovered_source;
    hwloc_topology_t adopted = nullptr;
    std::string adopted_source;
};

// Allocated once and never freed: topologies handed out must outlive every caller, including
// callers running in other threads or atexit handlers while the process winds down.
State& state() {
    static State* instance = new State;
    return *instance;
}

std::string hwloc_source() {
#ifdef HWLOC_VERSION
    return std::string("hwloc:") + HWLOC_VERSION;
#else
    return "hwloc";
#endif
}

Result<hwloc_topology_t> discover() {
    using Result = Result<hwloc_topology_t>;
    hwloc_topology_t topology = nullptr;
    if (hwloc_topology_init(&topology) != 0) {
        return Result::failure(PMIX_ERR_NOT_SUPPORTED,
                               std::string("hwloc_topology_init failed: ") + std::strerror(errno));
    }
    // Keep the "important" I/O devices (GPUs, NICs) as OpenPMIx does, so a topology handed to a
    // caller describes the same objects.
    hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    // hwloc's GL backend queries X displays and can block when one is configured but unreachable;
    // nothing here needs it.
    hwloc_topology_set_components(topology, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "gl");
    if (hwloc_topology_load(topology) != 0) {
        const int err = errno;
        hwloc_topology_destroy(topology);
        return Result::failure(PMIX_ERR_NOT_SUPPORTED,
                               std::string("hwloc_topology_load failed: ") + std::strerror(err));
    }
    return Result::success(topology);
}

}  // namespace

bool is_hwloc_source(const char* source) noexcept {
    return source != nullptr && ::strncasecmp(source, "hwloc", 5) == 0;
}

Result<NodeTopology> node_topology() {
    using Result = Result<NodeTopology>;
    auto& s = state();
    std::lock_guard guard(s.lock);
    if (s.adopted != nullptr) {
        return Result::success(NodeTopology{s.adopted, s.adopted_source});
    }
    if (s.discovered == nullptr) {
        auto found = discover();
        if (!found.ok()) {
            return forward_failure<NodeTopology>(found);
        }
        s.discovered = found.value;
        s.discovered_source = hwloc_source();
    }
    return Result::success(NodeTopology{s.discovered, s.discovered_source});
}

pmix_status_t adopt_topology(hwloc_topology_t topology, std::string_view source) {
    if (topology == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::string name(source);
    if (!is_hwloc_source(name.c_str())) {
        return PMIX_ERR_BAD_PARAM;
    }
    auto& s = state();
    std::lock_guard guard(s.lock);
    s.adopted = topology;
    s.adopted_source = std::move(name);
    return PMIX_SUCCESS;
}

bool is_shared_topology(const void* topology) noexcept {
    if (topology == nullptr) {
        return false;
    }
    auto& s = state();
    std::lock_guard guard(s.lock);
    return topology == s.discovered || topology == s.adopted;
}

pmix_status_t load_topology(pmix_topology_t& topo) {
    if (topo.source != nullptr && !is_hwloc_source(topo.source)) {
        return PMIX_ERR_NOT_SUPPORTED;  // another provider was asked for; hwloc is all we have
    }
    auto shared = node_topology();
    if (!shared.ok()) {
        return shared.status;
    }
    if (topo.source != nullptr) {
        // "hwloc" matches any version; "hwloc:2.9" matches "hwloc:2.9.0".
        if (::strncasecmp(shared.value.source.c_str(), topo.source, std::strlen(topo.source)) !=
            0) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
    } else {
        topo.source = ::strdup(shared.value.source.c_str());
        if (topo.source == nullptr) {
            return PMIX_ERR_NOMEM;
        }
    }
    topo.topology = shared.value.topology;
    return PMIX_SUCCESS;
}

void destruct_topology(pmix_topology_t& topo) noexcept {
    if (topo.topology != nullptr && is_hwloc_source(topo.source) &&
        !is_shared_topology(topo.topology)) {
        hwloc_topology_destroy(static_cast<hwloc_topology_t>(topo.topology));
    }
    topo.topology = nullptr;
    std::free(topo.source);
    topo.source = nullptr;
}

}  // namespace pmix::maps
