// server/resources.cpp - PMIx_server_collect_inventory / deliver_inventory and
// PMIx_server_register_resources / deregister_resources (storage rules in resources.h).
//
// As OpenPMIx 4.2.2 (src/server/pmix_server.c): every callback runs later, never inside the
// host's call; without a callback register/deregister/deliver wait and return
// PMIX_OPERATION_SUCCEEDED. The inventory is this node's: PMIX_HOSTNAME, PMIX_AVAIL_PHYS_MEMORY
// and PMIX_FABRIC_DEVICES (one PMIX_FABRIC_DEVICE array per network or OpenFabrics device, from
// hwloc). OpenPMIx 4.2.2 collects only what its network plugins (pnet opa, sshot, nvd) find: on a
// node without such hardware, nothing.
#include "server/api.h"
#include "server/state.h"

#include "data/value.h"
#include "maps/inventory.h"
#include "maps/topology.h"

#include <unistd.h>

#include <cstring>

namespace pmix::server {

void GlobalResources::add_to(Registration& reg) {
    std::lock_guard lock(mu);
    for (const auto& [key, value] : keys) reg.job.emplace(key, value);  // the job's own wins
}

namespace {

pmix_status_t add_string(data::InfoArray& out, const char* key, const std::string& value) {
    if (value.empty()) return PMIX_SUCCESS;
    return out.append(key, value.c_str(), PMIX_STRING);
}

// Appends `inner` as one info whose value is a PMIX_DATA_ARRAY of PMIX_INFO.
pmix_status_t append_array(data::InfoArray& out, const char* key, data::InfoArray& inner) {
    pmix_data_array_t array{PMIX_INFO, inner.size(), inner.data()};
    return out.append(key, &array, PMIX_DATA_ARRAY);  // a deep copy; `inner` keeps its own
}

pmix_status_t describe_device(const maps::FabricDevice& dev, data::InfoArray& out) {
    data::InfoArray fields;
    pmix_status_t rc = add_string(fields, PMIX_FABRIC_DEVICE_NAME, dev.name);
    if (rc == PMIX_SUCCESS) rc = add_string(fields, PMIX_FABRIC_DEVICE_TYPE, dev.type);
    if (rc == PMIX_SUCCESS) rc = add_string(fields, PMIX_FABRIC_DEVICE_ADDRESS, dev.address);
    if (rc == PMIX_SUCCESS) rc = add_string(fields, PMIX_FABRIC_DEVICE_BUS_TYPE, dev.bus_type);
    if (rc == PMIX_SUCCESS) rc = add_string(fields, PMIX_FABRIC_DEVICE_VENDORID, dev.vendor_id);
    if (rc == PMIX_SUCCESS) rc = add_string(fields, PMIX_FABRIC_DEVICE_PCI_DEVID, dev.device_id);
    if (rc == PMIX_SUCCESS) rc = append_array(out, PMIX_FABRIC_DEVICE, fields);
    return rc;
}

pmix_status_t node_inventory(data::InfoArray& out) {
    auto topology = maps::node_topology();
    if (!topology.ok()) return topology.status;
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
    pmix_status_t rc = out.append(PMIX_HOSTNAME, host, PMIX_STRING);
    // The kernel's total, not hwloc's sum over NUMA nodes: on this test VM they differ (10.9 GB
    // in node0's meminfo against 24.7 GB MemTotal) and MemTotal is what the node has.
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    const std::uint64_t memory =
        pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page)
                              : 0;
    if (rc == PMIX_SUCCESS && memory > 0) {
        rc = out.append(PMIX_AVAIL_PHYS_MEMORY, &memory, PMIX_UINT64);
    }
    data::InfoArray devices;
    for (const auto& dev : maps::fabric_devices(topology.value.topology)) {
        if (rc == PMIX_SUCCESS) rc = describe_device(dev, devices);
    }
    if (rc == PMIX_SUCCESS && devices.size() > 0) {
        rc = append_array(out, PMIX_FABRIC_DEVICES, devices);
    }
    return rc;
}

struct Inventory {
    data::InfoArray info;
};

void release_inventory(void* cbdata) { delete static_cast<Inventory*>(cbdata); }

// The op's outcome: to `cbfunc` later, or, without one, as the call's own status.
pmix_status_t finish_op(pmix_status_t rc, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (cbfunc == nullptr) return rc == PMIX_SUCCESS ? PMIX_OPERATION_SUCCEEDED : rc;
    if (rc != PMIX_SUCCESS) return rc;  // an error is returned, the callback never called
    call_host_later([cbfunc, cbdata] { cbfunc(PMIX_SUCCESS, cbdata); });
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t collect_inventory(const pmix_info_t* dirs, size_t ndirs, pmix_info_cbfunc_t cbfunc,
                                void* cbdata) {
    if (current() == nullptr) return PMIX_ERR_INIT;
    if (cbfunc == nullptr || (dirs == nullptr && ndirs > 0)) return PMIX_ERR_BAD_PARAM;
    call_host_later([cbfunc, cbdata] {
        auto inv = std::make_unique<Inventory>();
        const pmix_status_t rc = node_inventory(inv->info);
        if (rc != PMIX_SUCCESS) {
            cbfunc(rc, nullptr, 0, cbdata, nullptr, nullptr);
            return;
        }
        Inventory* raw = inv.release();
        cbfunc(PMIX_SUCCESS, raw->info.data(), raw->info.size(), cbdata, release_inventory, raw);
    });
    return PMIX_SUCCESS;
}

pmix_status_t deliver_inventory(const pmix_info_t* info, size_t ninfo, const pmix_info_t* dirs,
                                size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    auto st = current();
    if (st == nullptr) return PMIX_ERR_INIT;
    if ((info == nullptr && ninfo > 0) || (dirs == nullptr && ndirs > 0)) return PMIX_ERR_BAD_PARAM;
    data::InfoArray copy;
    pmix_status_t rc = copy.assign_copy(info, ninfo);
    if (rc == PMIX_SUCCESS) {
        std::lock_guard lock(st->resources.mu);
        st->resources.delivered.push_back(std::move(copy));
    }
    return finish_op(rc, cbfunc, cbdata);
}

pmix_status_t register_resources(const pmix_info_t* info, size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                 void* cbdata) {
    auto st = current();
    if (st == nullptr) return PMIX_ERR_INIT;
    if (info == nullptr && ninfo > 0) return PMIX_ERR_BAD_PARAM;
    for (size_t i = 0; i < ninfo; ++i) {
        if (info[i].key[0] == '\0') return PMIX_ERR_BAD_PARAM;
    }
    {
        std::lock_guard lock(st->resources.mu);
        for (size_t i = 0; i < ninfo; ++i) {
            st->resources.keys.insert_or_assign(info[i].key, Value(info[i].value));
        }
    }
    return finish_op(PMIX_SUCCESS, cbfunc, cbdata);
}

pmix_status_t deregister_resources(const pmix_info_t* info, size_t ninfo, pmix_op_cbfunc_t cbfunc,
                                   void* cbdata) {
    auto st = current();
    if (st == nullptr) return PMIX_ERR_INIT;
    if (info == nullptr && ninfo > 0) return PMIX_ERR_BAD_PARAM;
    {
        std::lock_guard lock(st->resources.mu);
        for (size_t i = 0; i < ninfo; ++i) st->resources.keys.erase(info[i].key);
    }
    return finish_op(PMIX_SUCCESS, cbfunc, cbdata);
}

}  // namespace pmix::server
