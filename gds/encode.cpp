// gds/encode.cpp - value <-> segment bytes (see encode.h).
#include "gds/encode.h"

#include "codec/codec.h"
#include "data/scalar_width.h"
#include "data/value.h"

#include <sys/time.h>
#include <sys/types.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace pmix::gds {

ValueView::ValueView() noexcept : value_{}, array_{} { value_.type = PMIX_UNDEF; }
ValueView::~ValueView() { reset(); }

void ValueView::reset() noexcept {
    if (owned_) {
        data::value_destruct(&value_);
    }
    value_ = pmix_value_t{};
    value_.type = PMIX_UNDEF;
    array_ = pmix_data_array_t{};
    source_ = nullptr;
    owned_ = false;
}

namespace enc {
namespace {

using layout::Encoding;

// Width of a scalar stored inline (Encoding::scalar), 0 for any other type.
std::uint32_t scalar_width(pmix_data_type_t type) noexcept {
    return static_cast<std::uint32_t>(data::scalar_width(type));
}

// A payload must fit a segment; anything near 4 GiB is refused up front.
constexpr std::size_t kMaxPayload = std::size_t{UINT32_MAX} - 4096;

// Types whose payload is one pointer-free struct; `boxed` ones live behind a pointer in the
// value union (data.proc, data.nspace), the others inline (data.tv).
struct FlatInfo {
    std::uint32_t size = 0;
    bool boxed = false;
};
FlatInfo flat_info(pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_TIMEVAL:
            return {sizeof(struct timeval), false};
        case PMIX_PROC:
            return {sizeof(pmix_proc_t), true};
        case PMIX_PROC_NSPACE:
            return {sizeof(pmix_nspace_t), true};
        default:
            return {};
    }
}

// Element types a flat_array may hold: scalars and the flat structs (all pointer-free).
std::uint32_t flat_element_size(pmix_data_type_t type) noexcept {
    const std::uint32_t s = scalar_width(type);
    return s != 0 ? s : flat_info(type).size;
}

const void* flat_source(const pmix_value_t& v) noexcept {
    switch (v.type) {
        case PMIX_TIMEVAL:
            return &v.data.tv;
        case PMIX_PROC:
            return v.data.proc;
        case PMIX_PROC_NSPACE:
            return v.data.nspace;
        default:
            return nullptr;
    }
}

void append(std::vector<std::byte>& out, const void* src, std::size_t n) {
    const auto* p = static_cast<const std::byte*>(src);
    out.insert(out.end(), p, p + n);
}

// Booleans travel as one byte; anything but 0 reads as true so that a damaged byte can never
// produce a bool with an invalid object representation.
void normalise_bools(std::byte* p, std::size_t n) noexcept {
    for (std::size_t i = 0; i < n; ++i) {
        p[i] = p[i] == std::byte{0} ? std::byte{0} : std::byte{1};
    }
}

pmix_status_t encode_codec(const pmix_value_t& value, Encoded& meta,
                           std::vector<std::byte>& payload) {
    pmix_data_buffer_t buffer{};
    const pmix_status_t rc = codec::pack(&buffer, &value, 1, PMIX_VALUE);
    if (rc != PMIX_SUCCESS) {
        codec::reset(&buffer);
        return rc;
    }
    if (buffer.bytes_used > kMaxPayload) {
        codec::reset(&buffer);
        return PMIX_ERR_BAD_PARAM;
    }
    meta.encoding = Encoding::codec;
    meta.size = static_cast<std::uint32_t>(buffer.bytes_used);
    append(payload, buffer.base_ptr, buffer.bytes_used);
    codec::reset(&buffer);
    return PMIX_SUCCESS;
}

bool flat_array_eligible(const pmix_value_t& v) noexcept {
    if (v.type != PMIX_DATA_ARRAY || v.data.darray == nullptr) {
        return false;
    }
    const pmix_data_array_t& a = *v.data.darray;
    const std::uint32_t elem = flat_element_size(a.type);
    return elem != 0 && (a.size == 0 || a.array != nullptr) && a.size <= UINT32_MAX &&
           a.size <= (kMaxPayload - sizeof(layout::ArrayHeader)) / elem;
}

void encode_flat_array(const pmix_data_array_t& a, Encoded& meta, std::vector<std::byte>& payload) {
    const std::uint32_t elem = flat_element_size(a.type);
    const layout::ArrayHeader header{a.type, 0, static_cast<std::uint32_t>(a.size)};
    const std::size_t start = payload.size();
    append(payload, &header, sizeof(header));
    append(payload, a.array, a.size * elem);
    if (a.type == PMIX_BOOL) {
        normalise_bools(payload.data() + start + sizeof(header), a.size);
    }
    meta.encoding = Encoding::flat_array;
    meta.size = static_cast<std::uint32_t>(payload.size() - start);
}

}  // namespace

