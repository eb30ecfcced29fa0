// Remote tools' transport: the TCP listener admits only tools that present its secret (they
// count as the server's own user), TCP URIs parse strictly, and the rendezvous file's optional
// host / tcp / secret lines round-trip.
#include "helpers.h"

#include "wire/dial.h"
#include "wire/rendezvous.h"
#include "wire/tcp_socket.h"

#include <gtest/gtest.h>

#include <unistd.h>

namespace {

using namespace wiretest;
using pmix::exec::Executor;
using pmix::wire::Hello;
using pmix::wire::Role;

const std::string kSecret = "00112233445566778899aabbccddeeff";

class TcpTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_EQ(client.start(), PMIX_SUCCESS); }
    pmix::wire::Dialed dial_as(const std::string& uri, Hello h) {
        pmix::wire::DialOptions o;
        o.timeout = 3s;
        return pmix::wire::dial(client, uri, std::move(h), std::move(o));
    }
    static Hello tool(const std::string& secret) {
        Hello h = Hello::for_this_process("", PMIX_RANK_UNDEF, Role::tool);
        h.secret = secret;
        return h;
    }
    Executor client{"client"};
};

TEST_F(TcpTest, ToolWithTheSecretIsAdmittedAsTheServersUser) {
    EchoServer server(EchoServer::Tcp{kSecret});
    ASSERT_TRUE(server.ok()) << server.error();
    const std::string uri = server.listener().path();
    ASSERT_EQ(uri.rfind("tcp4://127.0.0.1:", 0), 0u) << uri;
    auto d = dial_as(uri, tool(kSecret));
    ASSERT_EQ(d.status, PMIX_SUCCESS) << d.error;
    EXPECT_EQ(run_echoes(*d.connection, PMIX_RANK_UNDEF, 10, 64), 10);
    auto peers = server.peers();
    ASSERT_EQ(peers.size(), 1u);
    EXPECT_TRUE(peers[0].remote);
    EXPECT_EQ(peers[0].cred.uid, static_cast<std::uint32_t>(geteuid()));
    EXPECT_EQ(peers[0].cred.pid, static_cast<std::int32_t>(getpid()));  // as claimed
    EXPECT_EQ(peers[0].address.rfind("127.0.0.1:", 0), 0u);
    EXPECT_TRUE(peers[0].hello.secret.empty()) << "the secret travels no further than the listener";
    d.connection->close("done");
}

TEST_F(TcpTest, WrongMissingSecretAndClientsAreRefusedOthersCarryOn) {
    EchoServer server(EchoServer::Tcp{kSecret});
    ASSERT_TRUE(server.ok()) << server.error();
    const std::string uri = server.listener().path();
    auto good = dial_as(uri, tool(kSecret));
    ASSERT_EQ(good.status, PMIX_SUCCESS) << good.error;
    auto wrong = dial_as(uri, tool("ffffffffffffffffffffffffffffffff"));
    EXPECT_EQ(wrong.status, PMIX_ERR_NO_PERMISSIONS) << wrong.error;
    EXPECT_NE(wrong.error.find("wrong secret"), std::string::npos) << wrong.error;
    auto none = dial_as(uri, tool(""));
    EXPECT_EQ(none.status, PMIX_ERR_NO_PERMISSIONS);
    Hello client_hello = Hello::for_this_process("job", 0, Role::client);
    client_hello.secret = kSecret;
    EXPECT_EQ(dial_as(uri, client_hello).status, PMIX_ERR_NOT_SUPPORTED);
    EXPECT_EQ(run_echoes(*good.connection, PMIX_RANK_UNDEF, 5, 16),
              5);  // the admitted tool still works
    EXPECT_EQ(server.listener().stats().refused, 3u);
    good.connection->close("done");
}

