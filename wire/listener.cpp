// wire/listener.cpp - see listener.h.
#include "wire/listener.h"

#include "exec/log.h"
#include "wire/tcp_socket.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pmix::wire {
namespace {

using namespace std::chrono_literals;

// Accepts per readiness report; the rest wait for the next loop turn (level-triggered).
constexpr int kAcceptsPerEvent = 64;
// Out of descriptors: stop accepting for a moment instead of spinning on a ready socket.
constexpr auto kAcceptPause = 100ms;
// How long a refused peer gets to read its HelloReply before we hang up anyway.
constexpr auto kRefusalGrace = 1000ms;

struct Leftovers {
    ListeningSocket sock;
    exec::WatchId watch = exec::kInvalidWatch;
    std::vector<std::pair<std::shared_ptr<Connection>, exec::TimerId>> handshakes;
};

// Unwatches before the descriptor closes (a reused number must never be unwatched by
// mistake), removes the socket file, and hangs up on peers still in their handshake.
void release(exec::Executor& ex, Leftovers& left) noexcept {
    if (left.watch != exec::kInvalidWatch && ex.on_loop_thread()) {
        ex.unwatch(left.watch);
    }
    remove_listening_files(left.sock);
    left.sock.fd.reset();
    for (auto& [conn, timer] : left.handshakes) {
        ex.cancel(timer);
        conn->close("listener closed");
    }
    left.handshakes.clear();
}

std::string remote_address(int fd) {
    sockaddr_in a{};
    socklen_t len = sizeof a;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 || a.sin_family != AF_INET) {
        return "?";
    }
    char buf[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
    return std::string(buf) + ":" + std::to_string(ntohs(a.sin_port));
}

}  // namespace

Result<std::shared_ptr<Listener>> Listener::open(exec::Executor& ex, const std::string& path,
                                                 AcceptHandler on_accept, ListenerOptions options) {
    if (!ex.running()) {
        return Result<std::shared_ptr<Listener>>::failure(PMIX_ERR_INIT,
                                                          "the executor is not running");
    }
    return start(ex, listen_unix(path, options.backlog), {}, std::move(on_accept), options);
}

Result<std::shared_ptr<Listener>> Listener::open_tcp(exec::Executor& ex, const std::string& bind_ip,
                                                     std::uint16_t port, std::string secret,
                                                     AcceptHandler on_accept,
                                                     ListenerOptions options) {
    using R = Result<std::shared_ptr<Listener>>;
    if (secret.size() < 16 || secret.size() > kMaxSecretLength) {
        return R::failure(PMIX_ERR_BAD_PARAM, "a TCP listener needs a secret of 16 to 256 bytes");
    }
    if (!ex.running()) {
        return R::failure(PMIX_ERR_INIT, "the executor is not running");
    }
    return start(ex, listen_tcp(bind_ip, port, options.backlog), std::move(secret),
                 std::move(on_accept), options);
}

Result<std::shared_ptr<Listener>> Listener::start(exec::Executor& ex, Result<ListeningSocket> sock,
                                                  std::string secret, AcceptHandler on_accept,
                                                  ListenerOptions options) {
    using R = Result<std::shared_ptr<Listener>>;
    if (!on_accept) {
        remove_listening_files(sock.value);
        return R::failure(PMIX_ERR_BAD_PARAM, "an accept handler is required");
    }
    if (!sock.ok()) {
        return R::failure(sock.status, sock.error);
    }
    std::shared_ptr<Listener> self(
        new Listener(ex, std::move(sock.value), std::move(on_accept), options));
    self->secret_ = std::move(secret);
    if (ex.on_loop_thread()) {
        self->begin();
    } else if (!ex.post([self] { self->begin(); })) {
        self->close();
        return R::failure(PMIX_ERR_INIT, "the executor stopped");
    }
    return R::success(std::move(self));
}

Listener::Listener(exec::Executor& ex, ListeningSocket sock, AcceptHandler on_accept,
                   ListenerOptions options)
    : ex_(ex),
      path_(sock.path),
      opts_(options),
      sock_(std::move(sock)),
      on_accept_(std::move(on_accept)) {}

