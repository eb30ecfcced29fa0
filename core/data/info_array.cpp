// core/data/info_array.cpp - see info_array.h.
#include "data/info_array.h"

#include "data/directives.h"
#include "data/value.h"

#include <cstdlib>
#include <cstring>

namespace pmix::data {

InfoArray::~InfoArray() { free_infos(data_, size_); }

InfoArray& InfoArray::operator=(InfoArray&& o) noexcept {
    if (this != &o) {
        free_infos(data_, size_);
        data_ = o.data_;
        size_ = o.size_;
        o.data_ = nullptr;
        o.size_ = 0;
    }
    return *this;
}

void InfoArray::adopt(pmix_info_t* data, std::size_t n) noexcept {
    free_infos(data_, size_);
    data_ = data;
    size_ = n;
}

pmix_status_t InfoArray::assign_copy(const pmix_info_t* src, std::size_t n) noexcept {
    adopt(nullptr, 0);
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    if (src == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    auto* copy = static_cast<pmix_info_t*>(std::calloc(n, sizeof(pmix_info_t)));
    if (copy == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (const pmix_status_t rc = info_xfer(&copy[i], &src[i]); rc != PMIX_SUCCESS) {
            free_infos(copy, i);
            return rc;
        }
    }
    adopt(copy, n);
    return PMIX_SUCCESS;
}

const pmix_info_t* InfoArray::find(const char* key) const noexcept {
    return find_info(data_, size_, key);
}

pmix_status_t InfoArray::append(const char* key, const void* data, pmix_data_type_t type) noexcept {
    auto* grown = static_cast<pmix_info_t*>(std::calloc(size_ + 1, sizeof(pmix_info_t)));
    if (grown == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    const pmix_status_t rc = info_load(&grown[size_], key, data, type);
    if (rc != PMIX_SUCCESS) {
        std::free(grown);
        return rc;
    }
    if (size_ > 0) {
        std::memcpy(grown, data_, size_ * sizeof(pmix_info_t));  // the elements move as they are
    }
    std::free(data_);
    data_ = grown;
    ++size_;
    return PMIX_SUCCESS;
}

bool InfoArray::flag(const char* key) const noexcept { return info_true(data_, size_, key); }

int InfoArray::integer(const char* key) const noexcept {
    const pmix_info_t* t = find(key);
    if (t == nullptr) return 0;
    switch (t->value.type) {
        case PMIX_INT:
            return t->value.data.integer;
        case PMIX_INT32:
            return t->value.data.int32;
        case PMIX_UINT32:
            return static_cast<int>(t->value.data.uint32);
        case PMIX_UINT:
            return static_cast<int>(t->value.data.uint);
        default:
            return 0;
    }
}

}  // namespace pmix::data
