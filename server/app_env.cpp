// server/app_env.cpp - the environment setup_fork builds from app_env.h's sources.
#include "server/app_env.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>

namespace pmix::server {
namespace {

// The entry NAME=... of a NULL-terminated environment array; nullptr when there is none.
char** find_env(const std::string& name, char** env) {
    for (char** e = env; e != nullptr && *e != nullptr; ++e) {
        if (std::strncmp(*e, name.c_str(), name.size()) == 0 && (*e)[name.size()] == '=') return e;
    }
    return nullptr;
}

// Applies one environment directive (data/envar.h) to a malloc'd environment array.
pmix_status_t apply_directive(const data::EnvarDirective& d, char*** env) {
    char** entry = find_env(d.name, *env);
    std::optional<std::string> before;
    if (entry != nullptr) before = std::string(*entry + d.name.size() + 1);
    const std::optional<std::string> after = data::envar_result(d, before);
    if (after.has_value()) return set_env(d.name.c_str(), *after, env);
    while ((entry = find_env(d.name, *env)) != nullptr) {  // unset: every entry of the name
        std::free(*entry);
        do {
            entry[0] = entry[1];
        } while (*entry++ != nullptr);
    }
    return PMIX_SUCCESS;
}

// The infos of a PMIX_DATA_ARRAY of PMIX_INFO value; nullptr (n = 0) otherwise.
const pmix_info_t* info_array(const pmix_value_t& v, std::size_t& n) {
    n = 0;
    if (v.type != PMIX_DATA_ARRAY || v.data.darray == nullptr || v.data.darray->type != PMIX_INFO ||
        v.data.darray->array == nullptr)
        return nullptr;
    n = v.data.darray->size;
    return static_cast<const pmix_info_t*>(v.data.darray->array);
}

// The unsigned number `key` holds among n infos (any unsigned type or a non-negative int).
std::optional<std::uint32_t> number_of(const pmix_info_t* in, std::size_t n, const char* key) {
    for (std::size_t i = 0; i < n; ++i) {
        if (!PMIX_CHECK_KEY(&in[i], key)) continue;
        const pmix_value_t& v = in[i].value;
        switch (v.type) {
            case PMIX_UINT32:
                return v.data.uint32;
            case PMIX_PROC_RANK:
                return v.data.rank;
            case PMIX_UINT16:
                return v.data.uint16;
            case PMIX_INT:
                if (v.data.integer >= 0) return static_cast<std::uint32_t>(v.data.integer);
                return std::nullopt;
            default:
                return std::nullopt;
        }
    }
    return std::nullopt;
}

}  // namespace

pmix_status_t read_app_directives(const pmix_info_t* info, std::size_t ninfo, AppDirectives& out,
                                  std::string& why) {
    for (std::size_t i = 0; info != nullptr && i < ninfo; ++i) {
        if (!PMIX_CHECK_KEY(&info[i], PMIX_APP_INFO_ARRAY)) continue;
        std::size_t n = 0;
        const pmix_info_t* app = info_array(info[i].value, n);
        EnvarDirectives directives;
        if (pmix_status_t rc = data::read_envar_directives(app, n, directives, why);
            rc != PMIX_SUCCESS) {
            return rc;
        }
        if (directives.empty()) continue;
        EnvarDirectives& slot = out.by_app[number_of(app, n, PMIX_APPNUM).value_or(0)];
        slot.insert(slot.end(), directives.begin(), directives.end());
    }
    if (out.empty()) return PMIX_SUCCESS;  // no per-rank table for a job that needs none
    for (std::size_t i = 0; i < ninfo; ++i) {
        if (!PMIX_CHECK_KEY(&info[i], PMIX_PROC_DATA)) continue;
        std::size_t n = 0;
        const pmix_info_t* proc = info_array(info[i].value, n);
        const auto rank = number_of(proc, n, PMIX_RANK);
        const auto appnum = number_of(proc, n, PMIX_APPNUM);
        if (!rank.has_value() || !appnum.has_value() || *rank >= PMIX_RANK_VALID) continue;
        if (out.app_of_rank.size() <= *rank) out.app_of_rank.resize(*rank + 1, 0);
        out.app_of_rank[*rank] = *appnum;
    }
    return PMIX_SUCCESS;
}

// Sets NAME=value in a malloc'd, NULL-terminated environment array (replacing an old entry).
pmix_status_t set_env(const char* name, const std::string& value, char*** env) {
    const std::string entry = std::string(name) + "=" + value;
    const std::size_t nlen = std::strlen(name);
    std::size_t n = 0;
    for (char** e = *env; e != nullptr && e[n] != nullptr; ++n) {
        if (std::strncmp(e[n], name, nlen) == 0 && e[n][nlen] == '=') {
            char* fresh = strdup(entry.c_str());
            if (fresh == nullptr) return PMIX_ERR_NOMEM;
            std::free(e[n]);
            e[n] = fresh;
            return PMIX_SUCCESS;
        }
    }
    auto** grown = static_cast<char**>(std::realloc(*env, (n + 2) * sizeof(char*)));
    if (grown == nullptr) return PMIX_ERR_NOMEM;
    *env = grown;
    grown[n] = strdup(entry.c_str());
    grown[n + 1] = nullptr;
    return grown[n] == nullptr ? PMIX_ERR_NOMEM : PMIX_SUCCESS;
}

// The host's directives and the fabric plugins' variables for `proc`, in app_env.h's order.
pmix_status_t apply_app_environment(AppEnvironment& app_env, const std::string& ns,
                                    pmix_rank_t rank, char*** env) {
    std::lock_guard lock(app_env.mu);
    auto apply_all = [env](const EnvarDirectives& directives) {
        for (const data::EnvarDirective& d : directives) {
            if (pmix_status_t rc = apply_directive(d, env); rc != PMIX_SUCCESS) return rc;
        }
        return PMIX_SUCCESS;
    };
    if (auto it = app_env.registered.find(ns); it != app_env.registered.end()) {
        if (pmix_status_t rc = apply_all(it->second); rc != PMIX_SUCCESS) return rc;
    }
    if (auto it = app_env.by_app.find(ns); it != app_env.by_app.end()) {
        const AppDirectives& apps = it->second;
        const std::uint32_t app = rank < apps.app_of_rank.size() ? apps.app_of_rank[rank] : 0;
        if (auto a = apps.by_app.find(app); a != apps.by_app.end()) {
            if (pmix_status_t rc = apply_all(a->second); rc != PMIX_SUCCESS) return rc;
        }
    }
    if (auto it = app_env.support.find(ns); it != app_env.support.end()) {
        if (pmix_status_t rc = apply_all(it->second); rc != PMIX_SUCCESS) return rc;
    }
    if (auto it = app_env.by_process.find({ns, rank}); it != app_env.by_process.end()) {
        for (const auto& [name, value] : it->second) {
            if (pmix_status_t rc = set_env(name.c_str(), value, env); rc != PMIX_SUCCESS) return rc;
        }
    }
    return PMIX_SUCCESS;
}

}  // namespace pmix::server
