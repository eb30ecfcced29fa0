// tests/hostile/test_random_frames.cpp - after a genuine handshake, a peer sends random frames:
// well-formed headers with random ops and random payloads, real requests with a few bytes
// flipped, and plain garbage. Over the Unix socket (as clients) and over TCP with the valid
// secret (as remote tools, attached or not). The server answers, refuses or hangs up on each one;
// it must keep running and keep serving well-behaved clients and tools.
#include "hostile_server.h"

#include "wire/proto/message.h"

#include <poll.h>
#include <unistd.h>

#include <cstdio>
#include <random>

namespace {

using namespace std::chrono_literals;
using hostile::HostileServer;
namespace exec = pmix::exec;
using pmix::proto::Op;
namespace wire = pmix::wire;

// Real requests, the base of the flipped-bytes frames.
std::vector<std::pair<Op, wire::Bytes>> real_requests(pmix_rank_t rank) {
    std::vector<std::pair<Op, wire::Bytes>> out;
    out.emplace_back(Op::kGet, hostile::get_payload(hostile::kRawNs, rank, PMIX_JOB_SIZE));
    pmix_info_t info;
    std::uint32_t v = 7;
    PMIX_INFO_LOAD(&info, "hostile.k", &v, PMIX_UINT32);
    pmix::proto::Writer commit;
    commit.size(1).scope(PMIX_GLOBAL).raw(&info, 1, PMIX_INFO);
    out.emplace_back(Op::kCommit, commit.take());
    pmix::proto::Writer fence;
    fence.procs(nullptr, 0).infos(&info, 1);
    out.emplace_back(Op::kFence, fence.take());
    pmix::proto::Writer query;
    query.size(0);
    out.emplace_back(Op::kQuery, query.take());
    pmix::proto::Writer attach;
    attach.infos(&info, 1);
    out.emplace_back(Op::kToolAttach, attach.take());
    PMIX_INFO_DESTRUCT(&info);
    return out;
}

// One random frame: a random op (mostly the protocol's own) with random bytes, or a real request
// with 1-4 bytes flipped; garbage (not a frame) with `garbage` set.
wire::Bytes random_frame(std::mt19937& rng, const std::vector<std::pair<Op, wire::Bytes>>& real,
                         bool garbage) {
    if (garbage) {
        wire::Bytes junk(1 + rng() % 200);
        for (auto& b : junk) b = static_cast<std::uint8_t>(rng());
        return junk;
    }
    const auto tag = static_cast<std::uint32_t>(rng());
    if (rng() % 2 == 0) {
        const auto& [op, payload] = real[rng() % real.size()];
        wire::Bytes p = payload;
        for (unsigned i = 0, n = 1 + rng() % 4; i < n && !p.empty(); ++i)
            p[rng() % p.size()] = static_cast<std::uint8_t>(rng());
        return hostile::request_frame(op, tag, p);
    }
    const auto op = static_cast<Op>(rng() % 4 == 0 ? rng() : 0x100 + rng() % 0x48);
    wire::Bytes p(rng() % 300);
    for (auto& b : p) b = static_cast<std::uint8_t>(rng());
    return hostile::request_frame(op, tag, p);
}

// Reads and drops whatever the server answers until it hangs up or stays quiet for 100 ms.
void drain(int fd) {
    std::uint8_t buf[4096];
    for (int i = 0; i < 200; ++i) {
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0 || read(fd, buf, sizeof buf) <= 0) return;
    }
}

// `frames` random frames on `fd` (stopping when the server hangs up), the last one garbage
// with probability 1/4.
void abuse(int fd, std::mt19937& rng, pmix_rank_t rank, int frames) {
    const auto real = real_requests(rank);
    for (int i = 0; i < frames; ++i) {
        const bool garbage = i == frames - 1 && rng() % 4 == 0;
        if (!wiretest::write_all(fd, random_frame(rng, real, garbage))) break;
    }
    drain(fd);
}

class RandomFrames : public HostileServer {};

TEST_F(RandomFrames, OverTheUnixSocketAndOverTcpTheServerKeepsServing) {
    const unsigned seed = std::random_device{}();
    std::printf("seed %u\n", seed);
    std::mt19937 rng(seed);
    const long rss_before = hostile::rss_kib(pid());
    constexpr int kPeers = 40, kFrames = 40;
    int unix_peers = 0, tcp_peers = 0;
    for (int i = 0; i < kPeers; ++i) {
        const auto rank = static_cast<pmix_rank_t>(100 + i);
        if (auto fd = raw_client(rank)) {
            ++unix_peers;
            abuse(fd.get(), rng, rank, kFrames);
        }
        if (auto fd = hostile::raw_tcp_tool(tcp_uri(), secret())) {
            ++tcp_peers;
            if (i % 2 == 0) {  // half of them attach first, as a real tool does
                pmix::proto::Writer w;
                w.infos(nullptr, 0);
                const auto attach = hostile::request_frame(Op::kToolAttach, 1, w.take());
                ASSERT_TRUE(wiretest::write_all(fd.get(), attach));
                ASSERT_TRUE(wiretest::read_frame(fd.get(), 5s).has_value());
            }
            abuse(fd.get(), rng, rank, kFrames);
        }
        ASSERT_TRUE(alive()) << "seed " << seed << ", peer " << i;
    }
    EXPECT_EQ(unix_peers, kPeers);
    EXPECT_EQ(tcp_peers, kPeers);
    EXPECT_TRUE(serves(5));
    EXPECT_TRUE(serves_tcp_tool());
    std::printf("server VmRSS %ld kB before, %ld kB after %d x %d random frames each way\n",
                rss_before, hostile::rss_kib(pid()), kPeers, kFrames);
}

}  // namespace
