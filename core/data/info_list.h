// core/data/info_list.h - the opaque list behind PMIx_Info_list_start/add/insert/xfer/convert/
// release: a growable array of pmix_info_t that is turned into a pmix_data_array_t of PMIX_INFO.
#pragma once

#include <pmix_common.h>

namespace pmix::data {

// A new empty list, or nullptr when out of memory. The handle is what the C API hands out.
void* info_list_start() noexcept;

// Append a copy of (key, value of type) - PMIx_Info_load semantics, including the rule that an
// over-long key is PMIX_ERR_BAD_PARAM. NULL list -> PMIX_ERR_BAD_PARAM.
pmix_status_t info_list_add(void* list, const char* key, const void* value,
                            pmix_data_type_t type) noexcept;

// Append `info` WITHOUT copying its payload: the entry is marked PMIX_INFO_PERSISTENT, so neither
// the list nor the converted array will ever release the caller's value.
pmix_status_t info_list_insert(void* list, pmix_info_t* info) noexcept;

// Append a deep copy of `info` (a persistent `info` stays shared, see info_xfer).
pmix_status_t info_list_xfer(void* list, const pmix_info_t* info) noexcept;

// Fill `array` with a PMIX_INFO data array holding copies of the entries, in insertion order.
// An empty list gives PMIX_ERR_EMPTY with `array` set to {PMIX_INFO, 0, NULL} (as OpenPMIx).
pmix_status_t info_list_convert(void* list, pmix_data_array_t* array) noexcept;

// Release the list and every entry it owns. NULL is ignored.
void info_list_release(void* list) noexcept;

}  // namespace pmix::data
