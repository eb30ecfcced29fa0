// fabric/ofi.cpp - the libfabric RDM transport (see ofi.h).
#include "fabric/ofi.h"

#include "base/env_names.h"
#include "base/le.h"
#include "exec/log.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace pmix::fabric {
namespace {

constexpr std::uint32_t kChunkMagic = 0x4b435850;  // "PXCK"
constexpr std::size_t kChunkHeader = 24;
// How long the progress thread sleeps in the wait object before looking at its send queue
// again; send() also wakes it through an eventfd, so this only bounds a missed wake-up.
constexpr int kWaitMs = 10;

// Owns one libfabric object; fi_close on destruction.
template <class T>
class Fid {
public:
    Fid() = default;
    Fid(const Fid&) = delete;
    Fid& operator=(const Fid&) = delete;
    ~Fid() { reset(); }
    T** out() noexcept { return &p_; }
    T* get() const noexcept { return p_; }
    explicit operator bool() const noexcept { return p_ != nullptr; }
    void reset() noexcept {
        if (p_ != nullptr) fi_close(&p_->fid);
        p_ = nullptr;
    }

private:
    T* p_ = nullptr;
};

struct InfoDeleter {
    void operator()(fi_info* i) const noexcept { fi_freeinfo(i); }
};

// Every posted operation starts with the context libfabric hands back in the completion.
struct Op {
    fi_context2 ctx{};
    bool is_send = false;
    std::uint32_t peer = 0;
    Bytes bytes;
};

std::string fi_error(const char* what, long rc) {
    return std::string(what) + ": " + fi_strerror(static_cast<int>(-rc));
}

}  // namespace

std::string ofi_provider(const OfiOptions& options) {
    if (!options.provider.empty()) return options.provider;
    if (const char* e = std::getenv(env::kFabricProvider); e != nullptr && *e != '\0') return e;
    return "tcp;ofi_rxm";
}

struct OfiTransport::Impl {
    OfiOptions options;
    std::unique_ptr<fi_info, InfoDeleter> info;
    Fid<fid_fabric> fabric;
    Fid<fid_domain> domain;
    Fid<fid_av> av;
    Fid<fid_cq> cq;
    Fid<fid_ep> ep;
    int cq_fd = -1;    // the completion queue's wait fd (FI_GETWAIT); -1: poll with short sleeps
    int wake_fd = -1;  // eventfd: send() wakes the progress thread out of poll()

    std::uint32_t rank = 0;
    std::vector<fi_addr_t> peers;
    Receiver* receiver = nullptr;
    std::vector<std::unique_ptr<Op>> receives;

    std::mutex mu;  // guards queue, lost, next_seq
    std::deque<std::unique_ptr<Op>> queue;
    std::set<std::uint32_t> lost;
    std::uint64_t next_seq = 0;
    std::atomic<bool> stop{false};
    std::atomic<std::thread::id> progress_thread{};
    std::thread thread;

    // Progress thread only (in_flight_sends mirrors sending.size() for drain()).
    std::map<Op*, std::unique_ptr<Op>> sending;
    std::atomic<std::size_t> in_flight_sends{0};
    struct Partial {
        Bytes bytes;
        std::size_t received = 0;
    };
    std::map<std::pair<std::uint32_t, std::uint64_t>, Partial> partial;

