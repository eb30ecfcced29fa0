// tests/hostile/hostile_server.cpp - see hostile_server.h.
#include "hostile_server.h"

#include "wire/dial.h"
#include "wire/proto/message.h"
#include "wire/tcp_socket.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <thread>

extern char** environ;

namespace hostile {

using pmix::proto::Op;

long rss_kib(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
    }
    return -1;
}

int fd_count(pid_t pid) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return -1;
    int n = 0;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] == '.') continue;
        // The log file is opened at the first line logged: not a descriptor a peer left behind.
        char target[4096] = {};
        const ssize_t len = readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
        const std::string_view t(target, len > 0 ? static_cast<std::size_t>(len) : 0);
        n += t.size() >= 9 && t.substr(t.size() - 9) == "/host.log" ? 0 : 1;
    }
    closedir(d);
    return n;
}

wire::Bytes request_frame(Op op, std::uint32_t tag, const wire::Bytes& payload) {
    wire::Frame f;
    f.op = static_cast<std::uint32_t>(op);
    f.tag = tag;
    f.payload = payload;
    return wire::encode_frame(f);
}

wire::Bytes get_payload(const char* ns, pmix_rank_t rank, const char* key) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, ns, rank);
    pmix::proto::Writer w;
    w.proc(proc).string(key).infos(nullptr, 0);
    return w.take();
}

exec::UniqueFd raw_tcp_tool(const std::string& uri, const std::string& secret) {
    auto to = wire::parse_tcp_uri(uri);
    if (!to.ok()) return {};
    auto fd = wire::connect_tcp(to.value);
    if (!fd.ok()) return {};
    pollfd p{fd.value.get(), POLLOUT, 0};
    if (poll(&p, 1, 5000) != 1 || !wire::tcp_connect_finished(fd.value.get()).ok()) return {};
    const int fl = fcntl(fd.value.get(), F_GETFL);
    fcntl(fd.value.get(), F_SETFL, fl & ~O_NONBLOCK);
    wire::Hello hello = wire::Hello::for_this_process("", PMIX_RANK_UNDEF, wire::Role::tool);
    hello.secret = secret;
    if (!wiretest::write_all(fd.value.get(), wiretest::hello_frame(hello))) return {};
    auto reply = wiretest::read_frame(fd.value.get(), 5s);
    if (!reply) return {};
    auto decoded = wire::decode_hello_reply(reply->payload);
    if (!decoded.ok() || decoded.value.status != PMIX_SUCCESS) return {};
    return std::move(fd.value);
}

namespace {

// The value of a "name:value" line of a file ("" when absent).
std::string field(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(name, 0) == 0) return line.substr(name.size());
    }
    return {};
}

}  // namespace

void HostileServer::SetUp() {
    // The host's log goes to a file: thousands of refused peers must not fill the pipe the
    // fixture reads only at start and stop.
    setenv("PMIX_CPP_LOG", "warn", 1);
    setenv("PMIX_CPP_LOG_FILE", (dir_.path() + "/host.log").c_str(), 1);
    host_ =
        std::make_unique<tooltest::HostProcess>(std::vector<std::string>{"--tmpdir", dir_.path()});
    unsetenv("PMIX_CPP_LOG");
    unsetenv("PMIX_CPP_LOG_FILE");
    ASSERT_TRUE(host_->wait_ready());
    socket_ =
        field(tooltest::read_file(dir_.path() + "/env.hostile.raw.0"), "PMIX_CPP_SERVER_SOCKET=");
    socket_ = socket_.substr(0, socket_.find('\n'));
    const std::string rendezvous = tooltest::read_file(
        dir_.path() + "/pmix." + tooltest::host_name() + ".tool." + std::to_string(pid()));
    tcp_uri_ = field(rendezvous, "tcp:");
    tcp_uri_ = tcp_uri_.substr(tcp_uri_.find(';') + 1);
    secret_ = field(rendezvous, "secret:");
    ASSERT_FALSE(socket_.empty());
    ASSERT_EQ(tcp_uri_.rfind("tcp4://", 0), 0u) << rendezvous;
    ASSERT_FALSE(secret_.empty());
    ex_ = std::make_unique<exec::Executor>("hostile-good");
    ASSERT_EQ(ex_->start(), PMIX_SUCCESS);
}

