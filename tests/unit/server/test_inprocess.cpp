// tests/unit/server/test_inprocess.cpp - the in-process access the client API uses inside a
// server process (server/api.h: identity, store_internal, get_local), called on pmix::server
// directly (the static library, not libpmix's copy).
#include "server/api.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <string>

namespace {

class InProcess : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/pmix-srv-inproc.XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        tmp_ = tmpl;
        pmix_info_t info[3];
        pmix_rank_t rank = 4;
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, tmp_.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_SERVER_NSPACE, "daemons", PMIX_STRING);
        PMIX_INFO_LOAD(&info[2], PMIX_SERVER_RANK, &rank, PMIX_PROC_RANK);
        ASSERT_EQ(pmix::server::init(nullptr, info, 3), PMIX_SUCCESS);
        for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
    }
    void TearDown() override {
        EXPECT_EQ(pmix::server::finalize(), PMIX_SUCCESS);
        std::error_code ec;
        EXPECT_TRUE(std::filesystem::is_empty(tmp_, ec));
        std::filesystem::remove_all(tmp_, ec);
    }
    std::string tmp_;
};

TEST_F(InProcess, IdentityComesFromInitInfo) {
    pmix_proc_t me;
    ASSERT_EQ(pmix::server::identity(&me), PMIX_SUCCESS);
    EXPECT_STREQ(me.nspace, "daemons");
    EXPECT_EQ(me.rank, 4u);
}

TEST_F(InProcess, StoreInternalThenGet) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "daemons", 0);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "tcp://1.2.3.4:5", PMIX_STRING);
    ASSERT_EQ(pmix::server::store_internal(p, "opal.puri", v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    EXPECT_EQ(pmix::server::store_internal(p, nullptr, v), PMIX_ERR_BAD_PARAM);

    pmix_value_t* out = nullptr;
    ASSERT_EQ(pmix::server::get_local(p, "opal.puri", &out), PMIX_SUCCESS);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(out->type, PMIX_STRING);
    EXPECT_STREQ(out->data.string, "tcp://1.2.3.4:5");
    PMIX_VALUE_RELEASE(out);

    ASSERT_EQ(pmix::server::get_local(p, nullptr, &out), PMIX_SUCCESS);  // every key
    ASSERT_EQ(out->type, PMIX_DATA_ARRAY);
    ASSERT_EQ(out->data.darray->type, PMIX_INFO);
    ASSERT_EQ(out->data.darray->size, 1u);
    EXPECT_STREQ(static_cast<pmix_info_t*>(out->data.darray->array)[0].key, "opal.puri");
    PMIX_VALUE_RELEASE(out);

    EXPECT_EQ(pmix::server::get_local(p, "missing", &out), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(out, nullptr);
    PMIX_LOAD_PROCID(&p, "unknown-ns", 0);
    EXPECT_EQ(pmix::server::get_local(p, "opal.puri", &out), PMIX_ERR_NOT_FOUND);
}

// A value of no PMIx data type cannot be stored: the caller hears it, nothing is kept.
TEST_F(InProcess, StoreInternalOfAnUnknownTypeIsAnError) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "daemons", 0);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = 9999;  // not a pmix_data_type_t value
    v.data.uint64 = 7;
    EXPECT_EQ(pmix::server::store_internal(p, "odd.type", v), PMIX_ERR_UNKNOWN_DATA_TYPE);
    pmix_value_t* out = nullptr;
    EXPECT_EQ(pmix::server::get_local(p, "odd.type", &out), PMIX_ERR_NOT_FOUND);
    EXPECT_EQ(out, nullptr);
}

// post() takes a move-only closure: what it captures is owned by the task, run once on the
// server's thread, and released with it.
TEST_F(InProcess, PostRunsAMoveOnlyClosureOnTheServerThread) {
    auto owned = std::make_unique<int>(41);
    std::promise<int> ran;
    auto result = ran.get_future();
    ASSERT_EQ(
        pmix::server::post([value = std::move(owned), &ran]() mutable { ran.set_value(++*value); }),
        PMIX_SUCCESS);
    ASSERT_EQ(result.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_EQ(result.get(), 42);
}

TEST(InProcessBeforeInit, CallsAreInitErrors) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, "x", 0);
    pmix_value_t* out = nullptr;
    EXPECT_EQ(pmix::server::identity(&p), PMIX_ERR_INIT);
    EXPECT_EQ(pmix::server::get_local(p, "k", &out), PMIX_ERR_INIT);
    EXPECT_EQ(pmix::server::finalize(), PMIX_ERR_INIT);
    bool ran = false;
    EXPECT_EQ(pmix::server::post([&ran] { ran = true; }), PMIX_ERR_INIT);
    EXPECT_FALSE(ran);
}

}  // namespace
