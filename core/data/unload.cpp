// core/data/unload.cpp - PMIx_Value_unload: hand a value's payload to the caller.
//
// OpenPMIx 4.2.2 behaviour, which callers depend on:
//  * plain numbers/enums and PMIX_PROC / PMIX_PROC_NSPACE are copied INTO the storage *data
//    already points at (the caller passes the address of its variable);
//  * PMIX_STRING returns a strdup'd copy and strlen as the size;
//  * byte objects (and compressed forms, regexes) return their bytes and byte count;
//  * PMIX_POINTER returns the pointer itself;
//  * every other struct returns a malloc'd deep copy of the struct and sizeof(struct).
// Differences: where OpenPMIx hands out the value's own byte buffer, we hand out a malloc'd copy
// (the caller may free it; the value stays intact), and where OpenPMIx rejects a NULL *data for
// a number we allocate the storage instead.
#include "data/detail.h"
#include "data/value.h"

namespace pmix::data {
namespace {

// Copy `n` bytes into the caller's storage, allocating it when the caller gave none.
pmix_status_t deliver_in_place(void** data, const void* src, std::size_t n) noexcept {
    if (*data == nullptr) {
        *data = std::malloc(n);
        if (*data == nullptr) {
            return PMIX_ERR_NOMEM;
        }
    }
    std::memcpy(*data, src, n);
    return PMIX_SUCCESS;
}

pmix_status_t deliver_bytes(const pmix_byte_object_t& bo, void** data, std::size_t* size) noexcept {
    *data = nullptr;
    *size = 0;
    if (bo.bytes == nullptr || bo.size == 0) {
        return PMIX_SUCCESS;
    }
    void* copy = std::malloc(bo.size);
    if (copy == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    std::memcpy(copy, bo.bytes, bo.size);
    *data = copy;
    *size = bo.size;
    return PMIX_SUCCESS;
}

pmix_status_t deliver_string(const char* s, void** data, std::size_t* size) noexcept {
    *data = nullptr;
    *size = 0;
    if (s == nullptr) {
        return PMIX_SUCCESS;
    }
    char* copy = ::strdup(s);
    if (copy == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    *data = copy;
    *size = std::strlen(s);
    return PMIX_SUCCESS;
}

pmix_status_t deliver_copy(const void* element, pmix_data_type_t type, void** data,
                           std::size_t* size) noexcept {
    void* box = nullptr;
    pmix_status_t rc = copy(&box, element, type);
    if (rc == PMIX_SUCCESS) {
        *data = box;
        *size = element_size(type);
    }
    return rc;
}

}  // namespace

pmix_status_t value_unload(const pmix_value_t* value, void** data, std::size_t* size) noexcept {
    if (value == nullptr || data == nullptr || size == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    const detail::TypeInfo* info = detail::type_info(value->type);
    if (info == nullptr) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;  // includes PMIX_UNDEF: there is nothing to unload
    }
    switch (value->type) {
        case PMIX_STRING:
            return deliver_string(value->data.string, data, size);
        case PMIX_BYTE_OBJECT:
        case PMIX_COMPRESSED_STRING:
        case PMIX_COMPRESSED_BYTE_OBJECT:
        case PMIX_REGEX:
            return deliver_bytes(value->data.bo, data, size);
        case PMIX_POINTER:
            *data = value->data.ptr;
            *size = sizeof(void*);
            return PMIX_SUCCESS;
        default:
            break;
    }
    const void* element = value_element(value);
    if (element == nullptr) {
        *size = 0;  // a boxed type holding NULL: nothing to hand out
        return PMIX_SUCCESS;
    }
    if (value->type == PMIX_PROC_NSPACE) {
        pmix_nspace_t ns = {0};
        std::memcpy(ns, element, PMIX_MAX_NSLEN);  // element is a full pmix_nspace_t
        pmix_status_t rc = deliver_in_place(data, ns, sizeof(ns));
        *size = rc == PMIX_SUCCESS ? std::strlen(ns) : 0;
        return rc;
    }
    if (info->trivial) {  // numbers, enums, PMIX_PROC
        pmix_status_t rc = deliver_in_place(data, element, info->size);
        *size = rc == PMIX_SUCCESS ? info->size : 0;
        return rc;
    }
    return deliver_copy(element, value->type, data, size);
}

}  // namespace pmix::data
