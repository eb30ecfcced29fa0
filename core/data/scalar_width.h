// core/data/scalar_width.h - the one table of the types a pmix_value_t holds as a single plain
// number: every integer, enum and flag-set type, bool, float, double, time_t and void*.
//
// The value model (type_table.cpp: element sizes), the codec (pack_scalars.cpp: which raw coder)
// and the store (gds/encode.cpp: which values are stored inline) all read this table, so a type
// added to the Standard is added here once.
#pragma once

#include <pmix_common.h>

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <ctime>

namespace pmix::data {

// The host width in bytes of such a type: what its union member occupies at &value->data and
// what one element of a pmix_data_array_t of it occupies. 0 for every other type (strings, byte
// objects, structs - PMIX_TIMEVAL included - and unknown types).
constexpr std::size_t scalar_width(pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_BOOL:
            return sizeof(bool);
        case PMIX_BYTE:
        case PMIX_INT8:
        case PMIX_UINT8:
        // Enums that travel as uint8_t (pmix_cmd_t is OpenPMIx-internal, a uint8_t too).
        case PMIX_PERSIST:
        case PMIX_SCOPE:
        case PMIX_DATA_RANGE:
        case PMIX_COMMAND:
        case PMIX_PROC_STATE:
        case PMIX_ALLOC_DIRECTIVE:
        case PMIX_JOB_STATE:
        case PMIX_LINK_STATE:
            return 1;
        case PMIX_INT16:
        case PMIX_UINT16:
        case PMIX_DATA_TYPE:
        case PMIX_IOF_CHANNEL:
        case PMIX_LOCTYPE:
        case PMIX_STOR_ACCESS_TYPE:
            return 2;
        case PMIX_INT:
            return sizeof(int);
        case PMIX_UINT:
            return sizeof(unsigned int);
        case PMIX_PID:
            return sizeof(pid_t);
        case PMIX_STATUS:
            return sizeof(pmix_status_t);
        case PMIX_FLOAT:
            return sizeof(float);
        case PMIX_INT32:
        case PMIX_UINT32:
        case PMIX_INFO_DIRECTIVES:
        case PMIX_PROC_RANK:
            return 4;
        case PMIX_SIZE:
            return sizeof(std::size_t);
        case PMIX_DOUBLE:
            return sizeof(double);
        case PMIX_TIME:
            return sizeof(time_t);
        case PMIX_POINTER:
            return sizeof(void*);
        case PMIX_INT64:
        case PMIX_UINT64:
        case PMIX_DEVTYPE:
        case PMIX_STOR_MEDIUM:
        case PMIX_STOR_ACCESS:
        case PMIX_STOR_PERSIST:
            return 8;
        default:
            return 0;
    }
}

static_assert(sizeof(pmix_info_directives_t) == 4 && sizeof(pmix_rank_t) == 4 &&
                  sizeof(pmix_data_type_t) == 2 && sizeof(pmix_device_type_t) == 8,
              "the fixed widths above are those of the Standard's typedefs");

}  // namespace pmix::data
