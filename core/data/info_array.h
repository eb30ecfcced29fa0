// core/data/info_array.h - InfoArray: an owning array of pmix_info_t.
//
// The block is calloc'd and released as PMIX_INFO_FREE releases one (each element destructed,
// then the block freed), so ownership can pass to and from the C API: adopt() takes an array
// unpacked from a message or built by a caller, release() hands it to a callback that frees it
// the C way. Move-only.
#pragma once

#include <pmix_common.h>

#include <cstddef>

namespace pmix::data {

class InfoArray {
public:
    InfoArray() = default;
    ~InfoArray();
    InfoArray(InfoArray&& o) noexcept : data_(o.data_), size_(o.size_) {
        o.data_ = nullptr;
        o.size_ = 0;
    }
    InfoArray& operator=(InfoArray&& o) noexcept;
    InfoArray(const InfoArray&) = delete;
    InfoArray& operator=(const InfoArray&) = delete;

    pmix_info_t* data() const noexcept { return data_; }
    std::size_t size() const noexcept { return size_; }
    // Takes ownership of a calloc'd array of n infos (what was held before is released).
    void adopt(pmix_info_t* data, std::size_t n) noexcept;
    // Replaces the contents with a deep copy of n infos; on failure the array is left empty.
    pmix_status_t assign_copy(const pmix_info_t* src, std::size_t n) noexcept;
    // Gives the array away (the caller frees it with PMIX_INFO_FREE semantics).
    pmix_info_t* release() noexcept {
        auto* d = data_;
        data_ = nullptr;
        size_ = 0;
        return d;
    }
    // The first info named `key`, nullptr when none.
    const pmix_info_t* find(const char* key) const noexcept;
    // Adds one info (e.g. what a server adds before passing a request up to its host).
    pmix_status_t append(const char* key, const void* data, pmix_data_type_t type) noexcept;
    // PMIX_INFO_TRUE of the info named `key` (directives.h); false when absent.
    bool flag(const char* key) const noexcept;
    // The info named `key` as an int (PMIX_TIMEOUT: seconds), whichever integer type the caller
    // loaded it as (PMIX_INT, INT32, UINT32, UINT); 0 when absent or of another type.
    int integer(const char* key) const noexcept;

private:
    pmix_info_t* data_ = nullptr;
    std::size_t size_ = 0;
};

}  // namespace pmix::data
