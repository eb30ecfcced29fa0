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
void put(fabric::Bytes& b, T v) {
    for (size_t i = 0; i < sizeof(T); ++i)
        b.push_back(static_cast<std::byte>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
}

template <typename T>
T get(std::span<const std::byte> b, size_t at) {
    uint64_t v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<uint64_t>(b[at + i]) << (8 * i);
    return static_cast<T>(v);
}

uint64_t fnv1a(const std::string& s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

void free_blob(void* cbdata) { std::free(cbdata); }

// Hands `n` bytes to a PMIx modex callback in a malloc'd copy the library releases.
void answer(pmix_modex_cbfunc_t cbfunc, void* cbdata, pmix_status_t st, const void* p, size_t n) {
    char* copy = n > 0 ? static_cast<char*>(std::malloc(n)) : nullptr;
    if (n > 0 && copy == nullptr) {
        cbfunc(PMIX_ERR_NOMEM, nullptr, 0, cbdata, nullptr, nullptr);
        return;
    }
    if (n > 0) std::memcpy(copy, p, n);
    cbfunc(st, copy, n, cbdata, copy != nullptr ? free_blob : nullptr, copy);
}

struct DmodexServe {
    NodeNet* net;
    uint32_t from;
    uint64_t id;
    pmix_proc_t proc;
};

}  // namespace

std::unique_ptr<NodeNet> NodeNet::open(const std::string& node_addr, std::string& error) {
    fabric::OfiOptions o;
    o.node = node_addr.empty() ? fabric::default_node_address() : node_addr;
    std::unique_ptr<NodeNet> net(new NodeNet());
    net->node_ = o.node;
    net->transport_ = fabric::OfiTransport::open(o, error);
    if (!net->transport_) return nullptr;
    return net;
}

NodeNet::~NodeNet() {
    transport_.reset();  // stops the progress thread before the engine it delivers to goes
    engine_.reset();
}

std::string NodeNet::address() const {
    fabric::Bytes a = transport_->address();
    return std::string(reinterpret_cast<const char*>(a.data()), a.size());
}

std::string NodeNet::provider() const { return transport_->provider_name(); }

bool NodeNet::connect(const Layout& layout, const std::string& nspace,
                      const std::vector<std::string>& addresses, std::string& error) {
    layout_ = layout;
    nspace_ = nspace;
    engine_ = std::make_unique<fabric::Engine>(*transport_);
    std::vector<fabric::Bytes> addrs;
    for (const std::string& a : addresses) {
        const auto* p = reinterpret_cast<const std::byte*>(a.data());
        addrs.emplace_back(p, p + a.size());
    }
    return transport_->connect(static_cast<uint32_t>(layout.here), addrs, this, error);
}

// The nodes that run at least one participant: every node with ranks for a whole-namespace
// fence of the main job, the owners of the named ranks otherwise. Other namespaces (spawned on
// this node) stay here.
std::vector<uint32_t> NodeNet::members_of(const pmix_proc_t procs[], size_t nprocs) const {
    std::vector<uint32_t> m;
    for (size_t i = 0; i < nprocs; ++i) {
        if (nspace_ != procs[i].nspace) {
            m.push_back(static_cast<uint32_t>(layout_.here));
        } else if (procs[i].rank == PMIX_RANK_WILDCARD) {
            for (size_t n = 0; n < layout_.nodes.size(); ++n)
                if (layout_.count[n] > 0) m.push_back(static_cast<uint32_t>(n));
        } else if (size_t n = layout_.node_of(procs[i].rank); n < layout_.nodes.size()) {
            m.push_back(static_cast<uint32_t>(n));
        }
    }
    m.push_back(static_cast<uint32_t>(layout_.here));  // our server called: we take part
    std::sort(m.begin(), m.end());
    m.erase(std::unique(m.begin(), m.end()), m.end());
    return m;
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
    std::string sig = collect ? "collect|" : "barrier|";
    for (const std::string& n : names) sig += n + ";";
    {
        std::lock_guard lock(mu_);
        sig += "#" + std::to_string(++fences_run_[sig]);
    }
    spec.id = fnv1a(sig);
    spec.members = members_of(procs, nprocs);
    spec.algorithm = collect ? fabric::Algorithm::bruck : fabric::Algorithm::dissemination;
    fabric::Bytes mine;
    if (collect && ndata > 0) {
        const auto* p = reinterpret_cast<const std::byte*>(data);
        mine.assign(p, p + ndata);
    }
    std::free(data);  // ours since fence_nb accepted it; copied above
    auto done = [cbfunc, cbdata](pmix_status_t st, std::vector<fabric::Bytes> blocks) {
        fabric::Bytes all;
        for (const fabric::Bytes& b : blocks) all.insert(all.end(), b.begin(), b.end());
        answer(cbfunc, cbdata, st, all.data(), st == PMIX_SUCCESS ? all.size() : 0);
    };
    pmix_status_t rc = engine_->start(std::move(spec), std::move(mine), done);
    if (rc != PMIX_SUCCESS) cbfunc(rc, nullptr, 0, cbdata, nullptr, nullptr);
    return PMIX_SUCCESS;
}

void NodeNet::send_dmodex(uint32_t to, uint8_t kind, uint64_t id, int32_t status,
                          const pmix_proc_t& proc, const char* blob, size_t nblob) {
    fabric::Bytes b;
    const size_t nslen = strnlen(proc.nspace, PMIX_MAX_NSLEN);
    put<uint32_t>(b, kDmodexMagic);
    put<uint8_t>(b, kind);
    put<uint64_t>(b, id);
    put<uint32_t>(b, static_cast<uint32_t>(status));
    put<uint32_t>(b, proc.rank);
    put<uint16_t>(b, static_cast<uint16_t>(nslen));
    const auto* ns = reinterpret_cast<const std::byte*>(proc.nspace);
    b.insert(b.end(), ns, ns + nslen);
    const auto* p = reinterpret_cast<const std::byte*>(blob);
    if (nblob > 0) b.insert(b.end(), p, p + nblob);
    if (!transport_->send(to, std::move(b)) && kind == kDmodexRequest) on_peer_lost(to);
}

pmix_status_t NodeNet::direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc,
                                    void* cbdata) {
    const size_t owner = nspace_ == proc->nspace ? layout_.node_of(proc->rank) : layout_.here;
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
        auto* serve = new DmodexServe{this, from, id, proc};
        auto reply = [](pmix_status_t st, char* data, size_t sz, void* cb) {
            auto* s = static_cast<DmodexServe*>(cb);
            s->net->send_dmodex(s->from, kDmodexReply, s->id, st, s->proc, data, sz);
            delete s;
        };
        if (pmix_status_t rc = PMIx_server_dmodex_request(&proc, reply, serve);
            rc != PMIX_SUCCESS) {
            send_dmodex(from, kDmodexReply, id, rc, proc, nullptr, 0);
            delete serve;
        }
        return;
    }
    DmodexWait w;
    {
        std::lock_guard lock(mu_);
        auto it = dmodex_.find(id);
        if (kind != kDmodexReply || it == dmodex_.end() || it->second.owner != from) return;
        w = it->second;
        dmodex_.erase(it);
    }
    answer(w.cbfunc, w.cbdata, status, blob.data(), status == PMIX_SUCCESS ? blob.size() : 0);
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
    for (const DmodexWait& w : failed)
        w.cbfunc(PMIX_ERR_LOST_CONNECTION, nullptr, 0, w.cbdata, nullptr, nullptr);
}

void NodeNet::lost(uint32_t node) {
    if (transport_ && engine_) transport_->mark_lost(node);
}

void NodeNet::tick() {
    if (engine_) engine_->expire(fabric::Clock::now());
}

}  // namespace pmix::launcher