void HostileServer::TearDown() {
    if (ex_) ex_->stop();
    EXPECT_EQ(host_->stop(), 0) << "the server must finalize cleanly after the abuse";
}

exec::UniqueFd HostileServer::raw_client(pmix_rank_t rank) const {
    return wiretest::raw_accepted_client(
        socket_, wire::Hello::for_this_process(kRawNs, rank, wire::Role::client));
}

bool HostileServer::serves(pmix_rank_t rank) {
    auto d =
        wire::dial(*ex_, socket_, wire::Hello::for_this_process(kRawNs, rank, wire::Role::client));
    if (d.status != PMIX_SUCCESS) return false;
    auto r = d.connection->call(static_cast<std::uint32_t>(Op::kGet),
                                get_payload(kRawNs, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE), 10s);
    d.connection->close();
    if (!r.ok()) return false;
    pmix::proto::Reader rd(r.value.payload);
    pmix_status_t st = PMIX_ERROR;
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    const bool ok = rd.status(&st) == PMIX_SUCCESS && st == PMIX_SUCCESS &&
                    rd.value(&v) == PMIX_SUCCESS && v.type == PMIX_UINT32 && v.data.uint32 == 1024;
    PMIX_VALUE_DESTRUCT(&v);
    return ok;
}

bool HostileServer::serves_tcp_tool() {
    wire::Hello hello = wire::Hello::for_this_process("", PMIX_RANK_UNDEF, wire::Role::tool);
    hello.secret = secret_;
    auto d = wire::dial(*ex_, tcp_uri_, hello);
    if (d.status != PMIX_SUCCESS) {
        std::fprintf(stderr, "tcp tool refused: %s (%d)\n", d.error.c_str(), d.status);
        return false;
    }
    pmix::proto::Writer w;
    w.infos(nullptr, 0);
    auto r = d.connection->call(static_cast<std::uint32_t>(Op::kToolAttach), w.take(), 10s);
    d.connection->close();
    if (!r.ok()) {
        std::fprintf(stderr, "tcp attach: %s %d\n", r.error.c_str(), r.status);
        return false;
    }
    pmix::proto::Reader rd(r.value.payload);
    pmix_status_t st = PMIX_ERROR;
    if (rd.status(&st) != PMIX_SUCCESS || st != PMIX_SUCCESS) {
        std::fprintf(stderr, "tcp tool: attach answered %d\n", st);
        return false;
    }
    return true;
}

bool HostileServer::alive() const { return kill(pid(), 0) == 0 && rss_kib(pid()) > 0; }

int HostileServer::stable_fd_count() const {
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    int last = fd_count(pid());
    while (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(100ms);
        const int now = fd_count(pid());
        if (now == last) return now;
        last = now;
    }
    return last;
}

pid_t HostileServer::spawn_client(const std::string& ns, pmix_rank_t rank,
                                  std::vector<std::string> args) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "PMIX_", 5) != 0) env.emplace_back(*e);
    }
    std::istringstream added(
        tooltest::read_file(dir_.path() + "/env." + ns + "." + std::to_string(rank)));
    for (std::string line; std::getline(added, line);) env.push_back(line);
    args.insert(args.begin(), HOSTILE_CLIENT_PATH);
    std::vector<char*> argv, envp;
    for (auto& a : args) argv.push_back(a.data());
    for (auto& e : env) envp.push_back(e.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    const std::string out = dir_.path() + "/out." + ns + "." + std::to_string(rank);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid = -1;
    if (posix_spawn(&pid, HOSTILE_CLIENT_PATH, &fa, nullptr, argv.data(), envp.data()) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

int HostileServer::wait_client(pid_t pid, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (pid > 0 && std::chrono::steady_clock::now() < deadline) {
        int st = 0;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        std::this_thread::sleep_for(5ms);
    }
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, 0);
    }
    return -1;
}

std::string HostileServer::client_output(const std::string& ns, pmix_rank_t rank) const {
    return tooltest::read_file(dir_.path() + "/out." + ns + "." + std::to_string(rank));
}

}  // namespace hostile
