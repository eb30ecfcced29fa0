// pmixd's fences and direct modex across nodes (node_net.h).
#include "node_net.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

// Direct-modex packets share the endpoint with the collectives' packets ("PXFC"), told apart by
// their first four bytes. Layout (little-endian): magic, kind, request id, status, rank, namespace
// length, namespace, then the blob (replies only).
constexpr uint32_t kDmodexMagic = 0x4D445850;  // "PXDM"
constexpr uint8_t kDmodexRequest = 1, kDmodexReply = 2;
constexpr size_t kDmodexHeader = 4 + 1 + 8 + 4 + 4 + 2;

template <typename T>
void put(fabric::Bytes& out, T value) {
    for (size_t i = 0; i < sizeof(T); ++i)
        out.push_back(static_cast<std::byte>((static_cast<uint64_t>(value) >> (8 * i)) & 0xff));
}

template <typename T>
T get(std::span<const std::byte> bytes, size_t at) {
    uint64_t value = 0;
    for (size_t i = 0; i < sizeof(T); ++i) value |= static_cast<uint64_t>(bytes[at + i]) << (8 * i);
    return static_cast<T>(value);
}

uint64_t fnv1a(const std::string& text) {
    uint64_t hash = 1469598103934665603ull;
    for (unsigned char byte : text) hash = (hash ^ byte) * 1099511628211ull;
    return hash;
}

void free_blob(void* cbdata) { std::free(cbdata); }

// Hands `n` bytes to a PMIx modex callback in a malloc'd copy the library releases.
void answer(pmix_modex_cbfunc_t cbfunc, void* cbdata, pmix_status_t status, const void* bytes,
            size_t size) {
    char* copy = size > 0 ? static_cast<char*>(std::malloc(size)) : nullptr;
    if (size > 0 && copy == nullptr) {
        cbfunc(PMIX_ERR_NOMEM, nullptr, 0, cbdata, nullptr, nullptr);
        return;
    }
    if (size > 0) std::memcpy(copy, bytes, size);
    cbfunc(status, copy, size, cbdata, copy != nullptr ? free_blob : nullptr, copy);
}

struct DmodexServe {
    NodeNet* net;
    uint32_t from;
    uint64_t id;
    pmix_proc_t proc;
};

}  // namespace

std::unique_ptr<NodeNet> NodeNet::open(const std::string& node_addr, std::string& error) {
    fabric::OfiOptions options;
    options.node = node_addr.empty() ? fabric::default_node_address() : node_addr;
    std::unique_ptr<NodeNet> net(new NodeNet());
    net->node_ = options.node;
    net->transport_ = fabric::OfiTransport::open(options, error);
    if (!net->transport_) return nullptr;
    return net;
}

NodeNet::~NodeNet() {
    transport_.reset();  // stops the progress thread before the engine it delivers to goes
    engine_.reset();
}

