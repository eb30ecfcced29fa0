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

// PMIx_Value_* semantics (Standard "Value support"): load copies `data` (a pointer to the C value
// of `type`, e.g. `const char*` for PMIX_STRING is passed as the string itself as OpenPMIx does),
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
// The first of n infos whose key is `key`; NULL when none (or `info` is NULL).
const pmix_info_t* find_info(const pmix_info_t* info, std::size_t n, const char* key) noexcept;
// Flags and the PMIX_INFO_REQD rule: directives.h. An owning info array: info_array.h.

// Releases n elements of `type` and the calloc'd block holding them (a NULL block is fine), as
// PMIX_*_FREE does; an unknown type is freed as a block.
void free_elements(void* block, std::size_t n, pmix_data_type_t type) noexcept;
inline void free_infos(pmix_info_t* infos, std::size_t n) noexcept {
    free_elements(infos, n, PMIX_INFO);
}

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

// ---- Additions by core/data (additive only; the declarations above are unchanged) ----
//
// Object conventions, as in OpenPMIx: copy() and print() take `src` = pointer to the object, except
// PMIX_STRING and PMIX_REGEX, where `src` is the char* itself, and print(PMIX_POINTER), where `src`
// is the pointer to print. The element-level functions (copy_element, destruct_element,
// compare_element, print_element) have no exceptions: they always take the element's address
// (a char** for PMIX_STRING and PMIX_REGEX, a void** for PMIX_POINTER).
//
// PMIX_UNDEF is not a "known type" (nothing can be copied or packed as UNDEF), but every value_*
// function accepts a PMIX_UNDEF value (empty), as OpenPMIx does.

// PMIX_KVAL element: a key/value pair. OpenPMIx's pmix_kval_t is an internal list item that never
// crosses the public ABI, so ours is a plain pair; both pointers are malloc'd and owned.
struct kval_t {
    char* key;
    pmix_value_t* value;
};

// True when a pmix_value_t of `type` keeps its payload behind a malloc'd pointer in value->data
// (PMIX_PROC, PMIX_DATA_ARRAY, PMIX_PROC_INFO, ... and PMIX_VALUE/APP/INFO/PDATA/QUERY/KVAL, which
// have no union member and live in data.ptr); false for payloads stored inline in the union.
bool value_holds_pointer(pmix_data_type_t type) noexcept;

// Address of the element a value holds (e.g. a char** for PMIX_STRING, a pmix_proc_t* for
// PMIX_PROC, a char** aliasing data.bo.bytes for PMIX_REGEX); nullptr for PMIX_UNDEF, unknown
// types and pointer-held types whose pointer is NULL. This is what the codec packs.
const void* value_element(const pmix_value_t* value) noexcept;

// Move an element (element_size(type) bytes at `element`, e.g. freshly unpacked) into `value`
// without deep-copying it; `element` is zeroed on success. Any previous content of `value` is
// overwritten, not released. PMIX_REGEX: the element is a NUL-terminated char*.
pmix_status_t value_adopt(pmix_value_t* value, void* element, pmix_data_type_t type) noexcept;

// Compare / print one element (see the conventions above). compare_element: both non-NULL.
pmix_value_cmp_t compare_element(const void* a, const void* b, pmix_data_type_t type) noexcept;
pmix_status_t print_element(std::string& out, const char* prefix, const void* element,
                            pmix_data_type_t type) noexcept;

}  // namespace pmix::data
