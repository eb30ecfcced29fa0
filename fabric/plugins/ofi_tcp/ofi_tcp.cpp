// The instant-on endpoint plugin for libfabric's socket-based providers (tcp;ofi_rxm, tcp).
//
// Such an endpoint's address is just the IPv4 address and port it is bound to, so it can be
// chosen before launch: process with local rank L on node N gets <address of N>:<base + L>. The
// blob carries the base port and every node's address; each node's server then stores every
// process's PMIX_FABRIC_ENDPT (one pmix_endpoint_t: uuid "ofi-tcp", osname "", endpt = the
// 16-byte sockaddr_in that fi_getname would return), and each local process's own address in its
// environment as PMIX_CPP_FABRIC_ENDPOINT=ip:port. A process opens its endpoint on that address
// (FI_SOURCE) and can send to any peer whose PMIX_FABRIC_ENDPT it reads: no Put, no Commit, no
// Fence.
//
// Node addresses: "pmix.cpp.node.addrs" in setup_application's info (IPv4 addresses, ','-separated,
// in PMIX_NODE_MAP order), else each node name resolved with getaddrinfo. Base port:
// "pmix.cpp.fab.port" (1024..65535-ranks), else one derived from the namespace. Without usable
// addresses the plugin contributes nothing (the job still runs, with a classic modex).
// A hardware fabric's plugin would do the same with its own addressing (e.g. a NIC address plus a
// context index per local rank) and reserve the contexts in setup_local.
//
// Blob: version byte 1, u16 base port, u32 node count, one IPv4 address (u32, network order) each.
#include "fabric/plugins/plugin.h"

#include "base/env_names.h"
#include "data/value.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace pmix::fabric {
namespace {

constexpr std::uint8_t kOfiTcpBlobVersion = 1;
constexpr const char* kAddrsKey = "pmix.cpp.node.addrs";
constexpr const char* kPortKey = "pmix.cpp.fab.port";

const pmix_info_t* find(const AppRequest& req, const char* key) {
    return data::find_info(req.info, req.ninfo, key);
}

bool resolve(const std::string& name, std::uint32_t& out) {
    in_addr a{};
    if (::inet_pton(AF_INET, name.c_str(), &a) == 1) {
        out = a.s_addr;
        return true;
    }
    addrinfo hints{};
    hints.ai_family = AF_INET;
    addrinfo* res = nullptr;
    if (::getaddrinfo(name.c_str(), nullptr, &hints, &res) != 0 || res == nullptr) return false;
    out = reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr.s_addr;
    ::freeaddrinfo(res);
    return true;
}

std::size_t max_local(const JobMap& map) {
    std::size_t m = 0;
    for (const auto& r : map.ranks) m = std::max(m, r.size());
    return m;
}

class OfiTcpPlugin final : public Plugin {
public:
    std::string_view name() const override { return "ofi-tcp"; }

    pmix_status_t setup_application(const AppRequest& req, Blob& blob, std::string& why) override {
        if (!req.nonenvars || req.map.nodes.empty()) return PMIX_SUCCESS;
        std::uint32_t base =
            20000 + static_cast<std::uint32_t>(std::hash<std::string>{}(req.map.nspace) % 20000);
        if (const pmix_info_t* p = find(req, kPortKey); p != nullptr) {
            long v = p->value.type == PMIX_INT      ? p->value.data.integer
                     : p->value.type == PMIX_UINT16 ? p->value.data.uint16
                     : p->value.type == PMIX_STRING && p->value.data.string != nullptr
                         ? std::atol(p->value.data.string)
                         : -1;
            if (v < 1024 || v + static_cast<long>(max_local(req.map)) > 65535) {
                why = std::string(kPortKey) + ": base port out of range";
                return PMIX_ERR_BAD_PARAM;
            }
            base = static_cast<std::uint32_t>(v);
        }
        std::vector<std::string> names = req.map.nodes;
        if (const pmix_info_t* a = find(req, kAddrsKey); a != nullptr) {
            if (a->value.type != PMIX_STRING || a->value.data.string == nullptr) {
                why = std::string(kAddrsKey) + " must be a string";
                return PMIX_ERR_BAD_PARAM;
            }
            names.clear();
            std::stringstream ss(a->value.data.string);
            for (std::string item; std::getline(ss, item, ',');) names.push_back(item);
            if (names.size() != req.map.nodes.size()) {
                why = std::string(kAddrsKey) + ": " + std::to_string(names.size()) +
                      " addresses for " + std::to_string(req.map.nodes.size()) + " nodes";
                return PMIX_ERR_BAD_PARAM;
            }
        }
        std::vector<std::uint32_t> addrs(names.size());
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (!resolve(names[i], addrs[i])) return PMIX_SUCCESS;  // no instant-on for this job
        }
        blob.push_back(static_cast<std::byte>(kOfiTcpBlobVersion));
        put_u16(blob, static_cast<std::uint16_t>(base));
        put_u32(blob, static_cast<std::uint32_t>(addrs.size()));
        for (std::uint32_t a : addrs) put_u32(blob, a);
        return PMIX_SUCCESS;
    }

