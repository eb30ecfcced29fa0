// value.cpp - C entry points of the value model: PMIx_Value_*, PMIx_Info_load/xfer and
// PMIx_Data_array_destruct. Thin shims over pmix::data (core/data/value.h), whose functions are
// noexcept and do their own argument checks; where OpenPMIx 4.2.2 crashes on a NULL argument
// they return PMIX_ERR_BAD_PARAM (or do nothing, for the void functions).
#include <pmix.h>

#include "data/value.h"
#include "shim_support.h"

extern "C" {

pmix_status_t PMIx_Value_load(pmix_value_t* val, const void* data, pmix_data_type_t type) {
    return pmix::capi::guarded([&] { return pmix::data::value_load(val, data, type); });
}

pmix_status_t PMIx_Value_unload(pmix_value_t* val, void** data, size_t* sz) {
    return pmix::capi::guarded([&] { return pmix::data::value_unload(val, data, sz); });
}

void PMIx_Value_destruct(pmix_value_t* val) {
    pmix::capi::guarded_void([&] { pmix::data::value_destruct(val); });
}

pmix_status_t PMIx_Value_xfer(pmix_value_t* dest, const pmix_value_t* src) {
    return pmix::capi::guarded([&] { return pmix::data::value_xfer(dest, src); });
}

pmix_value_cmp_t PMIx_Value_compare(pmix_value_t* v1, pmix_value_t* v2) {
    return pmix::capi::guarded_or<pmix_value_cmp_t>(
        PMIX_VALUE_COMPARISON_NOT_AVAIL, [&] { return pmix::data::value_compare(v1, v2); });
}

void PMIx_Data_array_destruct(pmix_data_array_t* d) {
    pmix::capi::guarded_void([&] { pmix::data::data_array_destruct(d); });
}

// Unlike OpenPMIx, a key longer than PMIX_MAX_KEYLEN is PMIX_ERR_BAD_PARAM, not truncated.
pmix_status_t PMIx_Info_load(pmix_info_t* info, const char* key, const void* data,
                             pmix_data_type_t type) {
    return pmix::capi::guarded([&] { return pmix::data::info_load(info, key, data, type); });
}

pmix_status_t PMIx_Info_xfer(pmix_info_t* dest, const pmix_info_t* src) {
    return pmix::capi::guarded([&] { return pmix::data::info_xfer(dest, src); });
}

}  // extern "C"
