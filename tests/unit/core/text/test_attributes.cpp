// test_attributes.cpp - the attribute dictionary: round trips, OpenPMIx's dictionary, bad input.
#include "expectations.h"
#include "text/text.h"

#include <gtest/gtest.h>

#include <cctype>
#include <map>
#include <string>
#include <vector>

namespace pmix::text {
namespace {

using testing::DictionaryRow;

std::string lowered(std::string s) {
    for (char& c : s) {
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

TEST(Attributes, TableIsPopulatedAndTyped) {
    ASSERT_GT(attributes().size(), 400u);
    for (const AttributeInfo& a : attributes()) {
        ASSERT_NE(a.name, nullptr);
        ASSERT_NE(a.string, nullptr);
        ASSERT_NE(a.c_type, nullptr);
        EXPECT_EQ(std::string(a.name).rfind("PMIX_", 0), 0u) << a.name;
        EXPECT_NE(a.type, PMIX_UNDEF)
            << a.name << ": C type '" << a.c_type << "' is not in attributes.cmake's type map";
    }
}

TEST(Attributes, EveryEntryRoundTrips) {
    for (const AttributeInfo& a : attributes()) {
        EXPECT_EQ(find_attribute_by_name(a.name), &a) << a.name;
        EXPECT_STREQ(attribute_string(a.name), a.string) << a.name;
        const AttributeInfo* back = find_attribute_by_string(a.string);
        ASSERT_NE(back, nullptr) << a.string;
        EXPECT_EQ(lowered(back->string), lowered(a.string));
        EXPECT_STREQ(attribute_name(a.string), back->name);
        // OpenPMIx compares with strcasecmp both ways.
        EXPECT_EQ(find_attribute_by_name(lowered(a.name)), &a) << a.name;
        EXPECT_EQ(find_attribute_by_string(lowered(a.string)), back) << a.string;
    }
}

TEST(Attributes, GeneratedListMatchesCompiledTable) {
    const auto rows = testing::load_generated_attributes();
    ASSERT_EQ(rows.size(), attributes().size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const AttributeInfo& a = attributes()[i];
        EXPECT_EQ(rows[i].name, a.name);
        EXPECT_EQ(rows[i].key, a.string);
        EXPECT_EQ(rows[i].c_type, a.c_type);
        EXPECT_EQ(rows[i].type_macro, data_type_string(a.type)) << a.name;
        EXPECT_EQ(rows[i].deprecated, a.deprecated) << a.name;
    }
}

// Compares our dictionary with OpenPMIx's, either its current or its deprecated part.
void expect_same_as_openpmix(bool deprecated_part) {
    const std::vector<DictionaryRow> rows = testing::load_debian_dictionary();
    ASSERT_GT(rows.size(), 400u);
    std::map<std::string, std::string> first_name_for_key;  // OpenPMIx: first match wins
    for (const DictionaryRow& r : rows) {
        first_name_for_key.emplace(lowered(r.key), r.name);
    }
    std::size_t checked = 0;
    for (const DictionaryRow& r : rows) {
        if (r.deprecated != deprecated_part) {
            continue;
        }
        ++checked;
        const AttributeInfo* a = find_attribute_by_name(r.name);
        if (a == nullptr) {
            ADD_FAILURE() << r.name << " (\"" << r.key << "\") is missing from our dictionary";
            continue;
        }
        EXPECT_EQ(r.key, a->string) << r.name;
        EXPECT_EQ(r.type, a->type) << r.name << ": OpenPMIx records " << r.type_name << ", we "
                                   << data_type_string(a->type) << " (from '" << a->c_type << "')";
        EXPECT_EQ(first_name_for_key.at(lowered(r.key)), attribute_name(r.key.c_str()))
            << "reverse lookup of " << r.key;
    }
    EXPECT_GT(checked, deprecated_part ? 10u : 400u);
}

TEST(Attributes, SameAsOpenPmixDictionary) { expect_same_as_openpmix(false); }

TEST(Attributes, SameAsOpenPmixDeprecatedDictionary) { expect_same_as_openpmix(true); }

// The attribute rows of debian_strings.tsv: what the C API returned, including case variants and
// unknown inputs (where OpenPMIx hands back the caller's pointer).
TEST(Attributes, MatchesDebianLookups) {
    std::size_t checked = 0;
    for (const testing::StringCase& c : testing::load_debian_strings()) {
        const bool forward = c.function == "PMIx_Get_attribute_string";
        if (!forward && c.function != "PMIx_Get_attribute_name") {
            continue;
        }
        ++checked;
        const char* in = c.input.c_str();
        const char* got = forward ? attribute_string(in) : attribute_name(in);
        if (c.output == "=input") {
            EXPECT_EQ(got, in) << c.function << "(" << c.input << ") should return its argument";
        } else {
            ASSERT_NE(got, nullptr);
            EXPECT_NE(got, in);
            EXPECT_EQ(c.output, got) << c.function << "(" << c.input << ")";
        }
    }
    EXPECT_GT(checked, 1000u);
}

TEST(Attributes, NullAndUnknownInput) {
    EXPECT_EQ(attribute_string(nullptr), nullptr);
    EXPECT_EQ(attribute_name(nullptr), nullptr);
    const char* unknown = "PMIX_NO_SUCH_ATTRIBUTE";
    EXPECT_EQ(attribute_string(unknown), unknown);
    EXPECT_EQ(attribute_name(unknown), unknown);
    const char* empty = "";
    EXPECT_EQ(attribute_string(empty), empty);
    EXPECT_EQ(attribute_name(empty), empty);
    EXPECT_EQ(find_attribute_by_name(""), nullptr);
    EXPECT_EQ(find_attribute_by_string(""), nullptr);
    EXPECT_EQ(find_attribute_by_name("PMIX_"), nullptr);
    EXPECT_EQ(find_attribute_by_string("pmix."), nullptr);
}

TEST(Attributes, OverlongAndPrefixInput) {
    const AttributeInfo& some = attributes()[attributes().size() / 2];
    const std::string longer = std::string(some.name) + std::string(100000, 'X');
    EXPECT_EQ(attribute_string(longer.c_str()), longer.c_str());
    EXPECT_EQ(find_attribute_by_string(std::string(some.string) + "."), nullptr);
    // A view is compared over its own length only, not up to a terminating NUL.
    EXPECT_EQ(
        find_attribute_by_name(std::string_view(longer).substr(0, std::string(some.name).size())),
        &some);
    const std::string with_nul = std::string(some.name) + '\0' + "tail";
    EXPECT_EQ(find_attribute_by_name(with_nul), nullptr);
    EXPECT_EQ(attribute_string(with_nul.c_str()), some.string) << "C strings end at the NUL";
}

}  // namespace
}  // namespace pmix::text
