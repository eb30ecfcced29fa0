// wire/proto/message.cpp - see message.h.
#include "wire/proto/message.h"

#include "codec/codec.h"
#include "data/value.h"

#include <cstdlib>
#include <cstring>
#include <limits>

namespace pmix::proto {

// ---- Writer ----------------------------------------------------------------------------------

Writer::Writer() noexcept { std::memset(&buf_, 0, sizeof buf_); }
Writer::~Writer() { codec::reset(&buf_); }

Writer& Writer::raw(const void* src, std::size_t n, pmix_data_type_t type) {
    if (status_ != PMIX_SUCCESS || n == 0) {
        return *this;
    }
    if (n > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max())) {
        status_ = PMIX_ERR_BAD_PARAM;
        return *this;
    }
    status_ = codec::pack(&buf_, src, static_cast<std::int32_t>(n), type);
    return *this;
}

Writer& Writer::status(pmix_status_t s) { return raw(&s, 1, PMIX_STATUS); }
Writer& Writer::size(std::size_t n) { return raw(&n, 1, PMIX_SIZE); }
Writer& Writer::string(const char* s) { return raw(&s, 1, PMIX_STRING); }
Writer& Writer::scope(pmix_scope_t s) { return raw(&s, 1, PMIX_SCOPE); }
Writer& Writer::range(pmix_data_range_t r) { return raw(&r, 1, PMIX_DATA_RANGE); }
Writer& Writer::proc(const pmix_proc_t& p) { return raw(&p, 1, PMIX_PROC); }
Writer& Writer::value(const pmix_value_t& v) { return raw(&v, 1, PMIX_VALUE); }
Writer& Writer::byte_object(const pmix_byte_object_t& bo) { return raw(&bo, 1, PMIX_BYTE_OBJECT); }
Writer& Writer::procs(const pmix_proc_t* p, std::size_t n) { return size(n).raw(p, n, PMIX_PROC); }
Writer& Writer::infos(const pmix_info_t* p, std::size_t n) { return size(n).raw(p, n, PMIX_INFO); }
Writer& Writer::strings(char* const* p, std::size_t n) { return size(n).raw(p, n, PMIX_STRING); }
Writer& Writer::statuses(const pmix_status_t* p, std::size_t n) {
    return size(n).raw(p, n, PMIX_STATUS);
}
Writer& Writer::pdata(const pmix_pdata_t* p, std::size_t n) {
    return size(n).raw(p, n, PMIX_PDATA);
}
Writer& Writer::apps(const pmix_app_t* p, std::size_t n) { return size(n).raw(p, n, PMIX_APP); }
Writer& Writer::queries(const pmix_query_t* p, std::size_t n) {
    return size(n).raw(p, n, PMIX_QUERY);
}

wire::Bytes Writer::take() {
    wire::Bytes out(buf_.base_ptr, buf_.base_ptr + buf_.bytes_used);
    codec::reset(&buf_);
    return out;
}

// ---- Reader ----------------------------------------------------------------------------------

Reader::Reader(const wire::Bytes& payload) : Reader(payload.data(), payload.size()) {}

Reader::Reader(const std::uint8_t* data, std::size_t n) {
    std::memset(&buf_, 0, sizeof buf_);
    if (n == 0) {
        return;
    }
    pmix_byte_object_t bo;
    bo.bytes = static_cast<char*>(std::malloc(n));
    if (bo.bytes == nullptr) {
        status_ = PMIX_ERR_NOMEM;
        return;
    }
    std::memcpy(bo.bytes, data, n);
    bo.size = n;
    status_ = codec::load(&buf_, &bo);
    if (status_ != PMIX_SUCCESS) {
        std::free(bo.bytes);
    }
}

Reader::~Reader() { codec::reset(&buf_); }

pmix_status_t Reader::fail(pmix_status_t s) noexcept {
    if (status_ == PMIX_SUCCESS) {
        status_ = s;
    }
    return status_;
}

namespace {

void discard(void* dest, std::size_t n, pmix_data_type_t type) noexcept {
    const std::size_t width = data::element_size(type);
    auto* at = static_cast<std::uint8_t*>(dest);
    for (std::size_t i = 0; i < n; ++i) {
        data::destruct_element(at + i * width, type);
    }
}

}  // namespace

pmix_status_t Reader::raw(void* dest, std::size_t n, pmix_data_type_t type) {
    if (status_ != PMIX_SUCCESS) {
        return status_;
    }
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if (n > kMaxArray) {
        return fail(PMIX_ERR_UNPACK_FAILURE);
    }
    std::int32_t got = static_cast<std::int32_t>(n);
    const pmix_status_t rc = codec::unpack(&buf_, dest, &got, type);
    if (rc == PMIX_SUCCESS && static_cast<std::size_t>(got) == n) {
        return PMIX_SUCCESS;
    }
    // A batch of another size than expected: the elements it did unpack (a longer batch fills
    // `dest`, a shorter one part of it) are released here, so that a failed read hands the
    // caller nothing to free (found by tests/fuzz's proto harness: a leak per hostile message).
    if (rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE) {
        discard(dest, static_cast<std::size_t>(got), type);
    }
    return fail(rc == PMIX_SUCCESS || rc == PMIX_ERR_UNPACK_INADEQUATE_SPACE
                    ? PMIX_ERR_UNPACK_FAILURE
                    : rc);
}

