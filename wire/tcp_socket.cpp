// wire/tcp_socket.cpp - see tcp_socket.h.
#include "wire/tcp_socket.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pmix::wire {
namespace {

using exec::UniqueFd;

std::string tcp_errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

std::string dotted(const in_addr& a) {
    char buf[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, &a, buf, sizeof buf);
    return buf;
}

// The address a remote tool should dial when we listen on every interface.
std::string first_external_ipv4() {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0) return "127.0.0.1";
    std::string found;
    for (ifaddrs* i = list; i != nullptr && found.empty(); i = i->ifa_next) {
        if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
        if ((i->ifa_flags & IFF_UP) == 0 || (i->ifa_flags & IFF_LOOPBACK) != 0) continue;
        found = dotted(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr);
    }
    ::freeifaddrs(list);
    return found.empty() ? "127.0.0.1" : found;
}

bool to_sockaddr(const TcpAddress& a, sockaddr_in& out) {
    out = sockaddr_in{};
    out.sin_family = AF_INET;
    out.sin_port = htons(a.port);
    return ::inet_pton(AF_INET, a.ip.c_str(), &out.sin_addr) == 1;
}

}  // namespace

bool is_tcp_uri(const std::string& uri) noexcept {
    return uri.rfind(kTcpScheme, 0) == 0 || uri.rfind("tcp://", 0) == 0;
}

Result<TcpAddress> parse_tcp_uri(const std::string& uri) {
    using R = Result<TcpAddress>;
    std::string rest;
    if (uri.rfind(kTcpScheme, 0) == 0) {
        rest = uri.substr(sizeof(kTcpScheme) - 1);
    } else if (uri.rfind("tcp://", 0) == 0) {
        rest = uri.substr(6);
    } else {
        return R::failure(PMIX_ERR_BAD_PARAM, "not a tcp4:// URI: " + uri);
    }
    const auto colon = rest.rfind(':');
    TcpAddress a;
    a.ip = rest.substr(0, colon);
    sockaddr_in probe{};
    if (colon == std::string::npos || colon + 1 == rest.size() ||
        rest.find_first_not_of("0123456789", colon + 1) != std::string::npos ||
        rest.size() - colon > 6) {
        return R::failure(PMIX_ERR_BAD_PARAM, "no port in " + uri);
    }
    const unsigned long port = std::strtoul(rest.c_str() + colon + 1, nullptr, 10);
    if (port == 0 || port > 65535) return R::failure(PMIX_ERR_BAD_PARAM, "bad port in " + uri);
    a.port = static_cast<std::uint16_t>(port);
    if (!to_sockaddr(a, probe))
        return R::failure(PMIX_ERR_BAD_PARAM, "not an IPv4 address in " + uri);
    return R::success(std::move(a));
}

std::string make_tcp_uri(const TcpAddress& a) {
    return std::string(kTcpScheme) + a.ip + ":" + std::to_string(a.port);
}

Result<ListeningSocket> listen_tcp(const std::string& bind_ip, std::uint16_t port, int backlog) {
    using R = Result<ListeningSocket>;
    sockaddr_in addr{};
    if (!to_sockaddr(TcpAddress{bind_ip, port}, addr)) {
        return R::failure(PMIX_ERR_BAD_PARAM, "not an IPv4 address: " + bind_ip);
    }
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) return R::failure(PMIX_ERR_OUT_OF_RESOURCE, tcp_errno_text("socket"));
    const int one = 1;
    ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        return R::failure(PMIX_ERR_OUT_OF_RESOURCE,
                          tcp_errno_text("bind " + bind_ip + ":" + std::to_string(port)));
    }
    if (::listen(fd.get(), backlog) != 0)
        return R::failure(PMIX_ERR_OUT_OF_RESOURCE, tcp_errno_text("listen"));
    sockaddr_in bound{};
    socklen_t len = sizeof bound;
    if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
        return R::failure(PMIX_ERR_OUT_OF_RESOURCE, tcp_errno_text("getsockname"));
    }
    ListeningSocket sock;
    sock.fd = std::move(fd);
    sock.tcp = true;
    const std::string ip =
        addr.sin_addr.s_addr == htonl(INADDR_ANY) ? first_external_ipv4() : bind_ip;
    sock.path = make_tcp_uri(TcpAddress{ip, ntohs(bound.sin_port)});
    return R::success(std::move(sock));
}

Result<UniqueFd> connect_tcp(const TcpAddress& to) {
    using R = Result<UniqueFd>;
    sockaddr_in addr{};
    if (!to_sockaddr(to, addr))
        return R::failure(PMIX_ERR_BAD_PARAM, "not an IPv4 address: " + to.ip);
    UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
    if (!fd) return R::failure(PMIX_ERR_OUT_OF_RESOURCE, tcp_errno_text("socket"));
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 ||
        errno == EINPROGRESS) {
        return R::success(std::move(fd));
    }
    return R::failure(PMIX_ERR_UNREACH, tcp_errno_text("connect " + make_tcp_uri(to)));
}

Result<bool> tcp_connect_finished(int fd) {
    using R = Result<bool>;
    pollfd p{fd, POLLOUT, 0};
    const int n = ::poll(&p, 1, 0);
    if (n == 0) return R::failure(PMIX_ERR_WOULD_BLOCK, "connecting");
    int err = 0;
    socklen_t len = sizeof err;
    if (n < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        return R::failure(PMIX_ERR_UNREACH, tcp_errno_text("connect"));
    }
    if (err != 0)
        return R::failure(PMIX_ERR_UNREACH, std::string("connect: ") + std::strerror(err));
    return R::success(true);
}

std::string make_secret() {
    unsigned char raw[16];
    if (::getrandom(raw, sizeof raw, 0) != static_cast<ssize_t>(sizeof raw)) return {};
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : raw) {
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
    return out;
}

bool secrets_equal(const std::string& a, const std::string& b) noexcept {
    if (a.size() != b.size() || a.empty()) return false;
    unsigned char diff = 0;
    for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
    return diff == 0;
}

}  // namespace pmix::wire
