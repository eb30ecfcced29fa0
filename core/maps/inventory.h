// core/maps/inventory.h - the fabric devices of this node as hwloc sees them (network and
// OpenFabrics OS devices with their PCI parents), for PMIx_server_collect_inventory.
#pragma once

#include <hwloc.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pmix::maps {

struct FabricDevice {
    std::string name;                  // the OS name ("eth0", "mlx5_0")
    std::string type;                  // "network" or "openfabrics"
    std::string address;               // hwloc's Address (MAC / hardware address); may be empty
    std::string bus_type;              // "pci" when it hangs off a PCI device, else empty
    std::string vendor_id, device_id;  // the PCI ids as 4 hex digits; empty without PCI
};

std::vector<FabricDevice> fabric_devices(hwloc_topology_t topology);

}  // namespace pmix::maps
