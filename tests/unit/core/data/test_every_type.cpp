// test_every_type.cpp - one contract, every data type: load / xfer / compare / copy / print /
// unload / destruct round trips, as a value, as a Data_copy object and inside a data array.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "data/value.h"
#include "samples.h"

namespace pmix::data::test {
namespace {

class EveryType : public ::testing::TestWithParam<pmix_data_type_t> {};

TEST_P(EveryType, LoadXferCompareDestruct) {
    const pmix_data_type_t type = GetParam();
    Element a(type, 1);
    Element b(type, 2);

    Value va;
    ASSERT_EQ(value_load(&va.v, a.load_arg(), type), PMIX_SUCCESS);
    EXPECT_EQ(va.v.type, type);
    ASSERT_NE(value_element(&va.v), nullptr);
    EXPECT_EQ(compare_element(value_element(&va.v), a.get(), type), PMIX_EQUAL);

    Value copy;
    ASSERT_EQ(value_xfer(&copy.v, &va.v), PMIX_SUCCESS);
    EXPECT_EQ(value_compare(&va.v, &copy.v), PMIX_EQUAL);
    EXPECT_EQ(value_compare(&copy.v, &va.v), PMIX_EQUAL);

    Value vb;
    ASSERT_EQ(value_load(&vb.v, b.load_arg(), type), PMIX_SUCCESS);
    pmix_value_cmp_t ab = value_compare(&va.v, &vb.v);
    EXPECT_NE(ab, PMIX_EQUAL);
    if (ab == PMIX_VALUE1_GREATER || ab == PMIX_VALUE2_GREATER) {  // ordering is antisymmetric
        EXPECT_EQ(value_compare(&vb.v, &va.v),
                  ab == PMIX_VALUE1_GREATER ? PMIX_VALUE2_GREATER : PMIX_VALUE1_GREATER);
    }

    value_destruct(&copy.v);
    EXPECT_EQ(copy.v.type, PMIX_UNDEF);
    EXPECT_EQ(copy.v.data.ptr, nullptr);
    // The original is independent of the destructed copy.
    EXPECT_EQ(compare_element(value_element(&va.v), a.get(), type), PMIX_EQUAL);
}

TEST_P(EveryType, ValuePrintsItsTypeName) {
    const pmix_data_type_t type = GetParam();
    Element a(type, 3);
    Value v;
    ASSERT_EQ(value_load(&v.v, a.load_arg(), type), PMIX_SUCCESS);
    std::string out;
    ASSERT_EQ(print(out, nullptr, &v.v, PMIX_VALUE), PMIX_SUCCESS);
    EXPECT_EQ(out.rfind(" PMIX_VALUE: ", 0), 0u) << out;
    EXPECT_EQ(out.find("UNPRINTABLE"), std::string::npos) << out;
}

TEST_P(EveryType, DataCopyIsDeepAndEqual) {
    const pmix_data_type_t type = GetParam();
    Element a(type, 4);
    void* copied = nullptr;
    ASSERT_EQ(copy(&copied, a.copy_arg(), type), PMIX_SUCCESS);
    ASSERT_NE(copied, nullptr);
    if (type == PMIX_STRING || type == PMIX_REGEX) {
        EXPECT_STREQ(static_cast<char*>(copied), static_cast<const char*>(a.copy_arg()));
        EXPECT_NE(copied, a.copy_arg());
        std::free(copied);
        return;
    }
    EXPECT_EQ(compare_element(copied, a.get(), type), PMIX_EQUAL);
    destruct_element(copied, type);
    std::free(copied);
}

TEST_P(EveryType, PrintUsesThePrefix) {
    const pmix_data_type_t type = GetParam();
    Element a(type, 5);
    std::string out;
    const void* src = type == PMIX_POINTER ? a.load_arg() : a.copy_arg();
    ASSERT_EQ(print(out, "PFX>", src, type), PMIX_SUCCESS);
    EXPECT_EQ(out.rfind("PFX>", 0), 0u) << out;
    std::string element_text;
    ASSERT_EQ(print_element(element_text, "PFX>", a.get(), type), PMIX_SUCCESS);
    EXPECT_EQ(element_text, out);
}

TEST_P(EveryType, ElementCopyIntoStorage) {
    const pmix_data_type_t type = GetParam();
    Element a(type, 6);
    void* storage = std::malloc(element_size(type));
    ASSERT_EQ(copy_element(storage, a.get(), type), PMIX_SUCCESS);
    EXPECT_EQ(compare_element(storage, a.get(), type), PMIX_EQUAL);
    destruct_element(storage, type);
    std::free(storage);
}

TEST_P(EveryType, DataArrayOfThreeRoundTrips) {
    const pmix_data_type_t type = GetParam();
    pmix_data_array_t array;
    ASSERT_EQ(data_array_init(&array, 3, type), PMIX_SUCCESS);
    ASSERT_NE(array.array, nullptr);
    EXPECT_EQ(array.size, 3u);
    const std::size_t size = element_size(type);
    for (int i = 0; i < 3; ++i) {
        char* slot = static_cast<char*>(array.array) + i * size;
        destruct_element(slot, type);  // zero the slot (DEVICE_DIST starts at UINT16_MAX)
        fill(slot, type, i + 1);
    }
    Value v;
    ASSERT_EQ(value_load(&v.v, &array, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    ASSERT_NE(v.v.data.darray, nullptr);
    EXPECT_NE(v.v.data.darray->array, array.array);
    EXPECT_EQ(compare_element(v.v.data.darray, &array, PMIX_DATA_ARRAY), PMIX_EQUAL);

    Value copy;
    ASSERT_EQ(value_xfer(&copy.v, &v.v), PMIX_SUCCESS);
    EXPECT_EQ(value_compare(&copy.v, &v.v), PMIX_EQUAL);

    std::string out;
    ASSERT_EQ(print(out, nullptr, &array, PMIX_DATA_ARRAY), PMIX_SUCCESS);
    EXPECT_NE(out.find("Size: 3"), std::string::npos) << out;
    data_array_destruct(&array);
    EXPECT_EQ(array.array, nullptr);
    EXPECT_EQ(array.size, 0u);
    EXPECT_EQ(array.type, PMIX_UNDEF);
}

TEST_P(EveryType, UnloadHandsOutAnIndependentPayload) {
    const pmix_data_type_t type = GetParam();
    Element a(type, 7);
    Value v;
    ASSERT_EQ(value_load(&v.v, a.load_arg(), type), PMIX_SUCCESS);
    // Caller-provided storage for the types that are copied in place; ignored by the others.
    void* storage = std::calloc(1, element_size(type));
    void* data = storage;
    std::size_t size = 0;
    ASSERT_EQ(value_unload(&v.v, &data, &size), PMIX_SUCCESS);
    EXPECT_GT(size, 0u);
    switch (type) {
        case PMIX_STRING:
            EXPECT_STREQ(static_cast<char*>(data), static_cast<const char*>(a.load_arg()));
            std::free(data);
            break;
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT: {
            auto* bo = static_cast<pmix_byte_object_t*>(a.get());
            ASSERT_EQ(size, bo->size);
            EXPECT_EQ(std::memcmp(data, bo->bytes, size), 0);
            EXPECT_NE(data, v.v.data.bo.bytes);
            std::free(data);
            break;
        }
        case PMIX_REGEX:
            EXPECT_STREQ(static_cast<char*>(data), static_cast<const char*>(a.load_arg()));
            std::free(data);
            break;
        case PMIX_POINTER:
            EXPECT_EQ(data, a.load_arg());
            break;
        default:
            if (data == storage) {  // copied in place
                EXPECT_EQ(compare_element(storage, a.get(), type), PMIX_EQUAL);
            } else {  // a malloc'd deep copy of the struct
                EXPECT_EQ(size, element_size(type));
                EXPECT_EQ(compare_element(data, a.get(), type), PMIX_EQUAL);
                destruct_element(data, type);
                std::free(data);
            }
            break;
    }
    std::free(storage);
}

TEST_P(EveryType, AdoptMovesWithoutCopying) {
    const pmix_data_type_t type = GetParam();
    Element reference(type, 8);
    void* element = std::calloc(1, element_size(type));
    fill(element, type, 8);
    Value v;
    ASSERT_EQ(value_adopt(&v.v, element, type), PMIX_SUCCESS);
    EXPECT_EQ(v.v.type, type);
    EXPECT_EQ(compare_element(value_element(&v.v), reference.get(), type), PMIX_EQUAL);
    std::free(element);  // zeroed by adopt: the value owns the payload now
}

INSTANTIATE_TEST_SUITE_P(AllTypes, EveryType, ::testing::ValuesIn(all_types()),
                         [](const ::testing::TestParamInfo<pmix_data_type_t>& info) {
                             return type_name(info.param);
                         });

}  // namespace
}  // namespace pmix::data::test
