// core/codec/compress.cpp - PMIx_Data_compress/decompress: a zlib stream behind our own header,
//   [4 bytes "PXZ1"][u64 original length, little-endian][zlib stream (with adler32 check)]
// The header lets decompress size its output exactly and refuse foreign or truncated input
// before zlib runs; zlib's own checksum catches corruption inside the stream.
#include "codec/codec.h"

#include "base/le.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <limits>

namespace pmix::codec {
namespace {

constexpr unsigned char kMagic[4] = {'P', 'X', 'Z', '1'};
constexpr std::size_t kHeader = sizeof(kMagic) + 8;
// deflate cannot do better than about 1032:1, so a claimed length beyond this ratio is a lie and
// must not drive an allocation.
constexpr std::uint64_t kMaxRatio = 1032;
constexpr std::uint64_t kSlack = 64;

void fail(std::uint8_t** out, std::size_t* n) noexcept {
    if (out != nullptr) {
        *out = nullptr;
    }
    if (n != nullptr) {
        *n = 0;
    }
}

}  // namespace

bool compress(const std::uint8_t* inbytes, std::size_t size, std::uint8_t** outbytes,
              std::size_t* nbytes) noexcept {
    fail(outbytes, nbytes);
    if (inbytes == nullptr || size == 0 || outbytes == nullptr || nbytes == nullptr) {
        return false;
    }
    uLong bound = compressBound(static_cast<uLong>(size));
    if (bound > std::numeric_limits<std::size_t>::max() - kHeader - 1) {
        return false;
    }
    auto* out = static_cast<unsigned char*>(std::malloc(kHeader + bound + 1));
    if (out == nullptr) {
        return false;
    }
    uLongf zlen = bound;
    // compress2 loops internally, so inputs beyond 4 GiB are fine on LP64.
    if (compress2(out + kHeader, &zlen, inbytes, static_cast<uLong>(size), Z_DEFAULT_COMPRESSION) !=
        Z_OK) {
        std::free(out);
        return false;
    }
    std::memcpy(out, kMagic, sizeof(kMagic));
    le::store<std::uint64_t>(out + sizeof(kMagic), size);
    out[kHeader + zlen] = 0;
    *outbytes = out;
    *nbytes = kHeader + zlen;
    return true;
}

bool decompress(const std::uint8_t* inbytes, std::size_t size, std::uint8_t** outbytes,
                std::size_t* nbytes) noexcept {
    fail(outbytes, nbytes);
    if (inbytes == nullptr || outbytes == nullptr || nbytes == nullptr || size <= kHeader ||
        std::memcmp(inbytes, kMagic, sizeof(kMagic)) != 0) {
        return false;
    }
    std::uint64_t want = le::load<std::uint64_t>(inbytes + sizeof(kMagic));
    std::uint64_t zsize = size - kHeader;
    if (want == 0 || want > zsize * kMaxRatio + kSlack ||
        want >= std::numeric_limits<std::size_t>::max()) {
        return false;
    }
    auto* out = static_cast<unsigned char*>(std::malloc(static_cast<std::size_t>(want) + 1));
    if (out == nullptr) {
        return false;
    }
    uLongf got = static_cast<uLongf>(want);
    uLong consumed = static_cast<uLong>(zsize);
    int rc = uncompress2(out, &got, inbytes + kHeader, &consumed);
    // Exactly the promised length, from exactly the bytes given: anything else is not ours.
    if (rc != Z_OK || got != want || consumed != zsize) {
        std::free(out);
        return false;
    }
    out[want] = 0;
    *outbytes = out;
    *nbytes = static_cast<std::size_t>(want);
    return true;
}

}  // namespace pmix::codec
