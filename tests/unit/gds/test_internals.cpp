// tests/unit/gds/test_internals.cpp - the pieces under the store: scalar widths agree with the
// data model, the standard-key table is a bijection, references round-trip.
#include "samples.h"

#include "data/value.h"
#include "gds/encode.h"
#include "gds/keys.h"
#include "gds/layout.h"
#include "text/text.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gds_test {
namespace {

namespace layout = pmix::gds::layout;

TEST(Internals, StandardKeysHaveStableDistinctIds) {
    const std::uint32_t n = pmix::gds::keys::count();
    ASSERT_GT(n, 300u);
    std::set<std::string> names;
    for (std::uint32_t id = 1; id <= n; ++id) {
        const std::string_view name = pmix::gds::keys::standard_name(id);
        ASSERT_FALSE(name.empty()) << id;
        EXPECT_EQ(pmix::gds::keys::standard_id(name), id) << name;
        names.emplace(name);
    }
    EXPECT_EQ(names.size(), n);
    EXPECT_TRUE(pmix::gds::keys::standard_name(0).empty());
    EXPECT_TRUE(pmix::gds::keys::standard_name(n + 1).empty());
    EXPECT_EQ(pmix::gds::keys::standard_id(PMIX_JOB_SIZE),
              pmix::gds::keys::standard_id(std::string(PMIX_JOB_SIZE)));
    EXPECT_NE(pmix::gds::keys::standard_id(PMIX_JOB_SIZE), 0u);
    EXPECT_EQ(pmix::gds::keys::standard_id("btl.tcp.4.1"), 0u);
    EXPECT_EQ(pmix::gds::keys::standard_id(""), 0u);
    EXPECT_LT(n, layout::kDynamicKeyBase);
    // Every dictionary string has an id.
    for (const auto& info : pmix::text::attributes()) {
        EXPECT_NE(pmix::gds::keys::standard_id(info.string), 0u) << info.name;
    }
}

TEST(Internals, RefsRoundTrip) {
    for (const std::uint32_t seg : {0u, 1u, 1023u}) {
        for (const std::uint64_t off :
             {std::uint64_t{376}, std::uint64_t{4096}, layout::kMaxSegmentBytes - 8}) {
            const layout::Ref r = layout::make_ref(seg, off);
            EXPECT_EQ(layout::ref_segment(r), seg);
            EXPECT_EQ(layout::ref_offset(r), off);
            EXPECT_EQ(r & ~layout::kRefMask, 0u);
            const layout::Slot s = layout::make_slot(0xabcd000000000000ull, r);
            EXPECT_TRUE(layout::slot_matches_tag(s, 0xabcd123456789abcull));
            EXPECT_EQ(s & layout::kRefMask, r);
        }
    }
    EXPECT_NE(layout::kLayoutStamp, 0u);
}

TEST(Internals, EncodingRejectsWhatItCannotHold) {
    std::vector<std::byte> payload;
    pmix::gds::enc::Encoded meta;
    pmix_value_t v{};
    v.type = 999;
    EXPECT_EQ(pmix::gds::enc::encode(v, meta, payload), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_TRUE(payload.empty());
    // An empty (UNDEF) value is held as a zero-width scalar and reads back empty.
    v.type = PMIX_UNDEF;
    ASSERT_EQ(pmix::gds::enc::encode(v, meta, payload), PMIX_SUCCESS);
    pmix::gds::enc::Stored s{meta.encoding, meta.type, meta.size, meta.scalar, nullptr};
    Value out;
    ASSERT_EQ(pmix::gds::enc::decode_copy(s, &out), PMIX_SUCCESS);
    EXPECT_EQ(out.v.type, PMIX_UNDEF);
    EXPECT_EQ(pmix::gds::enc::decode_copy(s, nullptr), PMIX_ERR_BAD_PARAM);
    // A scalar whose recorded width disagrees with its type is damage.
    s.type = PMIX_UINT64;
    s.size = 4;
    EXPECT_EQ(pmix::gds::enc::decode_copy(s, &out), pmix::gds::kErrCorrupt);
}

}  // namespace
}  // namespace gds_test
