// status_strings.cpp - PMIx_Error_string.
//
// Every status OpenPMIx 4.2.2 names, with exactly its text (some use hyphens, some underscores,
// some spaces: callers may grep logs for them). Found by asking Debian's libpmix for every 32-bit
// value; the table is sorted by code and searched by bisection. Codes are written as numbers
// because they are frozen ABI and several macros live only in pmix_deprecated.h or inside
// OpenPMIx; the macro each code belongs to is named beside it.
#include "text/text.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace pmix::text {
namespace {

struct StatusText {
    pmix_status_t code;
    const char* text;
};

constexpr StatusText kStatusTexts[] = {
    {INT32_MIN, "PMIX_ERR_WILDCARD"},                // internal: PMIX_MAX_ERR_CONSTANT
    {-1367, "PMIX TEMPORARILY UNAVAILABLE"},         // internal: PMIX_ERR_TEMP_UNAVAILABLE
    {-1366, "TAKE-NEXT-OPTION"},                     // internal: PMIX_ERR_TAKE_NEXT_OPTION
    {-1363, "FABRIC_NOT_PARSEABLE"},                 // internal: PMIX_ERR_FABRIC_NOT_PARSEABLE
    {-404, "PROC-EXIT-NONZERO-TERM"},                // PMIX_ERR_EXIT_NONZERO_TERM
    {-403, "PROC-SENSOR-BOUND-EXCEEDED"},            // PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED
    {-402, "PROC-ABORTED-BY-SIG"},                   // PMIX_ERR_PROC_ABORTED_BY_SIG
    {-401, "PROC-FAILED-TO-START"},                  // PMIX_ERR_PROC_FAILED_TO_START
    {-400, "PROC-KILLED-BY-CMD"},                    // PMIX_ERR_PROC_KILLED_BY_CMD
    {-334, "EVENT-ACTION-COMPLETE"},                 // PMIX_EVENT_ACTION_COMPLETE
    {-333, "EVENT-ACTION-DEFERRED"},                 // PMIX_EVENT_ACTION_DEFERRED
    {-332, "EVENT-PARTIAL-ACTION-TAKEN"},            // PMIX_EVENT_PARTIAL_ACTION_TAKEN
    {-331, "EVENT-NO-ACTION-TAKEN"},                 // PMIX_EVENT_NO_ACTION_TAKEN
    {-330, "UNDEFINED-SYSTEM-EVENT"},                // PMIX_EVENT_SYS_OTHER
    {-235, "SYSTEM OPERATION FAILED"},               // PMIX_ERR_JOB_SYS_OP_FAILED
    {-234, "INSUFFICIENT RESOURCES"},                // PMIX_ERR_JOB_INSUFFICIENT_RESOURCES
    {-233, "WORKING DIRECTORY NOT FOUND"},           // PMIX_ERR_JOB_WDIR_NOT_FOUND
    {-232, "NODE-OFFLINE"},                          // PMIX_EVENT_NODE_OFFLINE
    {-231, "NODE-DOWN"},                             // PMIX_EVENT_NODE_DOWN
    {-230, "SYSTEM BASE EVENT"},                     // PMIX_EVENT_SYS_BASE
    {-201, "PROC TERMINATED"},                       // PMIX_EVENT_PROC_TERMINATED
    {-200, "PROC TERMINATED WITHOUT SYNC"},          // PMIX_ERR_PROC_TERM_WO_SYNC
    {-193, "SESSION ENDED"},                         // PMIX_EVENT_SESSION_END
    {-192, "SESSION STARTED"},                       // PMIX_EVENT_SESSION_START
    {-191, "JOB STARTED"},                           // PMIX_EVENT_JOB_START
    {-190, "EXECUTABLE NOT FOUND"},                  // PMIX_ERR_JOB_EXE_NOT_FOUND
    {-189, "JOB ABORTED BY SYSTEM EVENT"},           // PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT
    {-188, "FAILED TO OBTAIN ALLOCATION"},           // PMIX_ERR_JOB_ALLOC_FAILED
    {-187, "NON-ZERO TERMINATION"},                  // PMIX_ERR_JOB_NON_ZERO_TERM
    {-186, "SENSOR BOUND EXCEEDED"},                 // PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED
    {-185, "TERMINATED WITHOUT SYNC"},               // PMIX_ERR_JOB_TERM_WO_SYNC
    {-184, "ABORTED BY SIGNAL"},                     // PMIX_ERR_JOB_ABORTED_BY_SIG
    {-183, "KILLED BY COMMAND"},                     // PMIX_ERR_JOB_KILLED_BY_CMD
    {-182, "JOB ABORTED"},                           // PMIX_ERR_JOB_ABORTED
    {-181, "JOB FAILED TO LAUNCH"},                  // PMIX_ERR_JOB_FAILED_TO_LAUNCH
    {-180, "JOB CANCELED"},                          // PMIX_ERR_JOB_CANCELED
    {-179, "JOB FAILED TO MAP"},                     // PMIX_ERR_JOB_FAILED_TO_MAP
    {-178, "NO EXECUTABLE SPECIFIED"},               // PMIX_ERR_JOB_NO_EXE_SPECIFIED
    {-177, "APPLICATION NOT EXECUTABLE"},            // PMIX_ERR_JOB_APP_NOT_EXECUTABLE
    {-176, "FABRIC-UPDATE-PENDING"},                 // PMIX_FABRIC_UPDATE_PENDING
    {-175, "FABRIC-UPDATED"},                        // PMIX_FABRIC_UPDATED
    {-174, "PMIX LAUNCH COMPLETE"},                  // PMIX_LAUNCH_COMPLETE
    {-173, "IOF COMPLETE"},                          // PMIX_ERR_IOF_COMPLETE
    {-172, "IOF FAILURE"},                           // PMIX_ERR_IOF_FAILURE
    {-171, "REPEAT-ATTRIBUTE-REGISTRATION"},         // PMIX_ERR_REPEAT_ATTR_REGISTRATION
    {-170, "GROUP-MEMBER-FAILED"},                   // PMIX_GROUP_MEMBER_FAILED
    {-169, "GROUP-CONTEXT-ID-ASSIGNED"},             // PMIX_GROUP_CONTEXT_ID_ASSIGNED
    {-168, "GROUP-LEADER-FAILED"},                   // PMIX_GROUP_LEADER_FAILED
    {-167, "GROUP-LEADER-SELECTED"},                 // PMIX_GROUP_LEADER_SELECTED
    {-166, "GROUP-CONSTRUCT-COMPLETE"},              // PMIX_GROUP_CONSTRUCT_COMPLETE
    {-165, "GROUP-CONSTRUCT-ABORT"},                 // PMIX_GROUP_CONSTRUCT_ABORT
    {-164, "GROUP-MEMBERSHIP-UPDATE"},               // PMIX_GROUP_MEMBERSHIP_UPDATE
    {-163, "GROUP-INVITE-FAILED"},                   // PMIX_GROUP_INVITE_FAILED
    {-162, "GROUP-INVITE-DECLINED"},                 // PMIX_GROUP_INVITE_DECLINED
    {-161, "GROUP-INVITE-ACCEPTED"},                 // PMIX_GROUP_INVITE_ACCEPTED
    {-160, "GROUP-LEFT"},                            // PMIX_GROUP_LEFT
    {-159, "GROUP-INVITED"},                         // PMIX_GROUP_INVITED
    {-158, "INVALID-OPERATION"},                     // PMIX_ERR_INVALID_OPERATION
    {-157, "OPERATION-SUCCEEDED"},                   // PMIX_OPERATION_SUCCEEDED
    {-156, "OPERATION-IN-PROGRESS"},                 // PMIX_OPERATION_IN_PROGRESS
    {-155, "LAUNCHER-READY"},                        // PMIX_LAUNCHER_READY
    {-153, "OPENMP-PARALLEL-EXITED"},                // PMIX_OPENMP_PARALLEL_EXITED
    {-152, "OPENMP-PARALLEL-ENTERED"},               // PMIX_OPENMP_PARALLEL_ENTERED
    {-150, "CONNECT-REQUESTED"},                     // PMIX_CONNECT_REQUESTED
    {-149, "PROC-HAS-CONNECTED"},                    // PMIX_PROC_HAS_CONNECTED
    {-148, "GDS-ACTION-COMPLETE"},                   // PMIX_GDS_ACTION_COMPLETE
    {-147, "PMIX MODEL DECLARED"},                   // PMIX_MODEL_DECLARED
    {-146, "UPDATE-ENDPOINTS"},                      // PMIX_ERR_UPDATE_ENDPOINTS
    {-145, "JOB ENDED"},                             // PMIX_EVENT_JOB_END
    {-144, "EVENT-REGISTRATION"},                    // PMIX_ERR_EVENT_REGISTRATION
    {-113, "FABRIC-UPDATE-ENDPOINTS"},               // PMIX_FABRIC_UPDATE_ENDPOINTS
    {-112, "INVALID-TERMINATION"},                   // PMIX_ERR_INVALID_TERMINATION
    {-111, "PROC-TERMINATED"},                       // PMIX_PROC_TERMINATED
    {-110, "PMIX FILE MONITOR ALERT"},               // PMIX_MONITOR_FILE_ALERT
    {-109, "PMIX HEARTBEAT ALERT"},                  // PMIX_MONITOR_HEARTBEAT_ALERT
    {-108, "PMIX PRE-EMPTION ALERT"},                // PMIX_JCTRL_PREEMPT_ALERT
    {-107, "PMIX JOB CONTROL CHECKPOINT COMPLETE"},  // PMIX_JCTRL_CHECKPOINT_COMPLETE
    {-106, "PMIX JOB CONTROL CHECKPOINT"},           // PMIX_JCTRL_CHECKPOINT
    {-105, "PMIX ALLOC OPERATION COMPLETE"},         // PMIX_NOTIFY_ALLOC_COMPLETE
    {-104, "QUERY-PARTIAL-SUCCESS"},                 // PMIX_QUERY_PARTIAL_SUCCESS
    {-74, "WDIR NOT ACCESSIBLE"},                    // PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE
    {-73, "EXE NOT ACCESSIBLE"},                     // PMIX_ERR_EXE_NOT_ACCESSIBLE
    {-72, "PIPE_SETUP_FAILURE"},                     // PMIX_ERR_PIPE_SETUP_FAILURE
    {-71, "SYS_LIMITS_CHILDREN"},                    // PMIX_ERR_SYS_LIMITS_CHILDREN
    {-70, "SYS_LIMITS_PIPES"},                       // PMIX_ERR_SYS_LIMITS_PIPES
    {-69, "FILE_WRITE_FAILURE"},                     // PMIX_ERR_FILE_WRITE_FAILURE
    {-68, "FILE_READ_FAILURE"},                      // PMIX_ERR_FILE_READ_FAILURE
    {-67, "FILE_OPEN_FAILURE"},                      // PMIX_ERR_FILE_OPEN_FAILURE
    {-65, "VALUE_OUT_OF_BOUNDS"},                    // PMIX_ERR_VALUE_OUT_OF_BOUNDS
    {-64, "NOT_AVAILABLE"},                          // PMIX_ERR_NOT_AVAILABLE
    {-63, "FATAL"},                                  // PMIX_ERR_FATAL
    {-62, "OUTSIDE-SCOPE"},                          // PMIX_ERR_EXISTS_OUTSIDE_SCOPE
    {-61, "LOST_CONNECTION"},                        // PMIX_ERR_LOST_CONNECTION
    {-60, "EMPTY"},                                  // PMIX_ERR_EMPTY
    {-59, "PARAM-VALUE-NOT-SUPPORTED"},              // PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED
    {-58, "READY-FOR-DEBUG"},                        // PMIX_READY_FOR_DEBUG
    {-55, "PROCESS SET DEFINED"},                    // PMIX_PROCESS_SET_DEFINE
    {-53, "DUPLICATE KEY"},                          // PMIX_ERR_DUPLICATE_KEY
    {-52, "PARTIAL SUCCESS"},                        // PMIX_ERR_PARTIAL_SUCCESS
    {-51, "PMIX CONFLICTING CLEANUP DIRECTIVES"},    // PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES
    {-50, "UNPACK-PAST-END"},                        // PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER
    {-49, "COMM-FAILURE"},                           // PMIX_ERR_COMM_FAILURE
    {-48, "NOT-IMPLEMENTED"},                        // PMIX_ERR_NOT_IMPLEMENTED
    {-47, "NOT-SUPPORTED"},                          // PMIX_ERR_NOT_SUPPORTED
    {-46, "NOT-FOUND"},                              // PMIX_ERR_NOT_FOUND
    {-45, "SERVER-NOT-AVAIL"},                       // PMIX_ERR_SERVER_NOT_AVAIL
    {-44, "INVALID-NAMESPACE"},                      // PMIX_ERR_INVALID_NAMESPACE
    {-43, "INVALID-SIZE"},                           // PMIX_ERR_INVALID_SIZE
    {-42, "INVALID-KEYVAL"},                         // PMIX_ERR_INVALID_KEYVALP
    {-41, "INVALID-NUM-PARSED"},                     // PMIX_ERR_INVALID_NUM_PARSED
    {-40, "INVALID-ARGS"},                           // PMIX_ERR_INVALID_ARGS
    {-39, "INVALID-NUM-ARGS"},                       // PMIX_ERR_INVALID_NUM_ARGS
    {-38, "INVALID-LENGTH"},                         // PMIX_ERR_INVALID_LENGTH
    {-37, "INVALID-VAL-LENGTH"},                     // PMIX_ERR_INVALID_VAL_LENGTH
    {-36, "INVALID-VAL"},                            // PMIX_ERR_INVALID_VAL
    {-35, "INVALID-KEY-LENGTH"},                     // PMIX_ERR_INVALID_KEY_LENGTH
    {-34, "INVALID-KEY"},                            // PMIX_ERR_INVALID_KEY
    {-33, "INVALID-ARG"},                            // PMIX_ERR_INVALID_ARG
    {-32, "NO-MEM"},                                 // PMIX_ERR_NOMEM
    {-31, "INIT"},                                   // PMIX_ERR_INIT
    {-30, "DATA-VALUE-NOT-FOUND"},                   // PMIX_ERR_DATA_VALUE_NOT_FOUND
    {-29, "OUT-OF-RESOURCE"},                        // PMIX_ERR_OUT_OF_RESOURCE
    {-28, "RESOURCE-BUSY"},                          // PMIX_ERR_RESOURCE_BUSY
    {-27, "BAD-PARAM"},                              // PMIX_ERR_BAD_PARAM
    {-26, "ERR-IN-ERRNO"},                           // PMIX_ERR_IN_ERRNO
    {-25, "UNREACHABLE"},                            // PMIX_ERR_UNREACH
    {-24, "TIMEOUT"},                                // PMIX_ERR_TIMEOUT
    {-23, "NO-PERMISSIONS"},                         // PMIX_ERR_NO_PERMISSIONS
    {-22, "PACK-MISMATCH"},                          // PMIX_ERR_PACK_MISMATCH
    {-21, "PACK-FAILURE"},                           // PMIX_ERR_PACK_FAILURE
    {-20, "UNPACK-FAILURE"},                         // PMIX_ERR_UNPACK_FAILURE
    {-19, "UNPACK-INADEQUATE-SPACE"},                // PMIX_ERR_UNPACK_INADEQUATE_SPACE
    {-18, "TYPE-MISMATCH"},                          // PMIX_ERR_TYPE_MISMATCH
    {-17, "PROC-ENTRY-NOT-FOUND"},                   // PMIX_ERR_PROC_ENTRY_NOT_FOUND
    {-16, "UNKNOWN-DATA-TYPE"},                      // PMIX_ERR_UNKNOWN_DATA_TYPE
    {-15, "WOULD-BLOCK"},                            // PMIX_ERR_WOULD_BLOCK
    {-14, "READY-FOR-HANDSHAKE"},                    // PMIX_ERR_READY_FOR_HANDSHAKE
    {-13, "HANDSHAKE-FAILED"},                       // PMIX_ERR_HANDSHAKE_FAILED
    {-12, "INVALID-CREDENTIAL"},                     // PMIX_ERR_INVALID_CRED
    {-11, "EXISTS"},                                 // PMIX_ERR_EXISTS
    {-10, "SERVER FAILED REQUEST"},                  // PMIX_ERR_SERVER_FAILED_REQUEST
    {-9, "PROC-ABORTING"},                           // PMIX_ERR_PROC_ABORTING
    {-8, "PROC-ABORT-REQUESTED"},                    // PMIX_ERR_PROC_REQUESTED_ABORT
    {-7, "PROC-ABORTED"},                            // PMIX_ERR_PROC_ABORTED
    {-6, "PROC-MIGRATE"},                            // PMIX_ERR_PROC_MIGRATE
    {-5, "PROC-CHECKPOINT-ERROR"},                   // PMIX_ERR_PROC_CHECKPOINT
    {-4, "PROC_RESTART"},                            // PMIX_ERR_PROC_RESTART
    {-3, "DEBUGGER-RELEASE"},                        // PMIX_DEBUGGER_RELEASE
    {-2, "SILENT_ERROR"},                            // PMIX_ERR_SILENT
    {-1, "ERROR"},                                   // PMIX_ERROR
    {0, "SUCCESS"},                                  // PMIX_SUCCESS
};

constexpr bool sorted_and_unique() {
    for (std::size_t i = 1; i < std::size(kStatusTexts); ++i) {
        if (kStatusTexts[i - 1].code >= kStatusTexts[i].code) {
            return false;
        }
    }
    return true;
}
static_assert(sorted_and_unique(), "kStatusTexts must be sorted by code for bisection");

}  // namespace

const char* error_string(pmix_status_t status) noexcept {
    const auto it =
        std::lower_bound(std::begin(kStatusTexts), std::end(kStatusTexts), status,
                         [](const StatusText& e, pmix_status_t s) { return e.code < s; });
    if (it != std::end(kStatusTexts) && it->code == status) {
        return it->text;
    }
    return "ERROR STRING NOT FOUND";
}

}  // namespace pmix::text
