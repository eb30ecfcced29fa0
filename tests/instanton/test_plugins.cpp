// The fabric plugins on their own: envar patterns, each plugin's blob from setup_application to
// setup_local, and blobs that are corrupt or truncated (a clear error, nothing installed).
#include "fabric/plugins/env/patterns.h"
#include "fabric/plugins/plugin.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include <cstring>

namespace {

using namespace pmix::fabric;

JobMap two_nodes() {
    JobMap m;
    m.nspace = "job.inst";
    m.nodes = {"nodeA", "nodeB"};
    m.ranks = {{0, 1, 2}, {3, 4}};
    return m;
}

TEST(EnvPatterns, WildcardsAndExclusions) {
    EnvPatterns p;
    std::string why;
    ASSERT_TRUE(p.add("OMPI_MCA_*;UCX_TL?;^OMPI_MCA_secret", why)) << why;
    EXPECT_TRUE(p.matches("OMPI_MCA_btl"));
    EXPECT_TRUE(p.matches("OMPI_MCA_"));
    EXPECT_FALSE(p.matches("OMPI_MCA_secret"));
    EXPECT_TRUE(p.matches("UCX_TLS"));
    EXPECT_FALSE(p.matches("UCX_TL"));
    EXPECT_FALSE(p.matches("UCX_TLSX"));
    EXPECT_FALSE(p.matches("PATH"));
    ASSERT_TRUE(p.add("PATH", why));  // calls add up
    EXPECT_TRUE(p.matches("PATH"));
}

TEST(EnvPatterns, MalformedPatternsAreRefusedWhole) {
    for (const char* bad : {"", "A*B", "A;;B", "NAME=1", "^", "A B", "*X", "A;^*B"}) {
        EnvPatterns p;
        std::string why;
        EXPECT_FALSE(p.add(bad, why)) << bad;
        EXPECT_NE(why.find("malformed"), std::string::npos) << bad;
        EXPECT_TRUE(p.include.empty() && p.exclude.empty()) << bad;
    }
}

Blob app_blob(Plugin& plugin, const JobMap& map, const std::vector<pmix_info_t>& info,
              char* const* env) {
    Blob blob;
    std::string why;
    const AppRequest req{map, info.data(), info.size(), true, true, env};
    EXPECT_EQ(plugin.setup_application(req, blob, why), PMIX_SUCCESS) << why;
    return blob;
}

pmix_info_t string_info(const char* key, const char* value) {
    pmix_info_t i;
    std::memset(&i, 0, sizeof i);
    std::strncpy(i.key, key, PMIX_MAX_KEYLEN);
    i.value.type = PMIX_STRING;
    i.value.data.string = const_cast<char*>(value);
    return i;
}

TEST(EnvPlugin, HarvestsMatchingVariablesAndInstallsThem) {
    Plugin* env = find_plugin("env");
    ASSERT_NE(env, nullptr);
    char a[] = "FWD_A=1", b[] = "FWD_SECRET=2", c[] = "OTHER=3", d[] = "FWD_B=x=y";
    char* const environ_[] = {a, b, c, d, nullptr};
    const JobMap map = two_nodes();
    const Blob blob =
        app_blob(*env, map, {string_info("pmix.cpp.fwd.envars", "FWD_*;^FWD_SECRET")}, environ_);
    ASSERT_FALSE(blob.empty());
    LocalResult out;
    std::string why;
    ASSERT_EQ(env->setup_local({map, 1, blob}, out, why), PMIX_SUCCESS) << why;
    ASSERT_EQ(out.env.size(), 2u);
    EXPECT_EQ(out.env[0], std::make_pair(std::string("FWD_A"), std::string("1")));
    EXPECT_EQ(out.env[1], std::make_pair(std::string("FWD_B"), std::string("x=y")));
    EXPECT_TRUE(out.proc.empty());
}

TEST(EnvPlugin, NothingToForwardMeansNoBlob) {
    char a[] = "OTHER=3";
    char* const environ_[] = {a, nullptr};
    EXPECT_TRUE(app_blob(*find_plugin("env"), two_nodes(),
                         {string_info("pmix.cpp.fwd.envars", "FWD_*")}, environ_)
                    .empty());
    EXPECT_TRUE(app_blob(*find_plugin("env"), two_nodes(), {}, environ_).empty());
}

TEST(EnvPlugin, MalformedPatternInTheDirectiveIsBadParam) {
    Blob blob;
    std::string why;
    const JobMap map = two_nodes();
    std::vector<pmix_info_t> info{string_info("pmix.cpp.fwd.envars", "FWD_*X")};
    const AppRequest req{map, info.data(), info.size(), true, true, nullptr};
    EXPECT_EQ(find_plugin("env")->setup_application(req, blob, why), PMIX_ERR_BAD_PARAM);
    EXPECT_NE(why.find("FWD_*X"), std::string::npos) << why;
}

TEST(EnvPlugin, EveryTruncationOfItsBlobIsRefused) {
    char a[] = "FWD_A=1";
    char* const environ_[] = {a, nullptr};
    const JobMap map = two_nodes();
    const Blob blob =
        app_blob(*find_plugin("env"), map, {string_info("pmix.cpp.fwd.envars", "FWD_A")}, environ_);
    for (std::size_t n = 0; n < blob.size(); ++n) {
        LocalResult out;
        std::string why;
        EXPECT_EQ(find_plugin("env")->setup_local({map, 0, std::span(blob.data(), n)}, out, why),
                  PMIX_ERR_UNPACK_FAILURE)
            << n;
        EXPECT_TRUE(out.env.empty());
    }
    Blob bad = blob;
    bad[0] = std::byte{9};  // unknown version
    LocalResult out;
    std::string why;
    EXPECT_EQ(find_plugin("env")->setup_local({map, 0, bad}, out, why), PMIX_ERR_UNPACK_FAILURE);
}

TEST(OfiTcpPlugin, AssignsEveryRankAnEndpointFromNodeAddressAndLocalRank) {
    Plugin* ofi = find_plugin("ofi-tcp");
    ASSERT_NE(ofi, nullptr);
    const JobMap map = two_nodes();
    pmix_info_t port;
    std::memset(&port, 0, sizeof port);
    std::strncpy(port.key, "pmix.cpp.fab.port", PMIX_MAX_KEYLEN);
    port.value.type = PMIX_INT;
    port.value.data.integer = 41000;
    const Blob blob = app_blob(
        *ofi, map, {string_info("pmix.cpp.node.addrs", "198.18.0.1,198.18.0.2"), port}, nullptr);
    ASSERT_FALSE(blob.empty());
    LocalResult out;
    std::string why;
    ASSERT_EQ(ofi->setup_local({map, 1, blob}, out, why), PMIX_SUCCESS) << why;
    ASSERT_EQ(out.proc.size(), 5u);      // every rank of the job, not only this node's
    ASSERT_EQ(out.proc_env.size(), 2u);  // but only this node's ranks get their address as env
    EXPECT_EQ(out.proc_env.at(4).at(0), std::make_pair(std::string("PMIX_CPP_FABRIC_ENDPOINT"),
                                                       std::string("198.18.0.2:41001")));
    EXPECT_EQ(out.proc_env.count(0), 0u);
    const struct {
        pmix_rank_t rank;
        const char* ip;
        int port;
    } want[] = {{0, "198.18.0.1", 41000},
                {2, "198.18.0.1", 41002},
                {3, "198.18.0.2", 41000},
                {4, "198.18.0.2", 41001}};
    for (const auto& w : want) {
        const auto& kv = out.proc.at(w.rank);
        ASSERT_EQ(kv.size(), 1u);
        EXPECT_EQ(kv[0].first, PMIX_FABRIC_ENDPT);
        const pmix_value_t& v = kv[0].second->value;
        ASSERT_EQ(v.type, PMIX_DATA_ARRAY);
        ASSERT_EQ(v.data.darray->type, PMIX_ENDPOINT);
        const auto* ep = static_cast<const pmix_endpoint_t*>(v.data.darray->array);
        EXPECT_STREQ(ep->uuid, "ofi-tcp");
        ASSERT_EQ(ep->endpt.size, sizeof(sockaddr_in));
        sockaddr_in sa;
        std::memcpy(&sa, ep->endpt.bytes, sizeof sa);
        char ip[INET_ADDRSTRLEN] = {};
        ::inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof ip);
        EXPECT_STREQ(ip, w.ip) << w.rank;
        EXPECT_EQ(ntohs(sa.sin_port), w.port) << w.rank;
    }
}

