// wire/tcp_socket.h - IPv4 stream sockets for remote tools (PMIX_SERVER_REMOTE_CONNECTIONS,
// PMIX_TCP_URI). Clients never use TCP: they share the server's node and its Unix socket.
//
// A TCP peer has no kernel-checked credentials, so a TCP listener admits a Hello only when it
// carries the server's secret (wire/listener.h); the secret is written only into the server's
// owner-only rendezvous files (wire/rendezvous.h). URIs have OpenPMIx's form "tcp4://a.b.c.d:port".
#pragma once

#include "exec/unique_fd.h"
#include "base/result.h"
#include "wire/unix_socket.h"

#include <cstdint>
#include <string>

namespace pmix::wire {

inline constexpr char kTcpScheme[] = "tcp4://";

// True for "tcp4://..." and the bare "tcp://..." some tools write.
bool is_tcp_uri(const std::string& uri) noexcept;

struct TcpAddress {
    std::string ip;  // dotted quad
    std::uint16_t port = 0;
};
// "tcp4://a.b.c.d:port" or "tcp://a.b.c.d:port"; PMIX_ERR_BAD_PARAM otherwise.
Result<TcpAddress> parse_tcp_uri(const std::string& uri);
std::string make_tcp_uri(const TcpAddress& a);

// Listens on `bind_ip` ("0.0.0.0": every interface) and `port` (0: any free one). The returned
// path is the URI others dial: for a wildcard bind, the first non-loopback IPv4 address of this
// host (127.0.0.1 if it has none). Errors: PMIX_ERR_BAD_PARAM (not an IPv4 address),
// PMIX_ERR_OUT_OF_RESOURCE (socket/bind/listen failed).
Result<ListeningSocket> listen_tcp(const std::string& bind_ip, std::uint16_t port, int backlog);

// Starts a non-blocking connect. Success: the descriptor, possibly still connecting (check
// with tcp_connect_finished). PMIX_ERR_UNREACH when refused at once.
Result<exec::UniqueFd> connect_tcp(const TcpAddress& to);

// For a connect in progress: PMIX_ERR_WOULD_BLOCK while it is, PMIX_SUCCESS once connected,
// PMIX_ERR_UNREACH (with the reason) when it failed.
Result<bool> tcp_connect_finished(int fd);

// A random secret (hex) for a TCP listener; empty if the kernel's random source failed.
std::string make_secret();

// Compares without an early exit, so the time taken does not tell how much of a guess matched.
bool secrets_equal(const std::string& a, const std::string& b) noexcept;

}  // namespace pmix::wire
