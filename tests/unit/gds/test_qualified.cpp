// The store-side lookup of qualified Gets (gds/qualified.h): which node, app, job or session a
// Get's qualifiers name, and what it then reads, on a heap store written as the server writes a
// registration with node and app arrays.
#include "gds/qualified.h"
#include "gds/store.h"

#include "data/value.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace pmix::gds {
namespace {

pmix_value_t u32(std::uint32_t x) {
    pmix_value_t v;
    std::memset(&v, 0, sizeof v);
    v.type = PMIX_UINT32;
    v.data.uint32 = x;
    return v;
}

pmix_value_t str(const char* s) {
    pmix_value_t v;
    std::memset(&v, 0, sizeof v);
    v.type = PMIX_STRING;
    v.data.string = const_cast<char*>(s);
    return v;
}

class Qualified : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(w_->begin_namespace("ns"), PMIX_SUCCESS);
        put(Entity::job(), PMIX_HOSTNAME, str("alpha"));
        put(Entity::job(), PMIX_NODEID, u32(0));
        put(Entity::job(), PMIX_APPNUM, u32(0));
        put(Entity::job(), PMIX_JOB_SIZE, u32(6));
        put(Entity::job(), PMIX_SESSION_ID, u32(7));
        const char* hosts[] = {"alpha", "beta"};
        for (std::uint32_t n = 0; n < 2; ++n) {
            put(Entity::node(n), PMIX_HOSTNAME, str(hosts[n]));
            put(Entity::node(n), PMIX_NODEID, u32(n));
            put(Entity::node(n), PMIX_LOCAL_SIZE, u32(3 + n));
            ASSERT_EQ(w_->alias_node("ns", hosts[n], n), PMIX_SUCCESS);
        }
        for (std::uint32_t a = 0; a < 2; ++a) {
            put(Entity::app(a), PMIX_APPNUM, u32(a));
            put(Entity::app(a), PMIX_APP_SIZE, u32(2 + a));
        }
        put(Entity::session(7), PMIX_SESSION_ID, u32(7));
        put(Entity::session(7), PMIX_UNIV_SIZE, u32(99));
        put(Entity::proc(4), PMIX_APPNUM, u32(1));
        put(Entity::proc(4), PMIX_HOSTNAME, str("beta"));
        ASSERT_EQ(w_->commit(), PMIX_SUCCESS);
        PMIX_LOAD_PROCID(&rank0_, "ns", 0);
        PMIX_LOAD_PROCID(&rank4_, "ns", 4);
    }

    void put(const Entity& e, const char* key, const pmix_value_t& v) {
        ASSERT_EQ(w_->put("ns", e, key, v), PMIX_SUCCESS) << key;
    }

    // What a Get of `key` (rank WILDCARD) with `info` answers for `who`; the value as text.
    std::string get(const char* key, const pmix_info_t* info, std::size_t ninfo,
                    const pmix_proc_t& who, pmix_status_t* status = nullptr) {
        Qualifiers q;
        const pmix_status_t prc = parse_qualifiers(info, ninfo, q);
        if (status != nullptr) *status = prc;
        if (prc != PMIX_SUCCESS) return "bad";
        Places places;
        qualified_places(*r_, "ns", PMIX_RANK_WILDCARD, who, key, q, places);
        pmix_value_t v;
        std::memset(&v, 0, sizeof v);
        for (int i = 0; i < places.count; ++i) {
            if (r_->get(places.at[i].nspace, places.at[i].entity, key, &v) == PMIX_SUCCESS) {
                std::string out = v.type == PMIX_STRING ? std::string(v.data.string)
                                                        : std::to_string(v.data.uint32);
                data::value_destruct(&v);
                return out;
            }
        }
        return "not found";
    }

    std::unique_ptr<StoreWriter> w_ = make_heap_store();
    std::unique_ptr<StoreReader> r_ = w_->make_reader();
    pmix_proc_t rank0_{}, rank4_{};
};

struct Infos {
    pmix_info_t i[2];
    std::size_t n = 0;
    Infos(const char* flag, const char* id = nullptr, const void* v = nullptr,
          pmix_data_type_t t = PMIX_UNDEF) {
        const bool yes = true;
        data::info_load(&i[n++], flag, &yes, PMIX_BOOL);
        if (id != nullptr) data::info_load(&i[n++], id, v, t);
    }
    ~Infos() {
        for (std::size_t k = 0; k < n; ++k) data::info_destruct(&i[k]);
    }
};

TEST_F(Qualified, NodeByIdAndByNameReadsThatNodesArray) {
    const std::uint32_t one = 1, zero = 0;
    EXPECT_EQ(
        get(PMIX_HOSTNAME, Infos(PMIX_NODE_INFO, PMIX_NODEID, &one, PMIX_UINT32).i, 2, rank0_),
        "beta");
    EXPECT_EQ(
        get(PMIX_HOSTNAME, Infos(PMIX_NODE_INFO, PMIX_NODEID, &zero, PMIX_UINT32).i, 2, rank0_),
        "alpha");
    EXPECT_EQ(
        get(PMIX_NODEID, Infos(PMIX_NODE_INFO, PMIX_HOSTNAME, "beta", PMIX_STRING).i, 2, rank0_),
        "1");
    EXPECT_EQ(get(PMIX_LOCAL_SIZE, Infos(PMIX_NODE_INFO, PMIX_HOSTNAME, "beta", PMIX_STRING).i, 2,
                  rank0_),
              "4");
}

