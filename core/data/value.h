// core/data/value.h - the typed-value model behind pmix_value_t, pmix_info_t and PMIx_Data_copy.
//
// Contract shared by core/data (which implements it), core/codec and capi/. Every payload these
// functions hand out is allocated with malloc/calloc/strdup so C callers may free() it, and every
// destruct function leaves its argument in the "constructed" (PMIX_UNDEF, zeroed) state.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <string>

namespace pmix::data {

// True for every data type this implementation can load, copy, compare, pack and print.
bool is_known_type(pmix_data_type_t type) noexcept;

// sizeof() of one element of `type` as stored in a pmix_data_array_t (e.g. sizeof(pmix_info_t) for
// PMIX_INFO, sizeof(char*) for PMIX_STRING); 0 for unknown types.
std::size_t element_size(pmix_data_type_t type) noexcept;

// Release whatever one element of `type` at `element` owns (strings, nested arrays, ...), not the
// element storage itself; the element is zeroed afterwards. Unknown types: nothing happens.
void destruct_element(void* element, pmix_data_type_t type) noexcept;

// Deep-copy one element: `dst` points at element_size(type) bytes of uninitialised storage.
pmix_status_t copy_element(void* dst, const void* src, pmix_data_type_t type) noexcept;

// PMIx_Value_* semantics (Standard "Value support"): load copies `data` (a pointer to the C value of
// `type`, e.g. `const char*` for PMIX_STRING is passed as the string itself as OpenPMIx does),
// unload hands out a malloc'd copy, xfer deep-copies, destruct releases.
pmix_status_t value_load(pmix_value_t* value, const void* data, pmix_data_type_t type) noexcept;
pmix_status_t value_unload(const pmix_value_t* value, void** data, std::size_t* size) noexcept;
pmix_status_t value_xfer(pmix_value_t* dst, const pmix_value_t* src) noexcept;
void value_destruct(pmix_value_t* value) noexcept;
pmix_value_cmp_t value_compare(const pmix_value_t* a, const pmix_value_t* b) noexcept;

// pmix_info_t helpers (key is truncated-checked: an over-long key is PMIX_ERR_BAD_PARAM).
pmix_status_t info_load(pmix_info_t* info, const char* key, const void* data,
                        pmix_data_type_t type) noexcept;
pmix_status_t info_xfer(pmix_info_t* dst, const pmix_info_t* src) noexcept;
void info_destruct(pmix_info_t* info) noexcept;

// pmix_data_array_t: allocate `count` zeroed elements of `type` / release everything it owns.
pmix_status_t data_array_init(pmix_data_array_t* array, std::size_t count,
                              pmix_data_type_t type) noexcept;
void data_array_destruct(pmix_data_array_t* array) noexcept;

// PMIx_Data_copy: *dest = malloc'd deep copy of the object of `type` at `src`.
pmix_status_t copy(void** dest, const void* src, pmix_data_type_t type) noexcept;

// Human-readable rendering used by PMIx_Data_print / PMIx_Value_string / PMIx_Info_string.
// Returns PMIX_ERR_UNKNOWN_DATA_TYPE / PMIX_ERR_BAD_PARAM on bad input, leaving `out` untouched.
pmix_status_t print(std::string& out, const char* prefix, const void* src,
                    pmix_data_type_t type) noexcept;

}  // namespace pmix::data
