// gds/encode.h - how one pmix_value_t is kept in a segment, and how it comes back out.
//
// The writer encodes a value into (Encoding, type, scalar bits or payload bytes); the reader
// decodes from the same triple after region.cpp has bounds-checked the payload. Decoding checks
// that the payload has the shape its type requires (a string ends in NUL, a proc is exactly
// sizeof(pmix_proc_t), an array's count matches its bytes, a codec payload unpacks completely to
// the recorded type) and answers kErrCorrupt otherwise.
//
// The encodings (layout.h's Encoding), by type, and what get_view hands out for each:
//   scalar      the types of data/scalar_width.h (POINTER among them) and an empty UNDEF: the
//               union member's raw bytes (<= 8) inline in the record or column, bools as 0/1;
//               copied inline
//   string      a non-NULL STRING: blob of characters + NUL; data.string points into the store
//   bytes       BYTE_OBJECT, COMPRESSED_STRING, COMPRESSED_BYTE_OBJECT: blob of the bytes;
//               data.bo.bytes points into the store
//   flat        PROC, PROC_NSPACE, TIMEVAL: blob of the struct; data.proc/nspace into the store
//   flat_array  a DATA_ARRAY of a scalar, PROC, PROC_NSPACE or TIMEVAL: ArrayHeader{type, count}
//               + the elements; the elements in place, the array header lives in the view
//   codec       every other type (INFO, APP, arrays of those or of strings, NULL strings, ...):
//               core/codec's packing of the pmix_value_t; get_view gives an owned decoded copy
// A blob is BlobHeader{size, Kind::blob} + payload.
#pragma once

#include "gds/layout.h"
#include "gds/store.h"

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pmix::gds {

// The store's access to a ValueView's members.
struct ViewAccess {
    static pmix_value_t& value(ValueView& view) noexcept { return view.value_; }
    static pmix_data_array_t& array(ValueView& view) noexcept { return view.array_; }
    static void set_owned(ValueView& view, bool owned) noexcept { view.owned_ = owned; }
    static void set_source(ValueView& view, const void* source) noexcept { view.source_ = source; }
};

namespace enc {

// What the writer stages for one value. For Encoding::scalar the bits are in `scalar` and
// `size` is the scalar's width; otherwise `size` payload bytes were appended to the caller's
// byte vector.
struct Encoded {
    layout::Encoding encoding = layout::Encoding::scalar;
    std::uint16_t type = PMIX_UNDEF;
    std::uint32_t size = 0;
    std::uint64_t scalar = 0;
};

// PMIX_ERR_UNKNOWN_DATA_TYPE for types the store cannot hold, PMIX_ERR_BAD_PARAM for a payload
// larger than a segment can take, or the codec's error. On error `payload` is unchanged.
pmix_status_t encode(const pmix_value_t& value, Encoded& meta, std::vector<std::byte>& payload);

// A value as a reader found it: `bytes` (size bytes, already bounds-checked) unless scalar.
struct Stored {
    layout::Encoding encoding = layout::Encoding::scalar;
    std::uint16_t type = PMIX_UNDEF;
    std::uint32_t size = 0;
    std::uint64_t scalar = 0;
    const std::byte* bytes = nullptr;
};

// A malloc'd deep copy in *out (which is overwritten, not released first).
pmix_status_t decode_copy(const Stored& stored, pmix_value_t* out) noexcept;

// Pointers into the store where the type allows, an owned copy otherwise (ValueView).
pmix_status_t decode_view(const Stored& stored, ValueView& out) noexcept;

}  // namespace enc
}  // namespace pmix::gds
