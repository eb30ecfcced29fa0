// test_strings.cpp - every pretty printer against the answers of Debian's OpenPMIx 4.2.2.
#include "expectations.h"
#include "text/text.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>

namespace pmix::text {
namespace {

using testing::load_debian_strings;
using testing::parse_number;
using testing::StringCase;

using Printer = std::function<const char*(long long)>;

const std::map<std::string, Printer>& printers() {
    static const std::map<std::string, Printer> table = {
        {"PMIx_Error_string",
         [](long long v) { return error_string(static_cast<pmix_status_t>(v)); }},
        {"PMIx_Data_type_string",
         [](long long v) { return data_type_string(static_cast<pmix_data_type_t>(v)); }},
        {"PMIx_Proc_state_string",
         [](long long v) { return proc_state_string(static_cast<pmix_proc_state_t>(v)); }},
        {"PMIx_Job_state_string",
         [](long long v) { return job_state_string(static_cast<pmix_job_state_t>(v)); }},
        {"PMIx_Scope_string",
         [](long long v) { return scope_string(static_cast<pmix_scope_t>(v)); }},
        {"PMIx_Persistence_string",
         [](long long v) { return persistence_string(static_cast<pmix_persistence_t>(v)); }},
        {"PMIx_Data_range_string",
         [](long long v) { return data_range_string(static_cast<pmix_data_range_t>(v)); }},
        {"PMIx_Alloc_directive_string",
         [](long long v) {
             return alloc_directive_string(static_cast<pmix_alloc_directive_t>(v));
         }},
        {"PMIx_Link_state_string",
         [](long long v) { return link_state_string(static_cast<pmix_link_state_t>(v)); }},
        {"PMIx_Value_comparison_string",
         [](long long v) { return value_comparison_string(static_cast<pmix_value_cmp_t>(v)); }},
        {"PMIx_Device_type_string",
         [](long long v) { return device_type_string(static_cast<pmix_device_type_t>(v)); }},
        {"PMIx_Info_directives_string",
         [](long long v) {
             return info_directives_string(static_cast<pmix_info_directives_t>(v));
         }},
        {"PMIx_IOF_channel_string",
         [](long long v) { return iof_channel_string(static_cast<pmix_iof_channel_t>(v)); }},
    };
    return table;
}

const std::vector<StringCase>& debian() {
    static const std::vector<StringCase> cases = load_debian_strings();
    return cases;
}

// Debian's answers for one function, by numeric input.
std::map<long long, std::string> debian_answers(const std::string& function) {
    std::map<long long, std::string> answers;
    for (const StringCase& c : debian()) {
        if (c.function == function) {
            answers.emplace(parse_number(c.input), c.output);
        }
    }
    return answers;
}

class PrinterMatchesDebian : public ::testing::TestWithParam<std::string> {};

TEST_P(PrinterMatchesDebian, EveryRecordedInput) {
    const Printer& print = printers().at(GetParam());
    const auto answers = debian_answers(GetParam());
    ASSERT_GT(answers.size(), 10u) << "no Debian answers recorded for " << GetParam();
    for (const auto& [input, expected] : answers) {
        const char* got = print(input);
        ASSERT_NE(got, nullptr) << GetParam() << "(" << input << ")";
        EXPECT_EQ(expected, got) << GetParam() << "(" << input << ")";
    }
}

INSTANTIATE_TEST_SUITE_P(Debian, PrinterMatchesDebian,
                         ::testing::Values("PMIx_Error_string", "PMIx_Data_type_string",
                                           "PMIx_Proc_state_string", "PMIx_Job_state_string",
                                           "PMIx_Scope_string", "PMIx_Persistence_string",
                                           "PMIx_Data_range_string", "PMIx_Alloc_directive_string",
                                           "PMIx_Link_state_string", "PMIx_Value_comparison_string",
                                           "PMIx_Device_type_string", "PMIx_Info_directives_string",
                                           "PMIx_IOF_channel_string"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return info.param;
                         });

TEST(PrinterTable, CoversEveryFunctionRecorded) {
    std::set<std::string> recorded;
    for (const StringCase& c : debian()) {
        recorded.insert(c.function);
    }
    for (const std::string& f : recorded) {
        const bool known = printers().count(f) != 0 || f == "PMIx_Get_version" ||
                           f == "PMIx_Get_attribute_string" || f == "PMIx_Get_attribute_name";
        EXPECT_TRUE(known) << "table has answers for an unchecked function " << f;
    }
    EXPECT_EQ(recorded.size(), printers().size() + 3);
}

// Status codes outside the recorded window: Debian names none of them (a scan of all 2^32 codes
// found names only inside it, plus INT_MIN, which is recorded), so each must get the fallback.
TEST(ErrorString, UnrecordedCodesGetTheFallback) {
    const auto answers = debian_answers("PMIx_Error_string");
    const std::string fallback = answers.at(100000);
    for (long long s = -70000; s <= 70000; ++s) {
        if (answers.count(s) == 0) {
            ASSERT_EQ(fallback, error_string(static_cast<pmix_status_t>(s))) << s;
        }
    }
}

TEST(DataTypeString, EveryValueOfTheDomain) {
    const auto answers = debian_answers("PMIx_Data_type_string");
    const std::string unknown = answers.at(0xffff);
    for (long long t = 0; t <= UINT16_MAX; ++t) {
        const auto it = answers.find(t);
        ASSERT_EQ(it != answers.end() ? it->second : unknown,
                  data_type_string(static_cast<pmix_data_type_t>(t)))
            << t;
    }
}

// Only the low five bits were recorded exhaustively; the high-bit samples Debian answered
// (0x100, 0xff0, 0x8000, 0xffff) show the other bits are ignored, which this extends to all.
TEST(IofChannelString, EveryValueOfTheDomain) {
    const auto answers = debian_answers("PMIx_IOF_channel_string");
    for (long long c = 0; c <= UINT16_MAX; ++c) {
        ASSERT_EQ(answers.at(c & 0x1f), iof_channel_string(static_cast<pmix_iof_channel_t>(c)))
            << c;
    }
}

TEST(InfoDirectivesString, HighBitsAreIgnored) {
    const auto answers = debian_answers("PMIx_Info_directives_string");
    std::uint32_t x = 0x12345678u;  // a fixed pseudo-random walk over the 32-bit domain
    for (int i = 0; i < 200000; ++i) {
        x = x * 1664525u + 1013904223u;
        ASSERT_EQ(answers.at(x & 0x1f), info_directives_string(x)) << std::hex << x;
    }
}

TEST(Version, IdentifiesUsAndPassesOpenMpiCheck) {
    const char* v = version_string();
    ASSERT_NE(v, nullptr);
    EXPECT_GT(v[0], '2') << "Open MPI 4.1.4 rejects a version string starting at or below '2'";
    const std::string text = v;
    EXPECT_EQ(text.rfind("PMIx-C++ ", 0), 0u) << text;
    EXPECT_NE(text.find("OpenPMIx 4.2.2 ABI"), std::string::npos) << text;
    // The parenthesised fields OpenPMIx prints, with the same values.
    const std::string reference = debian().at(0).output;
    ASSERT_EQ(debian().at(0).function, "PMIx_Get_version");
    const std::string fields = reference.substr(reference.find("PMIx Standard:"));
    EXPECT_NE(text.find(fields), std::string::npos) << text << " vs " << reference;
    EXPECT_NE(text, reference);
    EXPECT_EQ(v, version_string()) << "must be one static string";
}

}  // namespace
}  // namespace pmix::text