TEST(OfiTcpPlugin, BadDirectivesAndBlobs) {
    Plugin* ofi = find_plugin("ofi-tcp");
    const JobMap map = two_nodes();
    Blob blob;
    std::string why;
    std::vector<pmix_info_t> three{string_info("pmix.cpp.node.addrs", "1.2.3.4,1.2.3.5,1.2.3.6")};
    EXPECT_EQ(ofi->setup_application({map, three.data(), 1, true, true, nullptr}, blob, why),
              PMIX_ERR_BAD_PARAM);
    EXPECT_NE(why.find("3 addresses for 2 nodes"), std::string::npos) << why;
    // A blob made for another map (wrong node count) or cut short is refused.
    const Blob good =
        app_blob(*ofi, map, {string_info("pmix.cpp.node.addrs", "10.0.0.1,10.0.0.2")}, nullptr);
    JobMap one = map;
    one.nodes.resize(1);
    one.ranks.resize(1);
    LocalResult out;
    EXPECT_EQ(ofi->setup_local({one, 0, good}, out, why), PMIX_ERR_UNPACK_FAILURE);
    for (std::size_t n = 0; n < good.size(); ++n) {
        EXPECT_EQ(ofi->setup_local({map, 0, std::span(good.data(), n)}, out, why),
                  PMIX_ERR_UNPACK_FAILURE)
            << n;
    }
    EXPECT_TRUE(out.proc.empty());
    // Only env asked for (PMIX_SETUP_APP_ENVARS): no endpoints.
    EXPECT_EQ(ofi->setup_application({map, three.data(), 0, true, false, nullptr}, blob, why),
              PMIX_SUCCESS);
    EXPECT_TRUE(blob.empty());
}

}  // namespace
