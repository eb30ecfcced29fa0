// wire/hello.cpp - handshake payloads and the credential check (see hello.h).
#include "wire/hello.h"

#include "base/le.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace pmix::wire {
namespace {

constexpr std::size_t kHelloFixed = 24;  // everything but the namespace and secret bytes
constexpr std::size_t kReplyFixed = 14;  // everything before the reason bytes

// Bounds-checked cursor over a payload: every read says whether the bytes were there.
class Cursor {
public:
    explicit Cursor(std::span<const std::uint8_t> in) : in_(in) {}
    bool u8(std::uint8_t& v) {
        return take(1, [&](const std::uint8_t* p) { v = p[0]; });
    }
    bool u16(std::uint16_t& v) {
        return take(2, [&](const std::uint8_t* p) { v = le::load<std::uint16_t>(p); });
    }
    bool u32(std::uint32_t& v) {
        return take(4, [&](const std::uint8_t* p) { v = le::load<std::uint32_t>(p); });
    }
    bool i32(std::int32_t& v) {
        std::uint32_t u = 0;
        bool ok = u32(u);
        v = static_cast<std::int32_t>(u);
        return ok;
    }
    bool text(std::size_t n, std::string& s) {
        return take(n,
                    [&](const std::uint8_t* p) { s.assign(reinterpret_cast<const char*>(p), n); });
    }
    std::size_t left() const { return in_.size() - pos_; }

private:
    template <class Fn>
    bool take(std::size_t n, Fn fn) {
        if (left() < n) {
            return false;
        }
        fn(in_.data() + pos_);
        pos_ += n;
        return true;
    }
    std::span<const std::uint8_t> in_;
    std::size_t pos_ = 0;
};

void put16(Bytes& out, std::uint16_t v) {
    std::uint8_t b[2];
    le::store<std::uint16_t>(b, v);
    out.insert(out.end(), b, b + 2);
}

void put32(Bytes& out, std::uint32_t v) {
    std::uint8_t b[4];
    le::store<std::uint32_t>(b, v);
    out.insert(out.end(), b, b + 4);
}

bool valid_role(std::uint8_t r) {
    return r == static_cast<std::uint8_t>(Role::client) ||
           r == static_cast<std::uint8_t>(Role::tool) ||
           r == static_cast<std::uint8_t>(Role::server);
}

}  // namespace

const char* to_string(Role r) noexcept {
    switch (r) {
        case Role::client:
            return "client";
        case Role::tool:
            return "tool";
        case Role::server:
            return "server";
    }
    return "unknown";
}

Hello Hello::for_this_process(std::string nspace, pmix_rank_t rank, Role role) {
    Hello h;
    h.nspace = std::move(nspace);
    h.rank = rank;
    h.pid = static_cast<std::int32_t>(::getpid());
    h.uid = static_cast<std::uint32_t>(::geteuid());
    h.gid = static_cast<std::uint32_t>(::getegid());
    h.role = role;
    return h;
}

Bytes encode(const Hello& hello) {
    Bytes out;
    out.reserve(kHelloFixed + hello.nspace.size() + hello.secret.size());
    put16(out, hello.version);
    out.push_back(static_cast<std::uint8_t>(hello.role));
    out.push_back(0);
    put32(out, hello.rank);
    put32(out, static_cast<std::uint32_t>(hello.pid));
    put32(out, hello.uid);
    put32(out, hello.gid);
    // Over-long names are sent as they are and refused by the receiver's decoder, which is the
    // check that matters; clamping here would silently connect under a different name.
    put16(out, static_cast<std::uint16_t>(std::min<std::size_t>(hello.nspace.size(), 0xFFFF)));
    out.insert(out.end(), hello.nspace.begin(),
               hello.nspace.begin() +
                   static_cast<std::ptrdiff_t>(std::min<std::size_t>(hello.nspace.size(), 0xFFFF)));
    const std::size_t ns = std::min<std::size_t>(hello.secret.size(), 0xFFFF);
    put16(out, static_cast<std::uint16_t>(ns));
    out.insert(out.end(), hello.secret.begin(),
               hello.secret.begin() + static_cast<std::ptrdiff_t>(ns));
    return out;
}

Bytes encode(const HelloReply& reply) {
    Bytes out;
    std::size_t n = std::min(reply.reason.size(), kMaxReasonLength);
    out.reserve(kReplyFixed + n);
    put32(out, static_cast<std::uint32_t>(reply.status));
    put16(out, reply.version);
    put16(out, 0);
    put32(out, static_cast<std::uint32_t>(reply.server_pid));
    put16(out, static_cast<std::uint16_t>(n));
    out.insert(out.end(), reply.reason.begin(),
               reply.reason.begin() + static_cast<std::ptrdiff_t>(n));
    return out;
}

