// tests/fuzz/test_findings.cpp - what the harnesses found, stated as unit tests of the decoders'
// contracts (the reproducers in regressions/ show them only under a leak checker or a read-only
// mapping; these show them in every preset).
#include "wire/proto/message.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

namespace {

using pmix::proto::Reader;
using pmix::proto::Writer;

// Strings packed as one batch of `n`.
pmix::wire::Bytes string_batch(std::size_t n) {
    const char* strings[] = {"first", "second", "third"};
    Writer w;
    w.raw(strings, n, PMIX_STRING);
    return w.take();
}

TEST(FuzzFindings, AReadOfFewerElementsThanTheBatchHoldsFailsAndHandsOutNothing) {
    const auto bytes = string_batch(3);
    Reader r(bytes);
    char* got[2] = {nullptr, nullptr};
    EXPECT_EQ(r.raw(got, 2, PMIX_STRING), PMIX_ERR_UNPACK_FAILURE);
    EXPECT_EQ(got[0], nullptr);  // released by the reader, not left to a caller told "failed"
    EXPECT_EQ(got[1], nullptr);
    EXPECT_EQ(r.finish(), PMIX_ERR_UNPACK_FAILURE);
}

TEST(FuzzFindings, AReadOfMoreElementsThanTheBatchHoldsFailsAndHandsOutNothing) {
    const auto bytes = string_batch(1);
    Reader r(bytes);
    char* got[2] = {nullptr, nullptr};
    EXPECT_EQ(r.raw(got, 2, PMIX_STRING), PMIX_ERR_UNPACK_FAILURE);
    EXPECT_EQ(got[0], nullptr);
    EXPECT_EQ(got[1], nullptr);
}

TEST(FuzzFindings, ACountBeyondTheUnreadBytesIsRefused) {
    Writer w;
    w.size(1000);  // announces 1000 procs; none follow
    const auto bytes = w.take();
    Reader r(bytes);
    std::vector<pmix_proc_t> procs;
    EXPECT_EQ(r.procs(&procs), PMIX_ERR_UNPACK_FAILURE);
    EXPECT_TRUE(procs.empty());
}

TEST(FuzzFindings, AnExactBatchStillReads) {
    const auto bytes = string_batch(2);
    Reader r(bytes);
    char* got[2] = {nullptr, nullptr};
    ASSERT_EQ(r.raw(got, 2, PMIX_STRING), PMIX_SUCCESS);
    EXPECT_STREQ(got[0], "first");
    EXPECT_STREQ(got[1], "second");
    std::free(got[0]);
    std::free(got[1]);
    EXPECT_EQ(r.finish(), PMIX_SUCCESS);
}

}  // namespace
