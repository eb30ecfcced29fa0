// Hello / HelloReply payloads (round trip, every truncation, every malformed field) and the
// credential check against SO_PEERCRED.
#include "helpers.h"

#include "wire/hello.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

namespace {

using pmix::wire::Bytes;
using pmix::wire::Hello;
using pmix::wire::HelloReply;
using pmix::wire::PeerCred;
using pmix::wire::Role;

Hello sample_hello() { return Hello::for_this_process("job-42.ns", 17, Role::client); }

PeerCred self_cred() {
    return PeerCred{static_cast<std::int32_t>(::getpid()), static_cast<std::uint32_t>(::geteuid()),
                    static_cast<std::uint32_t>(::getegid())};
}

TEST(Hello, RoundTripsEveryRole) {
    for (Role role : {Role::client, Role::tool, Role::server}) {
        Hello h = Hello::for_this_process("ns", PMIX_RANK_WILDCARD, role);
        auto back = pmix::wire::decode_hello(pmix::wire::encode(h));
        ASSERT_TRUE(back.ok()) << back.error;
        EXPECT_EQ(back.value.nspace, "ns");
        EXPECT_EQ(back.value.rank, PMIX_RANK_WILDCARD);
        EXPECT_EQ(back.value.pid, h.pid);
        EXPECT_EQ(back.value.uid, h.uid);
        EXPECT_EQ(back.value.gid, h.gid);
        EXPECT_EQ(back.value.role, role);
        EXPECT_EQ(back.value.version, pmix::wire::kProtocolVersion);
    }
}

TEST(Hello, NamespaceUpToTheLimitIsAcceptedOneMoreIsNot) {
    Hello h = sample_hello();
    h.nspace.assign(PMIX_MAX_NSLEN, 'n');
    auto ok = pmix::wire::decode_hello(pmix::wire::encode(h));
    ASSERT_TRUE(ok.ok()) << ok.error;
    EXPECT_EQ(ok.value.nspace.size(), static_cast<std::size_t>(PMIX_MAX_NSLEN));
    h.nspace.push_back('x');
    auto bad = pmix::wire::decode_hello(pmix::wire::encode(h));
    EXPECT_EQ(bad.status, PMIX_ERR_UNPACK_FAILURE);
    EXPECT_NE(bad.error.find("PMIX_MAX_NSLEN"), std::string::npos) << bad.error;
}

TEST(Hello, EveryTruncationAndAnyTrailingByteIsRefused) {
    Bytes full = pmix::wire::encode(sample_hello());
    for (std::size_t n = 0; n < full.size(); ++n) {
        auto r = pmix::wire::decode_hello(std::span(full.data(), n));
        EXPECT_EQ(r.status, PMIX_ERR_UNPACK_FAILURE) << "length " << n;
        EXPECT_FALSE(r.error.empty());
    }
    Bytes longer = full;
    longer.push_back(0);
    EXPECT_EQ(pmix::wire::decode_hello(longer).status, PMIX_ERR_UNPACK_FAILURE);
}

TEST(Hello, MalformedFieldsAreRefused) {
    Bytes good = pmix::wire::encode(sample_hello());
    auto refused = [](Bytes b) {
        return pmix::wire::decode_hello(b).status == PMIX_ERR_UNPACK_FAILURE;
    };
    Bytes bad_role = good;
    bad_role[2] = 9;
    EXPECT_TRUE(refused(bad_role));
    Bytes zero_role = good;
    zero_role[2] = 0;
    EXPECT_TRUE(refused(zero_role));
    Bytes padding = good;
    padding[3] = 1;
    EXPECT_TRUE(refused(padding));
    Bytes nul = good;
    nul[22 + 3] = 0;  // a NUL inside the namespace
    EXPECT_TRUE(refused(nul));
    Bytes len_too_big = good;
    len_too_big[20] = static_cast<std::uint8_t>(len_too_big[20] + 1);  // claims one byte more
    EXPECT_TRUE(refused(len_too_big));
}

TEST(HelloReply, RoundTripAndMalformed) {
    HelloReply r{PMIX_ERR_INVALID_CRED, pmix::wire::kProtocolVersion, 1234, "pid mismatch"};
    Bytes b = pmix::wire::encode(r);
    auto back = pmix::wire::decode_hello_reply(b);
    ASSERT_TRUE(back.ok()) << back.error;
    EXPECT_EQ(back.value.status, PMIX_ERR_INVALID_CRED);
    EXPECT_EQ(back.value.server_pid, 1234);
    EXPECT_EQ(back.value.reason, "pid mismatch");
    for (std::size_t n = 0; n < b.size(); ++n) {
        EXPECT_FALSE(pmix::wire::decode_hello_reply(std::span(b.data(), n)).ok()) << n;
    }
    Bytes trailing = b;
    trailing.push_back('!');
    EXPECT_FALSE(pmix::wire::decode_hello_reply(trailing).ok());
    // An over-long reason is cut to the limit when encoded and refused when received whole.
    HelloReply chatty{PMIX_ERROR, pmix::wire::kProtocolVersion, 1,
                      std::string(pmix::wire::kMaxReasonLength + 10, 'r')};
    auto cut = pmix::wire::decode_hello_reply(pmix::wire::encode(chatty));
    ASSERT_TRUE(cut.ok());
    EXPECT_EQ(cut.value.reason.size(), pmix::wire::kMaxReasonLength);
}

TEST(HelloCheck, MatchingCredentialsPass) {
    EXPECT_EQ(pmix::wire::check_hello(sample_hello(), self_cred()), "");
    EXPECT_EQ(pmix::wire::hello_refusal_status(sample_hello(), self_cred()), PMIX_SUCCESS);
    Hello tool = Hello::for_this_process("", PMIX_RANK_UNDEF, Role::tool);
    EXPECT_EQ(pmix::wire::check_hello(tool, self_cred()), "");  // tools may come without one
}

TEST(HelloCheck, SpoofedIdentityIsRefusedWithAReason) {
    struct Case {
        const char* field;
        void (*spoof)(Hello&);
    };
    const Case cases[] = {
        {"pid", [](Hello& h) { h.pid += 1; }},
        {"uid", [](Hello& h) { h.uid += 1; }},
        {"gid", [](Hello& h) { h.gid += 1; }},
    };
    for (const auto& c : cases) {
        Hello h = sample_hello();
        c.spoof(h);
        std::string why = pmix::wire::check_hello(h, self_cred());
        EXPECT_NE(why.find(std::string(c.field) + " mismatch"), std::string::npos) << why;
        EXPECT_EQ(pmix::wire::hello_refusal_status(h, self_cred()), PMIX_ERR_INVALID_CRED);
    }
}

TEST(HelloCheck, VersionAndMissingNamespace) {
    Hello old = sample_hello();
    old.version = 99;
    EXPECT_NE(pmix::wire::check_hello(old, self_cred()).find("version 99"), std::string::npos);
    EXPECT_EQ(pmix::wire::hello_refusal_status(old, self_cred()), PMIX_ERR_NOT_SUPPORTED);
    Hello anonymous = sample_hello();
    anonymous.nspace.clear();
    EXPECT_NE(pmix::wire::check_hello(anonymous, self_cred()).find("namespace"), std::string::npos);
    EXPECT_EQ(pmix::wire::hello_refusal_status(anonymous, self_cred()), PMIX_ERR_BAD_PARAM);
}

TEST(PeerCredentials, SocketPairReportsThisProcess) {
    int sv[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    pmix::exec::UniqueFd a(sv[0]), b(sv[1]);
    auto cred = pmix::wire::peer_credentials(a.get());
    ASSERT_TRUE(cred.ok()) << cred.error;
    EXPECT_EQ(cred.value.pid, self_cred().pid);
    EXPECT_EQ(cred.value.uid, self_cred().uid);
    EXPECT_EQ(cred.value.gid, self_cred().gid);
}

TEST(PeerCredentials, NonSocketIsAnError) {
    int p[2];
    ASSERT_EQ(::pipe(p), 0);
    pmix::exec::UniqueFd r(p[0]), w(p[1]);
    auto cred = pmix::wire::peer_credentials(r.get());
    EXPECT_EQ(cred.status, PMIX_ERR_INVALID_CRED);
    EXPECT_NE(cred.error.find("SO_PEERCRED"), std::string::npos);
    EXPECT_EQ(pmix::wire::peer_credentials(-1).status, PMIX_ERR_INVALID_CRED);
}

}  // namespace
