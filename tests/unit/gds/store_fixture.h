// tests/unit/gds/store_fixture.h - the typed fixture every contract test runs under: one store of
// the kind under test, readers made from it, and teardown that checks nothing is left behind.
#pragma once

#include "samples.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace gds_test {

template <typename Kind>
class StoreTest : public ::testing::Test {
protected:
    void SetUp() override { open(); }

    void TearDown() override {
        reader_.reset();
        writer_.reset();
        // RAII removed every segment, whatever the test did.
        EXPECT_TRUE(shm_objects(kShmPrefix + 1).empty());
    }

    void open(pmix::gds::StoreOptions options = {}) {
        reader_.reset();
        writer_ = Kind::make(options);
        ASSERT_NE(writer_, nullptr);
        reader_ = writer_->make_reader();
        ASSERT_NE(reader_, nullptr);
    }

    pmix::gds::StoreWriter& writer() { return *writer_; }
    pmix::gds::StoreReader& reader() { return *reader_; }

    void put_u64(const std::string& ns, const pmix::gds::Entity& e, const std::string& key,
                 std::uint64_t x) {
        Value v;
        make_u64(&v, x);
        ASSERT_EQ(writer_->put(ns, e, key, v.v), PMIX_SUCCESS) << key;
    }
    void put_string(const std::string& ns, const pmix::gds::Entity& e, const std::string& key,
                    const std::string& s) {
        Value v;
        make_string(&v, s);
        ASSERT_EQ(writer_->put(ns, e, key, v.v), PMIX_SUCCESS) << key;
    }
    // The value's uint64, or `fallback` (with the status in *status) when the get fails.
    std::uint64_t get_u64(const std::string& ns, const pmix::gds::Entity& e, const std::string& key,
                          pmix_status_t* status = nullptr) {
        Value v;
        const pmix_status_t rc = reader_->get(ns, e, key, &v);
        if (status != nullptr) {
            *status = rc;
        }
        return rc == PMIX_SUCCESS && v.v.type == PMIX_UINT64 ? v.v.data.uint64 : ~0ull;
    }
    std::string get_string(const std::string& ns, const pmix::gds::Entity& e,
                           const std::string& key) {
        Value v;
        const pmix_status_t rc = reader_->get(ns, e, key, &v);
        if (rc != PMIX_SUCCESS) {
            return "<status " + std::to_string(rc) + ">";
        }
        return v.v.type == PMIX_STRING ? v.v.data.string : "<not a string>";
    }

    std::unique_ptr<pmix::gds::StoreWriter> writer_;
    std::unique_ptr<pmix::gds::StoreReader> reader_;
};

// Suites appear as <Suite>/0 (heap) and <Suite>/1 (shm); ctest names end in <gds_test::HeapKind>
// or <gds_test::ShmKind> (numeric suffixes are what gtest_discover_tests can parse).
using StoreKinds = ::testing::Types<HeapKind, ShmKind>;

}  // namespace gds_test
