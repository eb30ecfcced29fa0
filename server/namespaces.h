// server/namespaces.h - what the server keeps about each namespace besides its values.
//
// Contract: the server's loop thread only. Values (job, app, node, process and modex data) are
// never held here: they are in the store (publish.h). A Namespace exists from the first thing
// that names it (register_nspace, a client's registration or commit, a fence or direct-modex
// result, Store_internal) until deregister_nspace; `registered` tells whether the host has
// registered it yet (clients may come first).
#pragma once

#include "server/registration.h"

#include <pmix_common.h>

#include <map>
#include <set>
#include <string>

namespace pmix::server {

struct Namespace {
    std::string name;
    int nlocalprocs = 0;
    bool registered = false;            // register_nspace seen (clients may come first)
    std::set<pmix_rank_t> local_ranks;  // from the host's info or registered clients
    RankRuns ranks;                     // every rank the registration names
};

class NamespaceTable {
public:
    using Map = std::map<std::string, Namespace>;

    // The namespace called `name`, created (unregistered, empty) when it is not known yet.
    Namespace& touch(const std::string& name) {
        Namespace& ns = by_name_[name];
        ns.name = name;
        return ns;
    }
    const Namespace* find(const std::string& name) const {
        auto it = by_name_.find(name);
        return it == by_name_.end() ? nullptr : &it->second;
    }
    bool contains(const std::string& name) const { return by_name_.count(name) != 0; }
    // A rank the host (or a registered client) placed on this node.
    bool is_local(const std::string& name, pmix_rank_t rank) const {
        const Namespace* ns = find(name);
        return ns != nullptr && ns->local_ranks.count(rank) != 0;
    }
    void erase(const std::string& name) { by_name_.erase(name); }
    Map::const_iterator begin() const { return by_name_.begin(); }
    Map::const_iterator end() const { return by_name_.end(); }

private:
    Map by_name_;
};

}  // namespace pmix::server
