// tests/unit/gds/test_contract.cpp - the store contract, run against the heap and shm stores.
#include "store_fixture.h"

#include "data/value.h"

#include <map>
#include <set>

namespace gds_test {
namespace {

using pmix::gds::Entity;
using pmix::gds::ValueView;

template <typename Kind>
using Contract = StoreTest<Kind>;
TYPED_TEST_SUITE(Contract, StoreKinds);

const Entity kEntities[] = {Entity::job(),   Entity::app(0),     Entity::app(2),
                            Entity::node(0), Entity::node(17),   Entity::node("hostA"),
                            Entity::proc(0), Entity::proc(12345)};

// Every data type at every level, through both get and get_view, two variants each.
TYPED_TEST(Contract, EveryTypeAtEveryLevel) {
    ASSERT_EQ(this->writer().begin_namespace("job.types"), PMIX_SUCCESS);
    const auto types = all_types();
    for (std::size_t e = 0; e < std::size(kEntities); ++e) {
        for (const pmix_data_type_t t : types) {
            for (unsigned seed = 1; seed <= 2; ++seed) {
                Value v;
                make_sample(t, static_cast<unsigned>(seed + e + t), &v);
                const std::string key = "k." + type_label(t) + "." + std::to_string(seed);
                ASSERT_EQ(this->writer().put("job.types", kEntities[e], key, v.v), PMIX_SUCCESS)
                    << key;
            }
        }
    }
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    for (std::size_t e = 0; e < std::size(kEntities); ++e) {
        for (const pmix_data_type_t t : types) {
            for (unsigned seed = 1; seed <= 2; ++seed) {
                Value want;
                make_sample(t, static_cast<unsigned>(seed + e + t), &want);
                const std::string key = "k." + type_label(t) + "." + std::to_string(seed);
                Value got;
                ASSERT_EQ(this->reader().get("job.types", kEntities[e], key, &got), PMIX_SUCCESS)
                    << key << " entity " << e;
                EXPECT_TRUE(same(want.v, got.v)) << key << " entity " << e;
                ValueView view;
                ASSERT_EQ(this->reader().get_view("job.types", kEntities[e], key, view),
                          PMIX_SUCCESS);
                EXPECT_TRUE(same(want.v, view.value())) << key << " (view) entity " << e;
            }
        }
    }
}

// Pointer-free payloads come back as pointers into the store; the rest as owned copies.
TYPED_TEST(Contract, ViewsAreZeroCopyWherePossible) {
    ASSERT_EQ(this->writer().begin_namespace("job.view"), PMIX_SUCCESS);
    const std::map<pmix_data_type_t, bool> expect = {
        {PMIX_UINT32, true},  {PMIX_STRING, true}, {PMIX_BYTE_OBJECT, true}, {PMIX_PROC, true},
        {PMIX_TIMEVAL, true}, {PMIX_ENVAR, false}, {PMIX_INFO, false},       {PMIX_APP, false}};
    for (const auto& [type, zero_copy] : expect) {
        Value v;
        make_sample(type, 3, &v);
        ASSERT_EQ(this->writer().put("job.view", Entity::proc(1), type_label(type), v.v),
                  PMIX_SUCCESS);
    }
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    for (const auto& [type, zero_copy] : expect) {
        ValueView view;
        ASSERT_EQ(this->reader().get_view("job.view", Entity::proc(1), type_label(type), view),
                  PMIX_SUCCESS);
        EXPECT_EQ(view.zero_copy(), zero_copy) << type_label(type);
    }
    // A flat array views its elements in place; a view stays valid across later commits.
    ValueView str;
    ASSERT_EQ(this->reader().get_view("job.view", Entity::proc(1), type_label(PMIX_STRING), str),
              PMIX_SUCCESS);
    const char* before = str.value().data.string;
    const std::string text = before;
    this->put_string("job.view", Entity::proc(1), type_label(PMIX_STRING), "replaced");
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    EXPECT_EQ(std::string(before), text);
    EXPECT_EQ(this->get_string("job.view", Entity::proc(1), type_label(PMIX_STRING)), "replaced");
}

// A view names where its value is stored: the same stored value gives the same source every
// time (clients hand out one pmix_value_t per source in pointer mode), a replaced value a new
// one, a column-stored modex value its own.
TYPED_TEST(Contract, ViewSourcesIdentifyStoredValues) {
    ASSERT_EQ(this->writer().begin_namespace("job.source"), PMIX_SUCCESS);
    this->put_string("job.source", Entity::proc(2), "k", "first");
    this->put_string("job.source", Entity::proc(2), "other", "x");
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    ValueView a, b, other;
    EXPECT_EQ(a.source(), nullptr);
    ASSERT_EQ(this->reader().get_view("job.source", Entity::proc(2), "k", a), PMIX_SUCCESS);
    ASSERT_EQ(this->reader().get_view("job.source", Entity::proc(2), "k", b), PMIX_SUCCESS);
    ASSERT_EQ(this->reader().get_view("job.source", Entity::proc(2), "other", other), PMIX_SUCCESS);
    EXPECT_NE(a.source(), nullptr);
    EXPECT_EQ(a.source(), b.source());
    EXPECT_NE(a.source(), other.source());
    // locate() names the same place without decoding; misses and bad arguments as get.
    const void* where = nullptr;
    ASSERT_EQ(this->reader().locate("job.source", Entity::proc(2), "k", &where), PMIX_SUCCESS);
    EXPECT_EQ(where, a.source());
    EXPECT_EQ(this->reader().locate("job.source", Entity::proc(2), "absent", &where),
              PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(where, nullptr);
    EXPECT_EQ(this->reader().locate("job.source", Entity::proc(2), "k", nullptr),
              PMIX_ERR_BAD_PARAM);
    this->put_string("job.source", Entity::proc(2), "k", "second");
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    ASSERT_EQ(this->reader().get_view("job.source", Entity::proc(2), "k", b), PMIX_SUCCESS);
    EXPECT_NE(a.source(), b.source());
    ASSERT_EQ(this->reader().locate("job.source", Entity::proc(2), "k", &where), PMIX_SUCCESS);
    EXPECT_EQ(where, b.source()) << "the newest value";
    EXPECT_STREQ(b.value().data.string, "second");
    b.reset();
    EXPECT_EQ(b.source(), nullptr);
}

TYPED_TEST(Contract, NothingIsVisibleBeforeCommit) {
    ASSERT_EQ(this->writer().begin_namespace("job.commit"), PMIX_SUCCESS);
    this->put_u64("job.commit", Entity::job(), PMIX_JOB_SIZE, 4);
    pmix_status_t rc = PMIX_SUCCESS;
    this->get_u64("job.commit", Entity::job(), PMIX_JOB_SIZE, &rc);
    EXPECT_EQ(rc, PMIX_ERR_NOT_FOUND);  // not even the namespace yet
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    EXPECT_EQ(this->get_u64("job.commit", Entity::job(), PMIX_JOB_SIZE), 4u);
    this->put_u64("job.commit", Entity::job(), PMIX_JOB_SIZE, 8);
    this->put_u64("job.commit", Entity::job(), "late.key", 1);
    EXPECT_EQ(this->get_u64("job.commit", Entity::job(), PMIX_JOB_SIZE), 4u);
    this->get_u64("job.commit", Entity::job(), "late.key", &rc);
    EXPECT_EQ(rc, PMIX_ERR_NOT_FOUND);
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    EXPECT_EQ(this->get_u64("job.commit", Entity::job(), PMIX_JOB_SIZE), 8u);
    EXPECT_EQ(this->get_u64("job.commit", Entity::job(), "late.key"), 1u);
}

// A later put of the same (entity, key) wins, within a commit and across commits, whatever the
// types; other entities and keys are untouched.
TYPED_TEST(Contract, LaterPutsOverwrite) {
    ASSERT_EQ(this->writer().begin_namespace("job.ow"), PMIX_SUCCESS);
    for (std::uint64_t i = 0; i < 5; ++i) {
        this->put_u64("job.ow", Entity::proc(3), "modex.key", i);  // same commit
    }
    this->put_u64("job.ow", Entity::proc(4), "modex.key", 44);
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    EXPECT_EQ(this->get_u64("job.ow", Entity::proc(3), "modex.key"), 4u);
    for (std::uint64_t round = 0; round < 20; ++round) {
        this->put_u64("job.ow", Entity::proc(3), "modex.key", 100 + round);
        ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
        EXPECT_EQ(this->get_u64("job.ow", Entity::proc(3), "modex.key"), 100 + round);
    }
    this->put_string("job.ow", Entity::proc(3), "modex.key", "now a string");
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    EXPECT_EQ(this->get_string("job.ow", Entity::proc(3), "modex.key"), "now a string");
    EXPECT_EQ(this->get_u64("job.ow", Entity::proc(4), "modex.key"), 44u);
}

TYPED_TEST(Contract, MissesAndBadArguments) {
    ASSERT_EQ(this->writer().begin_namespace("job.bad"), PMIX_SUCCESS);
    this->put_u64("job.bad", Entity::proc(0), "present", 1);
    ASSERT_EQ(this->writer().commit(), PMIX_SUCCESS);
    auto& r = this->reader();
    Value v;
    EXPECT_EQ(r.get("job.bad", Entity::proc(0), "absent", &v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(r.get("job.bad", Entity::proc(1), "present", &v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(r.get("job.bad", Entity::job(), "present", &v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(r.get("job.bad", Entity::proc(0), PMIX_JOB_SIZE, &v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(r.get("no.such.job", Entity::job(), "present", &v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(r.attach("no.such.job"), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(r.get("job.bad", Entity::node("unknown-host"), "present", &v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(r.get("job.bad", Entity::proc(0), "present", nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(r.get("job.bad", Entity::proc(0), "", &v), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(r.get("", Entity::proc(0), "present", &v), PMIX_ERR_BAD_PARAM);
    const std::string long_key(PMIX_MAX_KEYLEN + 1, 'k');
    const std::string long_ns(PMIX_MAX_NSLEN + 1, 'n');
    EXPECT_EQ(r.get("job.bad", Entity::proc(0), long_key, &v), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(r.get(long_ns, Entity::proc(0), "present", &v), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(r.get("job.bad", Entity::proc(PMIX_RANK_WILDCARD), "present", &v),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(v.v.type, PMIX_UNDEF);  // no failed get touched the output
    EXPECT_EQ(r.visit("job.bad", Entity::proc(0), nullptr), PMIX_ERR_BAD_PARAM);

    auto& w = this->writer();
    Value u;
    make_u32(&u, 1);
    EXPECT_EQ(w.put("job.none", Entity::job(), "k", u.v), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(w.put("job.bad", Entity::job(), "", u.v), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(w.put("job.bad", Entity::job(), long_key, u.v), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(w.put("job.bad", Entity::proc(PMIX_RANK_UNDEF), "k", u.v), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(w.begin_namespace(""), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(w.begin_namespace(long_ns), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(w.delete_namespace("job.none"), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(w.alias_node("job.bad", "", 3), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(w.put_modex("job.bad", 0, static_cast<pmix_scope_t>(200), "k", u.v),
              PMIX_ERR_BAD_PARAM);
    pmix_value_t odd{};
    odd.type = 4000;  // no such type
    EXPECT_EQ(w.put("job.bad", Entity::job(), "k", odd), PMIX_ERR_UNKNOWN_DATA_TYPE);
    pmix_value_t bo{};
    bo.type = PMIX_BYTE_OBJECT;
    bo.data.bo.size = 10;  // size without bytes
    EXPECT_EQ(w.put("job.bad", Entity::job(), "k", bo), PMIX_ERR_BAD_PARAM);
}

TYPED_TEST(Contract, NamespacesComeAndGo) {
    auto& w = this->writer();
    for (const char* ns : {"job.a", "job.b", "job.c"}) {
        ASSERT_EQ(w.begin_namespace(ns), PMIX_SUCCESS);
        ASSERT_EQ(w.begin_namespace(ns), PMIX_SUCCESS);  // idempotent
        this->put_string(ns, Entity::job(), PMIX_NSPACE, ns);
    }
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    for (const char* ns : {"job.a", "job.b", "job.c"}) {
        EXPECT_EQ(this->get_string(ns, Entity::job(), PMIX_NSPACE), ns);
    }
    ASSERT_EQ(w.delete_namespace("job.b"), PMIX_SUCCESS);
    pmix_status_t rc = PMIX_SUCCESS;
    this->get_u64("job.b", Entity::job(), PMIX_NSPACE, &rc);
    EXPECT_EQ(rc, PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(this->get_string("job.a", Entity::job(), PMIX_NSPACE), "job.a");
    EXPECT_EQ(this->get_string("job.c", Entity::job(), PMIX_NSPACE), "job.c");
    // Registered anew: the reader follows to the new incarnation.
    ASSERT_EQ(w.begin_namespace("job.b"), PMIX_SUCCESS);
    this->put_string("job.b", Entity::job(), PMIX_NSPACE, "second life");
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    EXPECT_EQ(this->get_string("job.b", Entity::job(), PMIX_NSPACE), "second life");
    // Deleted before its first commit: readers never see it.
    ASSERT_EQ(w.begin_namespace("job.d"), PMIX_SUCCESS);
    ASSERT_EQ(w.delete_namespace("job.d"), PMIX_SUCCESS);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    EXPECT_EQ(this->reader().attach("job.d"), PMIX_ERR_NOT_FOUND);
    // Many namespaces in turn (the reader's namespace table grows and entries are replaced).
    for (int i = 0; i < 100; ++i) {
        const std::string ns = "job.many." + std::to_string(i);
        ASSERT_EQ(w.begin_namespace(ns), PMIX_SUCCESS);
        this->put_u64(ns, Entity::job(), PMIX_JOB_SIZE, static_cast<std::uint64_t>(i));
        ASSERT_EQ(w.commit(), PMIX_SUCCESS);
        EXPECT_EQ(this->get_u64(ns, Entity::job(), PMIX_JOB_SIZE), static_cast<std::uint64_t>(i));
        if (i % 3 == 0) {
            ASSERT_EQ(w.delete_namespace(ns), PMIX_SUCCESS);
            this->reader().detach(ns);
        }
    }
    for (int i = 0; i < 100; ++i) {
        const std::string ns = "job.many." + std::to_string(i);
        this->get_u64(ns, Entity::job(), PMIX_JOB_SIZE, &rc);
        EXPECT_EQ(rc, i % 3 == 0 ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS) << ns;
    }
}

// 10^5 keys over tiny, non-growing segments: the index grows many times and the data spans
// many chained segments; every key is still found with its own value.
TYPED_TEST(Contract, ManyKeysOverChainedSegments) {
    pmix::gds::StoreOptions o;
    o.segment_bytes = 64 * 1024;
    o.grow = false;
    this->open(o);
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.many"), PMIX_SUCCESS);
    constexpr std::uint64_t kKeys = 100000;
    for (std::uint64_t i = 0; i < kKeys; ++i) {
        const Entity e =
            i % 2 == 0 ? Entity::job() : Entity::proc(static_cast<pmix_rank_t>(i % 1000));
        this->put_u64("job.many", e, "key." + std::to_string(i), i * 7);
        if (i % 25000 == 24999) {
            ASSERT_EQ(w.commit(), PMIX_SUCCESS);
        }
    }
    pmix::gds::NamespaceStats st;
    ASSERT_EQ(w.stats("job.many", st), PMIX_SUCCESS);
    EXPECT_GT(st.segments, 10u);
    EXPECT_EQ(st.generation, 5u);  // the empty root + 4 commits
    for (std::uint64_t i = 0; i < kKeys; ++i) {
        const Entity e =
            i % 2 == 0 ? Entity::job() : Entity::proc(static_cast<pmix_rank_t>(i % 1000));
        ASSERT_EQ(this->get_u64("job.many", e, "key." + std::to_string(i)), i * 7) << i;
    }
    // A value larger than a segment gets a segment of its own.
    Value big;
    big.v.type = PMIX_BYTE_OBJECT;
    big.v.data.bo.size = 300 * 1024;
    big.v.data.bo.bytes = static_cast<char*>(std::calloc(1, big.v.data.bo.size));
    big.v.data.bo.bytes[12345] = 'x';
    ASSERT_EQ(w.put("job.many", Entity::job(), "big", big.v), PMIX_SUCCESS);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    Value got;
    ASSERT_EQ(this->reader().get("job.many", Entity::job(), "big", &got), PMIX_SUCCESS);
    EXPECT_TRUE(same(big.v, got.v));
}

TYPED_TEST(Contract, NodesByIdAndByHostName) {
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.nodes"), PMIX_SUCCESS);
    ASSERT_EQ(w.alias_node("job.nodes", "node-a", 4), PMIX_SUCCESS);
    this->put_u64("job.nodes", Entity::node(4), PMIX_LOCAL_SIZE, 16);
    this->put_u64("job.nodes", Entity::node("node-b"), PMIX_LOCAL_SIZE, 8);  // no alias
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    EXPECT_EQ(this->get_u64("job.nodes", Entity::node("node-a"), PMIX_LOCAL_SIZE), 16u);
    EXPECT_EQ(this->get_u64("job.nodes", Entity::node(4), PMIX_LOCAL_SIZE), 16u);
    EXPECT_EQ(this->get_u64("job.nodes", Entity::node("node-b"), PMIX_LOCAL_SIZE), 8u);
    // Re-aliasing moves the name.
    ASSERT_EQ(w.alias_node("job.nodes", "node-a", 5), PMIX_SUCCESS);
    this->put_u64("job.nodes", Entity::node(5), PMIX_LOCAL_SIZE, 32);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    EXPECT_EQ(this->get_u64("job.nodes", Entity::node("node-a"), PMIX_LOCAL_SIZE), 32u);
}

TYPED_TEST(Contract, ModexScopesFilterReads) {
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.scope"), PMIX_SUCCESS);
    Value v;
    make_u32(&v, 7);
    ASSERT_EQ(w.put_modex("job.scope", 2, PMIX_LOCAL, "local.k", v.v), PMIX_SUCCESS);
    ASSERT_EQ(w.put_modex("job.scope", 2, PMIX_REMOTE, "remote.k", v.v), PMIX_SUCCESS);
    ASSERT_EQ(w.put_modex("job.scope", 2, PMIX_GLOBAL, "global.k", v.v), PMIX_SUCCESS);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    auto& r = this->reader();
    const auto status = [&](const char* key, unsigned scopes) {
        Value out;
        return r.get("job.scope", Entity::proc(2), key, &out, scopes);
    };
    EXPECT_EQ(status("local.k", pmix::gds::kLocalPeer), PMIX_SUCCESS);
    EXPECT_EQ(status("local.k", pmix::gds::kRemotePeer), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(status("remote.k", pmix::gds::kLocalPeer), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(status("remote.k", pmix::gds::kRemotePeer), PMIX_SUCCESS);
    EXPECT_EQ(status("global.k", pmix::gds::kLocalPeer), PMIX_SUCCESS);
    EXPECT_EQ(status("global.k", pmix::gds::kRemotePeer), PMIX_SUCCESS);
    std::set<std::string> seen;
    ASSERT_EQ(r.visit(
                  "job.scope", Entity::proc(2),
                  [&](std::string_view k, const pmix_value_t&) { seen.emplace(k); },
                  pmix::gds::kLocalPeer),
              PMIX_SUCCESS);
    EXPECT_EQ(seen, (std::set<std::string>{"local.k", "global.k"}));
}

// key = NULL: every key of an entity once, newest value, standard and dynamic names.
TYPED_TEST(Contract, VisitListsEveryKeyOnce) {
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.visit"), PMIX_SUCCESS);
    std::map<std::string, std::uint64_t> want;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < 10; ++i) {
            const std::string key = i == 0 ? PMIX_JOB_SIZE : "visit." + std::to_string(i);
            this->put_u64("job.visit", Entity::job(), key,
                          static_cast<std::uint64_t>(round * 100 + i));
            want[key] = static_cast<std::uint64_t>(round * 100 + i);
        }
        this->put_u64("job.visit", Entity::app(0), "other.entity", 1);
        ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    }
    std::map<std::string, std::uint64_t> got;
    ASSERT_EQ(this->reader().visit("job.visit", Entity::job(),
                                   [&](std::string_view k, const pmix_value_t& v) {
                                       EXPECT_TRUE(got.emplace(k, v.data.uint64).second) << k;
                                   }),
              PMIX_SUCCESS);
    EXPECT_EQ(got, want);
    EXPECT_EQ(this->reader().visit("job.visit", Entity::proc(9),
                                   [](std::string_view, const pmix_value_t&) {}),
              PMIX_ERR_NOT_FOUND);
}

}  // namespace
}  // namespace gds_test
