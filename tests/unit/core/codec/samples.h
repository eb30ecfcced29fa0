// tests/unit/core/codec/samples.h - sample elements of every PMIx data type for the codec tests,
// plus small RAII holders for element arrays and data buffers.
#pragma once

#include <pmix_common.h>

#include <hwloc.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace codec_test {

// Every type the codec handles: PMIX_BOOL .. PMIX_STOR_ACCESS_TYPE without the holes (26, 29, 44).
std::vector<pmix_data_type_t> all_types();
// "PMIX_xxx" for test names and messages.
std::string type_name(pmix_data_type_t type);

// An owned array of zeroed elements of one type, released with pmix::data::destruct_element.
class Elements {
public:
    Elements(pmix_data_type_t type, std::size_t n);
    ~Elements();
    Elements(Elements&& other) noexcept;
    Elements(const Elements&) = delete;
    Elements& operator=(const Elements&) = delete;
    Elements& operator=(Elements&&) = delete;

    void* data() const { return data_; }
    void* at(std::size_t i) const { return static_cast<char*>(data_) + i * elem_size_; }
    std::size_t size() const { return n_; }
    std::size_t elem_size() const { return elem_size_; }
    pmix_data_type_t type() const { return type_; }

private:
    pmix_data_type_t type_;
    std::size_t n_;
    std::size_t elem_size_;
    void* data_;
};

// Number of distinct sample variants fill() knows for a type (variant 0 is the emptiest form:
// NULL strings, zero counts, UNDEF values; higher variants are fuller and more nested).
constexpr int kVariants = 4;
void fill(pmix_data_type_t type, void* element, int variant);
// Variants 0..n-1 (wrapping) of `type`.
Elements samples(pmix_data_type_t type, std::size_t n);

// A value holding variant `variant` of `type` (built with fill + pmix::data::value_adopt).
void make_value(pmix_value_t* value, pmix_data_type_t type, int variant);

// This machine's topology, discovered once and kept for the whole test run.
hwloc_topology_t machine_topology();

// A data buffer released at scope exit.
struct Buffer {
    pmix_data_buffer_t b{};
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer();
    pmix_data_buffer_t* operator->() { return &b; }
    pmix_data_buffer_t* get() { return &b; }
    std::size_t unread() const {
        return b.base_ptr == nullptr
                   ? 0
                   : b.bytes_used - static_cast<std::size_t>(b.unpack_ptr - b.base_ptr);
    }
    std::size_t offset() const {
        return b.base_ptr == nullptr ? 0 : static_cast<std::size_t>(b.unpack_ptr - b.base_ptr);
    }
    std::vector<unsigned char> bytes() const {
        return b.base_ptr == nullptr
                   ? std::vector<unsigned char>{}
                   : std::vector<unsigned char>(b.base_ptr, b.base_ptr + b.bytes_used);
    }
    // Replace the contents with a malloc'd copy of `data` (nothing unpacked yet).
    void load(const std::vector<unsigned char>& data);
};

// The bytes one pack call appends to an empty buffer.
std::vector<unsigned char> packed(const void* src, std::int32_t n, pmix_data_type_t type);

}  // namespace codec_test