pmix_status_t Reader::status(pmix_status_t* out) { return raw(out, 1, PMIX_STATUS); }
pmix_status_t Reader::size(std::size_t* out) { return raw(out, 1, PMIX_SIZE); }
pmix_status_t Reader::scope(pmix_scope_t* out) { return raw(out, 1, PMIX_SCOPE); }
pmix_status_t Reader::range(pmix_data_range_t* out) { return raw(out, 1, PMIX_DATA_RANGE); }
pmix_status_t Reader::proc(pmix_proc_t* out) { return raw(out, 1, PMIX_PROC); }
pmix_status_t Reader::value(pmix_value_t* out) { return raw(out, 1, PMIX_VALUE); }

pmix_status_t Reader::string(std::string* out, bool* was_null) {
    char* s = nullptr;
    const pmix_status_t rc = raw(&s, 1, PMIX_STRING);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (was_null != nullptr) {
        *was_null = (s == nullptr);
    }
    out->assign(s == nullptr ? "" : s);
    std::free(s);
    return PMIX_SUCCESS;
}

pmix_status_t Reader::array(void** out, std::size_t* n, pmix_data_type_t type) {
    *out = nullptr;
    *n = 0;
    std::size_t count = 0;
    if (size(&count) != PMIX_SUCCESS) {
        return status_;
    }
    if (count == 0) {
        return PMIX_SUCCESS;
    }
    // Every element takes at least one byte on the wire: a count beyond the unread bytes is a lie,
    // refused before it sizes an allocation (a 30-byte message could otherwise make the server
    // calloc kMaxArray applications, about 0.2 GiB).
    const auto unread = static_cast<std::size_t>(buf_.bytes_used) -
                        static_cast<std::size_t>(buf_.unpack_ptr - buf_.base_ptr);
    if (count > kMaxArray || count > unread) {
        return fail(PMIX_ERR_UNPACK_FAILURE);
    }
    void* block = std::calloc(count, data::element_size(type));
    if (block == nullptr) {
        return fail(PMIX_ERR_NOMEM);
    }
    if (raw(block, count, type) != PMIX_SUCCESS) {
        std::free(block);  // unpack left nothing allocated on error
        return status_;
    }
    *out = block;
    *n = count;
    return PMIX_SUCCESS;
}

pmix_status_t Reader::procs(std::vector<pmix_proc_t>* out) {
    void* block = nullptr;
    std::size_t n = 0;
    if (array(&block, &n, PMIX_PROC) != PMIX_SUCCESS) {
        return status_;
    }
    auto* p = static_cast<pmix_proc_t*>(block);
    out->assign(p, p + n);
    std::free(block);
    return PMIX_SUCCESS;
}

pmix_status_t Reader::infos(data::InfoArray* out) {
    void* block = nullptr;
    std::size_t n = 0;
    if (array(&block, &n, PMIX_INFO) != PMIX_SUCCESS) {
        return status_;
    }
    out->adopt(static_cast<pmix_info_t*>(block), n);
    return PMIX_SUCCESS;
}

pmix_status_t Reader::strings(std::vector<std::string>* out) {
    void* block = nullptr;
    std::size_t n = 0;
    if (array(&block, &n, PMIX_STRING) != PMIX_SUCCESS) {
        return status_;
    }
    auto* p = static_cast<char**>(block);
    out->clear();
    for (std::size_t i = 0; i < n; ++i) {
        out->emplace_back(p[i] == nullptr ? "" : p[i]);
    }
    data::free_elements(block, n, PMIX_STRING);
    return PMIX_SUCCESS;
}

pmix_status_t Reader::statuses(std::vector<pmix_status_t>* out) {
    void* block = nullptr;
    std::size_t n = 0;
    if (array(&block, &n, PMIX_STATUS) != PMIX_SUCCESS) {
        return status_;
    }
    auto* p = static_cast<pmix_status_t*>(block);
    out->assign(p, p + n);
    std::free(block);
    return PMIX_SUCCESS;
}

bool Reader::at_end() const noexcept {
    return buf_.unpack_ptr == nullptr || buf_.unpack_ptr >= buf_.base_ptr + buf_.bytes_used;
}

pmix_status_t Reader::finish() {
    if (status_ == PMIX_SUCCESS && !at_end()) {
        status_ = PMIX_ERR_UNPACK_FAILURE;
    }
    return status_;
}

}  // namespace pmix::proto
