// fabric/plugins/plugin.h - what a fabric plugin implements for PMIx_server_setup_application and
// PMIx_server_setup_local_support (see fabric/plugins/README.md for vendors).
//
// Before launch, on the launcher's node, every plugin contributes a blob describing what the job
// needs (security keys, environment, endpoint assignments). The server returns each blob to the
// host under the key "pmix.cpp.fab.<plugin name>"; the host ships them opaquely to every node,
// whose server hands each blob back to the plugin of that name before the first local fork. The
// plugin then says what the processes must find: environment variables (applied by
// PMIx_server_setup_fork) and per-process values (readable with PMIx_Get at once, no fence).
//
// Plugins are compiled in and registered statically (registry.cpp), one folder each. They know
// the PMIx C types and core/ only, never server/, and do no I/O with other nodes: whatever they
// need from elsewhere must travel in their blob.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pmix::fabric {

using Blob = std::vector<std::byte>;

// Where the job runs: PMIX_NODE_MAP and PMIX_PROC_MAP, parsed.
struct JobMap {
    std::string nspace;
    std::vector<std::string> nodes;
    std::vector<std::vector<pmix_rank_t>> ranks;  // per node, in local-rank order
};

// A pmix_value_t the plugin built (destructed with the value).
struct OwnedValue {
    OwnedValue();
    ~OwnedValue();
    OwnedValue(const OwnedValue&) = delete;
    OwnedValue& operator=(const OwnedValue&) = delete;
    pmix_value_t value;
};

struct AppRequest {
    const JobMap& map;
    const pmix_info_t* info;  // the host's directives, as given to setup_application
    std::size_t ninfo;
    bool envars;           // PMIX_SETUP_APP_ENVARS or _ALL (or none of the three: all)
    bool nonenvars;        // PMIX_SETUP_APP_NONENVARS or _ALL (or none)
    char* const* environ;  // the launcher's environment, to harvest from
};

struct LocalRequest {
    const JobMap& map;
    std::size_t node;  // this node's index in map.nodes; map.nodes.size() if it runs no rank
    std::span<const std::byte> blob;
};

struct LocalResult {
    std::vector<std::pair<std::string, std::string>> env;  // every local process: NAME, value
    // One local process only (e.g. its NIC or its pre-assigned endpoint); applied after `env`.
    std::map<pmix_rank_t, std::vector<std::pair<std::string, std::string>>> proc_env;
    // Any process of the job: key -> value, stored like registration data.
    std::map<pmix_rank_t, std::vector<std::pair<std::string, std::shared_ptr<OwnedValue>>>> proc;
};

class Plugin {
public:
    virtual ~Plugin() = default;
    virtual std::string_view name() const = 0;
    // Launcher's node. An empty blob: nothing for this job. An error fails setup_application
    // (PMIX_ERR_BAD_PARAM for a malformed directive; `why` says what).
    virtual pmix_status_t setup_application(const AppRequest& req, Blob& blob,
                                            std::string& why) = 0;
    // Every node. A blob this plugin cannot read: PMIX_ERR_UNPACK_FAILURE, `why` set.
    virtual pmix_status_t setup_local(const LocalRequest& req, LocalResult& out,
                                      std::string& why) = 0;
};

// The plugins built in, in a fixed order.
std::span<Plugin* const> plugins();
Plugin* find_plugin(std::string_view name);

// "pmix.cpp.fab." + name: the key of a plugin's blob in setup_application's results.
inline constexpr std::string_view kBlobKeyPrefix = "pmix.cpp.fab.";

// Blob helpers: little-endian u16/u32 fields; the reader fails (false) past the end.
void put_u16(Blob& b, std::uint16_t v);
void put_u32(Blob& b, std::uint32_t v);
void put_string(Blob& b, std::string_view s);
class BlobReader {
public:
    explicit BlobReader(std::span<const std::byte> b) : b_(b) {}
    bool u8(std::uint8_t& v);
    bool u16(std::uint16_t& v);
    bool u32(std::uint32_t& v);
    bool string(std::string& s);
    bool at_end() const { return at_ == b_.size(); }

private:
    std::span<const std::byte> b_;
    std::size_t at_ = 0;
};

}  // namespace pmix::fabric
