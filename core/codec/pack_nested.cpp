// core/codec/pack_nested.cpp - types that contain other typed data: value, info, pdata, kval,
// data array, app, query, and data buffers carried as payload.
//
// A value travels as [u16 type][element of that type]; the element is packed by the same coders
// as a top-level batch, so nesting (arrays of infos of values of arrays ...) needs no special
// cases. Recursion is bounded by wire::kMaxDepth on both sides.
#include "codec/coders.h"

#include "data/value.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace pmix::codec::detail {
namespace {

using wire::Nest;

// Largest element a value can hold; unpack_value stages one element on the stack.
constexpr std::size_t kMaxElement =
    std::max({sizeof(pmix_pdata_t), sizeof(pmix_info_t), sizeof(pmix_node_stats_t),
              sizeof(pmix_proc_stats_t), sizeof(pmix_app_t), sizeof(pmix_proc_info_t),
              sizeof(pmix_disk_stats_t), sizeof(pmix_regattr_t), sizeof(pmix_nspace_t),
              sizeof(pmix_geometry_t), sizeof(pmix_data_buffer_t), sizeof(pmix_value_t),
              sizeof(pmix_query_t), sizeof(pmix::data::kval_t), sizeof(pmix_endpoint_t)});

// Regex bytes of a value; a NUL is kept after them (not counted in bo.size) so that code reading
// the regex as a C string stops inside the allocation.
pmix_status_t unpack_regex_bytes(Reader& r, pmix_value_t& v) noexcept {
    std::uint64_t len = 0;
    if (!r.u64(len)) {
        return wire::kShort;
    }
    if (len > r.remaining()) {
        return wire::kShort;
    }
    auto n = static_cast<std::size_t>(len);
    const unsigned char* p = r.take(n);
    v.type = PMIX_REGEX;
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    v.data.bo.bytes = static_cast<char*>(std::malloc(n + 1));
    if (v.data.bo.bytes == nullptr) {
        v.type = PMIX_UNDEF;
        return PMIX_ERR_NOMEM;
    }
    std::memcpy(v.data.bo.bytes, p, n);
    v.data.bo.bytes[n] = '\0';
    v.data.bo.size = n;
    return PMIX_SUCCESS;
}

pmix_status_t pack_value(Writer& w, const pmix_value_t& v) noexcept {
    Nest<Writer> guard(w);
    if (!guard) {
        return PMIX_ERR_BAD_PARAM;  // nested too deep (or a cycle)
    }
    if (!w.u16(v.type)) {
        return PMIX_ERR_NOMEM;
    }
    if (v.type == PMIX_UNDEF) {
        return PMIX_SUCCESS;
    }
    if (v.type == PMIX_REGEX) {
        // A value keeps its regex as bytes (data.bo), which need not be plain text.
        return pack_blob(w, v.data.bo.bytes, v.data.bo.size);
    }
    const void* element = pmix::data::value_element(&v);
    if (element == nullptr) {
        // Known type with a NULL payload pointer (e.g. PMIX_PROC with data.proc == NULL).
        return coder_for(v.type) == nullptr ? PMIX_ERR_UNKNOWN_DATA_TYPE : PMIX_ERR_BAD_PARAM;
    }
    return pack_elements(w, element, 1, v.type);
}

pmix_status_t unpack_value(Reader& r, pmix_value_t& v) noexcept {
    Nest<Reader> guard(r);
    if (!guard) {
        return wire::kCorrupt;
    }
    std::uint16_t type = PMIX_UNDEF;
    if (!r.u16(type)) {
        return wire::kShort;
    }
    if (type == PMIX_UNDEF) {
        v.type = PMIX_UNDEF;
        return PMIX_SUCCESS;
    }
    if (type == PMIX_REGEX) {
        return unpack_regex_bytes(r, v);
    }
    const Coder* c = coder_for(type);
    if (c == nullptr || c->elem_size > kMaxElement) {
        return wire::kCorrupt;
    }
    alignas(std::max_align_t) unsigned char element[kMaxElement];
    std::memset(element, 0, c->elem_size);  // only what this type uses: most values are scalars
    pmix_status_t rc = c->unpack(r, element, 1);
    if (rc == PMIX_SUCCESS) {
        rc = pmix::data::value_adopt(&v, element, type);
    }
    if (rc != PMIX_SUCCESS) {
        pmix::data::destruct_element(element, type);
    }
    return rc;
}

pmix_status_t pack_values(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* v = static_cast<const pmix_value_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_value(w, v[i]);
    }
    return rc;
}

pmix_status_t unpack_values(Reader& r, void* elems, std::size_t n) noexcept {
    auto* v = static_cast<pmix_value_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_value(r, v[i]);
    }
    return rc;
}

// PMIX_INFO_PERSISTENT says "this info does not own its value" - a fact about the sender's memory.
// The receiver always owns what it unpacked, so the flag never travels (a hostile sender could
// otherwise make us leak every value it sends).
constexpr pmix_info_directives_t kLocalOnlyFlags = PMIX_INFO_PERSISTENT;

