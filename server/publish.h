// server/publish.h - what the server writes into the shared-memory store (gds/) for its clients.
//
// The server keeps its own maps (store.h) for the lookups it answers itself and for its waiting
// logic (a Get waiting for a local commit, direct modex); the gds store is the clients' read
// path: everything a client may PMIx_Get without asking the server is mirrored into it as soon as
// the server has it (registration, each client's commit, each fence or direct-modex result,
// Store_internal), and a client that misses there asks the server as before.
#pragma once

#include "server/store.h"

#include <pmix_common.h>

#include <map>
#include <memory>
#include <string>

namespace pmix::gds {
class StoreWriter;
}

namespace pmix::server {

// Creates the store the server publishes into: PMIX_GDS_MODULE selects shared memory (default)
// or the heap ("hash"); PMIX_CPP_GDS_PREFIX names its segments. Never null (heap fallback).
std::unique_ptr<gds::StoreWriter> make_client_store();

// Everything of a freshly registered namespace (job, apps, nodes, procs, modex already held).
pmix_status_t publish_namespace(gds::StoreWriter& w, const Namespace& ns);

// One process's modex entries (a commit, or what a fence / direct modex brought in).
pmix_status_t publish_modex(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                            const std::map<std::string, ModexEntry>& entries);

// One value (Store_internal): rank WILDCARD = job level.
pmix_status_t publish_value(gds::StoreWriter& w, const std::string& nspace, pmix_rank_t rank,
                            const std::string& key, const pmix_value_t& value);

}  // namespace pmix::server
