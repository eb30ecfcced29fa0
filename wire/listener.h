// wire/listener.h - the accepting side: a Unix-domain listening socket whose every new
// connection must complete the Hello handshake before anyone else sees it.
//
// For each accepted socket the listener waits (at most handshake_timeout) for a Hello, decodes
// it, checks it against the socket's SO_PEERCRED (hello.h), then asks the owner's
// AcceptHandler. A refusal - from the checks or from the handler - is answered with a
// HelloReply carrying the status and reason, then the connection is closed; everything else
// (a garbage first frame, a silent peer) is closed with a logged reason. None of this affects
// other connections. The handler runs on the progress thread and is where the owner installs
// its own on_message/on_closed on the connection; from then on the listener forgets it. The
// handler must not send on the connection itself: the HelloReply is queued after it returns,
// and the peer handles nothing before that reply (post such sends instead).
#pragma once

#include "exec/executor.h"
#include "exec/unique_function.h"
#include "wire/connection.h"
#include "wire/hello.h"
#include "base/result.h"
#include "wire/unix_socket.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>

namespace pmix::wire {

// What an accepted peer may make the server hold in replies it does not read, before the server
// stops reading it (ConnectionOptions::pause_reading_above). Measured with tests/hostile's
// never-reading client (200 Gets of a 1 MiB value, no reply read): without it the server's
// resident size grew by 134 MB (the 128 MiB queue limit) and 73 of the 200 replies were refused
// when the queue was full, so lost (10,000 small Gets lost 5,626 replies at the 4096-frame limit,
// hence the frame mark as well). A client stopped by a debugger or SIGSTOP is paused the same
// way and resumes where it was; dropping it would make it look dead to the host.
inline constexpr std::size_t kAcceptedPauseReadingAbove = 4u << 20;

struct ListenerOptions {
    int backlog = 128;
    std::chrono::milliseconds handshake_timeout{5000};
    std::size_t max_handshakes = 1024;  // connections allowed to be mid-handshake at once
    ConnectionOptions connection{.pause_reading_above = kAcceptedPauseReadingAbove};
};

struct Peer {
    Hello hello;
    PeerCred cred;
    // A TCP peer (open_tcp): no kernel credentials exist, the Hello's secret matched instead,
    // and `cred` holds the pid the peer claims with this server's own uid/gid - the identity
    // the secret proves (only the owner can read the rendezvous file holding it).
    bool remote = false;
    std::string address;  // "a.b.c.d:port" of a remote peer
};

struct Verdict {
    pmix_status_t status = PMIX_SUCCESS;
    std::string reason;  // sent to the peer when status != PMIX_SUCCESS
};

class Listener : public std::enable_shared_from_this<Listener> {
public:
    using AcceptHandler =
        exec::UniqueFunction<Verdict(const std::shared_ptr<Connection>&, const Peer&)>;

    struct Stats {
        std::size_t accepted = 0;  // handshakes completed and accepted
        std::size_t refused = 0;   // handshakes answered with a refusal
        std::size_t failed = 0;    // closed without a verdict (garbage, silence, hang-up)
    };

    // Creates the socket file (see unix_socket.h for the rules) and starts accepting on `ex`.
    static Result<std::shared_ptr<Listener>> open(exec::Executor& ex, const std::string& path,
                                                  AcceptHandler on_accept,
                                                  ListenerOptions options = {});
    // A TCP listener for remote tools (tcp_socket.h): only Role::tool Hellos carrying `secret`
    // are admitted; path() is the URI to dial.
    static Result<std::shared_ptr<Listener>> open_tcp(exec::Executor& ex,
                                                      const std::string& bind_ip,
                                                      std::uint16_t port, std::string secret,
                                                      AcceptHandler on_accept,
                                                      ListenerOptions options = {});
    ~Listener();
    Listener(const Listener&) = delete;
    Listener& operator=(const Listener&) = delete;

    // Stops accepting and removes the socket file; accepted connections are not affected,
    // connections still in their handshake are closed. Any thread; idempotent.
    void close();

    const std::string& path() const noexcept { return path_; }
    Stats stats() const noexcept;

private:
    struct Handshake {
        std::shared_ptr<Connection> conn;
        exec::TimerId timer = exec::kInvalidTimer;
    };

    Listener(exec::Executor& ex, ListeningSocket sock, AcceptHandler on_accept,
             ListenerOptions options);
    static Result<std::shared_ptr<Listener>> start(exec::Executor& ex, Result<ListeningSocket> sock,
                                                   std::string secret, AcceptHandler on_accept,
                                                   ListenerOptions options);
    Result<Peer> identify(Connection& conn, Hello hello) const;
    void begin();
    void on_acceptable();
    void pause_accepting();
    void begin_handshake(exec::UniqueFd fd);
    void on_hello(std::uint64_t id, Connection& conn, Frame&& frame);
    void decide(Connection& conn, const std::shared_ptr<Connection>& owner, const Frame& frame);
    void refuse(Connection& conn, const Frame& hello_frame, pmix_status_t status, std::string why);
    void close_on_loop() noexcept;

    exec::Executor& ex_;
    const std::string path_;
    const ListenerOptions opts_;
    // Loop-thread state (after open() returns).
    ListeningSocket sock_;
    AcceptHandler on_accept_;
    std::string secret_;  // TCP listeners only
    exec::WatchId watch_ = exec::kInvalidWatch;
    std::unordered_map<std::uint64_t, Handshake> handshakes_;
    std::uint64_t next_handshake_ = 1;
    bool closed_ = false;
    bool told_out_of_resources_ =
        false;  // the first failed accept is an error, later ones warnings

    std::atomic<std::size_t> accepted_{0};
    std::atomic<std::size_t> refused_{0};
    std::atomic<std::size_t> failed_{0};
};

}  // namespace pmix::wire