pmix_status_t pack_infos(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* info = static_cast<const pmix_info_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_bounded(w, info[i].key, PMIX_MAX_KEYLEN);
        if (rc == PMIX_SUCCESS) {
            rc = put(w.u32(info[i].flags & ~kLocalOnlyFlags));
        }
        if (rc == PMIX_SUCCESS) {
            rc = pack_value(w, info[i].value);
        }
    }
    return rc;
}

pmix_status_t unpack_infos(Reader& r, void* elems, std::size_t n) noexcept {
    auto* info = static_cast<pmix_info_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_bounded(r, info[i].key, PMIX_MAX_KEYLEN);
        std::uint32_t flags = 0;
        if (rc == PMIX_SUCCESS && (rc = got(r.u32(flags))) == PMIX_SUCCESS) {
            info[i].flags = flags & ~kLocalOnlyFlags;
        }
        if (rc == PMIX_SUCCESS) {
            rc = unpack_value(r, info[i].value);
        }
    }
    return rc;
}

pmix_status_t pack_pdatas(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* pd = static_cast<const pmix_pdata_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_elements(w, &pd[i].proc, 1, PMIX_PROC);
        if (rc == PMIX_SUCCESS) {
            rc = pack_bounded(w, pd[i].key, PMIX_MAX_KEYLEN);
        }
        if (rc == PMIX_SUCCESS) {
            rc = pack_value(w, pd[i].value);
        }
    }
    return rc;
}

pmix_status_t unpack_pdatas(Reader& r, void* elems, std::size_t n) noexcept {
    auto* pd = static_cast<pmix_pdata_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_elements(r, &pd[i].proc, 1, PMIX_PROC);
        if (rc == PMIX_SUCCESS) {
            rc = unpack_bounded(r, pd[i].key, PMIX_MAX_KEYLEN);
        }
        if (rc == PMIX_SUCCESS) {
            rc = unpack_value(r, pd[i].value);
        }
    }
    return rc;
}

// kval: [key string][u8 has-value][value]
pmix_status_t pack_kvals(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* kv = static_cast<const pmix::data::kval_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_string(w, kv[i].key);
        if (rc == PMIX_SUCCESS) {
            rc = put(w.u8(kv[i].value != nullptr ? 1 : 0));
        }
        if (rc == PMIX_SUCCESS && kv[i].value != nullptr) {
            rc = pack_value(w, *kv[i].value);
        }
    }
    return rc;
}

pmix_status_t unpack_one_kval(Reader& r, pmix::data::kval_t& kv) noexcept {
    std::uint8_t has_value = 0;
    pmix_status_t rc = unpack_string(r, kv.key);
    if (rc != PMIX_SUCCESS || (rc = got(r.u8(has_value))) != PMIX_SUCCESS || has_value == 0) {
        return rc;
    }
    if (has_value != 1) {
        return wire::kCorrupt;
    }
    kv.value = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
    return kv.value == nullptr ? PMIX_ERR_NOMEM : unpack_value(r, *kv.value);
}

pmix_status_t unpack_kvals(Reader& r, void* elems, std::size_t n) noexcept {
    auto* kv = static_cast<pmix::data::kval_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_one_kval(r, kv[i]);
    }
    return rc;
}

// data array: [u16 type][u32 count][elements]; PMIX_UNDEF arrays always travel empty.
pmix_status_t pack_darrays(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* da = static_cast<const pmix_data_array_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        Nest<Writer> guard(w);
        if (!guard) {
            return PMIX_ERR_BAD_PARAM;
        }
        rc = put(w.u16(da[i].type));
        if (rc == PMIX_SUCCESS) {
            rc = da[i].type == PMIX_UNDEF ? pack_count(w, 0)
                                          : pack_array(w, da[i].array, da[i].size, da[i].type);
        }
    }
    return rc;
}

pmix_status_t unpack_one_darray(Reader& r, pmix_data_array_t& da) noexcept {
    Nest<Reader> guard(r);
    if (!guard) {
        return wire::kCorrupt;
    }
    std::uint16_t type = PMIX_UNDEF;
    if (!r.u16(type)) {
        return wire::kShort;
    }
    if (type == PMIX_UNDEF) {
        std::uint32_t count = 0;
        if (!r.u32(count)) {
            return wire::kShort;
        }
        return count == 0 ? PMIX_SUCCESS : wire::kCorrupt;
    }
    pmix_status_t rc = unpack_array(r, da.array, da.size, type);
    if (rc == PMIX_SUCCESS) {
        da.type = type;
    }
    return rc;
}

pmix_status_t unpack_darrays(Reader& r, void* elems, std::size_t n) noexcept {
    auto* da = static_cast<pmix_data_array_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_one_darray(r, da[i]);
    }
    return rc;
}

