// core/codec/coders.h - internal to core/codec: one Coder per PMIx data type, grouped by family
// (scalars, strings/bytes, structs, nested values, stats, hwloc types), plus the helpers the
// families share (strings, blobs, counts, nested arrays).
//
// Contract of every unpack function: `elems` points at `n` ZEROED elements; on failure some of
// them may be partly filled but every one stays destructible with pmix::data::destruct_element
// (counts are only set together with the storage they describe). The caller cleans up.
#pragma once

#include "codec/wire.h"

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>

namespace pmix::codec::detail {

using wire::Reader;
using wire::Writer;

using PackFn = pmix_status_t (*)(Writer& w, const void* elems, std::size_t n) noexcept;
using UnpackFn = pmix_status_t (*)(Reader& r, void* elems, std::size_t n) noexcept;

struct Coder {
    std::size_t elem_size;  // sizeof one element in memory (as in a pmix_data_array_t)
    std::size_t min_wire;   // fewest bytes one element can occupy on the wire (>= 1)
    PackFn pack;
    UnpackFn unpack;
};

// nullptr for PMIX_UNDEF, holes and unknown types.
const Coder* coder_for(pmix_data_type_t type) noexcept;

// Per-family lookups (nullptr when the type belongs to another family).
const Coder* scalar_coder(pmix_data_type_t type) noexcept;
const Coder* string_coder(pmix_data_type_t type) noexcept;
const Coder* struct_coder(pmix_data_type_t type) noexcept;
const Coder* nested_coder(pmix_data_type_t type) noexcept;
const Coder* stats_coder(pmix_data_type_t type) noexcept;
const Coder* hwloc_coder(pmix_data_type_t type) noexcept;

// n elements of `type` (dispatch through coder_for; unknown type -> PMIX_ERR_UNKNOWN_DATA_TYPE
// when packing, kCorrupt when unpacking since the type came off the wire).
pmix_status_t pack_elements(Writer& w, const void* elems, std::size_t n,
                            pmix_data_type_t type) noexcept;
pmix_status_t unpack_elements(Reader& r, void* elems, std::size_t n,
                              pmix_data_type_t type) noexcept;

// ---- shared element helpers (pack_strings.cpp) ----

// u32 length + bytes; kNullString for NULL. Strings longer than 4 GiB - 2 are PMIX_ERR_BAD_PARAM.
pmix_status_t pack_string(Writer& w, const char* s) noexcept;
// `out` receives a malloc'd NUL-terminated copy (or NULL). `out` must be NULL on entry.
pmix_status_t unpack_string(Reader& r, char*& out) noexcept;

// A fixed char array (key, nspace): at most `max` characters are read from `s`; the wire form is
// an ordinary string. Unpacking refuses NULL and anything longer than `max` (kCorrupt) and
// writes into `dst`, which has room for max + 1 bytes.
pmix_status_t pack_bounded(Writer& w, const char* s, std::size_t max) noexcept;
pmix_status_t unpack_bounded(Reader& r, char* dst, std::size_t max) noexcept;

// u64 size + bytes. A NULL pointer with size > 0 is PMIX_ERR_BAD_PARAM; size 0 unpacks as NULL.
pmix_status_t pack_blob(Writer& w, const void* bytes, std::size_t size) noexcept;
pmix_status_t unpack_blob(Reader& r, char*& bytes, std::size_t& size) noexcept;

// NULL-terminated argv: u32 count + strings; count 0 unpacks as a NULL argv.
pmix_status_t pack_argv(Writer& w, char* const* argv) noexcept;
pmix_status_t unpack_argv(Reader& r, char**& argv) noexcept;

// Element counts inside structures are u32. pack_count: n > UINT32_MAX -> PMIX_ERR_BAD_PARAM.
pmix_status_t pack_count(Writer& w, std::size_t n) noexcept;

// Counted array of `type` (u32 count + elements). pack_array: NULL with n > 0 is BAD_PARAM.
// unpack_array allocates exactly `n` zeroed elements (never more than the remaining bytes can
// describe) and on failure releases everything, leaving arr == NULL and n == 0.
pmix_status_t pack_array(Writer& w, const void* arr, std::size_t n, pmix_data_type_t type) noexcept;
pmix_status_t unpack_array(Reader& r, void*& arr, std::size_t& n, pmix_data_type_t type) noexcept;

// struct timeval as i64 seconds + i64 microseconds (pack_scalars.cpp).
pmix_status_t pack_timeval(Writer& w, const struct timeval& tv) noexcept;
pmix_status_t unpack_timeval(Reader& r, struct timeval& tv) noexcept;

// Map a Writer failure (only allocation can fail) to a status.
inline pmix_status_t put(bool ok) noexcept { return ok ? PMIX_SUCCESS : PMIX_ERR_NOMEM; }
// Map a Reader failure (only running out of bytes can fail) to a status.
inline pmix_status_t got(bool ok) noexcept { return ok ? PMIX_SUCCESS : wire::kShort; }

}  // namespace pmix::codec::detail
