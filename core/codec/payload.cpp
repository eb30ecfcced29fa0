// core/codec/payload.cpp - moving raw payload in and out of pmix_data_buffer_t
// (PMIx_Data_copy_payload / load / unload / embed).
#include "codec/codec.h"
#include "codec/wire.h"

#include <cstdlib>
#include <cstring>

namespace pmix::codec {
namespace {

std::size_t unpack_offset(const pmix_data_buffer_t& buf) noexcept {
    return buf.base_ptr == nullptr ? 0 : static_cast<std::size_t>(buf.unpack_ptr - buf.base_ptr);
}

}  // namespace

void reset(pmix_data_buffer_t* buffer) noexcept {
    if (buffer == nullptr) {
        return;
    }
    std::free(buffer->base_ptr);
    std::memset(buffer, 0, sizeof(*buffer));
}

pmix_status_t copy_payload(pmix_data_buffer_t* dest, const pmix_data_buffer_t* src) noexcept {
    if (dest == nullptr || src == nullptr || !wire::buffer_ok(*dest) || !wire::buffer_ok(*src)) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::size_t from = unpack_offset(*src);
    std::size_t n = src->base_ptr == nullptr ? 0 : src->bytes_used - from;
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    wire::Writer w(*dest);
    // Reserve first: when dest == src the reallocation moves the bytes we are about to copy,
    // so they are addressed by offset afterwards.
    if (!w.reserve(n)) {
        return PMIX_ERR_NOMEM;
    }
    w.bytes(src->base_ptr + from, n);
    return PMIX_SUCCESS;
}

pmix_status_t load(pmix_data_buffer_t* buffer, pmix_byte_object_t* payload) noexcept {
    if (buffer == nullptr ||
        (payload != nullptr && payload->bytes == nullptr && payload->size > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    // A buffer being loaded is overwritten; free what it held if it looks like ours.
    if (wire::buffer_ok(*buffer)) {
        std::free(buffer->base_ptr);
    }
    std::memset(buffer, 0, sizeof(*buffer));
    if (payload == nullptr || payload->bytes == nullptr) {
        return PMIX_SUCCESS;
    }
    buffer->base_ptr = payload->bytes;
    buffer->unpack_ptr = payload->bytes;
    buffer->pack_ptr = payload->bytes + payload->size;
    buffer->bytes_allocated = payload->size;
    buffer->bytes_used = payload->size;
    payload->bytes = nullptr;
    payload->size = 0;
    return PMIX_SUCCESS;
}

pmix_status_t unload(pmix_data_buffer_t* buffer, pmix_byte_object_t* payload) noexcept {
    if (buffer == nullptr || payload == nullptr || !wire::buffer_ok(*buffer)) {
        return PMIX_ERR_BAD_PARAM;
    }
    payload->bytes = nullptr;
    payload->size = 0;
    std::size_t from = unpack_offset(*buffer);
    std::size_t n = buffer->base_ptr == nullptr ? 0 : buffer->bytes_used - from;
    if (n > 0 && from == 0) {
        // Nothing consumed yet: hand over the allocation itself instead of copying it.
        payload->bytes = buffer->base_ptr;
        payload->size = n;
        buffer->base_ptr = nullptr;
    } else if (n > 0) {
        payload->bytes = static_cast<char*>(std::malloc(n));
        if (payload->bytes == nullptr) {
            return PMIX_ERR_NOMEM;
        }
        std::memcpy(payload->bytes, buffer->base_ptr + from, n);
        payload->size = n;
    }
    reset(buffer);
    return PMIX_SUCCESS;
}

pmix_status_t embed(pmix_data_buffer_t* buffer, const pmix_byte_object_t* payload) noexcept {
    if (buffer == nullptr ||
        (payload != nullptr && payload->bytes == nullptr && payload->size > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (wire::buffer_ok(*buffer)) {
        std::free(buffer->base_ptr);
    }
    std::memset(buffer, 0, sizeof(*buffer));
    if (payload == nullptr || payload->size == 0) {
        return PMIX_SUCCESS;
    }
    wire::Writer w(*buffer);
    return w.bytes(payload->bytes, payload->size) ? PMIX_SUCCESS : PMIX_ERR_NOMEM;
}

}  // namespace pmix::codec