    pmix_status_t setup_local(const LocalRequest& req, LocalResult& out,
                              std::string& why) override {
        BlobReader r(req.blob);
        std::uint8_t version = 0;
        std::uint16_t base = 0;
        std::uint32_t n = 0;
        if (!r.u8(version) || version != kOfiTcpBlobVersion || !r.u16(base) || !r.u32(n) ||
            n != req.map.nodes.size()) {
            why = "ofi-tcp blob: bad header or node count (the job map has " +
                  std::to_string(req.map.nodes.size()) + " nodes)";
            return PMIX_ERR_UNPACK_FAILURE;
        }
        std::vector<std::uint32_t> addrs(n);
        for (auto& a : addrs) {
            if (!r.u32(a)) {
                why = "ofi-tcp blob: truncated";
                return PMIX_ERR_UNPACK_FAILURE;
            }
        }
        if (!r.at_end()) {
            why = "ofi-tcp blob: trailing bytes";
            return PMIX_ERR_UNPACK_FAILURE;
        }
        for (std::size_t node = 0; node < n; ++node) {
            const auto& ranks = req.map.ranks[node];
            for (std::size_t l = 0; l < ranks.size(); ++l) {
                sockaddr_in sa{};
                sa.sin_family = AF_INET;
                sa.sin_port = htons(static_cast<std::uint16_t>(base + l));
                sa.sin_addr.s_addr = addrs[node];
                if (pmix_status_t rc = add_endpoint(out, ranks[l], sa); rc != PMIX_SUCCESS)
                    return rc;
                if (node == req.node) {  // where this node's process must open its endpoint
                    char ip[INET_ADDRSTRLEN] = {};
                    ::inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
                    out.proc_env[ranks[l]].emplace_back(
                        env::kFabricEndpoint, std::string(ip) + ":" + std::to_string(base + l));
                }
            }
        }
        return PMIX_SUCCESS;
    }

private:
    static pmix_status_t add_endpoint(LocalResult& out, pmix_rank_t rank, const sockaddr_in& sa) {
        auto v = std::make_shared<OwnedValue>();
        pmix_data_array_t* arr =
            static_cast<pmix_data_array_t*>(std::calloc(1, sizeof(pmix_data_array_t)));
        if (arr == nullptr || data::data_array_init(arr, 1, PMIX_ENDPOINT) != PMIX_SUCCESS) {
            std::free(arr);
            return PMIX_ERR_NOMEM;
        }
        auto* ep = static_cast<pmix_endpoint_t*>(arr->array);
        ep->uuid = strdup("ofi-tcp");
        ep->osname = strdup("");
        ep->endpt.size = sizeof sa;
        ep->endpt.bytes = static_cast<char*>(std::malloc(sizeof sa));
        if (ep->uuid == nullptr || ep->osname == nullptr || ep->endpt.bytes == nullptr) {
            data::data_array_destruct(arr);
            std::free(arr);
            return PMIX_ERR_NOMEM;
        }
        std::memcpy(ep->endpt.bytes, &sa, sizeof sa);
        v->value.type = PMIX_DATA_ARRAY;
        v->value.data.darray = arr;
        out.proc[rank].emplace_back(PMIX_FABRIC_ENDPT, std::move(v));
        return PMIX_SUCCESS;
    }
};

}  // namespace

Plugin* ofi_tcp_plugin() {
    static OfiTcpPlugin plugin;
    return &plugin;
}

}  // namespace pmix::fabric
