// enum_strings.cpp - names of the small enumerations (states, scopes, ranges, types, ...).
//
// Each table lists the values OpenPMIx 4.2.2 names and the text it prints; anything else gets the
// function's fallback text, which differs from one function to the next ("UNKNOWN STATE",
// "UNKNOWN SCOPE", "UNKNOWN", ...) exactly as in OpenPMIx. tests/unit/core/text checks every
// value of every domain against Debian's library.
#include "text/text.h"

#include <cstddef>
#include <iterator>
#include <string_view>

namespace pmix::text {
namespace {

template <typename T>
struct Named {
    T value;
    const char* text;
};

template <typename T, std::size_t N>
constexpr const char* find_text(const Named<T> (&table)[N], T value,
                                const char* fallback) noexcept {
    for (const Named<T>& e : table) {
        if (e.value == value) {
            return e.text;
        }
    }
    return fallback;
}

constexpr Named<pmix_proc_state_t> kProcStates[] = {
    {PMIX_PROC_STATE_UNDEF, "UNDEFINED"},
    {PMIX_PROC_STATE_PREPPED, "PREPPED FOR LAUNCH"},
    {PMIX_PROC_STATE_LAUNCH_UNDERWAY, "LAUNCH UNDERWAY"},
    {PMIX_PROC_STATE_RESTART, "PROC READY FOR RESTART"},
    {PMIX_PROC_STATE_TERMINATE, "PROC MARKED FOR TERMINATION"},
    {PMIX_PROC_STATE_RUNNING, "PROC EXECUTING"},
    {PMIX_PROC_STATE_CONNECTED, "PROC HAS CONNECTED TO LOCAL PMIX SERVER"},
    {PMIX_PROC_STATE_UNTERMINATED, "PROC HAS NOT TERMINATED"},
    {PMIX_PROC_STATE_TERMINATED, "PROC HAS TERMINATED"},
    {PMIX_PROC_STATE_ERROR, "PROC ERROR"},
    {PMIX_PROC_STATE_KILLED_BY_CMD, "PROC KILLED BY CMD"},
    {PMIX_PROC_STATE_ABORTED, "PROC ABNORMALLY ABORTED"},
    {PMIX_PROC_STATE_FAILED_TO_START, "PROC FAILED TO START"},
    {PMIX_PROC_STATE_ABORTED_BY_SIG, "PROC ABORTED BY SIGNAL"},
    {PMIX_PROC_STATE_TERM_WO_SYNC, "PROC TERMINATED WITHOUT CALLING PMIx_Finalize"},
    {PMIX_PROC_STATE_COMM_FAILED, "PROC LOST COMMUNICATION"},
    {PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED, "PROC SENSOR BOUND EXCEEDED"},
    {PMIX_PROC_STATE_CALLED_ABORT, "PROC CALLED PMIx_Abort"},
    {PMIX_PROC_STATE_HEARTBEAT_FAILED, "PROC FAILED TO REPORT HEARTBEAT"},
    {PMIX_PROC_STATE_MIGRATING, "PROC WAITING TO MIGRATE"},
    {PMIX_PROC_STATE_CANNOT_RESTART, "PROC CANNOT BE RESTARTED"},
    {PMIX_PROC_STATE_TERM_NON_ZERO, "PROC TERMINATED WITH NON-ZERO STATUS"},
    {PMIX_PROC_STATE_FAILED_TO_LAUNCH, "PROC FAILED TO LAUNCH"},
};

// Value 1 is PMIX_JOB_STATE_AWAITING_ALLOC in the headers, but OpenPMIx prints it under its
// older name's text.
constexpr Named<pmix_job_state_t> kJobStates[] = {
    {PMIX_JOB_STATE_UNDEF, "UNDEFINED"},
    {PMIX_JOB_STATE_AWAITING_ALLOC, "PREPPED FOR LAUNCH"},
    {PMIX_JOB_STATE_LAUNCH_UNDERWAY, "LAUNCHING"},
    {PMIX_JOB_STATE_RUNNING, "RUNNING"},
    {PMIX_JOB_STATE_SUSPENDED, "SUSPENDED"},
    {PMIX_JOB_STATE_CONNECTED, "CONNECTED"},
    {PMIX_JOB_STATE_UNTERMINATED, "UNTERMINATED"},
    {PMIX_JOB_STATE_TERMINATED, "TERMINATED"},
    {PMIX_JOB_STATE_TERMINATED_WITH_ERROR, "TERMINATED WITH ERROR"},
};

constexpr Named<pmix_scope_t> kScopes[] = {
    {PMIX_SCOPE_UNDEF, "UNDEFINED"},
    {PMIX_LOCAL, "SHARE ON LOCAL NODE ONLY"},
    {PMIX_REMOTE, "SHARE ON REMOTE NODES ONLY"},
    {PMIX_GLOBAL, "SHARE ACROSS ALL NODES"},
    {PMIX_INTERNAL, "STORE INTERNALLY"},
};

constexpr Named<pmix_persistence_t> kPersistences[] = {
    {PMIX_PERSIST_INDEF, "INDEFINITE"},
    {PMIX_PERSIST_FIRST_READ, "DELETE ON FIRST ACCESS"},
    {PMIX_PERSIST_PROC, "RETAIN UNTIL PUBLISHING PROCESS TERMINATES"},
    {PMIX_PERSIST_APP, "RETAIN UNTIL APPLICATION OF PUBLISHING PROCESS TERMINATES"},
    {PMIX_PERSIST_SESSION, "RETAIN UNTIL ALLOCATION OF PUBLISHING PROCESS TERMINATES"},
    {PMIX_PERSIST_INVALID, "INVALID"},
};

constexpr Named<pmix_data_range_t> kRanges[] = {
    {PMIX_RANGE_UNDEF, "UNDEFINED"},
    {PMIX_RANGE_RM, "INTENDED FOR HOST RESOURCE MANAGER ONLY"},
    {PMIX_RANGE_LOCAL, "AVAIL ON LOCAL NODE ONLY"},
    {PMIX_RANGE_NAMESPACE, "AVAIL TO PROCESSES IN SAME JOB ONLY"},
    {PMIX_RANGE_SESSION, "AVAIL TO PROCESSES IN SAME ALLOCATION ONLY"},
    {PMIX_RANGE_GLOBAL, "AVAIL TO ANYONE WITH AUTHORIZATION"},
    {PMIX_RANGE_CUSTOM, "AVAIL AS SPECIFIED IN DIRECTIVES"},
    {PMIX_RANGE_PROC_LOCAL, "AVAIL ON LOCAL PROC ONLY"},
    {PMIX_RANGE_INVALID, "INVALID"},
};

// The header spells the macro REAQUIRE; the printed text is spelled correctly.
constexpr Named<pmix_alloc_directive_t> kAllocDirectives[] = {
    {PMIX_ALLOC_NEW, "NEW"},
    {PMIX_ALLOC_EXTEND, "EXTEND"},
    {PMIX_ALLOC_RELEASE, "RELEASE"},
    {PMIX_ALLOC_REAQUIRE, "REACQUIRE"},
};

constexpr Named<pmix_link_state_t> kLinkStates[] = {
    {PMIX_LINK_STATE_UNKNOWN, "UNKNOWN"},
    {PMIX_LINK_DOWN, "INACTIVE"},
    {PMIX_LINK_UP, "ACTIVE"},
};

constexpr Named<pmix_device_type_t> kDeviceTypes[] = {
    {PMIX_DEVTYPE_UNKNOWN, "UNKNOWN"},
    {PMIX_DEVTYPE_BLOCK, "BLOCK"},
    {PMIX_DEVTYPE_GPU, "GPU"},
    {PMIX_DEVTYPE_NETWORK, "NETWORK"},
    {PMIX_DEVTYPE_OPENFABRICS, "OPENFABRICS"},
    {PMIX_DEVTYPE_DMA, "DMA"},
    {PMIX_DEVTYPE_COPROC, "COPROCESSOR"},
};

constexpr Named<pmix_value_cmp_t> kComparisons[] = {
    {PMIX_EQUAL, "EQUAL"},
    {PMIX_VALUE1_GREATER, "VALUE1 GREATER"},
    {PMIX_VALUE2_GREATER, "VALUE2 GREATER"},
    {PMIX_VALUE_TYPE_DIFFERENT, "DIFFERENT TYPES"},
    {PMIX_VALUE_COMPARISON_NOT_AVAIL, "COMPARISON NOT AVAILABLE"},
    {PMIX_VALUE_INCOMPATIBLE_OBJECTS, "INCOMPATIBLE OBJECTS"},
};

// Data types are dense, so their names are indexed by value. Two of them (29 PMIX_MODEX and
// 44 PMIX_INFO_ARRAY) are deprecated types whose macros live in pmix_deprecated.h; OpenPMIx still
// names them. PMIX_UNDEF (0) has no registered name and prints as "UNKNOWN".
constexpr const char* kDataTypeNames[] = {
    nullptr,
    "PMIX_BOOL",
    "PMIX_BYTE",
    "PMIX_STRING",
    "PMIX_SIZE",
    "PMIX_PID",
    "PMIX_INT",
    "PMIX_INT8",
    "PMIX_INT16",
    "PMIX_INT32",
    "PMIX_INT64",
    "PMIX_UINT",
    "PMIX_UINT8",
    "PMIX_UINT16",
    "PMIX_UINT32",
    "PMIX_UINT64",
    "PMIX_FLOAT",
    "PMIX_DOUBLE",
    "PMIX_TIMEVAL",
    "PMIX_TIME",
    "PMIX_STATUS",
    "PMIX_VALUE",
    "PMIX_PROC",
    "PMIX_APP",
    "PMIX_INFO",
    "PMIX_PDATA",
    "PMIX_BUFFER",
    "PMIX_BYTE_OBJECT",
    "PMIX_KVAL",
    "PMIX_MODEX",
    "PMIX_PERSIST",
    "PMIX_POINTER",
    "PMIX_SCOPE",
    "PMIX_DATA_RANGE",
    "PMIX_COMMAND",
    "PMIX_INFO_DIRECTIVES",
    "PMIX_DATA_TYPE",
    "PMIX_PROC_STATE",
    "PMIX_PROC_INFO",
    "PMIX_DATA_ARRAY",
    "PMIX_PROC_RANK",
    "PMIX_QUERY",
    "PMIX_COMPRESSED_STRING",
    "PMIX_ALLOC_DIRECTIVE",
    "PMIX_INFO_ARRAY",
    "PMIX_IOF_CHANNEL",
    "PMIX_ENVAR",
    "PMIX_COORD",
    "PMIX_REGATTR",
    "PMIX_REGEX",
    "PMIX_JOB_STATE",
    "PMIX_LINK_STATE",
    "PMIX_PROC_CPUSET",
    "PMIX_GEOMETRY",
    "PMIX_DEVICE_DIST",
    "PMIX_ENDPOINT",
    "PMIX_TOPO",
    "PMIX_DEVTYPE",
    "PMIX_LOCTYPE",
    "PMIX_COMPRESSED_BYTE_OBJECT",
    "PMIX_PROC_NSPACE",
    "PMIX_PROC_STATS",
    "PMIX_DISK_STATS",
    "PMIX_NET_STATS",
    "PMIX_NODE_STATS",
    "PMIX_DATA_BUFFER",
    "PMIX_STOR_MEDIUM",
    "PMIX_STOR_ACCESS",
    "PMIX_STOR_PERSIST",
    "PMIX_STOR_ACCESS_TYPE",
};

// Spot checks that the positions above line up with the header values.
constexpr bool named_at(pmix_data_type_t type, std::string_view name) {
    return type < std::size(kDataTypeNames) && kDataTypeNames[type] == name;
}
static_assert(named_at(PMIX_BOOL, "PMIX_BOOL"));
static_assert(named_at(PMIX_KVAL, "PMIX_KVAL"));
static_assert(named_at(PMIX_PERSIST, "PMIX_PERSIST"));
static_assert(named_at(PMIX_ALLOC_DIRECTIVE, "PMIX_ALLOC_DIRECTIVE"));
static_assert(named_at(PMIX_IOF_CHANNEL, "PMIX_IOF_CHANNEL"));
static_assert(named_at(PMIX_DEVTYPE, "PMIX_DEVTYPE"));
static_assert(named_at(PMIX_PROC_NSPACE, "PMIX_PROC_NSPACE"));
static_assert(named_at(PMIX_DATA_BUFFER, "PMIX_DATA_BUFFER"));
static_assert(named_at(PMIX_STOR_ACCESS_TYPE, "PMIX_STOR_ACCESS_TYPE"));

}  // namespace

const char* data_type_string(pmix_data_type_t type) noexcept {
    if (type < std::size(kDataTypeNames) && kDataTypeNames[type] != nullptr) {
        return kDataTypeNames[type];
    }
    return "UNKNOWN";
}

const char* proc_state_string(pmix_proc_state_t state) noexcept {
    return find_text(kProcStates, state, "UNKNOWN STATE");
}

const char* job_state_string(pmix_job_state_t state) noexcept {
    return find_text(kJobStates, state, "UNKNOWN");
}

const char* scope_string(pmix_scope_t scope) noexcept {
    return find_text(kScopes, scope, "UNKNOWN SCOPE");
}

const char* persistence_string(pmix_persistence_t persist) noexcept {
    return find_text(kPersistences, persist, "UNKNOWN PERSISTENCE");
}

const char* data_range_string(pmix_data_range_t range) noexcept {
    return find_text(kRanges, range, "UNKNOWN");
}

const char* alloc_directive_string(pmix_alloc_directive_t directive) noexcept {
    return find_text(kAllocDirectives, directive, "UNSPECIFIED");
}

const char* link_state_string(pmix_link_state_t state) noexcept {
    return find_text(kLinkStates, state, "UNKNOWN");
}

const char* device_type_string(pmix_device_type_t type) noexcept {
    return find_text(kDeviceTypes, type, "UNKNOWN");
}

const char* value_comparison_string(pmix_value_cmp_t cmp) noexcept {
    return find_text(kComparisons, cmp, "UNKNOWN VALUE");
}

}  // namespace pmix::text
