// core/data/value.cpp - pmix_value_t, pmix_info_t and pmix_data_array_t life cycle; Data_copy.
#include "data/detail.h"
#include "data/value.h"

namespace pmix::data {
namespace {

using detail::Storage;
using detail::TypeInfo;

// PMIx_Value_load takes these "by value": `data` is the char* / pointer itself, not its address.
bool passed_by_value(pmix_data_type_t type) noexcept {
    return type == PMIX_STRING || type == PMIX_REGEX || type == PMIX_POINTER;
}

void reset(pmix_value_t* v) noexcept {
    std::memset(v, 0, sizeof(*v));
    v->type = PMIX_UNDEF;
}

// A regex value keeps its NUL-terminated text in data.bo with the terminator counted, so the
// byte-object view (size) and the string view (bytes) agree.
void fix_regex_size(pmix_value_t* v) noexcept {
    v->data.bo.size = v->data.bo.bytes == nullptr ? 0 : std::strlen(v->data.bo.bytes) + 1;
}

// Deep-copy `element` into an empty value whose type is already set.
pmix_status_t store(pmix_value_t* v, const void* element, const TypeInfo& info) noexcept {
    pmix_status_t rc = PMIX_SUCCESS;
    if (info.storage == Storage::inline_union) {
        rc = copy_element(&v->data, element, v->type);
        if (rc == PMIX_SUCCESS && v->type == PMIX_REGEX) {
            fix_regex_size(v);
        }
    } else {
        void* box = std::malloc(info.size);
        if (box == nullptr) {
            rc = PMIX_ERR_NOMEM;
        } else if ((rc = copy_element(box, element, v->type)) == PMIX_SUCCESS) {
            v->data.ptr = box;
        } else {
            std::free(box);
        }
    }
    if (rc != PMIX_SUCCESS) {
        reset(v);
    }
    return rc;
}

}  // namespace

const void* value_element(const pmix_value_t* value) noexcept {
    if (value == nullptr) {
        return nullptr;
    }
    const TypeInfo* info = detail::type_info(value->type);
    if (info == nullptr) {
        return nullptr;
    }
    return info->storage == Storage::inline_union ? static_cast<const void*>(&value->data)
                                                  : value->data.ptr;
}

pmix_status_t value_load(pmix_value_t* value, const void* data, pmix_data_type_t type) noexcept {
    if (value == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    const TypeInfo* info = detail::type_info(type);
    if (info == nullptr && type != PMIX_UNDEF) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;  // OpenPMIx reports success and stores nothing
    }
    reset(value);
    value->type = type;
    if (type == PMIX_UNDEF) {
        return PMIX_SUCCESS;
    }
    if (data == nullptr) {
        // A flag given without a value means "true": the attribute's presence is the value.
        if (type == PMIX_BOOL) {
            value->data.flag = true;
        }
        return PMIX_SUCCESS;
    }
    return store(value, passed_by_value(type) ? static_cast<const void*>(&data) : data, *info);
}

pmix_status_t value_xfer(pmix_value_t* dst, const pmix_value_t* src) noexcept {
    if (dst == nullptr || src == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (dst == src) {
        return PMIX_SUCCESS;
    }
    const TypeInfo* info = detail::type_info(src->type);
    if (info == nullptr && src->type != PMIX_UNDEF) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    reset(dst);
    dst->type = src->type;
    if (src->type == PMIX_REGEX) {
        // Copied as bytes: a regex may carry a compressed (non-text) body.
        pmix_status_t rc = copy_element(&dst->data.bo, &src->data.bo, PMIX_BYTE_OBJECT);
        if (rc != PMIX_SUCCESS) {
            reset(dst);
        }
        return rc;
    }
    const void* element = value_element(src);
    if (element == nullptr) {
        return PMIX_SUCCESS;  // PMIX_UNDEF, or a boxed type holding NULL
    }
    return store(dst, element, *info);
}

void value_destruct(pmix_value_t* value) noexcept {
    if (value == nullptr) {
        return;
    }
    const TypeInfo* info = detail::type_info(value->type);
    if (info != nullptr) {
        if (info->storage == Storage::inline_union) {
            destruct_element(&value->data, value->type);
        } else if (value->data.ptr != nullptr) {
            destruct_element(value->data.ptr, value->type);
            std::free(value->data.ptr);
        }
    }
    reset(value);
}

pmix_status_t value_adopt(pmix_value_t* value, void* element, pmix_data_type_t type) noexcept {
    if (value == nullptr || (element == nullptr && type != PMIX_UNDEF)) {
        return PMIX_ERR_BAD_PARAM;
    }
    const TypeInfo* info = detail::type_info(type);
    if (info == nullptr && type != PMIX_UNDEF) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    reset(value);
    value->type = type;
    if (type == PMIX_UNDEF) {
        return PMIX_SUCCESS;
    }
    if (info->storage == Storage::inline_union) {
        std::memcpy(&value->data, element, info->size);
        if (type == PMIX_REGEX) {
            fix_regex_size(value);
        }
    } else {
        void* box = std::malloc(info->size);
        if (box == nullptr) {
            reset(value);
            return PMIX_ERR_NOMEM;
        }
        std::memcpy(box, element, info->size);
        value->data.ptr = box;
    }
    std::memset(element, 0, info->size);
    return PMIX_SUCCESS;
}

const pmix_info_t* find_info(const pmix_info_t* info, std::size_t n, const char* key) noexcept {
    for (std::size_t i = 0; info != nullptr && key != nullptr && i < n; ++i) {
        if (std::strncmp(info[i].key, key, PMIX_MAX_KEYLEN) == 0) return &info[i];
    }
    return nullptr;
}

pmix_status_t info_load(pmix_info_t* info, const char* key, const void* data,
                        pmix_data_type_t type) noexcept {
    if (info == nullptr || key == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    // Deviation from OpenPMIx 4.2.2, which silently truncates a key longer than PMIX_MAX_KEYLEN:
    // a truncated key would later match (or miss) the wrong attribute, so we refuse it.
    if (::strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (type != PMIX_UNDEF && !is_known_type(type)) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;  // checked first so `info` is left untouched
    }
    detail::load_key(info->key, key);
    info->flags = 0;
    return value_load(&info->value, data, type);
}

pmix_status_t info_xfer(pmix_info_t* dst, const pmix_info_t* src) noexcept {
    if (dst == nullptr || src == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (dst == src) {
        return PMIX_SUCCESS;
    }
    detail::load_key(dst->key, src->key);
    dst->flags = src->flags;
    // A persistent info does not own its value (PMIx_Info_list_insert): share it, do not copy.
    if ((src->flags & PMIX_INFO_PERSISTENT) != 0) {
        dst->value = src->value;
        return PMIX_SUCCESS;
    }
    return value_xfer(&dst->value, &src->value);
}

void info_destruct(pmix_info_t* info) noexcept {
    if (info == nullptr) {
        return;
    }
    if ((info->flags & PMIX_INFO_PERSISTENT) == 0) {
        value_destruct(&info->value);
    }
    std::memset(info, 0, sizeof(*info));
}

pmix_status_t data_array_init(pmix_data_array_t* array, std::size_t count,
                              pmix_data_type_t type) noexcept {
    if (array == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    const TypeInfo* info = detail::type_info(type);
    if (info == nullptr) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    array->type = type;
    array->size = 0;
    array->array = nullptr;
    if (count == 0) {
        return PMIX_SUCCESS;
    }
    array->array = std::calloc(count, info->size);
    if (array->array == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    array->size = count;
    if (type == PMIX_DEVICE_DIST) {
        // "Distance unknown" is UINT16_MAX, as PMIX_DEVICE_DIST_CREATE initialises it.
        auto* d = static_cast<pmix_device_distance_t*>(array->array);
        for (std::size_t i = 0; i < count; ++i) {
            d[i].mindist = UINT16_MAX;
            d[i].maxdist = UINT16_MAX;
        }
    }
    return PMIX_SUCCESS;
}

void data_array_destruct(pmix_data_array_t* array) noexcept {
    if (array == nullptr) {
        return;
    }
    free_elements(array->array, array->size, array->type);
    array->array = nullptr;
    array->size = 0;
    array->type = PMIX_UNDEF;
}

pmix_status_t copy(void** dest, const void* src, pmix_data_type_t type) noexcept {
    if (dest == nullptr || src == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (type == PMIX_STRING || type == PMIX_REGEX) {
        char* s = ::strdup(static_cast<const char*>(src));  // src is the string itself
        if (s == nullptr) {
            return PMIX_ERR_NOMEM;
        }
        *dest = s;
        return PMIX_SUCCESS;
    }
    const TypeInfo* info = detail::type_info(type);
    if (info == nullptr) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    void* box = std::malloc(info->size);
    if (box == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    pmix_status_t rc = copy_element(box, src, type);
    if (rc != PMIX_SUCCESS) {
        std::free(box);
        return rc;
    }
    *dest = box;
    return PMIX_SUCCESS;
}

}  // namespace pmix::data