    bool open_endpoint(std::string& error);
    bool post_receive(Op* op);
    void post_sends();
    void on_receive(Op* op, std::size_t len);
    void on_error();
    void peer_failed(std::uint32_t peer);
    void progress();
    void wake() const noexcept {
        const std::uint64_t one = 1;
        [[maybe_unused]] auto n = ::write(wake_fd, &one, sizeof one);
    }
    bool sends_pending() {
        std::lock_guard lock(mu);
        return !queue.empty();
    }
    void wait_for_work();
    // Gives queued and posted sends up to 2 s to leave before the endpoint closes, so that a
    // daemon's last packets (a finished collective's final round) reach its peers.
    void drain() {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(2);
        while (thread.joinable() && std::chrono::steady_clock::now() < give_up) {
            if (!sends_pending() && in_flight_sends.load() == 0) return;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }
    ~Impl() {
        drain();
        stop = true;
        if (wake_fd >= 0) wake();
        if (thread.joinable()) thread.join();
        if (wake_fd >= 0) ::close(wake_fd);
        ep.reset();  // cancels posted receives before their buffers go
        cq.reset();
        av.reset();
        domain.reset();
        fabric.reset();
    }
};

bool OfiTransport::Impl::open_endpoint(std::string& error) {
    std::unique_ptr<fi_info, InfoDeleter> hints(fi_allocinfo());
    const std::string prov = ofi_provider(options);
    hints->caps = FI_MSG;
    hints->ep_attr->type = FI_EP_RDM;
    hints->fabric_attr->prov_name = strdup(prov.c_str());
    // rxm's defaults cost ~75 MiB per endpoint at enable time; a 16-deep receive queue brings it
    // down. Buffers of 68 KiB keep a whole 64 KiB chunk on the eager path: with rxm's 4 KiB
    // default, a fence of 4 KiB per node went through rendezvous and took 103 us instead of 17 us
    // at D = 2 (361 instead of 1117 us at D = 8), for ~2 MiB more per endpoint (measured here).
    setenv("FI_OFI_RXM_BUFFER_SIZE", "4096", 0);
    setenv("FI_OFI_RXM_EAGER_LIMIT", "69632", 0);
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "16", 0);
    const bool is_shm = prov == "shm";
    const char* node = (is_shm || options.node.empty()) ? nullptr : options.node.c_str();
    fi_info* found = nullptr;
    const char* service =
        node != nullptr && !options.service.empty() ? options.service.c_str() : nullptr;
    int rc = fi_getinfo(FI_VERSION(1, 9), node, service, node != nullptr ? FI_SOURCE : 0,
                        hints.get(), &found);
    if (rc != 0 || found == nullptr) {
        error = "no libfabric provider '" + prov + "'" + (node ? std::string(" on ") + node : "") +
                ": " + fi_strerror(-rc);
        return false;
    }
    info.reset(found);
    if ((rc = fi_fabric(info->fabric_attr, fabric.out(), nullptr)) != 0)
        return error = fi_error("fi_fabric", rc), false;
    if ((rc = fi_domain(fabric.get(), info.get(), domain.out(), nullptr)) != 0)
        return error = fi_error("fi_domain", rc), false;
    fi_av_attr av_attr{};
    av_attr.type = FI_AV_TABLE;
    if ((rc = fi_av_open(domain.get(), &av_attr, av.out(), nullptr)) != 0)
        return error = fi_error("fi_av_open", rc), false;
    fi_cq_attr cq_attr{};
    cq_attr.format = FI_CQ_FORMAT_MSG;
    cq_attr.wait_obj = FI_WAIT_FD;
    cq_attr.size = 1024;
    if (fi_cq_open(domain.get(), &cq_attr, cq.out(), nullptr) == 0) {
        if (fi_control(&cq.get()->fid, FI_GETWAIT, &cq_fd) != 0) cq_fd = -1;
    } else {
        cq_attr.wait_obj = FI_WAIT_NONE;  // no wait fd on this provider: poll with short sleeps
        if ((rc = fi_cq_open(domain.get(), &cq_attr, cq.out(), nullptr)) != 0)
            return error = fi_error("fi_cq_open", rc), false;
    }
    wake_fd = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (wake_fd < 0) return error = std::string("eventfd: ") + std::strerror(errno), false;
    if ((rc = fi_endpoint(domain.get(), info.get(), ep.out(), nullptr)) != 0)
        return error = fi_error("fi_endpoint", rc), false;
    if ((rc = fi_ep_bind(ep.get(), &av.get()->fid, 0)) != 0)
        return error = fi_error("fi_ep_bind(av)", rc), false;
    if ((rc = fi_ep_bind(ep.get(), &cq.get()->fid, FI_TRANSMIT | FI_RECV)) != 0)
        return error = fi_error("fi_ep_bind(cq)", rc), false;
    if ((rc = fi_enable(ep.get())) != 0) return error = fi_error("fi_enable", rc), false;
    for (std::size_t i = 0; i < options.receive_buffers; ++i) {
        auto op = std::make_unique<Op>();
        op->bytes.resize(options.chunk_bytes + kChunkHeader);
        if (!post_receive(op.get())) return error = "cannot post receive buffers", false;
        receives.push_back(std::move(op));
    }
    return true;
}

bool OfiTransport::Impl::post_receive(Op* op) {
    for (;;) {
        const ssize_t rc = fi_recv(ep.get(), op->bytes.data(), op->bytes.size(), nullptr,
                                   FI_ADDR_UNSPEC, &op->ctx);
        if (rc == 0) return true;
        if (rc != -FI_EAGAIN) return false;
        fi_cq_read(cq.get(), nullptr, 0);  // let the provider make room
    }
}

