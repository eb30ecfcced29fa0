// server/app_env.h - the environment setup_fork gives each process beyond the library's own
// variables: the host's environment directives and what the fabric plugins asked for.
//
// Order setup_fork applies them in (each source's directives in the order given):
//   1. `registered`: PMIX_SET/ADD/UNSET/PREPEND/APPEND/FIRST_ENVAR among the job info of
//      PMIx_server_register_nspace (a launcher passes a spawn's job-level directives first, then
//      its app-level ones: PRRTE's order, "app trumps job").
//   1b. `by_app`: the directives inside the registered PMIX_APP_INFO_ARRAY of the process's app
//      (its PMIX_APPNUM in its PMIX_PROC_DATA; 0 when it has none), after the job's: the app
//      trumps the job, as for a spawn.
//   2. `support`: setup_local_support's results, in the order the host gave them - a fabric
//      plugin's variables (as PMIX_SET_ENVAR) and directives carried among the results of
//      setup_application. After the host's: PRRTE applies a job's and an app's directives to
//      the app's environment before it calls setup_fork, which adds the library's part.
//   3. `by_process`: a plugin's variables for one process (e.g. its NIC), set last of the three.
//   4. The library's own variables (PMIX_NAMESPACE, PMIX_RANK, the server URI ...), which no
//      directive can change: a client without them could not connect.
//
// Contract: `registered` is written on the host's thread (register_nspace), `support` and
// `by_process` on the loop thread (setup_local_support); setup_fork reads them on the host's
// thread: every access holds `mu`. Entries of a namespace are dropped at its deregistration.
#pragma once

#include "server/clients.h"

#include "data/envar.h"

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace pmix::server {

using EnvVars = std::vector<std::pair<std::string, std::string>>;
using EnvarDirectives = std::vector<data::EnvarDirective>;

// The directives of a job's app arrays and which app each rank belongs to (kept only for a job
// whose app arrays carry directives: nothing per rank otherwise).
struct AppDirectives {
    std::map<std::uint32_t, EnvarDirectives> by_app;
    std::vector<std::uint32_t> app_of_rank;  // indexed by rank; absent: app 0
    bool empty() const { return by_app.empty(); }
};

// Reads AppDirectives from register_nspace's info: each PMIX_APP_INFO_ARRAY's directives under
// its PMIX_APPNUM (0 when it has none), each PMIX_PROC_DATA's PMIX_APPNUM. The first bad
// directive fails the read with its status and `why`.
pmix_status_t read_app_directives(const pmix_info_t* info, std::size_t ninfo, AppDirectives& out,
                                  std::string& why);

struct AppEnvironment {
    std::mutex mu;
    std::map<std::string, EnvarDirectives> registered;
    std::map<std::string, AppDirectives> by_app;
    std::map<std::string, EnvarDirectives> support;
    std::map<ProcKey, EnvVars> by_process;

    void drop_namespace(const std::string& name) {
        std::lock_guard lock(mu);
        registered.erase(name);
        by_app.erase(name);
        support.erase(name);
        std::erase_if(by_process, [&](const auto& kv) { return kv.first.first == name; });
    }
};

// Sets NAME=value in a malloc'd, NULL-terminated environment array (replacing an old entry).
pmix_status_t set_env(const char* name, const std::string& value, char*** env);

// The host's directives and the fabric plugins' variables for one process, applied to `env` in
// the order above (1-3).
pmix_status_t apply_app_environment(AppEnvironment& app_env, const std::string& ns,
                                    pmix_rank_t rank, char*** env);

}  // namespace pmix::server
