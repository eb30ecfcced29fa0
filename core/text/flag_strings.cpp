// flag_strings.cpp - text for the two flag sets OpenPMIx spells out word by word.
//
// Only the low four bits of either set carry a printed meaning, so all sixteen answers are built
// at compile time and an answer is a table lookup: no allocation, no shared buffer (OpenPMIx
// formats PMIx_IOF_channel_string into one static buffer; the text is the same, but ours is safe
// to call from several threads).
#include "text/text.h"

#include <array>
#include <cstddef>
#include <string_view>
#include <utility>

namespace pmix::text {
namespace {

using Text = std::array<char, 48>;
using Table = std::array<Text, 16>;

constexpr void append(Text& text, std::size_t& used, std::string_view word) {
    for (char c : word) {
        text[used++] = c;
    }
    text[used] = '\0';
}

// IOF channels: each selected channel's name followed by one space (so the text ends in a space),
// or "NONE".
static_assert(PMIX_FWD_STDIN_CHANNEL == 0x1 && PMIX_FWD_STDOUT_CHANNEL == 0x2 &&
                  PMIX_FWD_STDERR_CHANNEL == 0x4 && PMIX_FWD_STDDIAG_CHANNEL == 0x8,
              "the channel table is indexed by the low four bits");

constexpr Table make_channel_table() {
    constexpr std::pair<unsigned, std::string_view> kWords[] = {
        {PMIX_FWD_STDIN_CHANNEL, "STDIN "},
        {PMIX_FWD_STDOUT_CHANNEL, "STDOUT "},
        {PMIX_FWD_STDERR_CHANNEL, "STDERR "},
        {PMIX_FWD_STDDIAG_CHANNEL, "STDDIAG "},
    };
    Table table{};
    for (unsigned bits = 0; bits < table.size(); ++bits) {
        std::size_t used = 0;
        for (const auto& [flag, word] : kWords) {
            if ((bits & flag) != 0) {
                append(table[bits], used, word);
            }
        }
        if (used == 0) {
            append(table[bits], used, "NONE");
        }
    }
    return table;
}

// Info directives: a qualifier is just "QUALIFIER"; anything else is REQUIRED or OPTIONAL,
// then ":PROCESSED" and ":END" when those flags are set.
static_assert(PMIX_INFO_REQD == 0x1 && PMIX_INFO_ARRAY_END == 0x2 &&
                  PMIX_INFO_REQD_PROCESSED == 0x4 && PMIX_INFO_QUALIFIER == 0x8,
              "the directive table is indexed by the low four bits");

constexpr Table make_directive_table() {
    Table table{};
    for (unsigned bits = 0; bits < table.size(); ++bits) {
        std::size_t used = 0;
        if ((bits & PMIX_INFO_QUALIFIER) != 0) {
            append(table[bits], used, "QUALIFIER");
            continue;
        }
        append(table[bits], used, (bits & PMIX_INFO_REQD) != 0 ? "REQUIRED" : "OPTIONAL");
        if ((bits & PMIX_INFO_REQD_PROCESSED) != 0) {
            append(table[bits], used, ":PROCESSED");
        }
        if ((bits & PMIX_INFO_ARRAY_END) != 0) {
            append(table[bits], used, ":END");
        }
    }
    return table;
}

constexpr Table kChannelTexts = make_channel_table();
constexpr Table kDirectiveTexts = make_directive_table();

}  // namespace

const char* iof_channel_string(pmix_iof_channel_t channels) noexcept {
    return kChannelTexts[channels & 0x0fu].data();
}

const char* info_directives_string(pmix_info_directives_t directives) noexcept {
    return kDirectiveTexts[directives & 0x0fu].data();
}

}  // namespace pmix::text
