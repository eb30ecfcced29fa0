// Shared helpers for the wire tests (see helpers.h).
#include "helpers.h"

#include "wire/dial.h"
#include "base/le.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace wiretest {

TempDir::TempDir() {
    char templ[] = "/tmp/pmix-wire-test-XXXXXX";
    if (::mkdtemp(templ) != nullptr) {  // mkdtemp creates it 0700
        path_ = templ;
    }
}

TempDir::~TempDir() {
    if (!path_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
}

exec::UniqueFd raw_connect(const std::string& path) {
    exec::UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (!fd || path.size() >= sizeof addr.sun_path) {
        return {};
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size());
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        return {};
    }
    return fd;
}

bool write_all(int fd, const void* data, std::size_t n) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    while (n > 0) {
        ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) {
            continue;
        }
        if (w <= 0) {
            return false;
        }
        p += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

bool write_all(int fd, const wire::Bytes& bytes) {
    return write_all(fd, bytes.data(), bytes.size());
}

namespace {

// Waits until `fd` is readable or the deadline passes.
bool wait_readable(int fd, std::chrono::steady_clock::time_point deadline) {
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            return false;
        }
        pollfd p{fd, POLLIN, 0};
        int r = ::poll(&p, 1, static_cast<int>(left.count()));
        if (r > 0) {
            return true;
        }
        if (r < 0 && errno != EINTR) {
            return false;
        }
    }
}

}  // namespace

std::optional<wire::Frame> read_frame(int fd, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    wire::FrameDecoder decoder;
    std::vector<wire::Frame> frames;
    std::uint8_t buf[4096];
    while (frames.empty()) {
        if (!wait_readable(fd, deadline)) {
            return std::nullopt;
        }
        // One byte at a time past the first frame would be wasteful; frames arrive whole here,
        // and a second frame in the same read is not needed by any test.
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n <= 0 || !decoder.feed({buf, static_cast<std::size_t>(n)}, frames)) {
            return std::nullopt;
        }
    }
    return std::move(frames.front());
}

bool wait_for_eof(int fd, std::chrono::milliseconds timeout) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    std::uint8_t buf[4096];
    for (;;) {
        if (!wait_readable(fd, deadline)) {
            return false;
        }
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
            return true;
        }
        if (n < 0 && errno != EINTR) {
            return false;
        }
    }
}

wire::Bytes hello_frame(const wire::Hello& hello) {
    wire::Frame f;
    f.op = wire::kOpHello;
    f.tag = 1;
    f.payload = wire::encode(hello);
    return wire::encode_frame(f);
}

exec::UniqueFd raw_accepted_client(const std::string& path, const wire::Hello& hello) {
    auto fd = raw_connect(path);
    if (!fd || !write_all(fd.get(), hello_frame(hello))) {
        return {};
    }
    auto reply = read_frame(fd.get(), std::chrono::seconds(5));
    if (!reply) {
        return {};
    }
    auto decoded = wire::decode_hello_reply(reply->payload);
    return decoded.ok() && decoded.value.status == PMIX_SUCCESS ? std::move(fd) : exec::UniqueFd{};
}

wire::Bytes make_payload(std::size_t n, std::uint32_t seed) {
    wire::Bytes b(n);
    std::uint32_t x = seed * 2654435761u + 1;
    for (auto& v : b) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        v = static_cast<std::uint8_t>(x);
    }
    return b;
}

wire::Bytes echo_reply_payload(pmix_rank_t rank, const wire::Bytes& request) {
    wire::Bytes out(4 + request.size());
    pmix::le::store<std::uint32_t>(out.data(), rank);
    std::copy(request.begin(), request.end(), out.begin() + 4);
    return out;
}

EchoServer::EchoServer(const std::string& path, wire::ListenerOptions options) {
    if (ex_.start() != PMIX_SUCCESS) {
        error_ = "executor did not start";
        return;
    }
    auto l = wire::Listener::open(
        ex_, path,
        [this](const std::shared_ptr<wire::Connection>& c, const wire::Peer& p) {
            return accept(c, p);
        },
        options);
    if (!l.ok()) {
        error_ = l.error;
        return;
    }
    listener_ = std::move(l.value);
}

EchoServer::EchoServer(Tcp tcp, wire::ListenerOptions options) {
    if (ex_.start() != PMIX_SUCCESS) {
        error_ = "executor did not start";
        return;
    }
    auto l = wire::Listener::open_tcp(
        ex_, "127.0.0.1", 0, std::move(tcp.secret),
        [this](const std::shared_ptr<wire::Connection>& c, const wire::Peer& p) {
            return accept(c, p);
        },
        options);
    if (!l.ok()) {
        error_ = l.error;
        return;
    }
    listener_ = std::move(l.value);
}

EchoServer::~EchoServer() {
    listener_.reset();
    ex_.stop();  // destroys the remaining connections (their on_closed still runs)
}

void EchoServer::set_policy(std::function<wire::Verdict(const wire::Peer&)> policy) {
    std::lock_guard lock(mutex_);
    policy_ = std::move(policy);
}

wire::Verdict EchoServer::accept(const std::shared_ptr<wire::Connection>& conn,
                                 const wire::Peer& peer) {
    {
        std::lock_guard lock(mutex_);
        if (policy_) {
            wire::Verdict v = policy_(peer);
            if (v.status != PMIX_SUCCESS) {
                return v;
            }
        }
        peers_.push_back(peer);
    }
    pmix_rank_t rank = peer.hello.rank;
    conn->on_message([this, rank](wire::Connection& c, wire::Frame&& f) {
        if (f.op == kOpEcho) {
            // Counted before replying: a client holding its last reply may read the count at
            // once, and counting after the reply raced with that read.
            {
                std::lock_guard lock(mutex_);
                ++echoes_;
            }
            c.reply(f, echo_reply_payload(rank, f.payload));
        }
    });
    conn->on_closed([this](const wire::CloseReason& r) {
        std::lock_guard lock(mutex_);
        closes_.push_back(r);
    });
    return {};
}

std::size_t EchoServer::echoes() const {
    std::lock_guard lock(mutex_);
    return echoes_;
}

std::vector<wire::CloseReason> EchoServer::closes() const {
    std::lock_guard lock(mutex_);
    return closes_;
}

std::vector<wire::Peer> EchoServer::peers() const {
    std::lock_guard lock(mutex_);
    return peers_;
}

std::shared_ptr<wire::Connection> dial_echo(exec::Executor& ex, const std::string& path,
                                            pmix_rank_t rank, std::string* why) {
    auto hello = wire::Hello::for_this_process("echo-ns", rank, wire::Role::client);
    wire::Dialed d = wire::dial(ex, path, hello);
    if (d.status != PMIX_SUCCESS && why != nullptr) {
        *why = d.error;
    }
    return d.connection;
}

int run_echoes(wire::Connection& conn, pmix_rank_t rank, int count, std::size_t payload_size) {
    int matched = 0;
    for (int i = 0; i < count; ++i) {
        wire::Bytes payload = make_payload(payload_size, rank * 100000u + static_cast<unsigned>(i));
        auto r = conn.call(kOpEcho, payload, std::chrono::seconds(10));
        if (r.ok() && r.value.is_reply() && r.value.payload == echo_reply_payload(rank, payload)) {
            ++matched;
        }
    }
    return matched;
}

}  // namespace wiretest