// Posts queued chunks until the provider pushes back (FI_EAGAIN: retried after progress).
void OfiTransport::Impl::post_sends() {
    for (;;) {
        std::unique_ptr<Op> op;
        {
            std::lock_guard lock(mu);
            if (queue.empty()) return;
            op = std::move(queue.front());
            queue.pop_front();
        }
        const ssize_t rc = fi_send(ep.get(), op->bytes.data(), op->bytes.size(), nullptr,
                                   peers[op->peer], &op->ctx);
        if (rc == -FI_EAGAIN) {
            std::lock_guard lock(mu);
            queue.push_front(std::move(op));
            return;
        }
        if (rc != 0) {
            exec::log_warn("pmix-fabric",
                           fi_error("fi_send", rc) + " to rank " + std::to_string(op->peer));
            peer_failed(op->peer);
            continue;
        }
        Op* raw = op.get();
        sending.emplace(raw, std::move(op));
        in_flight_sends = sending.size();
    }
}

void OfiTransport::Impl::on_receive(Op* op, std::size_t len) {
    const std::byte* b = op->bytes.data();
    const auto total = le::load<std::uint32_t>(b + 16);
    const auto offset = le::load<std::uint32_t>(b + 20);
    const auto from = le::load<std::uint32_t>(b + 4);
    const std::size_t piece = len >= kChunkHeader ? len - kChunkHeader : 0;
    if (len < kChunkHeader || le::load<std::uint32_t>(b) != kChunkMagic || from >= peers.size() ||
        offset + piece > total) {
        exec::log_error("pmix-fabric",
                        "dropped a malformed chunk of " + std::to_string(len) + " bytes");
        return;
    }
    const std::pair<std::uint32_t, std::uint64_t> key{from, le::load<std::uint64_t>(b + 8)};
    if (piece == total) {  // the common case: a packet in one chunk, no reassembly
        if (receiver != nullptr)
            receiver->on_packet(from, std::span<const std::byte>(b + kChunkHeader, piece));
        return;
    }
    Partial& p = partial[key];
    if (p.bytes.size() != total) p.bytes.resize(total);
    std::memcpy(p.bytes.data() + offset, b + kChunkHeader, piece);
    p.received += piece;
    if (p.received >= total) {
        Bytes whole = std::move(p.bytes);
        partial.erase(key);
        if (receiver != nullptr) receiver->on_packet(from, whole);
    }
}

void OfiTransport::Impl::peer_failed(std::uint32_t peer) {
    {
        std::lock_guard lock(mu);
        if (!lost.insert(peer).second) return;
    }
    if (receiver != nullptr) receiver->on_peer_lost(peer);
}

void OfiTransport::Impl::on_error() {
    fi_cq_err_entry err{};
    if (fi_cq_readerr(cq.get(), &err, 0) < 0) return;
    auto* op = static_cast<Op*>(err.op_context);
    if (op == nullptr) return;
    if (op->is_send) {
        exec::log_warn("pmix-fabric", "send to rank " + std::to_string(op->peer) +
                                          " failed: " + fi_strerror(err.err));
        const std::uint32_t peer = op->peer;
        sending.erase(op);
        in_flight_sends = sending.size();
        peer_failed(peer);
    } else if (!stop && err.err != FI_ECANCELED) {
        post_receive(op);
    }
}

// Sleeps until the completion queue or send() has something, without spinning: poll() on the
// cq's wait fd once fi_trywait() says it is safe, else a 50 us nap (providers without a wait
// fd, or sends held back by FI_EAGAIN that need the provider to make progress).
void OfiTransport::Impl::wait_for_work() {
    if (cq_fd < 0 || sends_pending()) {
        std::this_thread::sleep_for(std::chrono::microseconds(50));
        return;
    }
    fid* f = &cq.get()->fid;
    if (fi_trywait(fabric.get(), &f, 1) != FI_SUCCESS) return;
    pollfd fds[2] = {{cq_fd, POLLIN, 0}, {wake_fd, POLLIN, 0}};
    ::poll(fds, 2, kWaitMs);
    std::uint64_t drained = 0;
    [[maybe_unused]] auto n = ::read(wake_fd, &drained, sizeof drained);
}

void OfiTransport::Impl::progress() {
    progress_thread = std::this_thread::get_id();
    fi_cq_msg_entry entries[16];
    while (!stop) {
        post_sends();
        const ssize_t n = fi_cq_read(cq.get(), entries, 16);
        if (n == -FI_EAVAIL) {
            on_error();
            continue;
        }
        if (n <= 0) {
            wait_for_work();
            continue;
        }
        for (ssize_t i = 0; i < n; ++i) {
            auto* op = static_cast<Op*>(entries[i].op_context);
            if (op->is_send) {
                sending.erase(op);
                in_flight_sends = sending.size();
            } else {
                on_receive(op, entries[i].len);
                if (!stop) post_receive(op);
            }
        }
    }
}