pmix_status_t encode(const pmix_value_t& value, Encoded& meta, std::vector<std::byte>& payload) {
    meta = Encoded{};
    meta.type = value.type;
    if (value.type == PMIX_UNDEF) {
        return PMIX_SUCCESS;  // an empty value: scalar of width 0
    }
    if (!data::is_known_type(value.type)) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    if (const std::uint32_t width = scalar_width(value.type); width != 0) {
        std::memcpy(&meta.scalar, &value.data, width);
        if (value.type == PMIX_BOOL) {
            meta.scalar = value.data.flag ? 1 : 0;
        }
        meta.size = width;
        return PMIX_SUCCESS;
    }
    switch (value.type) {
        case PMIX_STRING:
            if (value.data.string == nullptr) {
                break;  // a NULL string has no characters to keep: the codec records it
            }
            if (const std::size_t n = std::strlen(value.data.string) + 1; n <= kMaxPayload) {
                meta.encoding = Encoding::string;
                meta.size = static_cast<std::uint32_t>(n);
                append(payload, value.data.string, n);
                return PMIX_SUCCESS;
            }
            return PMIX_ERR_BAD_PARAM;
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            if (value.data.bo.size > kMaxPayload ||
                (value.data.bo.size != 0 && value.data.bo.bytes == nullptr)) {
                return PMIX_ERR_BAD_PARAM;
            }
            meta.encoding = Encoding::bytes;
            meta.size = static_cast<std::uint32_t>(value.data.bo.size);
            append(payload, value.data.bo.bytes, value.data.bo.size);
            return PMIX_SUCCESS;
        default:
            break;
    }
    if (const FlatInfo flat = flat_info(value.type); flat.size != 0 && flat_source(value)) {
        meta.encoding = Encoding::flat;
        meta.size = flat.size;
        append(payload, flat_source(value), flat.size);
        return PMIX_SUCCESS;
    }
    if (flat_array_eligible(value)) {
        encode_flat_array(*value.data.darray, meta, payload);
        return PMIX_SUCCESS;
    }
    return encode_codec(value, meta, payload);
}

