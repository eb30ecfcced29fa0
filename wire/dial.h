// wire/dial.h - the connecting side: socket connect + Hello handshake, with one deadline.
//
// `path` is a Unix socket path, or a "tcp4://a.b.c.d:port" URI (remote tools; the Hello must then
// carry the server's secret, tcp_socket.h).
// dial_async() is the operation; dial() is dial_async() plus a wait (and so returns
// PMIX_ERR_WOULD_BLOCK on a progress thread instead of deadlocking it).
#pragma once

#include "exec/executor.h"
#include "exec/unique_function.h"
#include "wire/connection.h"
#include "wire/hello.h"

#include <chrono>
#include <memory>
#include <string>

namespace pmix::wire {

struct DialOptions {
    // Covers everything: waiting for room in a full backlog, connect, and the hello reply.
    std::chrono::milliseconds timeout{5000};
    ConnectionOptions connection;
    // Installed when the handshake succeeds, before any later frame is read, so nothing the
    // server sends right after accepting can be missed. on_closed is not called for a dial
    // that fails (the failure is reported to the dial's own callback instead).
    Connection::MessageHandler on_message;
    Connection::ClosedHandler on_closed;
};

struct Dialed {
    pmix_status_t status = PMIX_ERR_UNREACH;
    std::string error;                       // why, when status != PMIX_SUCCESS
    std::shared_ptr<Connection> connection;  // open and started, when status == PMIX_SUCCESS
    HelloReply reply;                        // the server's answer, when one arrived
};

// Calls `done` exactly once, on the executor's thread (or on the caller's, if the executor is
// not running). Statuses: PMIX_SUCCESS; the server's refusal status (e.g.
// PMIX_ERR_INVALID_CRED) with its reason; PMIX_ERR_UNREACH (nobody listens);
// PMIX_ERR_TIMEOUT; PMIX_ERR_LOST_CONNECTION (server hung up); PMIX_ERR_UNPACK_FAILURE (the
// reply was malformed); PMIX_ERR_BAD_PARAM (bad path or timeout).
void dial_async(exec::Executor& ex, std::string path, Hello hello, DialOptions options,
                exec::UniqueFunction<void(Dialed&&)> done);

// Blocking form. PMIX_ERR_WOULD_BLOCK when called on a progress thread.
Dialed dial(exec::Executor& ex, std::string path, Hello hello, DialOptions options = {});

}  // namespace pmix::wire
