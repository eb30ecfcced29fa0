// Shared helpers for the wire tests: temporary socket directories, raw (non-library) socket
// clients for misbehaving peers, and a small echo server built on Listener.
#pragma once

#include "exec/executor.h"
#include "exec/unique_fd.h"
#include "wire/connection.h"
#include "wire/frame.h"
#include "wire/hello.h"
#include "wire/listener.h"

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace wiretest {

using namespace std::chrono_literals;
namespace exec = pmix::exec;
namespace wire = pmix::wire;

inline constexpr auto kWait = std::chrono::seconds(20);             // upper bound for every wait
inline constexpr std::uint32_t kOpEcho = wire::kFirstUserOp;        // reply: le32(rank) + payload
inline constexpr std::uint32_t kOpNotify = wire::kFirstUserOp + 1;  // one-way
inline constexpr std::uint32_t kOpSilent = wire::kFirstUserOp + 2;  // never answered

// A fresh 0700 directory under /tmp, removed (with its contents) at destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

// Blocking raw client socket (no Connection), or an invalid fd.
exec::UniqueFd raw_connect(const std::string& path);
bool write_all(int fd, const void* data, std::size_t n);
bool write_all(int fd, const wire::Bytes& bytes);
// Reads one frame with a deadline; nullopt on timeout, EOF or a bad stream.
std::optional<wire::Frame> read_frame(int fd, std::chrono::milliseconds timeout);
// True when the peer closes `fd` within `timeout` (read returns 0 or ECONNRESET).
bool wait_for_eof(int fd, std::chrono::milliseconds timeout);
// A Hello request frame (tag 1) for `hello`, ready to write on a raw socket.
wire::Bytes hello_frame(const wire::Hello& hello);
// Connects raw, completes a genuine handshake by hand (`hello`) and returns the socket, or an
// invalid fd when the server refused or did not answer within 5 s.
exec::UniqueFd raw_accepted_client(const std::string& path, const wire::Hello& hello);

wire::Bytes make_payload(std::size_t n, std::uint32_t seed);
wire::Bytes echo_reply_payload(pmix_rank_t rank, const wire::Bytes& request);

// An Executor plus a Listener that accepts everyone the checks let through and answers
// kOpEcho; records how every accepted connection closed.
class EchoServer {
public:
    explicit EchoServer(const std::string& path, wire::ListenerOptions options = {});
    // A TCP listener on 127.0.0.1 (any port; listener().path() is its URI) admitting `secret`.
    struct Tcp {
        std::string secret;
    };
    explicit EchoServer(Tcp tcp, wire::ListenerOptions options = {});
    ~EchoServer();

    bool ok() const { return listener_ != nullptr; }
    const std::string& error() const { return error_; }
    wire::Listener& listener() { return *listener_; }
    exec::Executor& executor() { return ex_; }
    std::size_t echoes() const;
    std::vector<wire::CloseReason> closes() const;
    std::vector<wire::Peer> peers() const;

    // Optional policy: return a refusal to turn a peer away.
    void set_policy(std::function<wire::Verdict(const wire::Peer&)> policy);

private:
    wire::Verdict accept(const std::shared_ptr<wire::Connection>& conn, const wire::Peer& peer);

    exec::Executor ex_{"echo-server"};
    std::shared_ptr<wire::Listener> listener_;
    std::string error_;
    mutable std::mutex mutex_;
    std::size_t echoes_ = 0;
    std::vector<wire::CloseReason> closes_;
    std::vector<wire::Peer> peers_;
    std::function<wire::Verdict(const wire::Peer&)> policy_;
};

// A client executor dialing `path` as this process; nullptr on failure (reason in `why`).
std::shared_ptr<wire::Connection> dial_echo(exec::Executor& ex, const std::string& path,
                                            pmix_rank_t rank, std::string* why = nullptr);

// Runs `count` echo calls on `conn` and checks each answer; returns the number that matched.
int run_echoes(wire::Connection& conn, pmix_rank_t rank, int count, std::size_t payload_size);

}  // namespace wiretest
