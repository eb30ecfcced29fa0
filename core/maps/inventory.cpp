// core/maps/inventory.cpp - the fabric devices of this node from hwloc (inventory.h).
#include "maps/inventory.h"

#include <cstdio>
#include <cstring>

namespace pmix::maps {

namespace {

std::string hex4(unsigned value) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%04x", value & 0xffffu);
    return buf;
}

const char* address_of(hwloc_obj_t obj) {
    for (unsigned i = 0; i < obj->infos_count; ++i) {
        if (std::strcmp(obj->infos[i].name, "Address") == 0) return obj->infos[i].value;
    }
    return nullptr;
}

}  // namespace

std::vector<FabricDevice> fabric_devices(hwloc_topology_t topology) {
    std::vector<FabricDevice> out;
    if (topology == nullptr) return out;
    for (hwloc_obj_t dev = hwloc_get_next_osdev(topology, nullptr); dev != nullptr;
         dev = hwloc_get_next_osdev(topology, dev)) {
        const auto kind = dev->attr->osdev.type;
        if (kind != HWLOC_OBJ_OSDEV_NETWORK && kind != HWLOC_OBJ_OSDEV_OPENFABRICS) continue;
        FabricDevice d;
        d.name = dev->name != nullptr ? dev->name : "";
        d.type = kind == HWLOC_OBJ_OSDEV_NETWORK ? "network" : "openfabrics";
        if (const char* addr = address_of(dev)) d.address = addr;
        hwloc_obj_t parent = dev->parent;
        if (parent != nullptr && parent->type == HWLOC_OBJ_PCI_DEVICE) {
            d.bus_type = "pci";
            d.vendor_id = hex4(parent->attr->pcidev.vendor_id);
            d.device_id = hex4(parent->attr->pcidev.device_id);
        }
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace pmix::maps
