// info_list.cpp - C entry points PMIx_Info_list_start/add/insert/xfer/convert/release.
// The handle is an opaque pmix::data info list (core/data/info_list.h).
#include <pmix.h>

#include "data/info_list.h"
#include "shim_support.h"

extern "C" {

void* PMIx_Info_list_start(void) {
    return pmix::capi::guarded_or<void*>(nullptr, [&] { return pmix::data::info_list_start(); });
}

pmix_status_t PMIx_Info_list_add(void* ptr, const char* key, const void* value,
                                 pmix_data_type_t type) {
    return pmix::capi::guarded([&] { return pmix::data::info_list_add(ptr, key, value, type); });
}

pmix_status_t PMIx_Info_list_insert(void* ptr, pmix_info_t* info) {
    return pmix::capi::guarded([&] { return pmix::data::info_list_insert(ptr, info); });
}

pmix_status_t PMIx_Info_list_xfer(void* ptr, const pmix_info_t* info) {
    return pmix::capi::guarded([&] { return pmix::data::info_list_xfer(ptr, info); });
}

pmix_status_t PMIx_Info_list_convert(void* ptr, pmix_data_array_t* par) {
    return pmix::capi::guarded([&] { return pmix::data::info_list_convert(ptr, par); });
}

void PMIx_Info_list_release(void* ptr) {
    pmix::capi::guarded_void([&] { pmix::data::info_list_release(ptr); });
}

}  // extern "C"
