// server/resources.h - what PMIx_server_register_resources and PMIx_server_deliver_inventory
// leave with the server, shared with the host's thread under its own lock.
//
// Registered resources are OpenPMIx 4.2.2's "global data": keys not tied to one job, added to the
// job-level data of every namespace registered afterwards (readable with PMIx_Get of rank
// PMIX_RANK_WILDCARD). A key the job's own registration also gives keeps the job's value.
// Deregistering removes keys by name, for namespaces registered from then on.
// Delivered inventories are kept as delivered (OpenPMIx hands them to its network plugins, which
// this library does not have); nothing reads them yet.
#pragma once

#include "server/registration.h"

#include "data/info_array.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace pmix::server {

struct GlobalResources {
    std::mutex mu;
    std::map<std::string, Value> keys;       // under mu
    std::vector<data::InfoArray> delivered;  // under mu

    // Adds the registered keys the job does not give itself to reg.job (register_nspace).
    void add_to(Registration& reg);
};

}  // namespace pmix::server
