// core/data/print.cpp - PMIx_Data_print / PMIx_Value_string rendering: entry points, the plain
// types and pmix_value_t. Shapes follow OpenPMIx ("<prefix>Data type: PMIX_INT\tValue: 5") so
// logs read the same; byte-for-byte equality is not a goal (see README.md for the differences).
#include "data/detail.h"
#include "data/names.h"
#include "data/render.h"
#include "data/value.h"

#include <sys/time.h>

#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <ctime>
#include <new>

namespace pmix::data {
namespace detail {
namespace {

template <typename T>
T load(const void* e) {
    T v;
    std::memcpy(&v, e, sizeof(T));  // array elements need not be aligned for T
    return v;
}

std::string line(const char* prefix, const char* type, const std::string& value) {
    return format("%sData type: %s\tValue: %s", pfx(prefix), type, value.c_str());
}

std::string render_time(const char* prefix, time_t t) {
    char buf[64] = "";
    struct tm tm;
    if (::localtime_r(&t, &tm) != nullptr) {
        std::strftime(buf, sizeof(buf), "%a %b %e %H:%M:%S %Y", &tm);  // ctime() without '\n'
    }
    return line(prefix, "PMIX_TIME", buf);
}

std::string render_proc(const char* prefix, const pmix_proc_t& p) {
    const char* special = names::rank(p.rank);
    std::string rank = special != nullptr ? special : std::to_string(p.rank);
    return format("%sPROC: %.*s:%s", pfx(prefix), PMIX_MAX_NSLEN, p.nspace, rank.c_str());
}

// Unsigned enums and flag sets: each is a word or a list of words.
bool render_enum(std::string& out, const char* prefix, const void* e, pmix_data_type_t type) {
    const char* name = names::data_type(type);
    switch (type) {
        case PMIX_SCOPE:
            out = line(prefix, name, names::scope(load<pmix_scope_t>(e)));
            break;
        case PMIX_DATA_RANGE:
            out = line(prefix, name, names::data_range(load<pmix_data_range_t>(e)));
            break;
        case PMIX_PROC_STATE:
            out = line(prefix, name, names::proc_state(load<pmix_proc_state_t>(e)));
            break;
        case PMIX_JOB_STATE:
            out = line(prefix, name, names::job_state(load<pmix_job_state_t>(e)));
            break;
        case PMIX_LINK_STATE:
            out = line(prefix, name, names::link_state(load<pmix_link_state_t>(e)));
            break;
        case PMIX_ALLOC_DIRECTIVE:
            out = line(prefix, name, names::alloc_directive(load<pmix_alloc_directive_t>(e)));
            break;
        case PMIX_INFO_DIRECTIVES:
            out = line(prefix, name, names::info_directives(load<pmix_info_directives_t>(e)));
            break;
        case PMIX_IOF_CHANNEL:
            out = line(prefix, name, names::iof_channel(load<pmix_iof_channel_t>(e)));
            break;
        case PMIX_DATA_TYPE:
            out = line(prefix, name, names::data_type(load<pmix_data_type_t>(e)));
            break;
        case PMIX_LOCTYPE:
            out = line(prefix, "PMIX_LOCALITY", names::locality(load<pmix_locality_t>(e)));
            break;
        case PMIX_DEVTYPE:
            out = line(prefix, "PMIX_DEVICE_TYPE", format("0x%" PRIx64, load<std::uint64_t>(e)));
            break;
        case PMIX_STOR_MEDIUM:
        case PMIX_STOR_ACCESS:
        case PMIX_STOR_PERSIST:
            out = line(prefix, name, names::storage_flags(type, load<std::uint64_t>(e)));
            break;
        case PMIX_STOR_ACCESS_TYPE:
            out = line(prefix, name, names::storage_flags(type, load<std::uint16_t>(e)));
            break;
        default:
            return false;
    }
    return true;
}

// Numbers and the other fixed-size types.
bool render_number(std::string& out, const char* prefix, const void* e, pmix_data_type_t type) {
    const char* name = names::data_type(type);
    switch (type) {
        case PMIX_BOOL:
            out = line(prefix, name, load<bool>(e) ? "TRUE" : "FALSE");
            break;
        case PMIX_BYTE:
            out = line(prefix, name, format("%x", load<std::uint8_t>(e)));
            break;
        case PMIX_SIZE:
            out = line(prefix, name, format("%zu", load<std::size_t>(e)));
            break;
        case PMIX_PID:
            out = line(prefix, name, format("%ld", static_cast<long>(load<pid_t>(e))));
            break;
        case PMIX_INT:
            out = line(prefix, name, format("%d", load<int>(e)));
            break;
        case PMIX_INT8:
            out = line(prefix, name, format("%d", load<std::int8_t>(e)));
            break;
        case PMIX_INT16:
            out = line(prefix, name, format("%d", load<std::int16_t>(e)));
            break;
        case PMIX_INT32:
            out = line(prefix, name, format("%" PRId32, load<std::int32_t>(e)));
            break;
        case PMIX_INT64:
            out = line(prefix, name, format("%" PRId64, load<std::int64_t>(e)));
            break;
        case PMIX_UINT:
            out = line(prefix, name, format("%u", load<unsigned>(e)));
            break;
        case PMIX_UINT8:
            out = line(prefix, name, format("%u", load<std::uint8_t>(e)));
            break;
        case PMIX_UINT16:
            out = line(prefix, name, format("%u", load<std::uint16_t>(e)));
            break;
        case PMIX_UINT32:
            out = line(prefix, name, format("%" PRIu32, load<std::uint32_t>(e)));
            break;
        case PMIX_UINT64:
            out = line(prefix, name, format("%" PRIu64, load<std::uint64_t>(e)));
            break;
        case PMIX_FLOAT:
            out = line(prefix, name, format("%f", static_cast<double>(load<float>(e))));
            break;
        case PMIX_DOUBLE:
            out = line(prefix, name, format("%f", load<double>(e)));
            break;
        case PMIX_TIMEVAL: {
            auto tv = load<struct timeval>(e);
            out = line(
                prefix, name,
                format("%ld.%06ld", static_cast<long>(tv.tv_sec), static_cast<long>(tv.tv_usec)));
            break;
        }
        case PMIX_TIME:
            out = render_time(prefix, load<time_t>(e));
            break;
        case PMIX_STATUS:
            out = line(prefix, name, names::status(load<pmix_status_t>(e)));
            break;
        case PMIX_PERSIST:
            out = line(prefix, name, format("%u", load<pmix_persistence_t>(e)));
            break;
        case PMIX_COMMAND:
            out = line(prefix, name, format("%u", load<command_t>(e)));
            break;
        default:
            return false;
    }
    return true;
}

}  // namespace

std::string format(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    va_list again;
    va_copy(again, ap);
    int n = std::vsnprintf(nullptr, 0, fmt, ap);
    va_end(ap);
    std::string out;
    if (n > 0) {
        out.resize(static_cast<std::size_t>(n) + 1);
        std::vsnprintf(out.data(), out.size(), fmt, again);
        out.resize(static_cast<std::size_t>(n));
    }
    va_end(again);
    return out;
}

pmix_status_t render(std::string& out, const char* prefix, const void* e, pmix_data_type_t type) {
    if (render_number(out, prefix, e, type) || render_enum(out, prefix, e, type)) {
        return PMIX_SUCCESS;
    }
    switch (type) {
        case PMIX_STRING: {
            const char* s = load<const char*>(e);
            out = line(prefix, "PMIX_STRING", s != nullptr ? s : "NULL pointer");
            return PMIX_SUCCESS;
        }
        case PMIX_POINTER:
            out = format("%sData type: PMIX_POINTER\tAddress: %p", pfx(prefix), load<void*>(e));
            return PMIX_SUCCESS;
        case PMIX_PROC_RANK: {
            auto r = load<pmix_rank_t>(e);
            const char* special = names::rank(r);
            out = line(prefix, "PMIX_PROC_RANK", special != nullptr ? special : std::to_string(r));
            return PMIX_SUCCESS;
        }
        case PMIX_PROC:
            out = render_proc(prefix, load<pmix_proc_t>(e));
            return PMIX_SUCCESS;
        case PMIX_PROC_NSPACE:
            out = format("%sData type: PMIX_PROC_NSPACE\tValue: %.*s", pfx(prefix), PMIX_MAX_NSLEN,
                         static_cast<const char*>(e));
            return PMIX_SUCCESS;
        case PMIX_VALUE:
            return render_value(out, prefix, static_cast<const pmix_value_t*>(e));
        default:
            return render_struct(out, prefix, e, type);
    }
}

pmix_status_t render_value(std::string& out, const char* prefix, const pmix_value_t* v) {
    if (v == nullptr) {
        out = format("%sData type: PMIX_VALUE\tValue: NULL pointer", pfx(prefix));
        return PMIX_SUCCESS;
    }
    std::string inner;
    const char* name = names::data_type(v->type);
    const void* element = value_element(v);
    if (v->type == PMIX_UNDEF) {
        inner = " Data type: PMIX_UNDEF";
    } else if (!is_known_type(v->type)) {
        inner = format(" Data type: %s(%d)\tValue: UNPRINTABLE", name, static_cast<int>(v->type));
    } else if (v->type == PMIX_REGEX) {
        // The text lives in a byte object; never read past its recorded size.
        const pmix_byte_object_t& bo = v->data.bo;
        int len = bo.bytes == nullptr ? 0 : static_cast<int>(::strnlen(bo.bytes, bo.size));
        inner =
            format(" Data type: PMIX_REGEX\tName: %.*s", len, bo.bytes == nullptr ? "" : bo.bytes);
    } else if (element == nullptr) {
        inner = format(" Data type: %s\tValue: NULL pointer", name);
    } else if (render(inner, nullptr, element, v->type) != PMIX_SUCCESS) {
        // A value must always print (PMIx_Value_string); an opaque payload says so.
        inner = format(" Data type: %s\tValue: UNPRINTABLE", name);
    }
    out = format("%sPMIX_VALUE: %s", pfx(prefix), inner.c_str());
    return PMIX_SUCCESS;
}

}  // namespace detail

pmix_status_t print_element(std::string& out, const char* prefix, const void* element,
                            pmix_data_type_t type) noexcept {
    if (element == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (!is_known_type(type)) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    try {
        std::string text;
        pmix_status_t rc = detail::render(text, prefix, element, type);
        if (rc == PMIX_SUCCESS) {
            out = std::move(text);
        }
        return rc;
    } catch (const std::bad_alloc&) {
        return PMIX_ERR_NOMEM;
    } catch (...) {
        return PMIX_ERROR;
    }
}

pmix_status_t print(std::string& out, const char* prefix, const void* src,
                    pmix_data_type_t type) noexcept {
    if (src == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    // OpenPMIx conventions: strings and regexes are passed as the char* itself, a pointer to
    // print as the pointer itself; everything else by address.
    if (type == PMIX_STRING || type == PMIX_REGEX || type == PMIX_POINTER) {
        return print_element(out, prefix, &src, type);
    }
    return print_element(out, prefix, src, type);
}

}  // namespace pmix::data
