// tests/hostile/hostile_server.h - the fixture of the hostile-peer tests: a real server process
// (hostile_host, run through tests/tools' HostProcess) in a scratch directory, what can be measured
// of it from outside (/proc/<pid>: resident size, open descriptors), and the peers' tools: raw
// sockets that complete a genuine handshake (tests/unit/wire's helpers) over the Unix socket or
// over TCP, request frames built with wire/proto, and a well-behaved client whose answer says
// whether the server still serves.
#pragma once

#include "helpers.h"  // tests/unit/wire: raw_connect, raw_accepted_client, write_all, read_frame
#include "tools/host_process.h"  // tests/tools: HostProcess, ScratchDir

#include "wire/proto/protocol.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace hostile {

using namespace std::chrono_literals;
namespace exec = pmix::exec;
namespace wire = pmix::wire;

inline constexpr char kRawNs[] = "hostile.raw";  // 1024 ranks, one connection each
inline constexpr std::size_t kMiB = 1u << 20;
// How much the server's resident size may grow under one attack. The attacks below could make an
// unbounded server hold hundreds of MiB or GiB; a bounded one holds a few MiB.
inline constexpr long kRssBoundKiB = 64 * 1024;

// /proc/<pid>/status VmRSS in KiB (-1 if unreadable); entries of /proc/<pid>/fd but the log file
// (-1 likewise).
long rss_kib(pid_t pid);
int fd_count(pid_t pid);

// A request frame (op, tag) with `payload`, header included, for a raw socket.
wire::Bytes request_frame(pmix::proto::Op op, std::uint32_t tag, const wire::Bytes& payload);
// kGet payload: (ns, rank)'s `key`, no directives.
wire::Bytes get_payload(const char* ns, pmix_rank_t rank, const char* key);

// A raw TCP socket (blocking) to a "tcp4://a.b.c.d:port" URI that completed a tool's handshake
// with `secret`; invalid if anything failed.
exec::UniqueFd raw_tcp_tool(const std::string& uri, const std::string& secret);

class HostileServer : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;

    pid_t pid() const { return host_->pid(); }
    const std::string& socket_path() const { return socket_; }
    const std::string& tcp_uri() const { return tcp_uri_; }
    const std::string& secret() const { return secret_; }
    const std::string& dir() const { return dir_.path(); }

    // A raw client of hostile.raw that completed its handshake as `rank`.
    exec::UniqueFd raw_client(pmix_rank_t rank) const;
    // True when a fresh well-behaved client (a Connection, as hostile.raw:`rank`) gets the job's
    // size from the server within 10 s.
    bool serves(pmix_rank_t rank);
    // True when a well-behaved remote tool over TCP is admitted and attached within 10 s.
    bool serves_tcp_tool();
    // Whether the server process is still running.
    bool alive() const;
    // The descriptor count once it holds still (two reads 100 ms apart agree; at most 5 s).
    int stable_fd_count() const;

    // Starts hostile_client (argv after the program) as (ns, rank) in setup_fork's environment,
    // its output in <dir>/out.<ns>.<rank>. Returns its pid.
    pid_t spawn_client(const std::string& ns, pmix_rank_t rank, std::vector<std::string> args);
    // Its exit status; -1 when it had to be killed at the deadline.
    static int wait_client(pid_t pid, std::chrono::seconds limit);
    std::string client_output(const std::string& ns, pmix_rank_t rank) const;

    std::unique_ptr<exec::Executor> ex_;  // for the well-behaved clients

private:
    tooltest::ScratchDir dir_;
    std::unique_ptr<tooltest::HostProcess> host_;
    std::string socket_, tcp_uri_, secret_;
};

}  // namespace hostile
