// Result<T>: success carries the value, failure the status and the reason, and a failure
// crosses from one value type to another unchanged.
#include "base/result.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

TEST(Result, SuccessCarriesTheValue) {
    auto r = pmix::Result<std::vector<int>>::success({1, 2, 3});
    EXPECT_TRUE(r.ok());
    EXPECT_EQ(r.status, PMIX_SUCCESS);
    EXPECT_EQ(r.value, (std::vector<int>{1, 2, 3}));
    EXPECT_TRUE(r.error.empty());
}

TEST(Result, FailureCarriesStatusAndReasonAcrossTypes) {
    auto bad = pmix::Result<int>::failure(PMIX_ERR_BAD_PARAM, "node list ends in a comma");
    EXPECT_FALSE(bad.ok());
    EXPECT_EQ(bad.value, 0);
    pmix::Result<std::string> moved = pmix::forward_failure<std::string>(bad);
    EXPECT_FALSE(moved.ok());
    EXPECT_EQ(moved.status, PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(moved.error, "node list ends in a comma");
    EXPECT_TRUE(moved.value.empty());
}

}  // namespace
