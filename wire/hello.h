// wire/hello.h - the handshake: the first frame on every connection.
//
// The connecting side sends a Hello (op kOpHello, tag != 0) saying who it claims to be; the
// accepting side compares the claim with what the kernel says about the socket's peer
// (SO_PEERCRED: pid, effective uid and gid at connect time) and answers with a HelloReply.
// A claim the kernel contradicts is refused with PMIX_ERR_INVALID_CRED and a reason, so a
// process cannot act under another's pid or user even if it knows a namespace and rank.
//
// Payload layouts (little-endian, exact length: trailing bytes are an error):
//   Hello:      u16 version, u8 role, u8 zero, u32 rank, i32 pid, u32 uid, u32 gid,
//               u16 nspace length (<= PMIX_MAX_NSLEN, no NUL bytes), nspace bytes,
//               u16 secret length (<= kMaxSecretLength), secret bytes (empty over Unix sockets;
//               a remote tool's proof that it read the server's rendezvous file, tcp_socket.h)
//   HelloReply: i32 status, u16 version, u16 zero, i32 server pid,
//               u16 reason length (<= kMaxReasonLength), reason bytes
#pragma once

#include "wire/frame.h"
#include "base/result.h"

#include <pmix_common.h>

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>

namespace pmix::wire {

enum class Role : std::uint8_t { client = 1, tool = 2, server = 3 };
const char* to_string(Role r) noexcept;

inline constexpr std::size_t kMaxReasonLength = 1024;
inline constexpr std::size_t kMaxSecretLength = 256;

struct Hello {
    std::string nspace;  // may be empty for tools (the server assigns one)
    pmix_rank_t rank = PMIX_RANK_UNDEF;
    std::int32_t pid = 0;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
    Role role = Role::client;
    std::uint16_t version = kProtocolVersion;
    std::string secret;  // TCP only

    // A Hello carrying this process's pid and effective uid/gid.
    static Hello for_this_process(std::string nspace, pmix_rank_t rank, Role role);
};

struct HelloReply {
    pmix_status_t status = PMIX_SUCCESS;
    std::uint16_t version = kProtocolVersion;
    std::int32_t server_pid = 0;
    std::string reason;  // why the connection was refused; empty on success
};

// What the kernel reports about the process at the other end of a Unix-domain socket.
struct PeerCred {
    std::int32_t pid = 0;
    std::uint32_t uid = 0;
    std::uint32_t gid = 0;
};

Bytes encode(const Hello& hello);
Bytes encode(const HelloReply& reply);
// Strict decoders: PMIX_ERR_UNPACK_FAILURE with a reason for anything malformed.
Result<Hello> decode_hello(std::span<const std::uint8_t> payload);
Result<HelloReply> decode_hello_reply(std::span<const std::uint8_t> payload);

Result<PeerCred> peer_credentials(int socket_fd);

// Empty when `hello` is acceptable from the peer `cred`; otherwise the reason it is not
// (unsupported version, missing namespace for a client, pid/uid/gid the kernel contradicts).
// The status to report is hello_refusal_status(hello, cred).
std::string check_hello(const Hello& hello, const PeerCred& cred);
pmix_status_t hello_refusal_status(const Hello& hello, const PeerCred& cred);

}  // namespace pmix::wire
