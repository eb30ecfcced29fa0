// tests/unit/gds/test_columns.cpp - per-rank data stored as columns (runs of consecutive ranks)
// must read exactly like per-rank records, including overwrite order between the two.
#include "store_fixture.h"

#include <map>
#include <set>

namespace gds_test {
namespace {

using pmix::gds::Entity;

template <typename Kind>
using Columns = StoreTest<Kind>;
TYPED_TEST_SUITE(Columns, StoreKinds);

constexpr pmix_rank_t kRanks = 1000;

void put_u16(pmix::gds::StoreWriter& w, pmix_rank_t r, const char* key, std::uint16_t x) {
    pmix_value_t v{};
    v.type = PMIX_UINT16;
    v.data.uint16 = x;
    ASSERT_EQ(w.put("job.col", Entity::proc(r), key, v), PMIX_SUCCESS);
}

std::uint16_t get_u16(pmix::gds::StoreReader& r, pmix_rank_t rank, const char* key) {
    Value v;
    if (r.get("job.col", Entity::proc(rank), key, &v) != PMIX_SUCCESS || v.v.type != PMIX_UINT16) {
        return 0xffff;
    }
    return v.v.data.uint16;
}

TYPED_TEST(Columns, RegistrationDataReadsBackPerRank) {
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.col"), PMIX_SUCCESS);
    for (pmix_rank_t r = 0; r < kRanks; ++r) {
        put_u16(w, r, PMIX_LOCAL_RANK, static_cast<std::uint16_t>(r % 64));
        this->put_string("job.col", Entity::proc(r), PMIX_HOSTNAME,
                         "node" + std::to_string(r / 64));
        Value uri;
        make_sample(PMIX_BYTE_OBJECT, r, &uri);
        ASSERT_EQ(w.put_modex("job.col", r, PMIX_GLOBAL, "btl.tcp.uri", uri.v), PMIX_SUCCESS);
    }
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    for (pmix_rank_t r = 0; r < kRanks; ++r) {
        ASSERT_EQ(get_u16(this->reader(), r, PMIX_LOCAL_RANK), r % 64) << r;
        ASSERT_EQ(this->get_string("job.col", Entity::proc(r), PMIX_HOSTNAME),
                  "node" + std::to_string(r / 64));
        Value want;
        make_sample(PMIX_BYTE_OBJECT, r, &want);
        Value got;
        ASSERT_EQ(this->reader().get("job.col", Entity::proc(r), "btl.tcp.uri", &got,
                                     pmix::gds::kRemotePeer),
                  PMIX_SUCCESS);
        ASSERT_TRUE(same(want.v, got.v)) << r;
    }
    Value none;
    EXPECT_EQ(this->reader().get("job.col", Entity::proc(kRanks), PMIX_LOCAL_RANK, &none),
              PMIX_ERR_NOT_FOUND);
    // Columns cost a few bytes per rank, far below one record per key and rank.
    pmix::gds::NamespaceStats st;
    ASSERT_EQ(w.stats("job.col", st), PMIX_SUCCESS);
    EXPECT_LT(st.bytes_used, std::size_t{kRanks} * 3 * 48);
}

// Records and columns of the same key: whichever was committed last wins, per rank.
TYPED_TEST(Columns, OverwriteOrderBetweenRecordsAndColumns) {
    auto& w = this->writer();
    auto& r = this->reader();
    ASSERT_EQ(w.begin_namespace("job.col"), PMIX_SUCCESS);
    for (pmix_rank_t i = 0; i < kRanks; ++i) {
        put_u16(w, i, "k", 1);
    }
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    put_u16(w, 500, "k", 2);  // a record newer than the column
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    EXPECT_EQ(get_u16(r, 499, "k"), 1);
    EXPECT_EQ(get_u16(r, 500, "k"), 2);
    EXPECT_EQ(get_u16(r, 501, "k"), 1);
    for (pmix_rank_t i = 400; i < 600; ++i) {  // a column newer than the record
        put_u16(w, i, "k", 3);
    }
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    EXPECT_EQ(get_u16(r, 399, "k"), 1);
    EXPECT_EQ(get_u16(r, 500, "k"), 3);
    EXPECT_EQ(get_u16(r, 600, "k"), 1);
    // Short runs and gaps: ranks 0..7 stay records, 10..999 minus 300 become two columns;
    // ranks 8, 9 and 300 keep the first column's value.
    for (pmix_rank_t i = 0; i < kRanks; ++i) {
        if (i != 300 && i != 8 && i != 9) {
            put_u16(w, i, "k", static_cast<std::uint16_t>(i));
        }
    }
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    for (pmix_rank_t i = 0; i < kRanks; ++i) {
        const auto want = static_cast<std::uint16_t>((i == 300 || i == 8 || i == 9) ? 1 : i);
        ASSERT_EQ(get_u16(r, i, "k"), want) << i;
    }
}

// Puts that arrive in rank order form a run (written as a column at commit); a put that does not
// continue the run (a repeat, a gap, a different type or scope, a lower rank) sends the key's
// puts of this commit through the general path. Every case must read as if stored one by one,
// the last put of a (rank, key) winning.
TYPED_TEST(Columns, RunsBrokenInEveryWayStillReadAsPuts) {
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.col"), PMIX_SUCCESS);
    std::map<std::pair<pmix_rank_t, std::string>, std::uint64_t> want;
    auto put = [&](pmix_rank_t r, const std::string& key, std::uint64_t x) {
        this->put_u64("job.col", Entity::proc(r), key, x);
        want[{r, key}] = x;
    };
    for (pmix_rank_t r = 0; r < 100; ++r) put(r, "repeat", r);
    put(50, "repeat", 5000);                                      // a repeat inside the run
    for (pmix_rank_t r = 100; r < 120; ++r) put(r, "repeat", r);  // and after it
    for (pmix_rank_t r = 0; r < 40; ++r) put(r, "gap", r);
    for (pmix_rank_t r = 60; r < 90; ++r) put(r, "gap", r);      // a gap
    for (pmix_rank_t r = 90; r > 0; --r) put(r, "down", r * 3);  // descending ranks
    for (pmix_rank_t r = 0; r < 5; ++r) put(r, "short", r + 7);  // too short for a column
    for (pmix_rank_t r = 0; r < 50; ++r) put(r, "typed", r);
    put_u16(w, 50, "typed", 77);  // a different type ends the run
    for (pmix_rank_t r = 0; r < 30; ++r) put(r, "scoped", r);
    Value m;
    make_sample(PMIX_UINT64, 1, &m);
    ASSERT_EQ(w.put_modex("job.col", 30, PMIX_LOCAL, "scoped", m.v), PMIX_SUCCESS);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    for (const auto& [where, x] : want) {
        ASSERT_EQ(this->get_u64("job.col", Entity::proc(where.first), where.second), x)
            << where.second << " of rank " << where.first;
    }
    EXPECT_EQ(get_u16(this->reader(), 50, "typed"), 77);
    Value got;
    ASSERT_EQ(this->reader().get("job.col", Entity::proc(30), "scoped", &got), PMIX_SUCCESS);
    EXPECT_TRUE(same(got.v, m.v));
    for (pmix_rank_t r : {40u, 59u}) {
        Value none;
        EXPECT_EQ(this->reader().get("job.col", Entity::proc(r), "gap", &none), PMIX_ERR_NOT_FOUND);
    }
    // A second commit: a new run over ranks that already have a column replaces it.
    for (pmix_rank_t r = 0; r < 100; ++r) put(r, "repeat", r + 1000000);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    for (pmix_rank_t r = 0; r < 120; ++r) {
        const std::uint64_t expect = want[{r, "repeat"}];
        ASSERT_EQ(this->get_u64("job.col", Entity::proc(r), "repeat"), expect) << r;
    }
}

TYPED_TEST(Columns, VisitSeesColumnAndRecordKeys) {
    auto& w = this->writer();
    ASSERT_EQ(w.begin_namespace("job.col"), PMIX_SUCCESS);
    for (pmix_rank_t i = 0; i < 64; ++i) {
        put_u16(w, i, PMIX_LOCAL_RANK, static_cast<std::uint16_t>(i));
        put_u16(w, i, PMIX_NODE_RANK, static_cast<std::uint16_t>(i + 1));
    }
    put_u16(w, 5, "only.rank5", 55);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    put_u16(w, 5, PMIX_NODE_RANK, 500);
    ASSERT_EQ(w.commit(), PMIX_SUCCESS);
    std::map<std::string, std::uint16_t> seen;
    ASSERT_EQ(this->reader().visit("job.col", Entity::proc(5),
                                   [&](std::string_view k, const pmix_value_t& v) {
                                       seen.emplace(k, v.data.uint16);
                                   }),
              PMIX_SUCCESS);
    const std::map<std::string, std::uint16_t> want = {
        {PMIX_LOCAL_RANK, 5}, {PMIX_NODE_RANK, 500}, {"only.rank5", 55}};
    EXPECT_EQ(seen, want);
}

}  // namespace
}  // namespace gds_test