TEST_F(Qualified, AnAbsentNodeIsNotFoundWithoutFallingBackToTheJob) {
    const std::uint32_t nine = 9;
    EXPECT_EQ(
        get(PMIX_HOSTNAME, Infos(PMIX_NODE_INFO, PMIX_NODEID, &nine, PMIX_UINT32).i, 2, rank0_),
        "not found");
    EXPECT_EQ(
        get(PMIX_HOSTNAME, Infos(PMIX_NODE_INFO, PMIX_HOSTNAME, "gamma", PMIX_STRING).i, 2, rank0_),
        "not found");
}

TEST_F(Qualified, NodeWithoutIdIsTheRequestersNodeThenTheJob) {
    Infos flag(PMIX_NODE_INFO);
    EXPECT_EQ(get(PMIX_LOCAL_SIZE, flag.i, 1, rank0_), "3");
    EXPECT_EQ(get(PMIX_LOCAL_SIZE, flag.i, 1, rank4_), "4");  // rank 4 runs on beta
    EXPECT_EQ(get(PMIX_JOB_SIZE, flag.i, 1, rank0_), "6");
}

TEST_F(Qualified, AppByNumberThenTheJobLevel) {
    const std::uint32_t one = 1, five = 5;
    EXPECT_EQ(get(PMIX_APP_SIZE, Infos(PMIX_APP_INFO, PMIX_APPNUM, &one, PMIX_UINT32).i, 2, rank0_),
              "3");
    // As OpenPMIx 4.2.2: an app it does not know falls back to the job level.
    EXPECT_EQ(get(PMIX_APPNUM, Infos(PMIX_APP_INFO, PMIX_APPNUM, &five, PMIX_UINT32).i, 2, rank0_),
              "0");
    // PMIX_APPNUM is never read from an app's array: OpenPMIx keeps it beside the array.
    EXPECT_EQ(get(PMIX_APPNUM, Infos(PMIX_APP_INFO, PMIX_APPNUM, &one, PMIX_UINT32).i, 2, rank0_),
              "0");
    EXPECT_EQ(
        get(PMIX_APP_SIZE, Infos(PMIX_APP_INFO, PMIX_APPNUM, &five, PMIX_UINT32).i, 2, rank0_),
        "not found");
    Infos flag(PMIX_APP_INFO);
    EXPECT_EQ(get(PMIX_APP_SIZE, flag.i, 1, rank0_), "2");
    EXPECT_EQ(get(PMIX_APP_SIZE, flag.i, 1, rank4_), "3");  // rank 4 is in app 1
}

TEST_F(Qualified, JobAndSession) {
    EXPECT_EQ(get(PMIX_JOB_SIZE, Infos(PMIX_JOB_INFO, PMIX_NSPACE, "ns", PMIX_STRING).i, 2, rank0_),
              "6");
    EXPECT_EQ(
        get(PMIX_JOB_SIZE, Infos(PMIX_JOB_INFO, PMIX_NSPACE, "other", PMIX_STRING).i, 2, rank0_),
        "not found");
    const std::uint32_t seven = 7, eight = 8;
    EXPECT_EQ(get(PMIX_JOB_SIZE, Infos(PMIX_SESSION_INFO, PMIX_SESSION_ID, &seven, PMIX_UINT32).i,
                  2, rank0_),
              "6");
    // The session's own array first.
    EXPECT_EQ(get(PMIX_UNIV_SIZE, Infos(PMIX_SESSION_INFO, PMIX_SESSION_ID, &seven, PMIX_UINT32).i,
                  2, rank0_),
              "99");
    EXPECT_EQ(get(PMIX_UNIV_SIZE, Infos(PMIX_SESSION_INFO, PMIX_SESSION_ID, &eight, PMIX_UINT32).i,
                  2, rank0_),
              "not found");
    EXPECT_EQ(get(PMIX_JOB_SIZE, Infos(PMIX_SESSION_INFO, PMIX_SESSION_ID, &eight, PMIX_UINT32).i,
                  2, rank0_),
              "not found");
}

TEST_F(Qualified, UnqualifiedNodeAndAppKeysFallBackToTheRequestersNodeAndApp) {
    EXPECT_EQ(get(PMIX_LOCAL_SIZE, nullptr, 0, rank4_), "4");
    EXPECT_EQ(get(PMIX_APP_SIZE, nullptr, 0, rank0_), "2");
    EXPECT_EQ(get(PMIX_JOB_SIZE, nullptr, 0, rank0_), "not found");  // not a node or app key
}

TEST_F(Qualified, QualifiersDoNotApplyToAProcess) {
    Infos flag(PMIX_NODE_INFO);
    Qualifiers q;
    ASSERT_EQ(parse_qualifiers(flag.i, 1, q), PMIX_SUCCESS);
    Places places;
    qualified_places(*r_, "ns", 3, rank0_, PMIX_LOCAL_SIZE, q, places);
    EXPECT_EQ(places.count, 0);
}

TEST_F(Qualified, AnIdentifierOfTheWrongTypeIsBadParam) {
    pmix_status_t rc = PMIX_SUCCESS;
    get(PMIX_HOSTNAME, Infos(PMIX_NODE_INFO, PMIX_NODEID, "one", PMIX_STRING).i, 2, rank0_, &rc);
    EXPECT_EQ(rc, PMIX_ERR_BAD_PARAM);
    // Without a data qualifier flag the identifiers are not qualifiers at all.
    pmix_info_t lone;
    data::info_load(&lone, PMIX_NODEID, "one", PMIX_STRING);
    Qualifiers q;
    EXPECT_EQ(parse_qualifiers(&lone, 1, q), PMIX_SUCCESS);
    EXPECT_EQ(q.kind, Qualifier::none);
    data::info_destruct(&lone);
}

}  // namespace
}  // namespace pmix::gds
