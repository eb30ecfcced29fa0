// server/app_env.cpp - the environment setup_fork builds from app_env.h's sources.
#include "server/app_env.h"

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

}  // namespace

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
    for (const auto* sources : {&app_env.registered, &app_env.support}) {
        auto it = sources->find(ns);
        if (it == sources->end()) continue;
        for (const data::EnvarDirective& d : it->second) {
            if (pmix_status_t rc = apply_directive(d, env); rc != PMIX_SUCCESS) return rc;
        }
    }
    if (auto it = app_env.by_process.find({ns, rank}); it != app_env.by_process.end()) {
        for (const auto& [name, value] : it->second) {
            if (pmix_status_t rc = set_env(name.c_str(), value, env); rc != PMIX_SUCCESS) return rc;
        }
    }
    return PMIX_SUCCESS;
}

}  // namespace pmix::server
