// core/codec/engine.cpp - the batch layer: one pack call = [tag][type][count][elements].
// Pack is all-or-nothing (rollback on error); unpack stages into the caller's storage and only
// moves the buffer's unpack pointer once the whole request succeeded.
#include "codec/codec.h"
#include "codec/coders.h"

#include "base/le.h"
#include "data/value.h"

#include <algorithm>
#include <cstring>

namespace pmix::codec {
namespace {

using detail::Coder;
using wire::Reader;
using wire::Writer;

struct Batch {
    pmix_data_type_t type = PMIX_UNDEF;
    std::uint32_t count = 0;
};

std::size_t unread(const pmix_data_buffer_t& buf) noexcept {
    return buf.base_ptr == nullptr
               ? 0
               : buf.bytes_used - static_cast<std::size_t>(buf.unpack_ptr - buf.base_ptr);
}

Reader reader_for(const pmix_data_buffer_t& buf) noexcept {
    return Reader(reinterpret_cast<const unsigned char*>(buf.unpack_ptr), unread(buf));
}

pmix_status_t read_header(Reader& r, Batch& b) noexcept {
    if (r.remaining() == 0) {
        return PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER;
    }
    std::uint8_t tag = 0;
    std::uint16_t type = 0;
    if (!r.u8(tag)) {
        return wire::kShort;
    }
    if (tag != wire::kBatchTag) {
        return wire::kCorrupt;
    }
    if (!r.u16(type) || !r.u32(b.count)) {
        return wire::kShort;
    }
    b.type = type;
    return PMIX_SUCCESS;
}

void write_header(unsigned char* at, pmix_data_type_t type, std::uint32_t count) noexcept {
    at[0] = wire::kBatchTag;
    le::store<std::uint16_t>(at + 1, type);
    le::store<std::uint32_t>(at + 3, count);
}

void destruct_all(void* elems, std::size_t n, const Coder& c, pmix_data_type_t type) noexcept {
    auto* p = static_cast<unsigned char*>(elems);
    for (std::size_t i = 0; i < n; ++i) {
        pmix::data::destruct_element(p + i * c.elem_size, type);
    }
    std::memset(elems, 0, n * c.elem_size);
}

// The caller asked for fewer elements than the batch holds: turn the bytes just consumed into a
// fresh header for the remainder, so the next unpack continues where this one stopped. The
// consumed region (old header + at least one element) is always >= one header long.
void keep_remainder(pmix_data_buffer_t& buf, std::size_t consumed, const Batch& b,
                    std::uint32_t taken) noexcept {
    std::size_t at = consumed - wire::kBatchHeaderSize;
    write_header(reinterpret_cast<unsigned char*>(buf.unpack_ptr) + at, b.type, b.count - taken);
    buf.unpack_ptr += at;
}

}  // namespace

pmix_status_t pack(pmix_data_buffer_t* buffer, const void* src, std::int32_t num_vals,
                   pmix_data_type_t type) noexcept {
    if (buffer == nullptr || num_vals < 0 || (src == nullptr && num_vals > 0) ||
        !wire::buffer_ok(*buffer)) {
        return PMIX_ERR_BAD_PARAM;
    }
    const Coder* c = detail::coder_for(type);
    if (c == nullptr) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    auto n = static_cast<std::size_t>(num_vals);
    Writer w(*buffer);
    // One reservation covers fixed-width batches entirely and most others mostly.
    bool ok = w.reserve(wire::kBatchHeaderSize + n * c->min_wire) && w.u8(wire::kBatchTag) &&
              w.u16(type) && w.u32(static_cast<std::uint32_t>(n));
    pmix_status_t rc = ok ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
    if (rc == PMIX_SUCCESS && n > 0) {
        rc = c->pack(w, src, n);
    }
    if (rc != PMIX_SUCCESS) {
        w.rollback();
    }
    return rc;
}

pmix_status_t unpack(pmix_data_buffer_t* buffer, void* dest, std::int32_t* max_num_values,
                     pmix_data_type_t type) noexcept {
    if (max_num_values == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::int32_t room = *max_num_values;
    // Argument errors leave the caller's count untouched (as OpenPMIx does), so a retry with
    // corrected arguments still asks for the same number of values.
    if (buffer == nullptr || dest == nullptr || room < 0 || !wire::buffer_ok(*buffer)) {
        return PMIX_ERR_BAD_PARAM;
    }
    *max_num_values = 0;
    if (room == 0) {
        return PMIX_ERR_UNPACK_INADEQUATE_SPACE;
    }
    const Coder* c = detail::coder_for(type);
    if (c == nullptr) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    Reader r = reader_for(*buffer);
    Batch b;
    if (pmix_status_t rc = read_header(r, b); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (b.type != type) {
        return PMIX_ERR_PACK_MISMATCH;
    }
    auto take = static_cast<std::uint32_t>(std::min<std::uint64_t>(b.count, room));
    // The caller's storage is only touched for elements the bytes can really hold: a forged
    // count must not make us write beyond what an honest caller sized for the real data.
    if (!r.fits(take, c->min_wire)) {
        return wire::kShort;
    }
    std::memset(dest, 0, take * c->elem_size);
    if (take > 0) {
        if (pmix_status_t rc = c->unpack(r, dest, take); rc != PMIX_SUCCESS) {
            destruct_all(dest, take, *c, type);
            return rc;
        }
    }
    *max_num_values = static_cast<std::int32_t>(take);
    if (take < b.count) {
        keep_remainder(*buffer, r.pos(), b, take);
        return PMIX_ERR_UNPACK_INADEQUATE_SPACE;
    }
    buffer->unpack_ptr += r.pos();
    return PMIX_SUCCESS;
}

pmix_status_t peek(const pmix_data_buffer_t* buffer, pmix_data_type_t* type,
                   std::size_t* count) noexcept {
    if (buffer == nullptr || type == nullptr || count == nullptr || !wire::buffer_ok(*buffer)) {
        return PMIX_ERR_BAD_PARAM;
    }
    Reader r = reader_for(*buffer);
    Batch b;
    pmix_status_t rc = read_header(r, b);
    if (rc == PMIX_SUCCESS) {
        *type = b.type;
        *count = b.count;
    }
    return rc;
}

}  // namespace pmix::codec
