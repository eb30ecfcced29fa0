// tests/fuzz/fuzz_unpack.cpp - PMIx_Data_unpack of an application's buffer (core/codec), for every
// data type, and PMIx_Data_decompress: bytes another process packed, perhaps a hostile one.
//
// Input: a type selector byte, a count byte, then the buffer. The buffer is first unpacked as the
// selected type (a wrong type must be PMIX_ERR_PACK_MISMATCH, not a misread), then batch by batch
// as peek() says, `count` elements at a time (fewer than the batch exercises the partial-unpack
// path, which rewrites the buffer). Besides "no crash": a failed unpack consumes nothing and hands
// out nothing; every element unpacked is released here, so what leaks is the decoder's.
#include "fuzz_input.h"

#include "codec/codec.h"
#include "data/value.h"

#include <cstdlib>
#include <vector>

namespace {

using pmix::fuzz::violated;

const std::vector<pmix_data_type_t>& known_types() {
    static const std::vector<pmix_data_type_t> types = [] {
        std::vector<pmix_data_type_t> t;
        for (unsigned i = 0; i < 256; ++i) {
            if (pmix::data::is_known_type(static_cast<pmix_data_type_t>(i))) {
                t.push_back(static_cast<pmix_data_type_t>(i));
            }
        }
        return t;
    }();
    return types;
}

// Unpacks up to `count` elements of `type`; false when the unpack failed.
bool unpack_some(pmix_data_buffer_t* buf, pmix_data_type_t type, std::int32_t count) {
    const std::size_t width = pmix::data::element_size(type);
    if (width == 0) return false;
    std::vector<std::uint8_t> dest(width * static_cast<std::size_t>(count), 0);
    const char* before = buf->unpack_ptr;
    std::int32_t n = count;
    const pmix_status_t rc = pmix::codec::unpack(buf, dest.data(), &n, type);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
        if (n != 0) violated("a failed unpack reports elements");
        if (buf->unpack_ptr != before) violated("a failed unpack consumed bytes");
        return false;
    }
    if (n < 0 || n > count) violated("an unpack reports more elements than room");
    for (std::int32_t i = 0; i < n; ++i) {
        pmix::data::destruct_element(dest.data() + width * static_cast<std::size_t>(i), type);
    }
    return true;
}

void decompress(std::span<const std::uint8_t> bytes) {
    std::uint8_t* out = nullptr;
    std::size_t n = 0;
    if (pmix::codec::decompress(bytes.data(), bytes.size(), &out, &n)) {
        std::free(out);
    } else if (out != nullptr || n != 0) {
        violated("a failed decompress handed out memory");
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pmix::fuzz::Input in(data, size);
    const auto& types = known_types();
    const pmix_data_type_t first = types[in.u8() % types.size()];
    const std::int32_t count = in.u8() % 8 + 1;
    const auto bytes = in.rest();

    pmix_data_buffer_t buf;
    std::memset(&buf, 0, sizeof buf);
    pmix_byte_object_t payload{const_cast<char*>(reinterpret_cast<const char*>(bytes.data())),
                               bytes.size()};
    if (pmix::codec::embed(&buf, &payload) != PMIX_SUCCESS) return 0;
    unpack_some(&buf, first, count);
    for (int batches = 0; batches < 64; ++batches) {
        pmix_data_type_t type = PMIX_UNDEF;
        std::size_t in_batch = 0;
        if (pmix::codec::peek(&buf, &type, &in_batch) != PMIX_SUCCESS) break;
        if (!unpack_some(&buf, type, count)) break;
    }
    pmix::codec::reset(&buf);
    decompress(bytes);
    return 0;
}
