// tests/hostile/test_huge_lengths.cpp - frame headers whose length field claims 1 MiB, the limit
// (64 MiB), 256 MiB and 4 GiB - 1, followed by a few bytes and then nothing: before the handshake
// (the Hello) and after it (a request). The server must not allocate what a header claims: its
// resident size stays within a bound far below what the headers add up to (25 peers per length
// and stage: ~8 GiB claimed within the limit, ~107 GiB beyond it), headers beyond the limit are
// refused (the server hangs up), and well-behaved clients are still served.
#include "hostile_server.h"

#include <cstdio>

namespace {

using namespace std::chrono_literals;
using hostile::HostileServer;
namespace exec = pmix::exec;
namespace wire = pmix::wire;

constexpr int kPeersPerLength = 25;
constexpr std::uint32_t kLengths[] = {1u << 20, wire::kDefaultMaxPayload, 256u << 20, 0xffffffffu};

// The header claiming `length` and the first 1000 bytes of that payload.
wire::Bytes claim(std::uint32_t op, std::uint32_t length) {
    auto h = wire::encode_header(0, op, 1, length);
    wire::Bytes out(h.begin(), h.end());
    out.resize(out.size() + 1000, 0x5a);
    return out;
}

class HugeLengths : public HostileServer {};

TEST_F(HugeLengths, TheServerDoesNotAllocateWhatHeadersClaim) {
    ASSERT_TRUE(serves(1));
    const long rss_before = hostile::rss_kib(pid());
    std::vector<exec::UniqueFd> held;
    std::vector<std::pair<std::uint32_t, exec::UniqueFd>> beyond;  // must be hung up on
    pmix_rank_t rank = 100;
    for (const std::uint32_t length : kLengths) {
        for (int i = 0; i < kPeersPerLength; ++i) {
            auto before_hello = wiretest::raw_connect(socket_path());
            ASSERT_TRUE(before_hello);
            ASSERT_TRUE(wiretest::write_all(before_hello.get(), claim(wire::kOpHello, length)));
            auto after_hello = raw_client(rank++);
            ASSERT_TRUE(after_hello);
            const auto get = static_cast<std::uint32_t>(pmix::proto::Op::kGet);
            ASSERT_TRUE(wiretest::write_all(after_hello.get(), claim(get, length)));
            if (length > wire::kDefaultMaxPayload) {
                beyond.emplace_back(length, std::move(before_hello));
                beyond.emplace_back(length, std::move(after_hello));
            } else {
                held.push_back(std::move(before_hello));
                held.push_back(std::move(after_hello));
            }
        }
    }
    // A round trip after every write: the server has read what was sent before it answers.
    ASSERT_TRUE(serves(2));
    for (auto& [length, fd] : beyond)
        EXPECT_TRUE(wiretest::wait_for_eof(fd.get(), 5s)) << "length " << length;
    const long rss_after = hostile::rss_kib(pid());
    std::printf(
        "server VmRSS %ld kB before, %ld kB with %zu peers holding claims of 1 and 64 MiB "
        "(%zu refused beyond the limit)\n",
        rss_before, rss_after, held.size(), beyond.size());
    EXPECT_LT(rss_after - rss_before, hostile::kRssBoundKiB);
    EXPECT_TRUE(serves(3));
    EXPECT_TRUE(serves_tcp_tool());
}

}  // namespace
