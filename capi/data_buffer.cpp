// capi/data_buffer.cpp - C entry points of the data-buffer family (core/codec): PMIx_Data_pack,
// _unpack, _copy_payload, _load, _unload, _embed, _compress, _decompress. The codec functions are
// noexcept; the guards are there anyway, so that the rule (every shim in a guard) has no
// exceptions to remember when a function changes.
//
// The target/source process of pack/unpack selects a peer's wire format in OpenPMIx. Every peer
// of this library speaks one format, so the argument is accepted and not needed.
#include <pmix.h>

#include "codec/codec.h"
#include "shim_support.h"

extern "C" {

pmix_status_t PMIx_Data_pack(const pmix_proc_t* target, pmix_data_buffer_t* buffer, void* src,
                             int32_t num_vals, pmix_data_type_t type) {
    return pmix::capi::guarded([&] {
        (void)target;
        return pmix::codec::pack(buffer, src, num_vals, type);
    });
}

pmix_status_t PMIx_Data_unpack(const pmix_proc_t* source, pmix_data_buffer_t* buffer, void* dest,
                               int32_t* max_num_values, pmix_data_type_t type) {
    return pmix::capi::guarded([&] {
        (void)source;
        return pmix::codec::unpack(buffer, dest, max_num_values, type);
    });
}

pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t* dest, pmix_data_buffer_t* src) {
    return pmix::capi::guarded([&] { return pmix::codec::copy_payload(dest, src); });
}

pmix_status_t PMIx_Data_unload(pmix_data_buffer_t* buffer, pmix_byte_object_t* payload) {
    return pmix::capi::guarded([&] { return pmix::codec::unload(buffer, payload); });
}

pmix_status_t PMIx_Data_load(pmix_data_buffer_t* buffer, pmix_byte_object_t* payload) {
    return pmix::capi::guarded([&] { return pmix::codec::load(buffer, payload); });
}

pmix_status_t PMIx_Data_embed(pmix_data_buffer_t* buffer, const pmix_byte_object_t* payload) {
    return pmix::capi::guarded([&] { return pmix::codec::embed(buffer, payload); });
}

bool PMIx_Data_compress(const uint8_t* inbytes, size_t size, uint8_t** outbytes, size_t* nbytes) {
    return pmix::capi::guarded_or<bool>(
        false, [&] { return pmix::codec::compress(inbytes, size, outbytes, nbytes); });
}

bool PMIx_Data_decompress(const uint8_t* inbytes, size_t size, uint8_t** outbytes, size_t* nbytes) {
    return pmix::capi::guarded_or<bool>(
        false, [&] { return pmix::codec::decompress(inbytes, size, outbytes, nbytes); });
}

}  // extern "C"
