// The envar-forwarding plugin (RFC0029): on the launcher's node it harvests every variable whose
// name matches the patterns (PMIX_CPP_FORWARD_ENVARS in setup_application's info, and the
// environment variable PMIX_MCA_forward_envars, as the RFC names it) into its blob; on every node
// it asks setup_fork to set them in each local process.
//
// Blob: version byte 1, u32 count, then "NAME=value" strings (u32 length + bytes).
#include "fabric/plugins/env/patterns.h"
#include "fabric/plugins/plugin.h"

#include <pmix_common.h>

#include <cstdlib>
#include <cstring>

namespace pmix::fabric {
namespace {

constexpr std::uint8_t kEnvBlobVersion = 1;
constexpr const char* kForwardKey = "pmix.cpp.fwd.envars";  // PMIX_CPP_FORWARD_ENVARS

bool valid_item(std::string_view item) {
    if (item.empty()) return false;
    for (std::size_t i = 0; i < item.size(); ++i) {
        const char c = item[i];
        const bool name_char =
            (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        if (name_char || c == '?') continue;
        if (c == '*' && i + 1 == item.size()) continue;  // only as the last character
        return false;
    }
    return true;
}

bool match(std::string_view pattern, std::string_view name) {
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] == '*') return true;
        if (i >= name.size() || (pattern[i] != '?' && pattern[i] != name[i])) return false;
    }
    return pattern.size() == name.size();
}

class EnvPlugin final : public Plugin {
public:
    std::string_view name() const override { return "env"; }

    pmix_status_t setup_application(const AppRequest& req, Blob& blob, std::string& why) override {
        EnvPatterns pats;
        for (std::size_t i = 0; i < req.ninfo; ++i) {
            if (std::strncmp(req.info[i].key, kForwardKey, PMIX_MAX_KEYLEN) != 0) continue;
            if (req.info[i].value.type != PMIX_STRING || req.info[i].value.data.string == nullptr) {
                why = std::string(kForwardKey) + " must be a string";
                return PMIX_ERR_BAD_PARAM;
            }
            if (!pats.add(req.info[i].value.data.string, why)) return PMIX_ERR_BAD_PARAM;
        }
        if (const char* mca = std::getenv("PMIX_MCA_forward_envars");
            mca != nullptr && *mca != '\0') {
            if (!pats.add(mca, why)) {
                why = "PMIX_MCA_forward_envars: " + why;
                return PMIX_ERR_BAD_PARAM;
            }
        }
        if (!req.envars || pats.empty() || req.environ == nullptr) return PMIX_SUCCESS;
        std::vector<std::string> picked;
        for (char* const* e = req.environ; *e != nullptr; ++e) {
            const std::string_view kv(*e);
            const std::size_t eq = kv.find('=');
            if (eq != std::string_view::npos && pats.matches(kv.substr(0, eq)))
                picked.emplace_back(kv);
        }
        if (picked.empty()) return PMIX_SUCCESS;
        blob.push_back(static_cast<std::byte>(kEnvBlobVersion));
        put_u32(blob, static_cast<std::uint32_t>(picked.size()));
        for (const std::string& kv : picked) put_string(blob, kv);
        return PMIX_SUCCESS;
    }

    pmix_status_t setup_local(const LocalRequest& req, LocalResult& out,
                              std::string& why) override {
        BlobReader r(req.blob);
        std::uint8_t version = 0;
        std::uint32_t n = 0;
        if (!r.u8(version) || version != kEnvBlobVersion || !r.u32(n)) {
            why = "envar blob: bad header";
            return PMIX_ERR_UNPACK_FAILURE;
        }
        std::vector<std::pair<std::string, std::string>> env;
        for (std::uint32_t i = 0; i < n; ++i) {
            std::string kv;
            const std::size_t eq = r.string(kv) ? kv.find('=') : std::string::npos;
            if (eq == std::string::npos || eq == 0) {
                why = "envar blob: entry " + std::to_string(i) + " is truncated or not NAME=value";
                return PMIX_ERR_UNPACK_FAILURE;
            }
            env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        }
        if (!r.at_end()) {
            why = "envar blob: trailing bytes";
            return PMIX_ERR_UNPACK_FAILURE;
        }
        out.env.insert(out.env.end(), env.begin(), env.end());
        return PMIX_SUCCESS;
    }
};

}  // namespace

bool EnvPatterns::add(std::string_view list, std::string& why) {
    EnvPatterns more;
    std::size_t start = 0;
    while (start <= list.size()) {
        std::size_t end = list.find(';', start);
        if (end == std::string_view::npos) end = list.size();
        std::string_view item = list.substr(start, end - start);
        start = end + 1;
        if (item.empty() && end == list.size() && start > 1) break;  // one trailing ';'
        const bool exclude = !item.empty() && item[0] == '^';
        if (exclude) item.remove_prefix(1);
        if (!valid_item(item)) {
            why =
                "malformed envar pattern '" + std::string(exclude ? "^" : "") + std::string(item) +
                "' (names of letters, digits and '_', '?' for one character, '*' only at the end)";
            return false;
        }
        (exclude ? more.exclude : more.include).emplace_back(item);
    }
    include.insert(include.end(), more.include.begin(), more.include.end());
    exclude.insert(exclude.end(), more.exclude.begin(), more.exclude.end());
    return true;
}

bool EnvPatterns::matches(std::string_view name) const {
    bool in = false;
    for (const std::string& p : include) in = in || match(p, name);
    for (const std::string& p : exclude) in = in && !match(p, name);
    return in;
}

Plugin* env_plugin() {
    static EnvPlugin plugin;
    return &plugin;
}

}  // namespace pmix::fabric