Listener::~Listener() {
    // No loop code runs inside this object now: every callback reaches it through a weak
    // reference, and a posted closure would hold a strong one. So its state can be moved out.
    if (closed_) {
        return;
    }
    closed_ = true;
    auto left = std::make_shared<Leftovers>();
    left->sock = std::move(sock_);
    left->watch = watch_;
    for (auto& [id, hs] : handshakes_) {
        left->handshakes.emplace_back(std::move(hs.conn), hs.timer);
    }
    if (ex_.on_loop_thread()) {
        release(ex_, *left);
    } else if (!ex_.post([&ex = ex_, left] { release(ex, *left); })) {
        release(ex_, *left);  // the loop is gone: nothing else can touch these any more
    }
}

void Listener::close() {
    if (ex_.on_loop_thread()) {
        close_on_loop();
    } else if (!ex_.post([self = shared_from_this()] { self->close_on_loop(); })) {
        close_on_loop();
    }
}

void Listener::close_on_loop() noexcept {
    if (closed_) {
        return;
    }
    closed_ = true;
    Leftovers left;
    left.sock = std::move(sock_);
    left.watch = std::exchange(watch_, exec::kInvalidWatch);
    for (auto& [id, hs] : handshakes_) {
        left.handshakes.emplace_back(std::move(hs.conn), hs.timer);
    }
    handshakes_.clear();
    release(ex_, left);
}

Listener::Stats Listener::stats() const noexcept {
    return Stats{accepted_.load(), refused_.load(), failed_.load()};
}

void Listener::begin() {
    if (closed_) {
        return;
    }
    watch_ = ex_.watch_fd(sock_.fd.get(), EPOLLIN, [weak = weak_from_this()](std::uint32_t) {
        if (auto self = weak.lock()) {
            self->on_acceptable();
        }
    });
    if (watch_ == exec::kInvalidWatch) {
        exec::log_error("wire", "cannot watch the listening socket " + path_);
    }
}

void Listener::on_acceptable() {
    for (int i = 0; i < kAcceptsPerEvent && !closed_; ++i) {
        int fd = ::accept4(sock_.fd.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd >= 0) {
            begin_handshake(exec::UniqueFd(fd));
            continue;
        }
        switch (errno) {
            case EINTR:
            case ECONNABORTED:
                continue;
            case EAGAIN:
                return;
            case EMFILE:
            case ENFILE:
            case ENOBUFS:
            case ENOMEM: {
                // Clients wait in their handshake meanwhile and fail at its timeout: the user must
                // hear why (ulimit -n 32 under pmixrun -n 8 showed only their fence timeouts).
                std::string why = std::string("accept: ") + std::strerror(errno);
                rlimit limit{};
                if (errno == EMFILE && ::getrlimit(RLIMIT_NOFILE, &limit) == 0) {
                    why += " (descriptor limit " + std::to_string(limit.rlim_cur) + ")";
                }
                why += "; pausing accepts on " + path_;
                if (told_out_of_resources_) {
                    exec::log_warn("wire", why);
                } else {
                    exec::log_error("wire", why + ": clients cannot connect until it recovers");
                }
                told_out_of_resources_ = true;
                pause_accepting();
                return;
            }
            default:
                exec::log_warn("wire", std::string("accept: ") + std::strerror(errno));
                return;
        }
    }
}

void Listener::pause_accepting() {
    ex_.set_events(watch_, 0);
    ex_.run_after(kAcceptPause, [weak = weak_from_this()] {
        if (auto self = weak.lock(); self && !self->closed_) {
            self->ex_.set_events(self->watch_, EPOLLIN);
        }
    });
}

void Listener::begin_handshake(exec::UniqueFd fd) {
    if (handshakes_.size() >= opts_.max_handshakes) {
        failed_.fetch_add(1);
        exec::log_warn(
            "wire", "too many handshakes in progress on " + path_ + "; dropped a new connection");
        return;  // `fd` closes here
    }
    auto conn = Connection::create(ex_, std::move(fd), opts_.connection);
    std::uint64_t id = next_handshake_++;
    std::weak_ptr<Listener> weak = weak_from_this();
    conn->on_message([weak, id](Connection& c, Frame&& f) {
        if (auto self = weak.lock()) {
            self->on_hello(id, c, std::move(f));
        } else {
            c.close("listener closed");
        }
    });
    conn->on_closed([weak, id](const CloseReason&) {
        auto self = weak.lock();
        if (!self) {
            return;
        }
        auto it = self->handshakes_.find(id);
        if (it != self->handshakes_.end()) {  // closed before any verdict
            self->ex_.cancel(it->second.timer);
            self->handshakes_.erase(it);
            self->failed_.fetch_add(1);
        }
    });
    auto limit = opts_.handshake_timeout;
    exec::TimerId timer = ex_.run_after(limit, [wc = std::weak_ptr<Connection>(conn), limit] {
        if (auto c = wc.lock()) {
            c->close("no hello within " + std::to_string(limit.count()) + " ms",
                     CloseKind::timeout);
        }
    });
    handshakes_.emplace(id, Handshake{conn, timer});
    conn->start();
}

