// core/codec/codec.h - pack/unpack of every PMIx data type into pmix_data_buffer_t, the buffer
// payload operations and zlib compression. Backs PMIx_Data_pack/unpack/copy_payload/load/unload/
// embed/compress/decompress (capi/data_buffer.cpp) and is what wire/ uses for messages.
//
// Buffers: a pmix_data_buffer_t is used exactly as the PMIX_DATA_BUFFER_* macros expect:
// base_ptr is malloc'd (free() releases it), bytes_used bytes are valid, pack_ptr ==
// base_ptr + bytes_used, unpack_ptr points at the next unread byte, bytes_allocated >= bytes_used.
// A zeroed buffer is a valid empty buffer. Every function leaves the buffer consistent; on error
// nothing is added (pack) and nothing is consumed (unpack).
//
// Wire format: see README.md. Each pack call appends one self-describing batch, so unpacking
// with another type fails with PMIX_ERR_PACK_MISMATCH instead of misreading bytes.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>

namespace pmix::codec {

// Append `num_vals` elements of `type` read from `src` (an array of that type's C element:
// char* for PMIX_STRING/PMIX_REGEX, pmix_value_t for PMIX_VALUE, pmix_data_array_t for
// PMIX_DATA_ARRAY, ...). Errors: NULL buffer, negative count, NULL src with a count ->
// PMIX_ERR_BAD_PARAM; unknown type -> PMIX_ERR_UNKNOWN_DATA_TYPE; a non-hwloc cpuset/topology ->
// PMIX_ERR_NOT_SUPPORTED; out of memory -> PMIX_ERR_NOMEM.
pmix_status_t pack(pmix_data_buffer_t* buffer, const void* src, std::int32_t num_vals,
                   pmix_data_type_t type) noexcept;

// Unpack the next batch into `dest`, which has room for *max_num_values elements of `type`;
// *max_num_values returns how many were stored. Every unpacked pointer is malloc'd and owned by
// the caller. Results:
//   PMIX_SUCCESS                              whole batch unpacked
//   PMIX_ERR_UNPACK_INADEQUATE_SPACE          *max_num_values < batch size: that many were
//                                             unpacked and the rest of the batch stays in the
//                                             buffer for the next call (*max_num_values == 0
//                                             on entry: nothing happens). To keep the rest
//                                             readable the consumed bytes are rewritten into a
//                                             header, so the buffer memory must be writable (it
//                                             is for every buffer built by pack/load/embed).
//   PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER   nothing left, or the batch is truncated
//   PMIX_ERR_PACK_MISMATCH                    the batch holds another type
//   PMIX_ERR_UNPACK_FAILURE                   the bytes are not a valid batch
//   PMIX_ERR_UNKNOWN_DATA_TYPE / PMIX_ERR_BAD_PARAM
// On any error *max_num_values is 0, dest holds no allocations and the buffer is unchanged.
pmix_status_t unpack(pmix_data_buffer_t* buffer, void* dest, std::int32_t* max_num_values,
                     pmix_data_type_t type) noexcept;

// Type and element count of the next batch without consuming it.
pmix_status_t peek(const pmix_data_buffer_t* buffer, pmix_data_type_t* type,
                   std::size_t* count) noexcept;

// Append the unread bytes of `src` to `dest` (dest == src is allowed).
pmix_status_t copy_payload(pmix_data_buffer_t* dest, const pmix_data_buffer_t* src) noexcept;

// PMIx_Data_load: `buffer` takes ownership of payload->bytes (malloc'd), payload is zeroed.
// A NULL payload just empties the buffer.
pmix_status_t load(pmix_data_buffer_t* buffer, pmix_byte_object_t* payload) noexcept;
// PMIx_Data_unload: hand the unread bytes to `payload` (malloc'd) and empty the buffer.
pmix_status_t unload(pmix_data_buffer_t* buffer, pmix_byte_object_t* payload) noexcept;
// PMIx_Data_embed: like load, but copies the payload and leaves it untouched.
pmix_status_t embed(pmix_data_buffer_t* buffer, const pmix_byte_object_t* payload) noexcept;

// Free the payload and zero the buffer (PMIX_DATA_BUFFER_DESTRUCT).
void reset(pmix_data_buffer_t* buffer) noexcept;

// zlib compression with our own header (magic + original length). compress: false for NULL or
// empty input; decompress: false for anything compress() did not produce (bad magic, truncated,
// corrupt, trailing bytes, implausible length). *outbytes is malloc'd and, for convenience,
// NUL-terminated one byte past *nbytes. On false, *outbytes is NULL and *nbytes 0.
bool compress(const std::uint8_t* inbytes, std::size_t size, std::uint8_t** outbytes,
              std::size_t* nbytes) noexcept;
bool decompress(const std::uint8_t* inbytes, std::size_t size, std::uint8_t** outbytes,
                std::size_t* nbytes) noexcept;

}  // namespace pmix::codec