// ---- decoding -----------------------------------------------------------------------------------
namespace {

// Checks shared by both decoders: the payload has the shape its encoding and type require.
bool shape_ok(const Stored& s) noexcept {
    switch (s.encoding) {
        case Encoding::scalar:
            return s.type == PMIX_UNDEF ? s.size == 0
                                        : (s.size != 0 && s.size == scalar_width(s.type));
        case Encoding::string:
            return s.type == PMIX_STRING && s.size >= 1 && s.bytes[s.size - 1] == std::byte{0};
        case Encoding::bytes:
            return s.type == PMIX_BYTE_OBJECT || s.type == PMIX_COMPRESSED_STRING ||
                   s.type == PMIX_COMPRESSED_BYTE_OBJECT;
        case Encoding::flat:
            return flat_info(s.type).size != 0 && s.size == flat_info(s.type).size;
        case Encoding::flat_array: {
            if (s.type != PMIX_DATA_ARRAY || s.size < sizeof(layout::ArrayHeader)) {
                return false;
            }
            layout::ArrayHeader h{};
            std::memcpy(&h, s.bytes, sizeof(h));
            const std::uint32_t elem = flat_element_size(h.type);
            return elem != 0 && std::uint64_t{h.count} * elem == s.size - sizeof(h);
        }
        case Encoding::codec:
            return data::is_known_type(s.type);
    }
    return false;
}

void decode_scalar(const Stored& s, pmix_value_t& out) noexcept {
    out.type = s.type;
    std::memset(&out.data, 0, sizeof(out.data));
    if (s.type == PMIX_BOOL) {
        out.data.flag = (s.scalar & 0xff) != 0;
    } else {
        std::memcpy(&out.data, &s.scalar, s.size);
    }
}

pmix_status_t decode_codec(const Stored& s, pmix_value_t& out) noexcept {
    // The codec only reads through unpack_ptr; it never writes to the (read-only) bytes.
    char* base = const_cast<char*>(reinterpret_cast<const char*>(s.bytes));
    pmix_data_buffer_t buffer{base, base + s.size, base, s.size, s.size};
    // A batch of more than one value would make unpack rewrite the consumed bytes (its partial
    // unpack, codec.h): a write into a PROT_READ mapping. A damaged segment can hold one, so the
    // batch is checked first (found by tests/fuzz's store harness).
    pmix_data_type_t batch_type = PMIX_UNDEF;
    std::size_t batch_count = 0;
    if (codec::peek(&buffer, &batch_type, &batch_count) != PMIX_SUCCESS ||
        batch_type != PMIX_VALUE || batch_count != 1) {
        return kErrCorrupt;
    }
    pmix_value_t tmp{};
    std::int32_t n = 1;
    const pmix_status_t rc = codec::unpack(&buffer, &tmp, &n, PMIX_VALUE);
    if (rc != PMIX_SUCCESS) {
        if (n > 0) data::value_destruct(&tmp);
        return kErrCorrupt;
    }
    if (n != 1 || buffer.unpack_ptr != base + s.size || tmp.type != s.type) {
        data::value_destruct(&tmp);
        return kErrCorrupt;
    }
    out = tmp;
    return PMIX_SUCCESS;
}

// Fill `out` with pointers into the stored bytes (no allocation). `array` backs a flat array.
void point_into(const Stored& s, pmix_value_t& out, pmix_data_array_t& array) noexcept {
    auto* bytes = const_cast<std::byte*>(s.bytes);  // read-only: see ValueView
    out.type = s.type;
    std::memset(&out.data, 0, sizeof(out.data));
    switch (s.encoding) {
        case Encoding::string:
            out.data.string = reinterpret_cast<char*>(bytes);
            break;
        case Encoding::bytes:
            out.data.bo.bytes = s.size == 0 ? nullptr : reinterpret_cast<char*>(bytes);
            out.data.bo.size = s.size;
            break;
        case Encoding::flat:
            if (s.type == PMIX_TIMEVAL) {
                std::memcpy(&out.data.tv, bytes, sizeof(out.data.tv));
            } else {
                out.data.ptr = bytes;  // data.proc / data.nspace share the pointer slot
            }
            break;
        case Encoding::flat_array: {
            layout::ArrayHeader h{};
            std::memcpy(&h, bytes, sizeof(h));
            array.type = h.type;
            array.size = h.count;
            array.array = h.count == 0 ? nullptr : bytes + sizeof(h);
            out.data.darray = &array;
            break;
        }
        default:
            break;
    }
}

bool nspace_ok(const std::byte* p) noexcept {
    return std::memchr(p, 0, sizeof(pmix_nspace_t)) != nullptr;
}

// Element contents that a damaged segment could make invalid: a bool that is neither 0 nor 1, a
// namespace without its NUL (a later strlen would run past the record).
bool elements_ok(pmix_data_type_t type, const std::byte* p, std::uint32_t count) noexcept {
    const std::uint32_t elem = flat_element_size(type);
    for (std::uint32_t i = 0; i < count; ++i, p += elem) {
        if (type == PMIX_BOOL && *p != std::byte{0} && *p != std::byte{1}) {
            return false;
        }
        if ((type == PMIX_PROC || type == PMIX_PROC_NSPACE) && !nspace_ok(p)) {
            return false;
        }
    }
    return true;
}

bool contents_ok(const Stored& s) noexcept {
    if (s.encoding == Encoding::flat) {
        return elements_ok(s.type, s.bytes, 1);
    }
    if (s.encoding != Encoding::flat_array) {
        return true;
    }
    layout::ArrayHeader h{};
    std::memcpy(&h, s.bytes, sizeof(h));
    return elements_ok(h.type, s.bytes + sizeof(h), h.count);
}

}  // namespace

pmix_status_t decode_copy(const Stored& s, pmix_value_t* out) noexcept {
    if (out == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!shape_ok(s) || !contents_ok(s)) {
        return kErrCorrupt;
    }
    if (s.encoding == Encoding::scalar) {
        decode_scalar(s, *out);
        return PMIX_SUCCESS;
    }
    if (s.encoding == Encoding::codec) {
        return decode_codec(s, *out);
    }
    pmix_value_t view{};
    pmix_data_array_t array{};
    point_into(s, view, array);
    pmix_value_t copy{};
    const pmix_status_t rc = data::value_xfer(&copy, &view);
    if (rc != PMIX_SUCCESS) {
        data::value_destruct(&copy);
        return rc;
    }
    *out = copy;
    return PMIX_SUCCESS;
}

pmix_status_t decode_view(const Stored& s, ValueView& out) noexcept {
    out.reset();
    if (!shape_ok(s) || !contents_ok(s)) {
        return kErrCorrupt;
    }
    pmix_value_t& v = ViewAccess::value(out);
    if (s.encoding == Encoding::scalar) {
        decode_scalar(s, v);
        return PMIX_SUCCESS;
    }
    if (s.encoding == Encoding::codec) {
        const pmix_status_t rc = decode_codec(s, v);
        if (rc == PMIX_SUCCESS) {
            ViewAccess::set_owned(out, true);
        } else {
            v.type = PMIX_UNDEF;
        }
        return rc;
    }
    point_into(s, v, ViewAccess::array(out));
    return PMIX_SUCCESS;
}

}  // namespace enc
}  // namespace pmix::gds
