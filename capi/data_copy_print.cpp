// data_copy_print.cpp - C entry points PMIx_Data_copy, PMIx_Data_print, PMIx_Value_string and
// PMIx_Info_string (core/data). Printed text is handed out malloc'd; the caller frees it.
#include <pmix.h>

#include <string>

#include "data/value.h"
#include "shim_support.h"

namespace {

// Render `src` and hand the text to C; NULL when anything fails (the string functions have no
// status to report).
char* rendered(const void* src, pmix_data_type_t type) noexcept {
    return pmix::capi::guarded_or<char*>(nullptr, [&]() -> char* {
        std::string text;
        char* out = nullptr;
        if (src == nullptr || pmix::data::print(text, nullptr, src, type) != PMIX_SUCCESS ||
            pmix::capi::dup_string(text, &out) != PMIX_SUCCESS) {
            return nullptr;
        }
        return out;
    });
}

}  // namespace

extern "C" {

pmix_status_t PMIx_Data_copy(void** dest, void* src, pmix_data_type_t type) {
    return pmix::capi::guarded([&] { return pmix::data::copy(dest, src, type); });
}

pmix_status_t PMIx_Data_print(char** output, char* prefix, void* src, pmix_data_type_t type) {
    return pmix::capi::guarded([&] {
        if (output == nullptr || src == nullptr) {
            return PMIX_ERR_BAD_PARAM;
        }
        std::string text;
        pmix_status_t rc = pmix::data::print(text, prefix, src, type);
        return rc != PMIX_SUCCESS ? rc : pmix::capi::dup_string(text, output);
    });
}

char* PMIx_Value_string(const pmix_value_t* value) {
    return pmix::capi::guarded_or<char*>(nullptr, [&] { return rendered(value, PMIX_VALUE); });
}

char* PMIx_Info_string(const pmix_info_t* info) {
    return pmix::capi::guarded_or<char*>(nullptr, [&] { return rendered(info, PMIX_INFO); });
}

}  // extern "C"
