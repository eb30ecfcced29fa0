// wire/proto/message.h - encode/decode helpers for the payloads listed in protocol.h.
//
// Writer packs fields in order into a pmix_data_buffer_t and hands the bytes to wire; Reader
// unpacks them from a received frame. Both follow protocol.h's rules (count-prefixed arrays whose
// batch is omitted when the count is 0). Every Reader getter returns a status; the first failure
// sticks, so a handler may read all fields and check ok()/status() once, then finish() to refuse
// trailing bytes. Unpacked pointers are malloc'd: infos() fills a data::InfoArray, array() hands
// out a block the caller releases with data::free_elements.
#pragma once

#include "wire/frame.h"
#include "wire/proto/protocol.h"

#include "data/info_array.h"

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pmix::proto {

class Writer {
public:
    Writer() noexcept;
    ~Writer();
    Writer(const Writer&) = delete;
    Writer& operator=(const Writer&) = delete;

    Writer& status(pmix_status_t s);
    Writer& size(std::size_t n);
    Writer& string(const char* s);  // NULL allowed
    Writer& scope(pmix_scope_t s);
    Writer& range(pmix_data_range_t r);
    Writer& proc(const pmix_proc_t& p);
    Writer& value(const pmix_value_t& v);
    Writer& byte_object(const pmix_byte_object_t& bo);
    // Count + array (the array batch omitted when n == 0).
    Writer& procs(const pmix_proc_t* p, std::size_t n);
    Writer& infos(const pmix_info_t* p, std::size_t n);
    Writer& strings(char* const* p, std::size_t n);
    Writer& statuses(const pmix_status_t* p, std::size_t n);
    Writer& pdata(const pmix_pdata_t* p, std::size_t n);
    Writer& apps(const pmix_app_t* p, std::size_t n);
    Writer& queries(const pmix_query_t* p, std::size_t n);
    // Single elements of any type (no count).
    Writer& raw(const void* src, std::size_t n, pmix_data_type_t type);

    // PMIX_SUCCESS unless a pack failed (then the first failure).
    pmix_status_t status_code() const noexcept { return status_; }
    wire::Bytes take();

private:
    pmix_data_buffer_t buf_;
    pmix_status_t status_ = PMIX_SUCCESS;
};

class Reader {
public:
    explicit Reader(const wire::Bytes& payload);
    Reader(const std::uint8_t* data, std::size_t n);
    ~Reader();
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;

    pmix_status_t status(pmix_status_t* out);
    pmix_status_t size(std::size_t* out);
    pmix_status_t string(std::string* out, bool* was_null = nullptr);
    pmix_status_t scope(pmix_scope_t* out);
    pmix_status_t range(pmix_data_range_t* out);
    pmix_status_t proc(pmix_proc_t* out);
    pmix_status_t value(pmix_value_t* out);  // *out must be constructed; caller destructs
    pmix_status_t procs(std::vector<pmix_proc_t>* out);
    pmix_status_t infos(data::InfoArray* out);
    pmix_status_t strings(std::vector<std::string>* out);
    pmix_status_t statuses(std::vector<pmix_status_t>* out);
    // n elements of `type` into caller storage (must be zeroed); no count prefix.
    pmix_status_t raw(void* dest, std::size_t n, pmix_data_type_t type);
    // Count-prefixed array of `type` into a calloc'd block (*out, *n); caller frees by type.
    pmix_status_t array(void** out, std::size_t* n, pmix_data_type_t type);

    bool at_end() const noexcept;
    // PMIX_ERR_UNPACK_FAILURE if bytes remain, else the sticky status.
    pmix_status_t finish();
    pmix_status_t status_code() const noexcept { return status_; }

private:
    pmix_status_t fail(pmix_status_t s) noexcept;
    pmix_data_buffer_t buf_;
    pmix_status_t status_ = PMIX_SUCCESS;
};

// The most elements any count field may announce (protects against a hostile count).
inline constexpr std::size_t kMaxArray = std::size_t{1} << 22;

}  // namespace pmix::proto
