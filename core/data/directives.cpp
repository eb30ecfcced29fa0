// core/data/directives.cpp - see directives.h.
#include "data/directives.h"

#include "data/value.h"

#include <cstring>

namespace pmix::data {

bool key_is(const char* key, const char* name) noexcept {
    return key != nullptr && name != nullptr && std::strncmp(key, name, PMIX_MAX_KEYLEN) == 0;
}

bool key_is(const pmix_info_t& info, const char* key) noexcept { return key_is(info.key, key); }

bool flag_true(const pmix_info_t& info) noexcept { return PMIX_INFO_TRUE(&info); }

bool info_true(const pmix_info_t* info, std::size_t n, const char* key) noexcept {
    const pmix_info_t* i = find_info(info, n, key);
    return i != nullptr && flag_true(*i);
}

const char* string_of(const pmix_info_t* info, std::size_t n, const char* key) noexcept {
    const pmix_info_t* i = find_info(info, n, key);
    return i != nullptr && i->value.type == PMIX_STRING ? i->value.data.string : nullptr;
}

const pmix_info_t* unknown_required(const pmix_info_t* info, std::size_t n,
                                    std::span<const char* const> known) noexcept {
    for (std::size_t i = 0; info != nullptr && i < n; ++i) {
        if (!PMIX_INFO_IS_REQUIRED(&info[i])) continue;
        bool understood = false;
        for (const char* k : known) understood = understood || key_is(info[i], k);
        if (!understood) return &info[i];
    }
    return nullptr;
}

}  // namespace pmix::data