TEST_F(TcpTest, ListenerNeedsASecretAndNobodyListeningIsUnreachable) {
    Executor ex{"server"};
    ASSERT_EQ(ex.start(), PMIX_SUCCESS);
    auto accept = [](const std::shared_ptr<pmix::wire::Connection>&, const pmix::wire::Peer&) {
        return pmix::wire::Verdict{};
    };
    EXPECT_EQ(pmix::wire::Listener::open_tcp(ex, "127.0.0.1", 0, "short", accept).status,
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(pmix::wire::Listener::open_tcp(ex, "not-an-ip", 0, kSecret, accept).status,
              PMIX_ERR_BAD_PARAM);
    // A port that was just free: bind one, note it, close it.
    std::uint16_t port = 0;
    {
        auto s = pmix::wire::listen_tcp("127.0.0.1", 0, 1);
        ASSERT_TRUE(s.ok()) << s.error;
        port = pmix::wire::parse_tcp_uri(s.value.path).value.port;
    }
    auto d = dial_as("tcp4://127.0.0.1:" + std::to_string(port), tool(kSecret));
    EXPECT_EQ(d.status, PMIX_ERR_UNREACH) << d.error;
    ex.stop();
}

TEST(TcpUri, ParsesStrictly) {
    auto a = pmix::wire::parse_tcp_uri("tcp4://10.1.2.3:4567");
    ASSERT_TRUE(a.ok());
    EXPECT_EQ(a.value.ip, "10.1.2.3");
    EXPECT_EQ(a.value.port, 4567);
    EXPECT_TRUE(pmix::wire::parse_tcp_uri("tcp://127.0.0.1:1").ok());
    for (const char* bad :
         {"tcp4://10.1.2.3", "tcp4://10.1.2.3:", "tcp4://10.1.2.3:0", "tcp4://10.1.2.3:65536",
          "tcp4://10.1.2.3:12x", "tcp4://host.example:80", "udp://1.2.3.4:5", "tcp4://:80"}) {
        EXPECT_EQ(pmix::wire::parse_tcp_uri(bad).status, PMIX_ERR_BAD_PARAM) << bad;
    }
    auto full = pmix::wire::parse_uri("job.a.3;tcp4://10.0.0.1:99");
    ASSERT_TRUE(full.ok()) << full.error;
    EXPECT_EQ(full.value.nspace, "job.a");
    EXPECT_EQ(full.value.rank, 3u);
    EXPECT_EQ(full.value.socket, "tcp4://10.0.0.1:99");
    auto bare = pmix::wire::parse_uri("tcp4://10.0.0.1:99");
    ASSERT_TRUE(bare.ok());
    EXPECT_EQ(bare.value.socket, "tcp4://10.0.0.1:99");
    EXPECT_FALSE(pmix::wire::parse_uri("job.0;tcp4://10.0.0.1").ok());
}

TEST(TcpRendezvous, OptionalLinesRoundTripAndATcpUriNeedsItsSecret) {
    pmix::wire::Rendezvous r;
    r.uri = "srv.0;unix:/tmp/x/s";
    r.pid = 42;
    r.uid = 7;
    r.gid = 8;
    r.host = "node3";
    r.tcp_uri = "srv.0;tcp4://10.0.0.3:5000";
    r.secret = kSecret;
    const std::string text = pmix::wire::format_rendezvous(r);
    auto back = pmix::wire::parse_rendezvous(text);
    ASSERT_TRUE(back.ok()) << back.error;
    EXPECT_EQ(back.value.host, "node3");
    EXPECT_EQ(back.value.tcp_uri, r.tcp_uri);
    EXPECT_EQ(back.value.secret, kSecret);
    EXPECT_EQ(back.value.socket, "/tmp/x/s");
    // Unknown extra lines are skipped; a tcp line without a secret, or a bad one, is refused.
    EXPECT_TRUE(pmix::wire::parse_rendezvous(text + "future:thing\n").ok());
    std::string no_secret = text.substr(0, text.find("secret:"));
    EXPECT_EQ(pmix::wire::parse_rendezvous(no_secret).status, PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(pmix::wire::parse_rendezvous(no_secret + "secret:x\n").ok(), true);
    std::string bad_tcp = text;
    bad_tcp.replace(bad_tcp.find("tcp4://"), 7, "tcp9://");
    EXPECT_EQ(pmix::wire::parse_rendezvous(bad_tcp).status, PMIX_ERR_BAD_PARAM);
}

TEST(TcpSecret, RandomHexAndComparedWhole) {
    const std::string a = pmix::wire::make_secret(), b = pmix::wire::make_secret();
    EXPECT_EQ(a.size(), 32u);
    EXPECT_NE(a, b);
    EXPECT_TRUE(pmix::wire::secrets_equal(a, a));
    EXPECT_FALSE(pmix::wire::secrets_equal(a, b));
    EXPECT_FALSE(pmix::wire::secrets_equal(a, a.substr(0, 31)));
    EXPECT_FALSE(pmix::wire::secrets_equal("", ""));
}

TEST(TcpHello, SecretRoundTripsAndIsBounded) {
    Hello h = Hello::for_this_process("", PMIX_RANK_UNDEF, Role::tool);
    h.secret = kSecret;
    auto back = pmix::wire::decode_hello(pmix::wire::encode(h));
    ASSERT_TRUE(back.ok()) << back.error;
    EXPECT_EQ(back.value.secret, kSecret);
    h.secret.assign(pmix::wire::kMaxSecretLength + 1, 'a');
    EXPECT_EQ(pmix::wire::decode_hello(pmix::wire::encode(h)).status, PMIX_ERR_UNPACK_FAILURE);
    auto bytes = pmix::wire::encode(Hello::for_this_process("ns", 0, Role::client));
    bytes.pop_back();  // the secret's length field cut short
    EXPECT_EQ(pmix::wire::decode_hello(bytes).status, PMIX_ERR_UNPACK_FAILURE);
}

}  // namespace