std::string NodeNet::address() const {
    fabric::Bytes bytes = transport_->address();
    return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string NodeNet::provider() const { return transport_->provider_name(); }

bool NodeNet::connect(const Layout& layout, const std::string& nspace,
                      const std::vector<std::string>& addresses, std::string& error) {
    layout_ = layout;
    nspace_ = nspace;
    engine_ = std::make_unique<fabric::Engine>(*transport_);
    std::vector<fabric::Bytes> peer_addresses;
    for (const std::string& address : addresses) {
        const auto* bytes = reinterpret_cast<const std::byte*>(address.data());
        peer_addresses.emplace_back(bytes, bytes + address.size());
    }
    return transport_->connect(static_cast<uint32_t>(layout.here), peer_addresses, this, error);
}

const Layout* NodeNet::layout_of(const char* nspace) const {
    if (nspace_ == nspace) return &layout_;
    std::lock_guard lock(jobs_mu_);
    auto found = jobs_.find(nspace);
    return found == jobs_.end() ? nullptr : found->second.get();
}

void NodeNet::add_job(const std::string& nspace, const Layout& layout) {
    std::lock_guard lock(jobs_mu_);
    jobs_.emplace(nspace, std::make_unique<Layout>(layout));
}

// The nodes that run at least one participant: every node with ranks for a whole-namespace
// fence (of the main job or of a job spawned across the nodes), the owners of the named ranks
// otherwise. Namespaces no layout names (tools) stay here.
std::vector<uint32_t> NodeNet::members_of(const pmix_proc_t procs[], size_t nprocs) const {
    std::vector<uint32_t> members;
    for (size_t i = 0; i < nprocs; ++i) {
        const Layout* layout = layout_of(procs[i].nspace);
        if (layout == nullptr) {
            members.push_back(static_cast<uint32_t>(layout_.here));
        } else if (procs[i].rank == PMIX_RANK_WILDCARD) {
            for (size_t node = 0; node < layout->nodes.size(); ++node)
                if (layout->rank_count[node] > 0) members.push_back(static_cast<uint32_t>(node));
        } else if (size_t node = layout->node_of(procs[i].rank); node < layout->nodes.size()) {
            members.push_back(static_cast<uint32_t>(node));
        }
    }
    members.push_back(static_cast<uint32_t>(layout_.here));  // our server called: we take part
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    return members;
}

pmix_status_t NodeNet::fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                             size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                             void* cbdata) {
    bool collect = false;
    fabric::CollectiveSpec spec;
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strncmp(info[i].key, PMIX_COLLECT_DATA, PMIX_MAX_KEYLEN) == 0)
            collect = info[i].value.type != PMIX_BOOL || info[i].value.data.flag;
        if (std::strncmp(info[i].key, PMIX_TIMEOUT, PMIX_MAX_KEYLEN) == 0 &&
            info[i].value.type == PMIX_INT && info[i].value.data.integer > 0)
            spec.deadline = fabric::Clock::now() + std::chrono::seconds(info[i].value.data.integer);
    }
    std::vector<std::string> names;
    for (size_t i = 0; i < nprocs; ++i)
        names.push_back(std::string(procs[i].nspace) + ":" + std::to_string(procs[i].rank));
    std::sort(names.begin(), names.end());
    std::string signature = collect ? "collect|" : "barrier|";
    for (const std::string& name : names) signature += name + ";";
    {
        std::lock_guard lock(mu_);
        signature += "#" + std::to_string(++fences_run_[signature]);
    }
    spec.id = fnv1a(signature);
    spec.members = members_of(procs, nprocs);
    // The allgather the collective layer recommends for this many nodes (Bruck at every size
    // bench-collective-sim covers, 64 to 16,384 nodes; fabric/collective.h).
    spec.algorithm =
        collect ? fabric::Collective::allgather_for(static_cast<std::uint32_t>(spec.members.size()))
                : fabric::Algorithm::dissemination;
    fabric::Bytes mine;
    if (collect && ndata > 0) {
        const auto* bytes = reinterpret_cast<const std::byte*>(data);
        mine.assign(bytes, bytes + ndata);
    }
    std::free(data);  // ours since fence_nb accepted it; copied above
    auto done = [cbfunc, cbdata](pmix_status_t status, std::vector<fabric::Bytes> blocks) {
        fabric::Bytes all;
        for (const fabric::Bytes& block : blocks) all.insert(all.end(), block.begin(), block.end());
        answer(cbfunc, cbdata, status, all.data(), status == PMIX_SUCCESS ? all.size() : 0);
    };
    pmix_status_t rc = engine_->start(std::move(spec), std::move(mine), done);
    if (rc != PMIX_SUCCESS) cbfunc(rc, nullptr, 0, cbdata, nullptr, nullptr);
    return PMIX_SUCCESS;
}

pmix_status_t NodeNet::group(pmix_group_operation_t op, const std::string& grp,
                             const std::vector<pmix_proc_t>& members, bool wants_id,
                             int timeout_seconds, const std::string& endpoints,
                             Remote::GroupDone done) {
    fabric::CollectiveSpec spec;
    std::string signature =
        (op == PMIX_GROUP_CONSTRUCT ? "group-construct|" : "group-destruct|") + grp;
    spec.members = members_of(members.data(), members.size());
    const uint32_t lowest = spec.members.front();  // sorted by members_of
    uint64_t drawn = 0;
    {
        std::lock_guard lock(mu_);
        signature += "#" + std::to_string(++fences_run_[signature]);
        if (wants_id && op == PMIX_GROUP_CONSTRUCT && lowest == layout_.here)
            drawn = (static_cast<uint64_t>(layout_.here) << 32) | ++context_ids_;
    }
    spec.id = fnv1a(signature);
    spec.algorithm = fabric::Algorithm::bruck;
    if (timeout_seconds > 0)
        spec.deadline = fabric::Clock::now() + std::chrono::seconds(timeout_seconds);
    fabric::Bytes mine;
    put<uint32_t>(mine, static_cast<uint32_t>(layout_.here));
    put<uint64_t>(mine, drawn);
    const auto* endpoint_bytes = reinterpret_cast<const std::byte*>(endpoints.data());
    mine.insert(mine.end(), endpoint_bytes, endpoint_bytes + endpoints.size());
    auto agreed = [lowest, done](pmix_status_t status, std::vector<fabric::Bytes> blocks) {
        uint64_t context_id = 0;
        std::string all_endpoints;
        for (const fabric::Bytes& block : blocks) {
            if (block.size() < 12) continue;
            if (get<uint32_t>(block, 0) == lowest) context_id = get<uint64_t>(block, 4);
            all_endpoints.append(reinterpret_cast<const char*>(block.data()) + 12,
                                 block.size() - 12);
        }
        done(status, static_cast<size_t>(context_id), all_endpoints);
    };
    return engine_->start(std::move(spec), std::move(mine), std::move(agreed));
}