Result<Hello> decode_hello(std::span<const std::uint8_t> payload) {
    using R = Result<Hello>;
    Cursor in(payload);
    Hello h;
    std::uint8_t role = 0, zero = 0;
    std::uint16_t len = 0;
    if (!in.u16(h.version) || !in.u8(role) || !in.u8(zero) || !in.u32(h.rank) || !in.i32(h.pid) ||
        !in.u32(h.uid) || !in.u32(h.gid) || !in.u16(len)) {
        return R::failure(PMIX_ERR_UNPACK_FAILURE,
                          "hello truncated: " + std::to_string(payload.size()) + " bytes");
    }
    if (!valid_role(role) || zero != 0) {
        return R::failure(
            PMIX_ERR_UNPACK_FAILURE,
            "hello has unknown role " + std::to_string(role) + " or non-zero padding");
    }
    h.role = static_cast<Role>(role);
    if (len > PMIX_MAX_NSLEN) {
        return R::failure(PMIX_ERR_UNPACK_FAILURE, "hello namespace of " + std::to_string(len) +
                                                       " bytes exceeds PMIX_MAX_NSLEN (" +
                                                       std::to_string(PMIX_MAX_NSLEN) + ")");
    }
    std::uint16_t secret_len = 0;
    if (!in.text(len, h.nspace) || !in.u16(secret_len) || secret_len > kMaxSecretLength ||
        !in.text(secret_len, h.secret) || in.left() != 0) {
        return R::failure(PMIX_ERR_UNPACK_FAILURE,
                          "hello namespace length " + std::to_string(len) + " and secret length " +
                              std::to_string(secret_len) + " do not match the " +
                              std::to_string(payload.size()) + "-byte payload");
    }
    if (h.nspace.find('\0') != std::string::npos) {
        return R::failure(PMIX_ERR_UNPACK_FAILURE, "hello namespace contains a NUL byte");
    }
    return R::success(std::move(h));
}

Result<HelloReply> decode_hello_reply(std::span<const std::uint8_t> payload) {
    using R = Result<HelloReply>;
    Cursor in(payload);
    HelloReply r;
    std::uint16_t zero = 0, len = 0;
    if (!in.i32(r.status) || !in.u16(r.version) || !in.u16(zero) || !in.i32(r.server_pid) ||
        !in.u16(len)) {
        return R::failure(PMIX_ERR_UNPACK_FAILURE,
                          "hello reply truncated: " + std::to_string(payload.size()) + " bytes");
    }
    if (zero != 0 || len > kMaxReasonLength || !in.text(len, r.reason) || in.left() != 0) {
        return R::failure(PMIX_ERR_UNPACK_FAILURE,
                          "malformed hello reply (" + std::to_string(payload.size()) + " bytes)");
    }
    return R::success(std::move(r));
}

Result<PeerCred> peer_credentials(int socket_fd) {
    ucred cred{};
    socklen_t len = sizeof cred;
    if (::getsockopt(socket_fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred) {
        return Result<PeerCred>::failure(PMIX_ERR_INVALID_CRED,
                                         std::string("SO_PEERCRED: ") + std::strerror(errno));
    }
    return Result<PeerCred>::success(PeerCred{static_cast<std::int32_t>(cred.pid),
                                              static_cast<std::uint32_t>(cred.uid),
                                              static_cast<std::uint32_t>(cred.gid)});
}

pmix_status_t hello_refusal_status(const Hello& hello, const PeerCred& cred) {
    if (hello.version != kProtocolVersion) {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    if (hello.pid != cred.pid || hello.uid != cred.uid || hello.gid != cred.gid) {
        return PMIX_ERR_INVALID_CRED;
    }
    return check_hello(hello, cred).empty() ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
}

std::string check_hello(const Hello& hello, const PeerCred& cred) {
    auto mismatch = [](const char* what, long long claimed, long long actual) {
        return std::string(what) + " mismatch: hello says " + std::to_string(claimed) +
               ", the socket's peer is " + std::to_string(actual);
    };
    if (hello.version != kProtocolVersion) {
        return "peer speaks protocol version " + std::to_string(hello.version) +
               "; this side speaks " + std::to_string(kProtocolVersion);
    }
    if (hello.pid != cred.pid) {
        return mismatch("pid", hello.pid, cred.pid);
    }
    if (hello.uid != cred.uid) {
        return mismatch("uid", hello.uid, cred.uid);
    }
    if (hello.gid != cred.gid) {
        return mismatch("gid", hello.gid, cred.gid);
    }
    if (hello.role == Role::client && hello.nspace.empty()) {
        return "a client must name its namespace";
    }
    return {};
}

}  // namespace pmix::wire
