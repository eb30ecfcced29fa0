// core/codec/pack_strings.cpp - strings, byte objects, namespaces, regex, envars and pointers,
// plus the string/blob/argv/array helpers every other family builds on.
#include "codec/coders.h"

#include "data/value.h"

#include <cstdlib>
#include <cstring>
#include <limits>

namespace pmix::codec::detail {

pmix_status_t pack_string(Writer& w, const char* s) noexcept {
    if (s == nullptr) {
        return put(w.u32(wire::kNullString));
    }
    std::size_t len = std::strlen(s);
    if (len >= wire::kNullString) {
        return PMIX_ERR_BAD_PARAM;
    }
    return put(w.reserve(4 + len) && w.u32(static_cast<std::uint32_t>(len)) && w.bytes(s, len));
}

pmix_status_t unpack_string(Reader& r, char*& out) noexcept {
    std::uint32_t len = 0;
    if (!r.u32(len)) {
        return wire::kShort;
    }
    if (len == wire::kNullString) {
        out = nullptr;
        return PMIX_SUCCESS;
    }
    const unsigned char* p = r.take(len);  // bounds the allocation by what is really there
    if (p == nullptr) {
        return wire::kShort;
    }
    if (std::memchr(p, '\0', len) != nullptr) {
        return wire::kCorrupt;  // an embedded NUL would silently truncate the string
    }
    out = static_cast<char*>(std::malloc(std::size_t{len} + 1));
    if (out == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    std::memcpy(out, p, len);
    out[len] = '\0';
    return PMIX_SUCCESS;
}

pmix_status_t pack_bounded(Writer& w, const char* s, std::size_t max) noexcept {
    std::size_t len = ::strnlen(s, max);
    return put(w.reserve(4 + len) && w.u32(static_cast<std::uint32_t>(len)) && w.bytes(s, len));
}

pmix_status_t unpack_bounded(Reader& r, char* dst, std::size_t max) noexcept {
    std::uint32_t len = 0;
    if (!r.u32(len)) {
        return wire::kShort;
    }
    if (len == wire::kNullString || len > max) {
        return wire::kCorrupt;
    }
    const unsigned char* p = r.take(len);
    if (p == nullptr) {
        return wire::kShort;
    }
    if (std::memchr(p, '\0', len) != nullptr) {
        return wire::kCorrupt;
    }
    std::memcpy(dst, p, len);
    std::memset(dst + len, 0, max + 1 - len);
    return PMIX_SUCCESS;
}

pmix_status_t pack_blob(Writer& w, const void* bytes, std::size_t size) noexcept {
    if (bytes == nullptr && size > 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    return put(w.reserve(8 + size) && w.u64(size) && w.bytes(bytes, size));
}

pmix_status_t unpack_blob(Reader& r, char*& bytes, std::size_t& size) noexcept {
    std::uint64_t len = 0;
    if (!r.u64(len)) {
        return wire::kShort;
    }
    if (len > r.remaining()) {
        return wire::kShort;
    }
    if (len == 0) {
        bytes = nullptr;
        size = 0;
        return PMIX_SUCCESS;
    }
    auto n = static_cast<std::size_t>(len);
    bytes = static_cast<char*>(std::malloc(n));
    if (bytes == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    r.bytes(bytes, n);
    size = n;
    return PMIX_SUCCESS;
}

pmix_status_t pack_count(Writer& w, std::size_t n) noexcept {
    if (n > std::numeric_limits<std::uint32_t>::max()) {
        return PMIX_ERR_BAD_PARAM;
    }
    return put(w.u32(static_cast<std::uint32_t>(n)));
}

pmix_status_t pack_argv(Writer& w, char* const* argv) noexcept {
    std::size_t n = 0;
    while (argv != nullptr && argv[n] != nullptr) {
        ++n;
    }
    pmix_status_t rc = pack_count(w, n);
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_string(w, argv[i]);
    }
    return rc;
}

pmix_status_t unpack_argv(Reader& r, char**& argv) noexcept {
    std::uint32_t n = 0;
    if (!r.u32(n)) {
        return wire::kShort;
    }
    if (n == 0) {
        argv = nullptr;
        return PMIX_SUCCESS;
    }
    if (!r.fits(n, 4)) {
        return wire::kShort;
    }
    // The terminating NULL slot is what keeps a half-filled argv destructible.
    argv = static_cast<char**>(std::calloc(std::size_t{n} + 1, sizeof(char*)));
    if (argv == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
        if (pmix_status_t rc = unpack_string(r, argv[i]); rc != PMIX_SUCCESS) {
            return rc;
        }
        if (argv[i] == nullptr) {
            return wire::kCorrupt;  // a NULL entry would end the argv early and hide the rest
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t pack_array(Writer& w, const void* arr, std::size_t n,
                         pmix_data_type_t type) noexcept {
    if (arr == nullptr && n > 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = pack_count(w, n);
    return rc == PMIX_SUCCESS ? pack_elements(w, arr, n, type) : rc;
}

pmix_status_t unpack_array(Reader& r, void*& arr, std::size_t& n, pmix_data_type_t type) noexcept {
    arr = nullptr;
    n = 0;
    const Coder* c = coder_for(type);
    std::uint32_t count = 0;
    if (c == nullptr) {
        return wire::kCorrupt;
    }
    if (!r.u32(count)) {
        return wire::kShort;
    }
    if (count == 0) {
        return PMIX_SUCCESS;
    }
    if (!r.fits(count, c->min_wire)) {
        return wire::kShort;
    }
    void* elems = std::calloc(count, c->elem_size);
    if (elems == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = c->unpack(r, elems, count);
    if (rc != PMIX_SUCCESS) {
        auto* p = static_cast<unsigned char*>(elems);
        for (std::uint32_t i = 0; i < count; ++i) {
            pmix::data::destruct_element(p + i * c->elem_size, type);
        }
        std::free(elems);
        return rc;
    }
    arr = elems;
    n = count;
    return PMIX_SUCCESS;
}

namespace {

pmix_status_t pack_strings(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* s = static_cast<char* const*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_string(w, s[i]);
    }
    return rc;
}

pmix_status_t unpack_strings(Reader& r, void* elems, std::size_t n) noexcept {
    auto* s = static_cast<char**>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_string(r, s[i]);
    }
    return rc;
}

pmix_status_t pack_bos(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* bo = static_cast<const pmix_byte_object_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_blob(w, bo[i].bytes, bo[i].size);
    }
    return rc;
}

pmix_status_t unpack_bos(Reader& r, void* elems, std::size_t n) noexcept {
    auto* bo = static_cast<pmix_byte_object_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_blob(r, bo[i].bytes, bo[i].size);
    }
    return rc;
}

pmix_status_t pack_nspaces(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* ns = static_cast<const pmix_nspace_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_bounded(w, ns[i], PMIX_MAX_NSLEN);
    }
    return rc;
}

pmix_status_t unpack_nspaces(Reader& r, void* elems, std::size_t n) noexcept {
    auto* ns = static_cast<pmix_nspace_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_bounded(r, ns[i], PMIX_MAX_NSLEN);
    }
    return rc;
}

// An address means nothing in another process: only "was it set" travels, and the receiver
// always gets NULL (OpenPMIx sends a sentinel byte and leaves the destination untouched).
pmix_status_t pack_pointers(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* p = static_cast<void* const*>(elems);
    if (!w.reserve(n)) {
        return PMIX_ERR_NOMEM;
    }
    for (std::size_t i = 0; i < n; ++i) {
        w.u8(p[i] != nullptr ? 1 : 0);
    }
    return PMIX_SUCCESS;
}

pmix_status_t unpack_pointers(Reader& r, void* elems, std::size_t n) noexcept {
    const unsigned char* src = r.take(n);
    if (src == nullptr) {
        return wire::kShort;
    }
    auto* p = static_cast<void**>(elems);
    for (std::size_t i = 0; i < n; ++i) {
        if (src[i] > 1) {
            return wire::kCorrupt;
        }
        p[i] = nullptr;
    }
    return PMIX_SUCCESS;
}

pmix_status_t pack_envars(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* e = static_cast<const pmix_envar_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_string(w, e[i].envar);
        if (rc == PMIX_SUCCESS) {
            rc = pack_string(w, e[i].value);
        }
        if (rc == PMIX_SUCCESS) {
            rc = put(w.u8(static_cast<std::uint8_t>(e[i].separator)));
        }
    }
    return rc;
}

pmix_status_t unpack_envars(Reader& r, void* elems, std::size_t n) noexcept {
    auto* e = static_cast<pmix_envar_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_string(r, e[i].envar);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_string(r, e[i].value);
        }
        std::uint8_t sep = 0;
        if (rc == PMIX_SUCCESS && (rc = got(r.u8(sep))) == PMIX_SUCCESS) {
            e[i].separator = static_cast<char>(sep);
        }
    }
    return rc;
}

constexpr Coder k_string{sizeof(char*), 4, pack_strings, unpack_strings};
constexpr Coder k_bo{sizeof(pmix_byte_object_t), 8, pack_bos, unpack_bos};
constexpr Coder k_nspace{sizeof(pmix_nspace_t), 4, pack_nspaces, unpack_nspaces};
constexpr Coder k_pointer{sizeof(void*), 1, pack_pointers, unpack_pointers};
constexpr Coder k_envar{sizeof(pmix_envar_t), 9, pack_envars, unpack_envars};

}  // namespace

const Coder* string_coder(pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_STRING:
        case PMIX_REGEX:
            return &k_string;  // a regex element is the NUL-terminated char* itself
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
            return &k_bo;
        case PMIX_PROC_NSPACE:
            return &k_nspace;
        case PMIX_POINTER:
            return &k_pointer;
        case PMIX_ENVAR:
            return &k_envar;
        default:
            return nullptr;
    }
}

}  // namespace pmix::codec::detail