void NodeNet::send_dmodex(uint32_t to, uint8_t kind, uint64_t id, int32_t status,
                          const pmix_proc_t& proc, const char* blob, size_t nblob) {
    fabric::Bytes packet;
    const size_t nslen = strnlen(proc.nspace, PMIX_MAX_NSLEN);
    put<uint32_t>(packet, kDmodexMagic);
    put<uint8_t>(packet, kind);
    put<uint64_t>(packet, id);
    put<uint32_t>(packet, static_cast<uint32_t>(status));
    put<uint32_t>(packet, proc.rank);
    put<uint16_t>(packet, static_cast<uint16_t>(nslen));
    const auto* nspace_bytes = reinterpret_cast<const std::byte*>(proc.nspace);
    packet.insert(packet.end(), nspace_bytes, nspace_bytes + nslen);
    const auto* blob_bytes = reinterpret_cast<const std::byte*>(blob);
    if (nblob > 0) packet.insert(packet.end(), blob_bytes, blob_bytes + nblob);
    if (!transport_->send(to, std::move(packet)) && kind == kDmodexRequest) on_peer_lost(to);
}

pmix_status_t NodeNet::direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc,
                                    void* cbdata) {
    const Layout* layout = layout_of(proc->nspace);
    const size_t owner = layout != nullptr ? layout->node_of(proc->rank) : layout_.here;
    if (owner >= layout_.nodes.size() || owner == layout_.here) return PMIX_ERR_NOT_FOUND;
    uint64_t id;
    {
        std::lock_guard lock(mu_);
        id = next_dmodex_++;
        dmodex_[id] = DmodexWait{static_cast<uint32_t>(owner), cbfunc, cbdata};
    }
    send_dmodex(static_cast<uint32_t>(owner), kDmodexRequest, id, 0, *proc, nullptr, 0);
    return PMIX_SUCCESS;
}

void NodeNet::on_dmodex_packet(uint32_t from, std::span<const std::byte> bytes) {
    if (bytes.size() < kDmodexHeader) return;
    const uint8_t kind = get<uint8_t>(bytes, 4);
    const uint64_t id = get<uint64_t>(bytes, 5);
    const auto status = static_cast<int32_t>(get<uint32_t>(bytes, 13));
    pmix_proc_t proc;
    PMIX_PROC_CONSTRUCT(&proc);
    proc.rank = get<uint32_t>(bytes, 17);
    const size_t nslen = get<uint16_t>(bytes, 21);
    if (nslen > PMIX_MAX_NSLEN || bytes.size() < kDmodexHeader + nslen) return;
    std::memcpy(proc.nspace, bytes.data() + kDmodexHeader, nslen);
    const auto blob = bytes.subspan(kDmodexHeader + nslen);
    if (kind == kDmodexRequest) {
        auto* request = new DmodexServe{this, from, id, proc};
        auto reply = [](pmix_status_t status, char* data, size_t size, void* cbdata) {
            auto* request = static_cast<DmodexServe*>(cbdata);
            request->net->send_dmodex(request->from, kDmodexReply, request->id, status,
                                      request->proc, data, size);
            delete request;
        };
        if (pmix_status_t rc = PMIx_server_dmodex_request(&proc, reply, request);
            rc != PMIX_SUCCESS) {
            send_dmodex(from, kDmodexReply, id, rc, proc, nullptr, 0);
            delete request;
        }
        return;
    }
    DmodexWait wait;
    {
        std::lock_guard lock(mu_);
        auto it = dmodex_.find(id);
        if (kind != kDmodexReply || it == dmodex_.end() || it->second.owner != from) return;
        wait = it->second;
        dmodex_.erase(it);
    }
    answer(wait.cbfunc, wait.cbdata, status, blob.data(), status == PMIX_SUCCESS ? blob.size() : 0);
}

void NodeNet::on_packet(std::uint32_t from, std::span<const std::byte> bytes) {
    if (bytes.size() >= 4 && get<uint32_t>(bytes, 0) == kDmodexMagic) {
        on_dmodex_packet(from, bytes);
        return;
    }
    engine_->on_packet(from, bytes);
}

void NodeNet::on_peer_lost(std::uint32_t peer) {
    engine_->on_peer_lost(peer);
    std::vector<DmodexWait> failed;
    {
        std::lock_guard lock(mu_);
        for (auto it = dmodex_.begin(); it != dmodex_.end();) {
            if (it->second.owner != peer) {
                ++it;
                continue;
            }
            failed.push_back(it->second);
            it = dmodex_.erase(it);
        }
    }
    for (const DmodexWait& wait : failed)
        wait.cbfunc(PMIX_ERR_LOST_CONNECTION, nullptr, 0, wait.cbdata, nullptr, nullptr);
}

void NodeNet::lost(uint32_t node) {
    if (transport_ && engine_) transport_->mark_lost(node);
}

void NodeNet::tick() {
    if (engine_) engine_->expire(fabric::Clock::now());
}

}  // namespace pmix::launcher
