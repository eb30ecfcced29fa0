// tests/unit/fabric/test_ofi.cpp - the libfabric transport on this machine's real providers:
// three endpoints in one process (tcp;ofi_rxm on 127.0.0.1, and shm), collectives through the
// engine over them, a packet larger than a chunk, a lost peer, and a provider that is not there.
#include "fabric/engine.h"
#include "fabric/ofi.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <future>
#include <numeric>

namespace pmix::fabric {
namespace {

Bytes pattern(std::uint32_t origin, std::size_t size) {
    Bytes b(size);
    for (std::size_t i = 0; i < size; ++i) b[i] = static_cast<std::byte>((origin * 29 + i) & 0xff);
    return b;
}

struct Node {
    std::unique_ptr<OfiTransport> transport;
    std::unique_ptr<Engine> engine;
    Node() = default;
    Node(Node&&) = default;
    Node& operator=(Node&&) = default;
    // The transport's progress thread delivers packets to the engine: stop it first (as pmixd's
    // NodeNet does). Members in declaration order destroyed the engine under it (TSan in CI:
    // a peer's packet still arriving in LostPeerFailsTheCollectiveAndRefusesSends).
    ~Node() {
        transport.reset();
        engine.reset();
    }
};

// `n` endpoints connected to each other, each with its engine.
std::vector<Node> connect_nodes(std::uint32_t n, const OfiOptions& options) {
    std::vector<Node> nodes(n);
    std::vector<Bytes> addresses;
    for (auto& node : nodes) {
        std::string error;
        node.transport = OfiTransport::open(options, error);
        if (!node.transport) {
            ADD_FAILURE() << error;
            return {};
        }
        addresses.push_back(node.transport->address());
        EXPECT_FALSE(addresses.back().empty());
    }
    for (std::uint32_t r = 0; r < n; ++r) {
        nodes[r].engine = std::make_unique<Engine>(*nodes[r].transport);
        std::string error;
        EXPECT_TRUE(nodes[r].transport->connect(r, addresses, nodes[r].engine.get(), error))
            << error;
    }
    return nodes;
}

// Runs one collective on every node; returns each node's outcome.
std::vector<std::pair<pmix_status_t, std::vector<Bytes>>> run(std::vector<Node>& nodes,
                                                              std::uint64_t id, Algorithm alg,
                                                              std::size_t bytes) {
    const auto n = static_cast<std::uint32_t>(nodes.size());
    std::vector<std::uint32_t> all(n);
    std::iota(all.begin(), all.end(), 0u);
    std::vector<std::promise<std::pair<pmix_status_t, std::vector<Bytes>>>> done(n);
    for (std::uint32_t r = 0; r < n; ++r) {
        const Bytes mine = alg == Algorithm::dissemination ? Bytes{} : pattern(r, bytes + r);
        const auto deadline = Clock::now() + std::chrono::seconds(20);
        EXPECT_EQ(nodes[r].engine->start({id, alg, all, deadline}, mine,
                                         [&p = done[r]](pmix_status_t s, std::vector<Bytes> b) {
                                             p.set_value({s, std::move(b)});
                                         }),
                  PMIX_SUCCESS);
    }
    std::vector<std::pair<pmix_status_t, std::vector<Bytes>>> out;
    for (std::uint32_t r = 0; r < n; ++r) {
        auto f = done[r].get_future();
        while (f.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
            nodes[r].engine->expire(Clock::now());
        }
        out.push_back(f.get());
    }
    return out;
}

void check_allgather(std::vector<Node>& nodes, std::uint64_t id, Algorithm alg, std::size_t bytes) {
    auto out = run(nodes, id, alg, bytes);
    for (std::size_t r = 0; r < out.size(); ++r) {
        ASSERT_EQ(out[r].first, PMIX_SUCCESS) << "node " << r;
        ASSERT_EQ(out[r].second.size(), nodes.size());
        for (std::uint32_t o = 0; o < nodes.size(); ++o)
            EXPECT_EQ(out[r].second[o], pattern(o, bytes + o));
    }
}

OfiOptions tcp() {
    OfiOptions o;
    o.provider = "tcp;ofi_rxm";
    o.node = "127.0.0.1";
    return o;
}

TEST(Ofi, TcpRxmCollectivesSmallAndChunked) {
    auto nodes = connect_nodes(3, tcp());
    ASSERT_EQ(nodes.size(), 3u);
    EXPECT_EQ(nodes[0].transport->provider_name(), "tcp;ofi_rxm");
    auto barrier = run(nodes, 1, Algorithm::dissemination, 0);
    for (auto& b : barrier) EXPECT_EQ(b.first, PMIX_SUCCESS);
    check_allgather(nodes, 2, Algorithm::bruck, 100);
    check_allgather(nodes, 3, Algorithm::ring, 0);
    check_allgather(nodes, 4, Algorithm::bruck, 300 * 1024);  // several 64 KiB chunks per packet
}

TEST(Ofi, ShmCollectives) {
    OfiOptions o;
    o.provider = "shm";
    auto nodes = connect_nodes(3, o);
    ASSERT_EQ(nodes.size(), 3u);
    check_allgather(nodes, 1, Algorithm::bruck, 1000);
    check_allgather(nodes, 2, Algorithm::bruck, 200 * 1024);
}

TEST(Ofi, LostPeerFailsTheCollectiveAndRefusesSends) {
    auto nodes = connect_nodes(2, tcp());
    ASSERT_EQ(nodes.size(), 2u);
    std::promise<pmix_status_t> done;
    ASSERT_EQ(nodes[0].engine->start(
                  {9, Algorithm::bruck, {0, 1}, Clock::time_point::max()}, pattern(0, 5),
                  [&done](pmix_status_t s, std::vector<Bytes>) { done.set_value(s); }),
              PMIX_SUCCESS);
    nodes[0].transport->mark_lost(1);
    auto f = done.get_future();
    ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_EQ(f.get(), PMIX_ERR_LOST_CONNECTION);
    EXPECT_FALSE(nodes[0].transport->send(1, pattern(0, 3)));
    EXPECT_FALSE(nodes[0].transport->send(7, pattern(0, 3)));  // no such rank
}

TEST(Ofi, MissingProviderIsAClearError) {
    OfiOptions o;
    o.provider = "no-such-provider";
    std::string error;
    EXPECT_EQ(OfiTransport::open(o, error), nullptr);
    EXPECT_NE(error.find("no-such-provider"), std::string::npos) << error;
    o.provider = "tcp;ofi_rxm";
    o.chunk_bytes = 0;
    EXPECT_EQ(OfiTransport::open(o, error), nullptr);
}

}  // namespace
}  // namespace pmix::fabric