pmix_status_t pack_apps(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* app = static_cast<const pmix_app_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_string(w, app[i].cmd);
        if (rc == PMIX_SUCCESS) {
            rc = pack_argv(w, app[i].argv);
        }
        if (rc == PMIX_SUCCESS) {
            rc = pack_argv(w, app[i].env);
        }
        if (rc == PMIX_SUCCESS) {
            rc = pack_string(w, app[i].cwd);
        }
        if (rc == PMIX_SUCCESS) {
            rc = put(w.i32(app[i].maxprocs));
        }
        if (rc == PMIX_SUCCESS) {
            rc = pack_array(w, app[i].info, app[i].ninfo, PMIX_INFO);
        }
    }
    return rc;
}

pmix_status_t unpack_one_app(Reader& r, pmix_app_t& app) noexcept {
    pmix_status_t rc = unpack_string(r, app.cmd);
    if (rc == PMIX_SUCCESS) {
        rc = unpack_argv(r, app.argv);
    }
    if (rc == PMIX_SUCCESS) {
        rc = unpack_argv(r, app.env);
    }
    if (rc == PMIX_SUCCESS) {
        rc = unpack_string(r, app.cwd);
    }
    std::int32_t maxprocs = 0;
    if (rc == PMIX_SUCCESS && (rc = got(r.i32(maxprocs))) == PMIX_SUCCESS) {
        app.maxprocs = maxprocs;
    }
    void* arr = nullptr;
    if (rc == PMIX_SUCCESS && (rc = unpack_array(r, arr, app.ninfo, PMIX_INFO)) == PMIX_SUCCESS) {
        app.info = static_cast<pmix_info_t*>(arr);
    }
    return rc;
}

pmix_status_t unpack_apps(Reader& r, void* elems, std::size_t n) noexcept {
    auto* app = static_cast<pmix_app_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_one_app(r, app[i]);
    }
    return rc;
}

pmix_status_t pack_queries(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* q = static_cast<const pmix_query_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = pack_argv(w, q[i].keys);
        if (rc == PMIX_SUCCESS) {
            rc = pack_array(w, q[i].qualifiers, q[i].nqual, PMIX_INFO);
        }
    }
    return rc;
}

pmix_status_t unpack_queries(Reader& r, void* elems, std::size_t n) noexcept {
    auto* q = static_cast<pmix_query_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_argv(r, q[i].keys);
        void* arr = nullptr;
        if (rc == PMIX_SUCCESS &&
            (rc = unpack_array(r, arr, q[i].nqual, PMIX_INFO)) == PMIX_SUCCESS) {
            q[i].qualifiers = static_cast<pmix_info_t*>(arr);
        }
    }
    return rc;
}

// A data buffer travels as its used bytes (from base_ptr, as OpenPMIx does); the receiver gets
// a buffer holding exactly those bytes with nothing yet unpacked.
pmix_status_t pack_dbufs(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* b = static_cast<const pmix_data_buffer_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        if (!wire::buffer_ok(b[i])) {
            return PMIX_ERR_BAD_PARAM;
        }
        rc = pack_blob(w, b[i].base_ptr, b[i].base_ptr == nullptr ? 0 : b[i].bytes_used);
    }
    return rc;
}

pmix_status_t unpack_dbufs(Reader& r, void* elems, std::size_t n) noexcept {
    auto* b = static_cast<pmix_data_buffer_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        char* bytes = nullptr;
        std::size_t size = 0;
        if ((rc = unpack_blob(r, bytes, size)) == PMIX_SUCCESS && bytes != nullptr) {
            b[i].base_ptr = bytes;
            b[i].unpack_ptr = bytes;
            b[i].pack_ptr = bytes + size;
            b[i].bytes_allocated = size;
            b[i].bytes_used = size;
        }
    }
    return rc;
}

constexpr Coder k_value{sizeof(pmix_value_t), 2, pack_values, unpack_values};
constexpr Coder k_info{sizeof(pmix_info_t), 4 + 4 + 2, pack_infos, unpack_infos};
constexpr Coder k_pdata{sizeof(pmix_pdata_t), 8 + 4 + 2, pack_pdatas, unpack_pdatas};
constexpr Coder k_kval{sizeof(pmix::data::kval_t), 4 + 1, pack_kvals, unpack_kvals};
constexpr Coder k_darray{sizeof(pmix_data_array_t), 2 + 4, pack_darrays, unpack_darrays};
constexpr Coder k_app{sizeof(pmix_app_t), 4 + 4 + 4 + 4 + 4 + 4, pack_apps, unpack_apps};
constexpr Coder k_query{sizeof(pmix_query_t), 4 + 4, pack_queries, unpack_queries};
constexpr Coder k_dbuf{sizeof(pmix_data_buffer_t), 8, pack_dbufs, unpack_dbufs};

}  // namespace

const Coder* nested_coder(pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_VALUE:
            return &k_value;
        case PMIX_INFO:
            return &k_info;
        case PMIX_PDATA:
            return &k_pdata;
        case PMIX_KVAL:
            return &k_kval;
        case PMIX_DATA_ARRAY:
            return &k_darray;
        case PMIX_APP:
            return &k_app;
        case PMIX_QUERY:
            return &k_query;
        case PMIX_DATA_BUFFER:
            return &k_dbuf;
        default:
            return nullptr;
    }
}

}  // namespace pmix::codec::detail
