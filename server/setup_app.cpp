// The server side of the fabric plugins: what setup_application collects on the launcher's node
// and what setup_local_support installs on every node (setup_app.h).
#include "server/setup_app.h"

#include "server/publish.h"
#include "server/state.h"

#include "data/directives.h"
#include "data/envar.h"
#include "data/value.h"
#include "fabric/plugins/plugin.h"
#include "maps/node_regex.h"

#include <cstring>

extern char** environ;

namespace pmix::server {
namespace {

using data::flag_true;
using data::key_is;

// Directives setup_application understands (or passes through untouched); any other one marked
// required is refused.
constexpr const char* kKnownDirectives[] = {PMIX_SETUP_APP_ENVARS,
                                            PMIX_SETUP_APP_NONENVARS,
                                            PMIX_SETUP_APP_ALL,
                                            PMIX_NODE_MAP,
                                            PMIX_PROC_MAP,
                                            PMIX_ALLOC_FABRIC,
                                            PMIX_ALLOC_FABRIC_ID,
                                            PMIX_ALLOC_FABRIC_SEC_KEY,
                                            PMIX_ALLOC_FABRIC_TYPE,
                                            PMIX_ALLOC_FABRIC_PLANE,
                                            PMIX_ALLOC_FABRIC_ENDPTS,
                                            PMIX_ALLOC_FABRIC_ENDPTS_NODE,
                                            PMIX_SESSION_INFO,
                                            PMIX_PROGRAMMING_MODEL,
                                            PMIX_MODEL_LIBRARY_NAME,
                                            PMIX_MODEL_LIBRARY_VERSION,
                                            PMIX_PARENT_ID,
                                            PMIX_SET_ENVAR,
                                            PMIX_ADD_ENVAR,
                                            PMIX_UNSET_ENVAR,
                                            PMIX_PREPEND_ENVAR,
                                            PMIX_APPEND_ENVAR,
                                            PMIX_FIRST_ENVAR,
                                            "pmix.cpp.fwd.envars",
                                            "pmix.cpp.node.addrs",
                                            "pmix.cpp.fab.port"};

// The job map from the two map strings; false if either is missing or malformed.
bool parse_map(const char* nspace, const pmix_value_t* nodes, const pmix_value_t* procs,
               fabric::JobMap& map) {
    map.nspace = nspace;
    if (nodes == nullptr || procs == nullptr || nodes->type != PMIX_STRING ||
        procs->type != PMIX_STRING || nodes->data.string == nullptr ||
        procs->data.string == nullptr) {
        return false;
    }
    auto n = maps::parse_nodes(nodes->data.string);
    auto p = maps::parse_ppn(procs->data.string);
    if (!n.ok() || !p.ok() || n.value.size() != p.value.size()) return false;
    map.nodes = std::move(n.value);
    map.ranks = std::move(p.value);
    return true;
}

// An environment directive among setup_local_support's info, kept for setup_fork (app_env.h);
// any other key is not ours and is skipped.
pmix_status_t install_directive(State& s, const std::string& nspace, const std::string& key,
                                const pmix_value_t& v) {
    pmix_info_t view{};  // a shallow view: never destructed
    PMIX_LOAD_KEY(view.key, key.c_str());
    view.value = v;
    if (!data::is_envar_directive(view)) return PMIX_SUCCESS;
    data::EnvarDirective d;
    std::string why;
    if (pmix_status_t rc = data::read_envar_directive(view, d, why); rc != PMIX_SUCCESS) {
        slog(exec::LogLevel::info, "setup_local_support(" + nspace + "): " + why);
        return rc;
    }
    std::lock_guard lock(s.app_env.mu);
    s.app_env.support[nspace].push_back(std::move(d));
    return PMIX_SUCCESS;
}

// One plugin's blob through its setup_local: its variables for setup_fork, its values stored.
pmix_status_t install_plugin_blob(State& s, const std::string& nspace, const std::string& name,
                                  const pmix_value_t& v, const fabric::JobMap& map, bool have_map,
                                  size_t here) {
    fabric::Plugin* plugin = fabric::find_plugin(name);
    if (plugin == nullptr) {
        slog(exec::LogLevel::info, "setup_local_support: no fabric plugin '" + name + "' here");
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (v.type != PMIX_BYTE_OBJECT) {
        slog(exec::LogLevel::info, "setup_local_support: blob of " + name + " is not bytes");
        return PMIX_ERR_BAD_PARAM;
    }
    fabric::LocalResult out;
    std::string why;
    const auto* bytes = reinterpret_cast<const std::byte*>(v.data.bo.bytes);
    const fabric::LocalRequest req{map, here, {bytes, v.data.bo.size}};
    if (pmix_status_t rc = plugin->setup_local(req, out, why); rc != PMIX_SUCCESS) {
        slog(exec::LogLevel::info, "setup_local_support: plugin " + name + ": " + why);
        return rc;
    }
    if (!out.proc.empty() && !have_map) {
        slog(exec::LogLevel::info,
             "setup_local_support: plugin " + name + " needs the job's node and process maps");
        return PMIX_ERR_BAD_PARAM;
    }
    {
        std::lock_guard lock(s.app_env.mu);
        auto& env = s.app_env.support[nspace];
        for (const auto& [var, value] : out.env)
            env.push_back({data::EnvarOp::set, var, value, '\0'});
        for (const auto& [rank, vars] : out.proc_env) {
            auto& mine = s.app_env.by_process[{nspace, rank}];
            mine.insert(mine.end(), vars.begin(), vars.end());
        }
    }
    for (const auto& [rank, values] : out.proc) {
        for (const auto& [k, owned] : values) {
            publish_value(*s.store, nspace, rank, k, owned->value);
        }
    }
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t collect_application_setup(const char* nspace, const pmix_info_t* info, size_t ninfo,
                                        std::vector<pmix_info_t>& out, std::string& why) {
    bool envars = false, nonenvars = false, any = false;
    const pmix_value_t* nodes = nullptr;
    const pmix_value_t* procs = nullptr;
    if (const pmix_info_t* bad = data::unknown_required(info, ninfo, kKnownDirectives)) {
        why = std::string("required directive '") + bad->key + "' is not supported";
        return PMIX_ERR_NOT_SUPPORTED;
    }
    for (size_t i = 0; i < ninfo; ++i) {
        if (key_is(info[i], PMIX_SETUP_APP_ENVARS)) {
            envars = envars || flag_true(info[i]);
            any = true;
        }
        if (key_is(info[i], PMIX_SETUP_APP_NONENVARS)) {
            nonenvars = nonenvars || flag_true(info[i]);
            any = true;
        }
        if (key_is(info[i], PMIX_SETUP_APP_ALL) && flag_true(info[i])) {
            envars = nonenvars = any = true;
        }
        if (key_is(info[i], PMIX_NODE_MAP)) nodes = &info[i].value;
        if (key_is(info[i], PMIX_PROC_MAP)) procs = &info[i].value;
    }
    if (!any) envars = nonenvars = true;  // none of the three: everything relevant
    std::vector<data::EnvarDirective> directives;
    if (pmix_status_t rc = data::read_envar_directives(info, ninfo, directives, why);
        rc != PMIX_SUCCESS) {
        return rc;
    }
    fabric::JobMap map;
    if ((nodes != nullptr || procs != nullptr) && !parse_map(nspace, nodes, procs, map)) {
        why = "PMIX_NODE_MAP / PMIX_PROC_MAP missing one of the two or malformed";
        return PMIX_ERR_BAD_PARAM;
    }
    map.nspace = nspace;
    const fabric::AppRequest req{map, info, ninfo, envars, nonenvars, environ};
    for (fabric::Plugin* p : fabric::plugins()) {
        fabric::Blob blob;
        if (pmix_status_t rc = p->setup_application(req, blob, why); rc != PMIX_SUCCESS) {
            why = std::string(p->name()) + ": " + why;
            return rc;
        }
        if (blob.empty()) continue;
        const std::string key = std::string(fabric::kBlobKeyPrefix) + std::string(p->name());
        pmix_byte_object_t bo{reinterpret_cast<char*>(blob.data()), blob.size()};
        data::info_load(&out.emplace_back(), key.c_str(), &bo, PMIX_BYTE_OBJECT);
    }
    // The host's environment directives travel with the blobs, after them (setup_local_support
    // applies the results in order, so a directive can edit a forwarded variable).
    for (size_t i = 0; i < ninfo; ++i) {
        if (data::is_envar_directive(info[i])) data::info_xfer(&out.emplace_back(), &info[i]);
    }
    for (const pmix_value_t* m : {nodes, procs}) {
        if (m == nullptr) continue;
        pmix_info_t& copy = out.emplace_back();
        data::info_load(&copy, m == nodes ? PMIX_NODE_MAP : PMIX_PROC_MAP, m->data.string,
                        PMIX_STRING);
    }
    return PMIX_SUCCESS;
}

pmix_status_t install_local_support(State& s, const std::string& nspace,
                                    const std::vector<std::pair<std::string, Value>>& info) {
    const pmix_value_t* nodes = nullptr;
    const pmix_value_t* procs = nullptr;
    for (const auto& [k, v] : info) {
        if (k == PMIX_NODE_MAP) nodes = &v.get();
        if (k == PMIX_PROC_MAP) procs = &v.get();
    }
    s.namespaces.touch(nspace);
    Value registered_nodes, registered_procs;
    if (nodes == nullptr || procs == nullptr) {  // the maps the host registered
        const bool have_nodes = read_value(*s.reader, nspace, PMIX_RANK_WILDCARD, PMIX_NODE_MAP,
                                           registered_nodes) == PMIX_SUCCESS;
        const bool have_procs = read_value(*s.reader, nspace, PMIX_RANK_WILDCARD, PMIX_PROC_MAP,
                                           registered_procs) == PMIX_SUCCESS;
        nodes = have_nodes ? &registered_nodes.get() : nullptr;
        procs = have_procs ? &registered_procs.get() : nullptr;
    }
    fabric::JobMap map;
    const bool have_map = parse_map(nspace.c_str(), nodes, procs, map);
    size_t here = 0;
    while (here < map.nodes.size() && map.nodes[here] != s.hostname) ++here;
    for (const auto& [key, value] : info) {
        if (key.rfind(fabric::kBlobKeyPrefix, 0) == 0) {
            const std::string name = key.substr(fabric::kBlobKeyPrefix.size());
            if (pmix_status_t rc =
                    install_plugin_blob(s, nspace, name, value.get(), map, have_map, here);
                rc != PMIX_SUCCESS)
                return rc;
        } else if (pmix_status_t rc = install_directive(s, nspace, key, value.get());
                   rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

}  // namespace pmix::server
