// test_unload.cpp - PMIx_Value_unload: where the payload goes and what the size means.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "data/value.h"
#include "samples.h"

namespace pmix::data::test {
namespace {

TEST(ValueUnload, NumbersGoIntoTheCallersStorage) {
    Value v;
    int n = 1234;
    ASSERT_EQ(value_load(&v.v, &n, PMIX_INT), PMIX_SUCCESS);
    int out = 0;
    void* data = &out;
    std::size_t size = 0;
    ASSERT_EQ(value_unload(&v.v, &data, &size), PMIX_SUCCESS);
    EXPECT_EQ(data, &out);
    EXPECT_EQ(out, 1234);
    EXPECT_EQ(size, sizeof(int));
}

TEST(ValueUnload, NumbersWithoutStorageAreAllocated) {
    Value v;
    std::uint64_t n = 0x1122334455667788u;
    ASSERT_EQ(value_load(&v.v, &n, PMIX_UINT64), PMIX_SUCCESS);
    void* data = nullptr;  // OpenPMIx says BAD_PARAM here; we allocate
    std::size_t size = 0;
    ASSERT_EQ(value_unload(&v.v, &data, &size), PMIX_SUCCESS);
    ASSERT_NE(data, nullptr);
    EXPECT_EQ(*static_cast<std::uint64_t*>(data), n);
    EXPECT_EQ(size, sizeof(n));
    std::free(data);
}

TEST(ValueUnload, StringIsAStrdupAndItsLength) {
    Value v;
    ASSERT_EQ(value_load(&v.v, "hello", PMIX_STRING), PMIX_SUCCESS);
    char* out = nullptr;
    std::size_t size = 0;
    ASSERT_EQ(value_unload(&v.v, reinterpret_cast<void**>(&out), &size), PMIX_SUCCESS);
    ASSERT_NE(out, nullptr);
    EXPECT_NE(out, v.v.data.string);
    EXPECT_STREQ(out, "hello");
    EXPECT_EQ(size, 5u);
    std::free(out);
}

TEST(ValueUnload, NullStringGivesNothing) {
    Value v;
    ASSERT_EQ(value_load(&v.v, nullptr, PMIX_STRING), PMIX_SUCCESS);
    void* data = reinterpret_cast<void*>(0x1);
    std::size_t size = 99;
    ASSERT_EQ(value_unload(&v.v, &data, &size), PMIX_SUCCESS);
    EXPECT_EQ(data, nullptr);
    EXPECT_EQ(size, 0u);
}

TEST(ValueUnload, ProcAndNspaceAreCopiedInPlace) {
    pmix_proc_t p;
    std::memset(&p, 0, sizeof(p));
    std::strcpy(p.nspace, "job-7");
    p.rank = 3;
    Value v;
    ASSERT_EQ(value_load(&v.v, &p, PMIX_PROC), PMIX_SUCCESS);
    pmix_proc_t out;
    std::memset(&out, 0, sizeof(out));
    void* data = &out;
    std::size_t size = 0;
    ASSERT_EQ(value_unload(&v.v, &data, &size), PMIX_SUCCESS);
    EXPECT_STREQ(out.nspace, "job-7");
    EXPECT_EQ(out.rank, 3u);
    EXPECT_EQ(size, sizeof(pmix_proc_t));

    pmix_nspace_t ns = "namespace-x";
    Value w;
    ASSERT_EQ(value_load(&w.v, &ns, PMIX_PROC_NSPACE), PMIX_SUCCESS);
    pmix_nspace_t back = {0};
    data = back;
    ASSERT_EQ(value_unload(&w.v, &data, &size), PMIX_SUCCESS);
    EXPECT_STREQ(back, "namespace-x");
    EXPECT_EQ(size, std::strlen("namespace-x"));
}

TEST(ValueUnload, StructsAreMallocdDeepCopies) {
    pmix_envar_t ev{const_cast<char*>("PATH"), const_cast<char*>("/bin"), ':'};
    Value v;
    ASSERT_EQ(value_load(&v.v, &ev, PMIX_ENVAR), PMIX_SUCCESS);
    void* data = nullptr;
    std::size_t size = 0;
    ASSERT_EQ(value_unload(&v.v, &data, &size), PMIX_SUCCESS);
    auto* out = static_cast<pmix_envar_t*>(data);
    ASSERT_NE(out, nullptr);
    EXPECT_EQ(size, sizeof(pmix_envar_t));
    EXPECT_NE(out->envar, v.v.data.envar.envar);
    EXPECT_STREQ(out->envar, "PATH");
    EXPECT_STREQ(out->value, "/bin");
    EXPECT_EQ(out->separator, ':');
    destruct_element(out, PMIX_ENVAR);
    std::free(out);
}

TEST(ValueUnload, BadInput) {
    Value v;
    int n = 1;
    ASSERT_EQ(value_load(&v.v, &n, PMIX_INT), PMIX_SUCCESS);
    void* data = nullptr;
    std::size_t size = 0;
    EXPECT_EQ(value_unload(nullptr, &data, &size), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(value_unload(&v.v, nullptr, &size), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(value_unload(&v.v, &data, nullptr), PMIX_ERR_BAD_PARAM);
    Value empty;
    EXPECT_EQ(value_unload(&empty.v, &data, &size), PMIX_ERR_UNKNOWN_DATA_TYPE);
    pmix_value_t odd{};
    odd.type = 999;
    EXPECT_EQ(value_unload(&odd, &data, &size), PMIX_ERR_UNKNOWN_DATA_TYPE);
    EXPECT_EQ(data, nullptr);
}

}  // namespace
}  // namespace pmix::data::test