void Listener::on_hello(std::uint64_t id, Connection& conn, Frame&& frame) {
    auto it = handshakes_.find(id);
    if (it == handshakes_.end()) {
        return;  // a verdict was already given; the connection is on its way out
    }
    Handshake hs = std::move(it->second);
    handshakes_.erase(it);
    ex_.cancel(hs.timer);
    decide(conn, hs.conn, frame);
}

void Listener::decide(Connection& conn, const std::shared_ptr<Connection>& owner,
                      const Frame& frame) {
    if (frame.op != kOpHello || frame.tag == 0) {
        failed_.fetch_add(1);
        conn.close("expected a hello request first, got op " + std::to_string(frame.op) + " tag " +
                       std::to_string(frame.tag),
                   CloseKind::bad_frame);
        return;
    }
    auto hello = decode_hello(frame.payload);
    if (!hello.ok()) {
        return refuse(conn, frame, hello.status, hello.error);
    }
    auto peer = identify(conn, std::move(hello.value));
    if (!peer.ok()) {
        return refuse(conn, frame, peer.status, peer.error);
    }
    conn.on_message(nullptr);  // the owner installs its own in the accept handler
    Verdict verdict{PMIX_ERROR, "the accept handler failed"};
    exec::invoke_guarded("accept handler", [&] { verdict = on_accept_(owner, peer.value); });
    if (verdict.status != PMIX_SUCCESS) {
        return refuse(conn, frame, verdict.status, verdict.reason);
    }
    accepted_.fetch_add(1);
    HelloReply ok{PMIX_SUCCESS, kProtocolVersion, static_cast<std::int32_t>(::getpid()), {}};
    conn.reply(frame, encode(ok));
}

// Who the peer is: the kernel's word on a Unix socket, the secret's on TCP.
Result<Peer> Listener::identify(Connection& conn, Hello hello) const {
    using R = Result<Peer>;
    Peer peer;
    if (!sock_.tcp) {
        auto cred = peer_credentials(conn.native_handle());
        if (!cred.ok()) return R::failure(cred.status, cred.error);
        if (std::string why = check_hello(hello, cred.value); !why.empty()) {
            return R::failure(hello_refusal_status(hello, cred.value), why);
        }
        peer.cred = cred.value;
        peer.hello = std::move(hello);
        return R::success(std::move(peer));
    }
    if (hello.version != kProtocolVersion) {
        return R::failure(PMIX_ERR_NOT_SUPPORTED,
                          "peer speaks protocol version " + std::to_string(hello.version));
    }
    if (hello.role != Role::tool) {
        return R::failure(PMIX_ERR_NOT_SUPPORTED, "only tools connect over TCP");
    }
    if (!secrets_equal(hello.secret, secret_)) {
        return R::failure(PMIX_ERR_NO_PERMISSIONS,
                          hello.secret.empty() ? "no secret: a remote tool must read it from the "
                                                 "server's rendezvous file"
                                               : "wrong secret");
    }
    peer.remote = true;
    peer.address = remote_address(conn.native_handle());
    peer.cred = PeerCred{hello.pid, static_cast<std::uint32_t>(::geteuid()),
                         static_cast<std::uint32_t>(::getegid())};
    peer.hello = std::move(hello);
    peer.hello.secret.clear();  // nobody past this point needs it
    return R::success(std::move(peer));
}

void Listener::refuse(Connection& conn, const Frame& hello_frame, pmix_status_t status,
                      std::string why) {
    refused_.fetch_add(1);
    exec::log_info("wire", "refused a connection on " + path_ + ": " + why);
    HelloReply no{status, kProtocolVersion, static_cast<std::int32_t>(::getpid()), why};
    conn.reply(hello_frame, encode(no));
    conn.close_after_flush(CloseReason{CloseKind::refused, status, std::move(why)}, kRefusalGrace);
}

}  // namespace pmix::wire
