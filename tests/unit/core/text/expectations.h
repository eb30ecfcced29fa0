// expectations.h - readers for the tables produced from Debian's OpenPMIx (see README.md).
#pragma once

#include <string>
#include <vector>

namespace pmix::text::testing {

// One line of debian_strings.tsv.
struct StringCase {
    std::string function;  // C API name, e.g. "PMIx_Scope_string"
    std::string input;     // decimal, 0x-hex, or text for the attribute functions
    std::string output;    // "=input": the argument pointer itself came back
};

// One line of debian_dictionary.tsv (OpenPMIx's order).
struct DictionaryRow {
    std::string name;
    std::string key;
    unsigned type = 0;
    std::string type_name;
    bool deprecated = false;
};

// One line of our generated attributes.tsv.
struct GeneratedRow {
    std::string name;
    std::string key;
    std::string c_type;
    std::string type_macro;
    bool deprecated = false;
};

// Each reader fails the current test (and returns nothing) if the file cannot be read.
std::vector<StringCase> load_debian_strings();
std::vector<DictionaryRow> load_debian_dictionary();
std::vector<GeneratedRow> load_generated_attributes();

// Parses a decimal or 0x-prefixed integer as printed by compare_with_debian.c.
long long parse_number(const std::string& text);

}  // namespace pmix::text::testing
