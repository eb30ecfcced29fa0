// core/data/compare.cpp - PMIx_Value_compare and the element comparison for plain types.
#include "data/detail.h"
#include "data/value.h"

#include <sys/time.h>
#include <ctime>

namespace pmix::data {
namespace {

using detail::compare_number;

template <typename T>
pmix_value_cmp_t numbers(const void* a, const void* b) noexcept {
    T x;
    T y;
    std::memcpy(&x, a, sizeof(T));  // elements of a data array need not be aligned for T
    std::memcpy(&y, b, sizeof(T));
    return compare_number(x, y);
}

pmix_value_cmp_t timevals(const void* a, const void* b) noexcept {
    struct timeval x;
    struct timeval y;
    std::memcpy(&x, a, sizeof(x));
    std::memcpy(&y, b, sizeof(y));
    pmix_value_cmp_t r = compare_number(x.tv_sec, y.tv_sec);
    return r != PMIX_EQUAL ? r : compare_number(x.tv_usec, y.tv_usec);
}

pmix_value_cmp_t procs(const pmix_proc_t* a, const pmix_proc_t* b) noexcept {
    int r = std::strncmp(a->nspace, b->nspace, PMIX_MAX_NSLEN + 1);
    if (r != 0) {
        return r > 0 ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
    }
    return compare_number(a->rank, b->rank);
}

pmix_value_cmp_t plain(const void* a, const void* b, pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_BOOL:
            return numbers<bool>(a, b);
        case PMIX_INT8:
            return numbers<std::int8_t>(a, b);
        case PMIX_INT16:
            return numbers<std::int16_t>(a, b);
        case PMIX_INT:
        case PMIX_STATUS:
            return numbers<int>(a, b);
        case PMIX_INT32:
            return numbers<std::int32_t>(a, b);
        case PMIX_INT64:
            return numbers<std::int64_t>(a, b);
        case PMIX_UINT:
            return numbers<unsigned int>(a, b);
        case PMIX_SIZE:
            return numbers<std::size_t>(a, b);
        case PMIX_PID:
            return numbers<pid_t>(a, b);
        case PMIX_FLOAT:
            return numbers<float>(a, b);
        case PMIX_DOUBLE:
            return numbers<double>(a, b);
        case PMIX_TIME:
            return numbers<time_t>(a, b);
        case PMIX_TIMEVAL:
            return timevals(a, b);
        case PMIX_POINTER:
            return numbers<std::uintptr_t>(a, b);
        case PMIX_PROC:
            return procs(static_cast<const pmix_proc_t*>(a), static_cast<const pmix_proc_t*>(b));
        case PMIX_PROC_NSPACE: {
            int r = std::strncmp(static_cast<const char*>(a), static_cast<const char*>(b),
                                 PMIX_MAX_NSLEN + 1);
            return compare_number(r, 0);
        }
        default:
            break;
    }
    // The remaining trivial types are unsigned integers of their element size (enums, flags,
    // ranks, device types, storage bitmasks).
    switch (element_size(type)) {
        case 1:
            return numbers<std::uint8_t>(a, b);
        case 2:
            return numbers<std::uint16_t>(a, b);
        case 4:
            return numbers<std::uint32_t>(a, b);
        case 8:
            return numbers<std::uint64_t>(a, b);
        default:
            return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
}

}  // namespace

pmix_value_cmp_t compare_element(const void* a, const void* b, pmix_data_type_t type) noexcept {
    const detail::TypeInfo* info = detail::type_info(type);
    if (info == nullptr || a == nullptr || b == nullptr) {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    return info->trivial ? plain(a, b, type) : detail::compare_struct(a, b, type);
}

pmix_value_cmp_t value_compare(const pmix_value_t* a, const pmix_value_t* b) noexcept {
    if (a == nullptr || b == nullptr) {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;  // OpenPMIx dereferences them
    }
    if (a->type != b->type) {
        return PMIX_VALUE_TYPE_DIFFERENT;
    }
    if (a->type == PMIX_UNDEF) {
        return PMIX_EQUAL;
    }
    if (!is_known_type(a->type)) {
        return PMIX_VALUE_COMPARISON_NOT_AVAIL;
    }
    if (a->type == PMIX_REGEX) {
        return detail::compare_bytes(&a->data.bo, &b->data.bo);
    }
    const void* ea = value_element(a);
    const void* eb = value_element(b);
    if (ea == nullptr || eb == nullptr) {  // boxed types holding NULL
        return ea == eb ? PMIX_EQUAL : (ea != nullptr ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
    }
    return compare_element(ea, eb, a->type);
}

namespace detail {

pmix_value_cmp_t compare_strings(const char* a, const char* b) noexcept {
    if (a == nullptr || b == nullptr) {
        return a == b ? PMIX_EQUAL : (a != nullptr ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER);
    }
    return compare_number(std::strcmp(a, b), 0);
}

pmix_value_cmp_t compare_bytes(const pmix_byte_object_t* a, const pmix_byte_object_t* b) noexcept {
    if (a->size != b->size) {
        return compare_number(a->size, b->size);
    }
    if (a->size == 0 || a->bytes == b->bytes) {
        return PMIX_EQUAL;
    }
    if (a->bytes == nullptr || b->bytes == nullptr) {
        return a->bytes != nullptr ? PMIX_VALUE1_GREATER : PMIX_VALUE2_GREATER;
    }
    return compare_number(std::memcmp(a->bytes, b->bytes, a->size), 0);
}

}  // namespace detail
}  // namespace pmix::data
