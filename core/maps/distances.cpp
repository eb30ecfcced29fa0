// core/maps/distances.cpp - device distances (rules in distances.h).
#include "maps/distances.h"

#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace pmix::maps {

namespace {

struct TypeMap {
    hwloc_obj_osdev_type_t hw;
    pmix_device_type_t pmix;
};

// The types OpenPMIx reports; block, DMA and coprocessor devices it never does.
constexpr TypeMap kReported[] = {
    {HWLOC_OBJ_OSDEV_GPU, PMIX_DEVTYPE_GPU},
    {HWLOC_OBJ_OSDEV_NETWORK, PMIX_DEVTYPE_NETWORK},
    {HWLOC_OBJ_OSDEV_OPENFABRICS, PMIX_DEVTYPE_OPENFABRICS},
};

const char* info_value(hwloc_obj_t obj, const char* name) {
    for (unsigned i = 0; i < obj->infos_count; ++i) {
        if (::strcasecmp(obj->infos[i].name, name) == 0) return obj->infos[i].value;
    }
    return nullptr;
}

// The device's id, empty when it cannot be formed (or the device is a GPU's "card" twin).
std::string device_uuid(hwloc_obj_t dev, hwloc_obj_osdev_type_t type, const std::string& host) {
    if (type == HWLOC_OBJ_OSDEV_NETWORK) {
        const char* addr = info_value(dev, "Address");
        if (addr == nullptr) return {};
        const auto colons = std::count(addr, addr + std::strlen(addr), ':');
        if (colons == 5) return std::string("ipv4://") + addr;
        if (colons == 19) return std::string("ipv6://") + addr;
        return {};
    }
    if (type == HWLOC_OBJ_OSDEV_OPENFABRICS) {
        const char* node = info_value(dev, "NodeGUID");
        const char* image = info_value(dev, "SysImageGUID");
        if (node == nullptr || image == nullptr) return {};
        return std::string("fab://") + node + "::" + image;
    }
    if (::strncasecmp(dev->name, "card", 4) == 0) return {};
    return "gpu://" + host + "::" + dev->name;
}

bool wanted_id(const DistanceRequest& request, const char* osname, const std::string& uuid) {
    if (request.ids.empty()) return true;
    for (const auto& id : request.ids) {
        if (::strcasecmp(id.c_str(), osname) == 0 || ::strcasecmp(id.c_str(), uuid.c_str()) == 0)
            return true;
    }
    return false;
}

// The deepest object (below the machine) whose cpuset holds all of `cpuset`; NULL if none.
hwloc_obj_t covering_object(hwloc_topology_t topology, hwloc_const_bitmap_t cpuset) {
    hwloc_obj_t found = nullptr;
    const int depth = hwloc_topology_get_depth(topology);
    for (int d = 1; d < depth; ++d) {
        hwloc_obj_t at_depth = nullptr;
        const unsigned width = hwloc_get_nbobjs_by_depth(topology, d);
        for (unsigned w = 0; w < width && at_depth == nullptr; ++w) {
            hwloc_obj_t obj = hwloc_get_obj_by_depth(topology, d, w);
            if (obj->cpuset != nullptr && hwloc_bitmap_isincluded(cpuset, obj->cpuset))
                at_depth = obj;
        }
        if (at_depth == nullptr) break;
        found = at_depth;
    }
    return found;
}

std::uint16_t distance_to(hwloc_topology_t topology, hwloc_obj_t cover, hwloc_obj_t device) {
    hwloc_obj_t anchor = device;
    while (anchor != nullptr && anchor->cpuset == nullptr) anchor = anchor->parent;
    if (anchor == nullptr) anchor = hwloc_get_root_obj(topology);
    const auto depth = static_cast<unsigned>(hwloc_topology_get_depth(topology));
    hwloc_obj_t common = hwloc_get_common_ancestor_obj(topology, cover, anchor);
    const unsigned d = (common == nullptr || common->depth == 0)
                           ? static_cast<unsigned>(cover->depth) + depth
                           : depth - static_cast<unsigned>(common->depth);
    return static_cast<std::uint16_t>(d);
}

}  // namespace

Result<DistanceRequest> parse_distance_request(const pmix_info_t* info, std::size_t ninfo) {
    using R = Result<DistanceRequest>;
    if (info == nullptr && ninfo > 0) return R::failure(PMIX_ERR_BAD_PARAM, "info NULL");
    DistanceRequest request;
    for (std::size_t i = 0; i < ninfo; ++i) {
        const pmix_value_t& v = info[i].value;
        if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_TYPE)) {
            if (v.type != PMIX_DEVTYPE)
                return R::failure(PMIX_ERR_TYPE_MISMATCH, "PMIX_DEVICE_TYPE is not a PMIX_DEVTYPE");
            request.types |= v.data.devtype;
        } else if (PMIX_CHECK_KEY(&info[i], PMIX_DEVICE_ID)) {
            if (v.type != PMIX_STRING || v.data.string == nullptr)
                return R::failure(PMIX_ERR_TYPE_MISMATCH, "PMIX_DEVICE_ID is not a string");
            request.ids.emplace_back(v.data.string);
        }
    }
    char host[256] = {};
    if (::gethostname(host, sizeof(host) - 1) == 0) request.hostname = host;
    return R::success(std::move(request));
}

Result<std::vector<DeviceDistance>> compute_distances(hwloc_topology_t topology,
                                                      hwloc_const_bitmap_t cpuset,
                                                      const DistanceRequest& request) {
    using R = Result<std::vector<DeviceDistance>>;
    if (topology == nullptr || cpuset == nullptr)
        return R::failure(PMIX_ERR_BAD_PARAM, "no topology or cpuset");
    hwloc_const_bitmap_t all = hwloc_topology_get_topology_cpuset(topology);
    if (hwloc_bitmap_iszero(cpuset) || !hwloc_bitmap_isincluded(cpuset, all))
        return R::failure(PMIX_ERR_BAD_PARAM,
                          "the cpuset is empty or names PUs the topology lacks");
    hwloc_obj_t cover = covering_object(topology, cpuset);
    if (cover == nullptr)
        return R::failure(PMIX_ERR_NOT_AVAILABLE, "only the whole machine covers the cpuset");
    std::vector<DeviceDistance> out;
    for (const TypeMap& t : kReported) {
        if (request.types != 0 && (request.types & t.pmix) == 0) continue;
        for (hwloc_obj_t dev = hwloc_get_next_osdev(topology, nullptr); dev != nullptr;
             dev = hwloc_get_next_osdev(topology, dev)) {
            if (dev->attr->osdev.type != t.hw) continue;
            std::string uuid = device_uuid(dev, t.hw, request.hostname);
            if (uuid.empty() || !wanted_id(request, dev->name, uuid)) continue;
            const std::uint16_t d = distance_to(topology, cover, dev);
            out.push_back({std::move(uuid), dev->name, t.pmix, d, d});
        }
    }
    if (out.empty()) return R::failure(PMIX_ERR_NOT_FOUND, "no device of the requested types");
    return R::success(std::move(out));
}

}  // namespace pmix::maps
