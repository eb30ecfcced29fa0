// expectations.cpp - reads the tab-separated expectation tables; '#' lines are comments.
#include "expectations.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace pmix::text::testing {
namespace {

// Splits on tabs only: fields may be empty or end in spaces, and both matter.
std::vector<std::string> split_tabs(const std::string& line) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (;;) {
        const std::size_t tab = line.find('\t', start);
        fields.push_back(line.substr(start, tab == std::string::npos ? tab : tab - start));
        if (tab == std::string::npos) {
            return fields;
        }
        start = tab + 1;
    }
}

std::vector<std::vector<std::string>> read_table(const char* path, std::size_t columns) {
    std::vector<std::vector<std::string>> rows;
    std::ifstream in(path);
    if (!in) {
        ADD_FAILURE() << "cannot read " << path;
        return rows;
    }
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') {
            continue;
        }
        auto fields = split_tabs(line);
        if (fields.size() != columns) {
            ADD_FAILURE() << path << ": expected " << columns << " fields in: " << line;
            continue;
        }
        rows.push_back(std::move(fields));
    }
    return rows;
}

}  // namespace

std::vector<StringCase> load_debian_strings() {
    std::vector<StringCase> cases;
    for (auto& f : read_table(PMIX_TEXT_DEBIAN_STRINGS, 3)) {
        cases.push_back({std::move(f[0]), std::move(f[1]), std::move(f[2])});
    }
    return cases;
}

std::vector<DictionaryRow> load_debian_dictionary() {
    std::vector<DictionaryRow> rows;
    for (auto& f : read_table(PMIX_TEXT_DEBIAN_DICTIONARY, 5)) {
        rows.push_back({std::move(f[0]), std::move(f[1]),
                        static_cast<unsigned>(std::strtoul(f[2].c_str(), nullptr, 10)),
                        std::move(f[3]), f[4] == "1"});
    }
    return rows;
}

std::vector<GeneratedRow> load_generated_attributes() {
    std::vector<GeneratedRow> rows;
    for (auto& f : read_table(PMIX_TEXT_ATTRIBUTES_TSV, 5)) {
        rows.push_back(
            {std::move(f[0]), std::move(f[1]), std::move(f[2]), std::move(f[3]), f[4] == "1"});
    }
    return rows;
}

long long parse_number(const std::string& text) {
    if (text.rfind("0x", 0) == 0) {
        return static_cast<long long>(std::strtoull(text.c_str(), nullptr, 16));
    }
    return std::strtoll(text.c_str(), nullptr, 10);
}

}  // namespace pmix::text::testing
