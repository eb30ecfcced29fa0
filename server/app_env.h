// server/app_env.h - environment the fabric plugins asked for (setup_app.cpp), handed to each
// process by setup_fork.
//
// Contract: written on the loop thread (setup_local_support), read by setup_fork on the host's
// thread: every access holds `mu`. Entries of a namespace are dropped at its deregistration.
#pragma once

#include "server/clients.h"

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pmix::server {

using EnvVars = std::vector<std::pair<std::string, std::string>>;

struct AppEnvironment {
    std::mutex mu;
    std::map<std::string, EnvVars> by_namespace;
    std::map<ProcKey, EnvVars> by_process;

    void drop_namespace(const std::string& name) {
        std::lock_guard lock(mu);
        by_namespace.erase(name);
        std::erase_if(by_process, [&](const auto& kv) { return kv.first.first == name; });
    }
};

}  // namespace pmix::server