OfiTransport::OfiTransport(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
OfiTransport::~OfiTransport() = default;

std::unique_ptr<OfiTransport> OfiTransport::open(const OfiOptions& options, std::string& error) {
    auto impl = std::make_unique<Impl>();
    impl->options = options;
    if (impl->options.chunk_bytes == 0 || impl->options.receive_buffers == 0) {
        error = "chunk size and receive buffer count must be positive";
        return nullptr;
    }
    if (!impl->open_endpoint(error)) return nullptr;
    return std::unique_ptr<OfiTransport>(new OfiTransport(std::move(impl)));
}

Bytes OfiTransport::address() const {
    std::size_t len = 0;
    fi_getname(&impl_->ep.get()->fid, nullptr, &len);
    Bytes name(len);
    if (fi_getname(&impl_->ep.get()->fid, name.data(), &len) != 0) return {};
    name.resize(len);
    return name;
}

std::string OfiTransport::provider_name() const {
    const char* p = impl_->info->fabric_attr->prov_name;
    return p != nullptr ? p : "";
}

bool OfiTransport::connect(std::uint32_t rank, const std::vector<Bytes>& addresses,
                           Receiver* receiver, std::string& error) {
    Impl& m = *impl_;
    if (m.thread.joinable() || rank >= addresses.size() || receiver == nullptr) {
        error = "connect: already connected, rank outside the table or no receiver";
        return false;
    }
    m.peers.assign(addresses.size(), FI_ADDR_NOTAVAIL);
    for (std::size_t i = 0; i < addresses.size(); ++i) {
        if (fi_av_insert(m.av.get(), addresses[i].data(), 1, &m.peers[i], 0, nullptr) != 1) {
            error = "fi_av_insert failed for rank " + std::to_string(i);
            return false;
        }
    }
    m.rank = rank;
    m.receiver = receiver;
    m.thread = std::thread([&m] { m.progress(); });
    return true;
}

void OfiTransport::mark_lost(std::uint32_t peer) { impl_->peer_failed(peer); }

std::uint32_t OfiTransport::rank() const noexcept { return impl_->rank; }
std::uint32_t OfiTransport::size() const noexcept {
    return static_cast<std::uint32_t>(impl_->peers.size());
}

bool OfiTransport::send(std::uint32_t peer, Bytes bytes) {
    Impl& m = *impl_;
    if (peer >= m.peers.size()) return false;
    const std::size_t chunk = m.options.chunk_bytes;
    {
        std::lock_guard lock(m.mu);
        if (m.lost.count(peer) != 0) return false;
        const std::uint64_t seq = m.next_seq++;
        std::size_t offset = 0;
        do {
            const std::size_t piece = std::min(chunk, bytes.size() - offset);
            auto op = std::make_unique<Op>();
            op->is_send = true;
            op->peer = peer;
            op->bytes.resize(kChunkHeader + piece);
            std::byte* h = op->bytes.data();
            le::store<std::uint32_t>(h, kChunkMagic);
            le::store<std::uint32_t>(h + 4, m.rank);
            le::store<std::uint64_t>(h + 8, seq);
            le::store<std::uint32_t>(h + 16, static_cast<std::uint32_t>(bytes.size()));
            le::store<std::uint32_t>(h + 20, static_cast<std::uint32_t>(offset));
            if (piece != 0) std::memcpy(h + kChunkHeader, bytes.data() + offset, piece);
            m.queue.push_back(std::move(op));
            offset += piece;
        } while (offset < bytes.size());
    }
    // The progress thread itself (a collective's next round sent from on_packet) posts the
    // queue before it sleeps again; only other threads need to wake it.
    if (std::this_thread::get_id() != m.progress_thread) m.wake();
    return true;
}

std::string default_node_address() {
    if (const char* env = std::getenv(env::kFabricNode); env != nullptr && *env != '\0') return env;
    ifaddrs* all = nullptr;
    std::string found = "127.0.0.1";
    if (::getifaddrs(&all) != 0) return found;
    for (ifaddrs* a = all; a != nullptr; a = a->ifa_next) {
        if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
        if ((a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_LOOPBACK) != 0) continue;
        char buf[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, buf,
                    sizeof buf);
        found = buf;
        break;
    }
    ::freeifaddrs(all);
    return found;
}

}  // namespace pmix::fabric
