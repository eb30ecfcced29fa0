/*
 * pmix_common.h - types, constants and convenience macros shared by the
 * client (pmix.h), server (pmix_server.h) and tool (pmix_tool.h) APIs.
 *
 * This header is part of a drop-in replacement for OpenPMIx 4.2.2
 * (libpmix.so.2).  Every type layout, constant value (and its C type),
 * macro name/parameter list and static inline helper signature matches that
 * release, so code compiled against either header set links against either
 * library.  The text, organisation and helper bodies are our own.
 *
 * "Std: Chap_..." names the chapter source file of the PMIx Standard
 * (github.com/pmix/pmix-standard) that defines the item.
 * Where the Standard and OpenPMIx disagree, OpenPMIx's value is used.
 *
 * The attribute keys (#define PMIX_XXX "pmix.xxx") live in
 * pmix_attributes.h, included below; attributes the Standard retired are in
 * pmix_deprecated.h together with retired constants and helper prototypes.
 */
#ifndef PMIx_COMMON_H
#define PMIx_COMMON_H

/* The same system headers OpenPMIx pulls in, since callers rely on them. */
#include <stdbool.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>    /* strncasecmp() */
#include <time.h>
#include <ctype.h>
#include <sys/time.h>   /* struct timeval */
#include <unistd.h>     /* uid_t, gid_t, pid_t */
#include <sys/types.h>

/* Strict ISO C modes (-std=c99/c11/c17) hide these POSIX prototypes, yet the
 * inline helpers and macros below use them.  Re-declaring them with their
 * POSIX signatures is compatible with the libc declarations. */
#if !defined(__cplusplus) && defined(__STRICT_ANSI__)
#ifndef strdup
extern char *strdup(const char *s);
#endif
extern int setenv(const char *name, const char *value, int overwrite);
extern int unsetenv(const char *name);
#endif

/* Symbol visibility: the library is built with hidden visibility and marks
 * each public entry point with PMIX_EXPORT. */
#define PMIX_HAVE_VISIBILITY 1

#if PMIX_HAVE_VISIBILITY == 1
#define PMIX_EXPORT __attribute__((__visibility__("default")))
#else
#define PMIX_EXPORT
#endif

/* pmix_setenv() treats the process environment specially.  Declared
 * outside the extern "C" block as OpenPMIx does; for a variable this changes
 * nothing in the symbol name, and libc's own declaration wins anyway. */
extern char **environ;

#include "pmix_version.h"

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ====================================================================
 * Identifiers: namespaces, keys and ranks (Std: Chap_API_Struct)
 * ==================================================================== */

/* Longest namespace and key, not counting the terminating NUL. */
#define PMIX_MAX_NSLEN     255
#define PMIX_MAX_KEYLEN    511

typedef char pmix_nspace_t[PMIX_MAX_NSLEN+1];
typedef char pmix_key_t[PMIX_MAX_KEYLEN+1];

typedef uint32_t pmix_rank_t;

/* Reserved ranks sit at the top of the 32-bit range. */
#define PMIX_RANK_UNDEF         (UINT32_MAX)      /* not tied to one rank */
#define PMIX_RANK_WILDCARD      (UINT32_MAX-1)    /* every rank in the nspace */
#define PMIX_RANK_LOCAL_NODE    (UINT32_MAX-2)    /* every rank on this node */
#define PMIX_RANK_INVALID       (UINT32_MAX-3)
#define PMIX_RANK_LOCAL_PEERS   (UINT32_MAX-4)    /* this nspace's ranks on this node */
#define PMIX_RANK_VALID         (UINT32_MAX-50)   /* real ranks are below this */
#define PMIX_RANK_IS_VALID(r)   ((r) < PMIX_RANK_VALID)

/* Data that applies to every app of a job. */
#define PMIX_APP_WILDCARD       (UINT32_MAX)

/* ====================================================================
 * Environment variable names the library reads or sets
 * ==================================================================== */

/* URI of a tool waiting for the launcher to connect back to it */
#define PMIX_LAUNCHER_RNDZ_URI "PMIX_LAUNCHER_RNDZ_URI"
/* file in which a launcher also records its contact information */
#define PMIX_LAUNCHER_RNDZ_FILE "PMIX_LAUNCHER_RNDZ_FILE"
/* pipe whose closure tells a forked tool that its parent has died */
#define PMIX_KEEPALIVE_PIPE "PMIX_KEEPALIVE_PIPE"

/* ====================================================================
 * Attribute keys (Std: Chap_API_Reserved_Keys and per chapter)
 * ==================================================================== */
#include "pmix_attributes.h"

/* ====================================================================
 * Process and job states (Std: Chap_API_Struct)
 * ==================================================================== */
typedef uint8_t pmix_proc_state_t;
#define PMIX_PROC_STATE_UNDEF                    0
#define PMIX_PROC_STATE_PREPPED                  1  /* ready to launch */
#define PMIX_PROC_STATE_LAUNCH_UNDERWAY          2
#define PMIX_PROC_STATE_RESTART                  3
#define PMIX_PROC_STATE_TERMINATE                4  /* marked for termination */
#define PMIX_PROC_STATE_RUNNING                  5  /* forked by its daemon */
#define PMIX_PROC_STATE_CONNECTED                6  /* connected to its server */
/* states below this value mean "not yet terminated" */
#define PMIX_PROC_STATE_UNTERMINATED            15
#define PMIX_PROC_STATE_TERMINATED              20  /* ended normally */
/* states from here up mean "ended abnormally" */
#define PMIX_PROC_STATE_ERROR                   50
#define PMIX_PROC_STATE_KILLED_BY_CMD           (PMIX_PROC_STATE_ERROR +  1)
#define PMIX_PROC_STATE_ABORTED                 (PMIX_PROC_STATE_ERROR +  2)
#define PMIX_PROC_STATE_FAILED_TO_START         (PMIX_PROC_STATE_ERROR +  3)
#define PMIX_PROC_STATE_ABORTED_BY_SIG          (PMIX_PROC_STATE_ERROR +  4)
/* TERM_WO_SYNC: exited without calling PMIx_Finalize */
#define PMIX_PROC_STATE_TERM_WO_SYNC            (PMIX_PROC_STATE_ERROR +  5)
#define PMIX_PROC_STATE_COMM_FAILED             (PMIX_PROC_STATE_ERROR +  6)
#define PMIX_PROC_STATE_SENSOR_BOUND_EXCEEDED   (PMIX_PROC_STATE_ERROR +  7)
#define PMIX_PROC_STATE_CALLED_ABORT            (PMIX_PROC_STATE_ERROR +  8)
#define PMIX_PROC_STATE_HEARTBEAT_FAILED        (PMIX_PROC_STATE_ERROR +  9)
#define PMIX_PROC_STATE_MIGRATING               (PMIX_PROC_STATE_ERROR + 10)
#define PMIX_PROC_STATE_CANNOT_RESTART          (PMIX_PROC_STATE_ERROR + 11)
#define PMIX_PROC_STATE_TERM_NON_ZERO           (PMIX_PROC_STATE_ERROR + 12)
#define PMIX_PROC_STATE_FAILED_TO_LAUNCH        (PMIX_PROC_STATE_ERROR + 13)

typedef uint8_t pmix_job_state_t;
#define PMIX_JOB_STATE_UNDEF                     0
#define PMIX_JOB_STATE_AWAITING_ALLOC            1
#define PMIX_JOB_STATE_LAUNCH_UNDERWAY           2
#define PMIX_JOB_STATE_RUNNING                   3  /* every proc spawned */
#define PMIX_JOB_STATE_SUSPENDED                 4
#define PMIX_JOB_STATE_CONNECTED                 5  /* every proc connected */
/* same boundaries as for processes */
#define PMIX_JOB_STATE_UNTERMINATED             15
#define PMIX_JOB_STATE_TERMINATED               20
#define PMIX_JOB_STATE_TERMINATED_WITH_ERROR    50

/* ====================================================================
 * Status codes (Std: Chap_API_Struct).  Errors are negative, 0 is success.
 * The v1 values are frozen for backward compatibility.
 * ==================================================================== */
typedef int pmix_status_t;

#define PMIX_SUCCESS                                 0
#define PMIX_ERROR                                  -1
#define PMIX_ERR_PROC_RESTART                       -4
#define PMIX_ERR_PROC_CHECKPOINT                    -5
#define PMIX_ERR_PROC_MIGRATE                       -6
#define PMIX_ERR_EXISTS                             -11
#define PMIX_ERR_INVALID_CRED                       -12
#define PMIX_ERR_WOULD_BLOCK                        -15
#define PMIX_ERR_UNKNOWN_DATA_TYPE                  -16
#define PMIX_ERR_TYPE_MISMATCH                      -18
#define PMIX_ERR_UNPACK_INADEQUATE_SPACE            -19
#define PMIX_ERR_UNPACK_FAILURE                     -20
#define PMIX_ERR_PACK_FAILURE                       -21
#define PMIX_ERR_NO_PERMISSIONS                     -23
#define PMIX_ERR_TIMEOUT                            -24
#define PMIX_ERR_UNREACH                            -25
#define PMIX_ERR_BAD_PARAM                          -27
#define PMIX_ERR_RESOURCE_BUSY                      -28
#define PMIX_ERR_OUT_OF_RESOURCE                    -29
#define PMIX_ERR_INIT                               -31
#define PMIX_ERR_NOMEM                              -32
#define PMIX_ERR_NOT_FOUND                          -46
#define PMIX_ERR_NOT_SUPPORTED                      -47
#define PMIX_ERR_COMM_FAILURE                       -49
#define PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER     -50
#define PMIX_ERR_CONFLICTING_CLEANUP_DIRECTIVES     -51
#define PMIX_ERR_PARTIAL_SUCCESS                    -52
#define PMIX_ERR_DUPLICATE_KEY                      -53
#define PMIX_ERR_PARAM_VALUE_NOT_SUPPORTED          -59
#define PMIX_ERR_EMPTY                              -60
#define PMIX_ERR_LOST_CONNECTION                    -61
#define PMIX_ERR_EXISTS_OUTSIDE_SCOPE               -62

/* process sets */
#define PMIX_PROCESS_SET_DEFINE                     -55
#define PMIX_PROCESS_SET_DELETE                     -56

/* debugger support */
#define PMIX_DEBUGGER_RELEASE                       -3
#define PMIX_READY_FOR_DEBUG                        -58

#define PMIX_QUERY_PARTIAL_SUCCESS                  -104

/* job control */
#define PMIX_JCTRL_CHECKPOINT                       -106
#define PMIX_JCTRL_CHECKPOINT_COMPLETE              -107
#define PMIX_JCTRL_PREEMPT_ALERT                    -108

/* monitoring */
#define PMIX_MONITOR_HEARTBEAT_ALERT                -109
#define PMIX_MONITOR_FILE_ALERT                     -110
#define PMIX_PROC_TERMINATED                        -111

/* operational events */
#define PMIX_FABRIC_UPDATE_ENDPOINTS                -113
#define PMIX_ERR_EVENT_REGISTRATION                 -144
#define PMIX_MODEL_DECLARED                         -147
#define PMIX_MODEL_RESOURCES                        -151
#define PMIX_OPENMP_PARALLEL_ENTERED                -152
#define PMIX_OPENMP_PARALLEL_EXITED                 -153
#define PMIX_LAUNCHER_READY                         -155
#define PMIX_OPERATION_IN_PROGRESS                  -156
#define PMIX_OPERATION_SUCCEEDED                    -157
#define PMIX_ERR_INVALID_OPERATION                  -158
#define PMIX_GROUP_INVITED                          -159
#define PMIX_GROUP_LEFT                             -160
#define PMIX_GROUP_INVITE_ACCEPTED                  -161
#define PMIX_GROUP_INVITE_DECLINED                  -162
#define PMIX_GROUP_INVITE_FAILED                    -163
#define PMIX_GROUP_MEMBERSHIP_UPDATE                -164
#define PMIX_GROUP_CONSTRUCT_ABORT                  -165
#define PMIX_GROUP_CONSTRUCT_COMPLETE               -166
#define PMIX_GROUP_LEADER_SELECTED                  -167
#define PMIX_GROUP_LEADER_FAILED                    -168
#define PMIX_GROUP_CONTEXT_ID_ASSIGNED              -169
#define PMIX_GROUP_MEMBER_FAILED                    -170
#define PMIX_ERR_REPEAT_ATTR_REGISTRATION           -171
#define PMIX_ERR_IOF_FAILURE                        -172
#define PMIX_ERR_IOF_COMPLETE                       -173
#define PMIX_LAUNCH_COMPLETE                        -174
#define PMIX_FABRIC_UPDATED                         -175
#define PMIX_FABRIC_UPDATE_PENDING                  -176

/* job failures */
#define PMIX_ERR_JOB_APP_NOT_EXECUTABLE             -177
#define PMIX_ERR_JOB_NO_EXE_SPECIFIED               -178
#define PMIX_ERR_JOB_FAILED_TO_MAP                  -179
#define PMIX_ERR_JOB_CANCELED                       -180
#define PMIX_ERR_JOB_FAILED_TO_LAUNCH               -181
#define PMIX_ERR_JOB_ABORTED                        -182
#define PMIX_ERR_JOB_KILLED_BY_CMD                  -183
#define PMIX_ERR_JOB_ABORTED_BY_SIG                 -184
#define PMIX_ERR_JOB_TERM_WO_SYNC                   -185
#define PMIX_ERR_JOB_SENSOR_BOUND_EXCEEDED          -186
#define PMIX_ERR_JOB_NON_ZERO_TERM                  -187
#define PMIX_ERR_JOB_ALLOC_FAILED                   -188
#define PMIX_ERR_JOB_ABORTED_BY_SYS_EVENT           -189
#define PMIX_ERR_JOB_EXE_NOT_FOUND                  -190
#define PMIX_ERR_JOB_WDIR_NOT_FOUND                 -233
#define PMIX_ERR_JOB_INSUFFICIENT_RESOURCES         -234
#define PMIX_ERR_JOB_SYS_OP_FAILED                  -235

/* job and session lifecycle (not errors) */
#define PMIX_EVENT_JOB_START                        -191
#define PMIX_EVENT_JOB_END                          -145
#define PMIX_EVENT_SESSION_START                    -192
#define PMIX_EVENT_SESSION_END                      -193

/* process lifecycle */
#define PMIX_ERR_PROC_REQUESTED_ABORT               -8
#define PMIX_ERR_PROC_TERM_WO_SYNC                  -200
#define PMIX_EVENT_PROC_TERMINATED                  -201
#define PMIX_ERR_PROC_KILLED_BY_CMD                 -400
#define PMIX_ERR_PROC_FAILED_TO_START               -401
#define PMIX_ERR_PROC_ABORTED_BY_SIG                -402
#define PMIX_ERR_PROC_SENSOR_BOUND_EXCEEDED         -403
#define PMIX_ERR_EXIT_NONZERO_TERM                  -404

/* system events occupy the range [PMIX_EVENT_SYS_OTHER, PMIX_EVENT_SYS_BASE] */
#define PMIX_EVENT_SYS_BASE                         -230
#define PMIX_EVENT_NODE_DOWN                        -231
#define PMIX_EVENT_NODE_OFFLINE                     -232
#define PMIX_EVENT_SYS_OTHER                        -330
#define PMIX_SYSTEM_EVENT(a)   \
    ((a) <= PMIX_EVENT_SYS_BASE && PMIX_EVENT_SYS_OTHER <= (a))

/* results an event handler reports back */
#define PMIX_EVENT_NO_ACTION_TAKEN                  -331
#define PMIX_EVENT_PARTIAL_ACTION_TAKEN             -332
#define PMIX_EVENT_ACTION_DEFERRED                  -333
#define PMIX_EVENT_ACTION_COMPLETE                  -334

/* Applications define their own codes below this one (always relative to
 * the name, never its current value). */
#define PMIX_EXTERNAL_ERR_BASE                      -3000

/* Outcome of PMIx_Value_compare(). */
typedef enum {
    PMIX_EQUAL,
    PMIX_VALUE1_GREATER,
    PMIX_VALUE2_GREATER,
    PMIX_VALUE_TYPE_DIFFERENT,
    PMIX_VALUE_INCOMPATIBLE_OBJECTS,
    PMIX_VALUE_COMPARISON_NOT_AVAIL
} pmix_value_cmp_t;

/* ====================================================================
 * Data type tags (Std: Chap_API_Struct).  Gaps are retired types: 26 is
 * PMIX_BUFFER (pmix_deprecated.h), 29 was MODEX, 44 was INFO_ARRAY.
 * ==================================================================== */
typedef uint16_t pmix_data_type_t;
#define PMIX_UNDEF                       0
#define PMIX_BOOL                        1
#define PMIX_BYTE                        2
#define PMIX_STRING                      3
#define PMIX_SIZE                        4
#define PMIX_PID                         5
#define PMIX_INT                         6
#define PMIX_INT8                        7
#define PMIX_INT16                       8
#define PMIX_INT32                       9
#define PMIX_INT64                      10
#define PMIX_UINT                       11
#define PMIX_UINT8                      12
#define PMIX_UINT16                     13
#define PMIX_UINT32                     14
#define PMIX_UINT64                     15
#define PMIX_FLOAT                      16
#define PMIX_DOUBLE                     17
#define PMIX_TIMEVAL                    18
#define PMIX_TIME                       19
#define PMIX_STATUS                     20  /* kept apart from INT for host mapping */
#define PMIX_VALUE                      21
#define PMIX_PROC                       22
#define PMIX_APP                        23
#define PMIX_INFO                       24
#define PMIX_PDATA                      25
#define PMIX_BYTE_OBJECT                27
#define PMIX_KVAL                       28
#define PMIX_PERSIST                    30
#define PMIX_POINTER                    31
#define PMIX_SCOPE                      32
#define PMIX_DATA_RANGE                 33
#define PMIX_COMMAND                    34
#define PMIX_INFO_DIRECTIVES            35
#define PMIX_DATA_TYPE                  36
#define PMIX_PROC_STATE                 37
#define PMIX_PROC_INFO                  38
#define PMIX_DATA_ARRAY                 39
#define PMIX_PROC_RANK                  40
#define PMIX_QUERY                      41
#define PMIX_COMPRESSED_STRING          42  /* zlib-compressed string */
#define PMIX_ALLOC_DIRECTIVE            43
#define PMIX_IOF_CHANNEL                45
#define PMIX_ENVAR                      46
#define PMIX_COORD                      47
#define PMIX_REGATTR                    48
#define PMIX_REGEX                      49
#define PMIX_JOB_STATE                  50
#define PMIX_LINK_STATE                 51
#define PMIX_PROC_CPUSET                52
#define PMIX_GEOMETRY                   53
#define PMIX_DEVICE_DIST                54
#define PMIX_ENDPOINT                   55
#define PMIX_TOPO                       56
#define PMIX_DEVTYPE                    57
#define PMIX_LOCTYPE                    58
#define PMIX_COMPRESSED_BYTE_OBJECT     59
#define PMIX_PROC_NSPACE                60
#define PMIX_PROC_STATS                 61
#define PMIX_DISK_STATS                 62
#define PMIX_NET_STATS                  63
#define PMIX_NODE_STATS                 64
#define PMIX_DATA_BUFFER                65
#define PMIX_STOR_MEDIUM                66
#define PMIX_STOR_ACCESS                67
#define PMIX_STOR_PERSIST               68
#define PMIX_STOR_ACCESS_TYPE           69
/* implementations may add their own types above this */
#define PMIX_DATA_TYPE_MAX     500

/* ====================================================================
 * Small enumerations (Std: Chap_API_Struct)
 * ==================================================================== */

/* Who may read data posted with PMIx_Put. */
typedef uint8_t pmix_scope_t;
#define PMIX_SCOPE_UNDEF    0
#define PMIX_LOCAL          1   /* processes on this node */
#define PMIX_REMOTE         2   /* processes on other nodes */
#define PMIX_GLOBAL         3   /* everyone */
#define PMIX_INTERNAL       4   /* this process's own tables only */

/* Who may see data posted with PMIx_Publish. */
typedef uint8_t pmix_data_range_t;
#define PMIX_RANGE_UNDEF        0
#define PMIX_RANGE_RM           1   /* the host resource manager */
#define PMIX_RANGE_LOCAL        2   /* this node */
#define PMIX_RANGE_NAMESPACE    3   /* this nspace */
#define PMIX_RANGE_SESSION      4   /* this session */
#define PMIX_RANGE_GLOBAL       5   /* everyone */
#define PMIX_RANGE_CUSTOM       6   /* listed in an accompanying info */
#define PMIX_RANGE_PROC_LOCAL   7   /* this process only */
#define PMIX_RANGE_INVALID   UINT8_MAX

/* How long published data lives. */
typedef uint8_t pmix_persistence_t;
#define PMIX_PERSIST_INDEF          0   /* until deleted */
#define PMIX_PERSIST_FIRST_READ     1   /* until first read */
#define PMIX_PERSIST_PROC           2   /* until the publisher exits */
#define PMIX_PERSIST_APP            3   /* until its application ends */
#define PMIX_PERSIST_SESSION        4   /* until the allocation ends */
#define PMIX_PERSIST_INVALID   UINT8_MAX

/* Bit flags carried by each pmix_info_t. */
typedef uint32_t pmix_info_directives_t;
#define PMIX_INFO_REQD              0x00000001  /* must be honoured */
#define PMIX_INFO_ARRAY_END         0x00000002  /* last element from PMIX_INFO_CREATE */
#define PMIX_INFO_REQD_PROCESSED    0x00000004  /* a required entry was handled */
#define PMIX_INFO_QUALIFIER         0x00000008  /* qualifies the primary entry */
#define PMIX_INFO_PERSISTENT        0x00000010  /* do not release the value */
/* the upper 16 bits belong to the implementation */
#define PMIX_INFO_DIR_RESERVED 0xffff0000

/* Allocation request kinds (Std: Chap_API_Job_Mgmt). */
typedef uint8_t pmix_alloc_directive_t;
#define PMIX_ALLOC_NEW          1  /* a new, separate allocation */
#define PMIX_ALLOC_EXTEND       2  /* more time or resources for this one */
#define PMIX_ALLOC_RELEASE      3  /* give back (or lend) part of it */
#define PMIX_ALLOC_REAQUIRE     4  /* take back lent resources */
/* implementation-defined directives start here */
#define PMIX_ALLOC_EXTERNAL     128

/* I/O forwarding channels; may be OR-ed together (Std: Chap_API_Tools). */
typedef uint16_t pmix_iof_channel_t;
#define PMIX_FWD_NO_CHANNELS        0x0000
#define PMIX_FWD_STDIN_CHANNEL      0x0001
#define PMIX_FWD_STDOUT_CHANNEL     0x0002
#define PMIX_FWD_STDERR_CHANNEL     0x0004
#define PMIX_FWD_STDDIAG_CHANNEL    0x0008
#define PMIX_FWD_ALL_CHANNELS       0x00ff

/* Answers to a group invitation, and group operations (Std: Chap_API_Sets_Groups). */
typedef enum {
    PMIX_GROUP_DECLINE,
    PMIX_GROUP_ACCEPT
} pmix_group_opt_t;

typedef enum {
    PMIX_GROUP_CONSTRUCT,
    PMIX_GROUP_DESTRUCT
} pmix_group_operation_t;

/* Storage descriptions (Std: Chap_API_Storage); all are OR-able bit masks. */
typedef uint64_t pmix_storage_medium_t;
#define PMIX_STORAGE_MEDIUM_UNKNOWN     0x01
#define PMIX_STORAGE_MEDIUM_TAPE        0x02
#define PMIX_STORAGE_MEDIUM_HDD         0x04
#define PMIX_STORAGE_MEDIUM_SSD         0x08
#define PMIX_STORAGE_MEDIUM_NVME        0x10
#define PMIX_STORAGE_MEDIUM_PMEM        0x20
#define PMIX_STORAGE_MEDIUM_RAM         0x40

typedef uint64_t pmix_storage_accessibility_t;
#define PMIX_STORAGE_ACCESSIBILITY_NODE     0x01
#define PMIX_STORAGE_ACCESSIBILITY_SESSION  0x02
#define PMIX_STORAGE_ACCESSIBILITY_JOB      0x04
#define PMIX_STORAGE_ACCESSIBILITY_RACK     0x08
#define PMIX_STORAGE_ACCESSIBILITY_CLUSTER  0x10
#define PMIX_STORAGE_ACCESSIBILITY_REMOTE   0x20

typedef uint64_t pmix_storage_persistence_t;
#define PMIX_STORAGE_PERSISTENCE_TEMPORARY  0x01
#define PMIX_STORAGE_PERSISTENCE_NODE       0x02
#define PMIX_STORAGE_PERSISTENCE_SESSION    0x04
#define PMIX_STORAGE_PERSISTENCE_JOB        0x08
#define PMIX_STORAGE_PERSISTENCE_SCRATCH    0x10
#define PMIX_STORAGE_PERSISTENCE_PROJECT    0x20
#define PMIX_STORAGE_PERSISTENCE_ARCHIVE    0x40

typedef uint16_t pmix_storage_access_type_t;
#define PMIX_STORAGE_ACCESS_RD      0x0001
#define PMIX_STORAGE_ACCESS_WR      0x0002
#define PMIX_STORAGE_ACCESS_RDWR    0x0003

/* Fabric link states (Std: Chap_API_Fabric). */
typedef uint8_t pmix_link_state_t;
#define PMIX_LINK_STATE_UNKNOWN     0
#define PMIX_LINK_DOWN              1
#define PMIX_LINK_UP                2

/* Whether a binding applies to the process or the calling thread. */
typedef uint8_t pmix_bind_envelope_t;
#define PMIX_CPUBIND_PROCESS    0
#define PMIX_CPUBIND_THREAD     1

/* Relative locality of two processes: OR-able "shares this" bits. */
typedef uint16_t pmix_locality_t;
#define PMIX_LOCALITY_UNKNOWN           0x0000
#define PMIX_LOCALITY_NONLOCAL          0x8000
#define PMIX_LOCALITY_SHARE_HWTHREAD    0x0001
#define PMIX_LOCALITY_SHARE_CORE        0x0002
#define PMIX_LOCALITY_SHARE_L1CACHE     0x0004
#define PMIX_LOCALITY_SHARE_L2CACHE     0x0008
#define PMIX_LOCALITY_SHARE_L3CACHE     0x0010
#define PMIX_LOCALITY_SHARE_PACKAGE     0x0020
#define PMIX_LOCALITY_SHARE_NUMA        0x0040
#define PMIX_LOCALITY_SHARE_NODE        0x4000

/* Device kinds; OR-able. */
typedef uint64_t pmix_device_type_t;
#define PMIX_DEVTYPE_UNKNOWN        0x00
#define PMIX_DEVTYPE_BLOCK          0x01
#define PMIX_DEVTYPE_GPU            0x02
#define PMIX_DEVTYPE_NETWORK        0x04
#define PMIX_DEVTYPE_OPENFABRICS    0x08
#define PMIX_DEVTYPE_DMA            0x10
#define PMIX_DEVTYPE_COPROC         0x20

/* Views of a fabric coordinate. */
typedef uint8_t pmix_coord_view_t;
#define PMIX_COORD_VIEW_UNDEF       0x00
#define PMIX_COORD_LOGICAL_VIEW     0x01
#define PMIX_COORD_PHYSICAL_VIEW    0x02

/* ====================================================================
 * Memory hooks.  Everything the macros below allocate comes from
 * malloc/calloc so that callers may release it with free().
 * ==================================================================== */
static inline void* pmix_malloc(size_t n)
{
    return malloc(n);
}

static inline void pmix_free(void *m)
{
    free(m);
}

static inline void* pmix_calloc(size_t n, size_t m)
{
    return calloc(n, m);
}

/* ====================================================================
 * Bounded string helpers.  Keys and namespaces live in fixed arrays, so
 * never trust that a source string is NUL-terminated.
 * ==================================================================== */

/* Copy at most len characters of src and always NUL-terminate: dest must
 * hold len+1 bytes. */
static inline void pmix_strncpy(char *dest, const char *src, size_t len)
{
    size_t i = 0;

    while (i < len && '\0' != src[i]) {
        dest[i] = src[i];
        ++i;
    }
    dest[i] = '\0';
}

/* Length of a key, looking at no more than PMIX_MAX_KEYLEN+1 bytes. */
static inline size_t pmix_keylen(const char *src)
{
    size_t n = 0;

    if (NULL == src) {
        return 0;
    }
    while (n < PMIX_MAX_KEYLEN + 1 && '\0' != src[n]) {
        ++n;
    }
    return n;
}

/* Length of a namespace, looking at no more than PMIX_MAX_NSLEN+1 bytes. */
static inline size_t pmix_nslen(const char *src)
{
    size_t n = 0;

    if (NULL == src) {
        return 0;
    }
    while (n < PMIX_MAX_NSLEN + 1 && '\0' != src[n]) {
        ++n;
    }
    return n;
}

/* Keys, namespaces and process identifiers.  A NULL or empty namespace
 * acts as a wildcard in the CHECK macros, as does PMIX_RANK_WILDCARD. */
#define PMIX_CHECK_KEY(a, b) \
    (0 == strncmp((a)->key, (b), PMIX_MAX_KEYLEN))

/* keys starting with "pmix" are reserved for the Standard */
#define PMIX_CHECK_RESERVED_KEY(a) \
    (0 == strncmp((a), "pmix", 4))

#define PMIX_LOAD_KEY(a, b)                                         \
    do {                                                            \
        const char *_pmix_lk_src = (const char*)(b);                \
        memset((a), 0, PMIX_MAX_KEYLEN+1);                          \
        if (NULL != _pmix_lk_src) {                                 \
            pmix_strncpy((char*)(a), _pmix_lk_src, PMIX_MAX_KEYLEN); \
        }                                                           \
    } while (0)

#define PMIX_LOAD_NSPACE(a, b)                                      \
    do {                                                            \
        const char *_pmix_ln_src = (const char*)(b);                \
        memset((a), 0, PMIX_MAX_NSLEN+1);                           \
        if (NULL != _pmix_ln_src) {                                 \
            pmix_strncpy((char*)(a), _pmix_ln_src, PMIX_MAX_NSLEN); \
        }                                                           \
    } while (0)

#define PMIX_NSPACE_INVALID(a) \
    (0 == pmix_nslen((a)))

#define PMIX_CHECK_NSPACE(a, b)                                 \
    (PMIX_NSPACE_INVALID((a)) || PMIX_NSPACE_INVALID((b)) ||    \
     0 == strncmp((a), (b), PMIX_MAX_NSLEN))

#define PMIX_LOAD_PROCID(a, b, c)               \
    do {                                        \
        PMIX_LOAD_NSPACE((a)->nspace, (b));     \
        (a)->rank = (c);                        \
    } while (0)

#define PMIX_XFER_PROCID(a, b) \
    memcpy((a), (b), sizeof(pmix_proc_t))

#define PMIX_PROCID_XFER(a, b) PMIX_XFER_PROCID(a, b)

#define PMIX_CHECK_RANK(a, b) \
    ((a) == (b) || PMIX_RANK_WILDCARD == (a) || PMIX_RANK_WILDCARD == (b))

#define PMIX_CHECK_PROCID(a, b) \
    (PMIX_CHECK_NSPACE((a)->nspace, (b)->nspace) && PMIX_CHECK_RANK((a)->rank, (b)->rank))

#define PMIX_PROCID_INVALID(a) \
    (PMIX_NSPACE_INVALID((a)->nspace) || PMIX_RANK_INVALID == (a)->rank)

/* ====================================================================
 * argv-style string arrays: NULL-terminated arrays of malloc'ed strings.
 * ==================================================================== */

/* Number of entries; a NULL array has none. */
static inline int pmix_argv_count(char **argv)
{
    int n = 0;

    if (NULL == argv) {
        return 0;
    }
    while (NULL != argv[n]) {
        ++n;
    }
    return n;
}

#define PMIX_ARGV_COUNT(r, a) \
    (r) = pmix_argv_count(a)

/* Add a copy of arg at the end, creating the array when *argv is NULL. */
static inline pmix_status_t pmix_argv_append_nosize(char ***argv, const char *arg)
{
    size_t n;
    char **grown;

    if (NULL == argv || NULL == arg) {
        return PMIX_ERR_BAD_PARAM;
    }
    n = (size_t)pmix_argv_count(*argv);
    grown = (char **)realloc(*argv, (n + 2) * sizeof(char *));
    if (NULL == grown) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    *argv = grown;
    grown[n + 1] = NULL;
    grown[n] = strdup(arg);
    if (NULL == grown[n]) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    return PMIX_SUCCESS;
}

#define PMIX_ARGV_APPEND(r, a, b) \
    (r) = pmix_argv_append_nosize(&(a), (b))

/* Add a copy of arg at the front. */
static inline pmix_status_t pmix_argv_prepend_nosize(char ***argv, const char *arg)
{
    size_t n;
    char **grown;
    char *copy;

    if (NULL == argv || NULL == arg) {
        return PMIX_ERR_BAD_PARAM;
    }
    copy = strdup(arg);
    if (NULL == copy) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    n = (size_t)pmix_argv_count(*argv);
    grown = (char **)realloc(*argv, (n + 2) * sizeof(char *));
    if (NULL == grown) {
        free(copy);
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    /* shift the n entries and their terminator up by one slot */
    memmove(&grown[1], &grown[0], n * sizeof(char *));
    grown[0] = copy;
    grown[n + 1] = NULL;
    *argv = grown;
    return PMIX_SUCCESS;
}

#define PMIX_ARGV_PREPEND(r, a, b) \
    (r) = pmix_argv_prepend_nosize(&(a), b)

/* Append arg unless an equal string is already present. */
static inline pmix_status_t pmix_argv_append_unique_nosize(char ***argv, const char *arg)
{
    int i;

    if (NULL == argv || NULL == arg) {
        return PMIX_ERR_BAD_PARAM;
    }
    for (i = 0; NULL != *argv && NULL != (*argv)[i]; ++i) {
        if (0 == strcmp(arg, (*argv)[i])) {
            return PMIX_SUCCESS;
        }
    }
    return pmix_argv_append_nosize(argv, arg);
}

/* note: takes the address of the array, unlike APPEND/PREPEND */
#define PMIX_ARGV_APPEND_UNIQUE(r, a, b) \
    (r) = pmix_argv_append_unique_nosize(a, b)

/* Release every string and the array itself. */
static inline void pmix_argv_free(char **argv)
{
    char **p;

    if (NULL == argv) {
        return;
    }
    for (p = argv; NULL != *p; ++p) {
        pmix_free(*p);
    }
    pmix_free(argv);
}

#define PMIX_ARGV_FREE(a)  pmix_argv_free(a)

/* Split src at each delimiter.  Empty fields between delimiters (or before
 * the first) are kept only when include_empty is set; a trailing delimiter
 * never yields a field.  Returns NULL for an empty input or on failure. */
static inline char **pmix_argv_split_inter(const char *src_string,
                                           int delimiter,
                                           bool include_empty)
{
    char **argv = NULL;
    const char *start = src_string;

    while (NULL != start && '\0' != *start) {
        const char *end = start;
        size_t len;
        char *field;

        while ('\0' != *end && delimiter != *end) {
            ++end;
        }
        len = (size_t)(end - start);
        if (0 < len || include_empty) {
            field = (char *)malloc(len + 1);
            if (NULL == field) {
                pmix_argv_free(argv);
                return NULL;
            }
            memcpy(field, start, len);
            field[len] = '\0';
            if (PMIX_SUCCESS != pmix_argv_append_nosize(&argv, field)) {
                free(field);
                pmix_argv_free(argv);
                return NULL;
            }
            free(field);
        }
        if ('\0' == *end) {
            break;
        }
        start = end + 1;
    }
    return argv;
}

static inline char **pmix_argv_split_with_empty(const char *src_string, int delimiter)
{
    return pmix_argv_split_inter(src_string, delimiter, true);
}

static inline char **pmix_argv_split(const char *src_string, int delimiter)
{
    return pmix_argv_split_inter(src_string, delimiter, false);
}

#define PMIX_ARGV_SPLIT(a, b, c) \
    (a) = pmix_argv_split(b, c)

/* Join the entries with delimiter into one malloc'ed string ("" when the
 * array is NULL or empty). */
static inline char *pmix_argv_join(char **argv, int delimiter)
{
    size_t total = 0, pos = 0, len;
    char **p;
    char *out;

    if (NULL == argv || NULL == argv[0]) {
        return strdup("");
    }
    for (p = argv; NULL != *p; ++p) {
        total += strlen(*p) + 1;    /* the entry plus a delimiter or the NUL */
    }
    out = (char *)malloc(total);
    if (NULL == out) {
        return NULL;
    }
    for (p = argv; NULL != *p; ++p) {
        if (p != argv) {
            out[pos++] = (char)delimiter;
        }
        len = strlen(*p);
        memcpy(out + pos, *p, len);
        pos += len;
    }
    out[pos] = '\0';
    return out;
}

#define PMIX_ARGV_JOIN(a, b, c) \
    (a) = pmix_argv_join(b, c)

/* Deep copy; a non-NULL empty array yields a non-NULL empty array. */
static inline char **pmix_argv_copy(char **argv)
{
    size_t n, i;
    char **dup;

    if (NULL == argv) {
        return NULL;
    }
    n = (size_t)pmix_argv_count(argv);
    dup = (char **)calloc(n + 1, sizeof(char *));
    if (NULL == dup) {
        return NULL;
    }
    for (i = 0; i < n; ++i) {
        dup[i] = strdup(argv[i]);
        if (NULL == dup[i]) {
            pmix_argv_free(dup);
            return NULL;
        }
    }
    return dup;
}

#define PMIX_ARGV_COPY(a, b) \
    (a) = pmix_argv_copy(b)

/* Set name=value in an environ-style array, growing it as needed.  A NULL
 * value stores "name=".  When *env is the process environment, setenv() or
 * (for a NULL value) unsetenv() is used instead.  Returns PMIX_ERR_EXISTS
 * when the name is present and overwrite is false, PMIX_ERR_BAD_PARAM for a
 * NULL env or a value longer than 100000 characters. */
static inline pmix_status_t pmix_setenv(const char *name,
                                        const char *value,
                                        bool overwrite,
                                        char ***env)
{
    size_t namelen, vallen = 0;
    char *entry;
    pmix_status_t rc;
    int i;

    if (NULL == env || NULL == name) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (NULL != value) {
        while (vallen < 100000 && '\0' != value[vallen]) {
            ++vallen;
        }
        if (100000 == vallen) {
            return PMIX_ERR_BAD_PARAM;
        }
    }
    if (*env == environ) {
        if (NULL == value) {
            unsetenv(name);
        } else {
            setenv(name, value, overwrite ? 1 : 0);
        }
        return PMIX_SUCCESS;
    }

    namelen = strlen(name);
    entry = (char *)malloc(namelen + vallen + 2);
    if (NULL == entry) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    memcpy(entry, name, namelen);
    entry[namelen] = '=';
    if (0 < vallen) {
        memcpy(entry + namelen + 1, value, vallen);
    }
    entry[namelen + 1 + vallen] = '\0';

    for (i = 0; NULL != *env && NULL != (*env)[i]; ++i) {
        if (0 == strncmp((*env)[i], entry, namelen + 1)) {
            if (!overwrite) {
                free(entry);
                return PMIX_ERR_EXISTS;
            }
            free((*env)[i]);
            (*env)[i] = entry;
            return PMIX_SUCCESS;
        }
    }
    rc = pmix_argv_append_nosize(env, entry);
    free(entry);
    return rc;
}

#define PMIX_SETENV(r, a, b, c) \
    (r) = pmix_setenv((a), (b), true, (c))

/* ====================================================================
 * Fabric coordinates (Std: Chap_API_Fabric)
 * ==================================================================== */
typedef struct pmix_coord {
    pmix_coord_view_t view;
    uint32_t *coord;
    size_t dims;
} pmix_coord_t;

#define PMIX_COORD_STATIC_INIT { PMIX_COORD_VIEW_UNDEF, NULL, 0 }

/* m = array of d coordinates, each with n zeroed dimensions */
#define PMIX_COORD_CREATE(m, d, n)                                              \
    do {                                                                        \
        size_t _pmix_cc_d = (size_t)(d), _pmix_cc_n = (size_t)(n), _pmix_cc_i; \
        pmix_coord_t *_pmix_cc_m = NULL;                                        \
        if (0 < _pmix_cc_d) {                                                   \
            _pmix_cc_m = (pmix_coord_t*)pmix_calloc(_pmix_cc_d, sizeof(pmix_coord_t)); \
        }                                                                       \
        for (_pmix_cc_i = 0; NULL != _pmix_cc_m && _pmix_cc_i < _pmix_cc_d; ++_pmix_cc_i) { \
            _pmix_cc_m[_pmix_cc_i].view = PMIX_COORD_VIEW_UNDEF;                \
            if (0 < _pmix_cc_n) {                                               \
                _pmix_cc_m[_pmix_cc_i].coord =                                  \
                    (uint32_t*)pmix_calloc(_pmix_cc_n, sizeof(uint32_t));       \
                if (NULL != _pmix_cc_m[_pmix_cc_i].coord) {                     \
                    _pmix_cc_m[_pmix_cc_i].dims = _pmix_cc_n;                   \
                }                                                               \
            }                                                                   \
        }                                                                       \
        (m) = _pmix_cc_m;                                                       \
    } while (0)

#define PMIX_COORD_CONSTRUCT(m)             \
    do {                                    \
        (m)->view = PMIX_COORD_VIEW_UNDEF;  \
        (m)->coord = NULL;                  \
        (m)->dims = 0;                      \
    } while (0)

#define PMIX_COORD_DESTRUCT(m)              \
    do {                                    \
        (m)->view = PMIX_COORD_VIEW_UNDEF;  \
        if (NULL != (m)->coord) {           \
            pmix_free((m)->coord);          \
            (m)->coord = NULL;              \
            (m)->dims = 0;                  \
        }                                   \
    } while (0)

#define PMIX_COORD_FREE(m, n)                                           \
    do {                                                                \
        size_t _pmix_cf_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_cf_i = 0; _pmix_cf_i < (size_t)(n); ++_pmix_cf_i) { \
                PMIX_COORD_DESTRUCT(&(m)[_pmix_cf_i]);                  \
            }                                                           \
            pmix_free((m));                                             \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

/* ====================================================================
 * CPU sets and topologies (Std: Chap_API_Server, Chap_API_Proc_Mgmt).
 * The payload pointers are opaque to callers; "source" names the library
 * that produced them.
 * ==================================================================== */
typedef struct {
    char *source;
    void *bitmap;
} pmix_cpuset_t;

#define PMIX_CPUSET_STATIC_INIT { NULL, NULL }

#define PMIX_CPUSET_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_cpuset_t))

#define PMIX_CPUSET_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_cpuset_t*)pmix_calloc((n), sizeof(pmix_cpuset_t))

typedef struct {
    char *source;
    void *topology;
} pmix_topology_t;

#define PMIX_TOPOLOGY_STATIC_INIT { NULL, NULL }

#define PMIX_TOPOLOGY_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_topology_t))

#define PMIX_TOPOLOGY_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_topology_t*)pmix_calloc((n), sizeof(pmix_topology_t))

/* ====================================================================
 * Device geometry and distances (Std: Chap_API_Fabric, Chap_API_Proc_Mgmt)
 * ==================================================================== */
typedef struct pmix_geometry {
    size_t fabric;
    char *uuid;
    char *osname;
    pmix_coord_t *coordinates;
    size_t ncoords;
} pmix_geometry_t;

#define PMIX_GEOMETRY_STATIC_INIT { 0, NULL, NULL, NULL, 0 }

#define PMIX_GEOMETRY_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_geometry_t))

#define PMIX_GEOMETRY_DESTRUCT(m)                               \
    do {                                                        \
        if (NULL != (m)->uuid) {                                \
            pmix_free((m)->uuid);                               \
            (m)->uuid = NULL;                                   \
        }                                                       \
        if (NULL != (m)->osname) {                              \
            pmix_free((m)->osname);                             \
            (m)->osname = NULL;                                 \
        }                                                       \
        if (NULL != (m)->coordinates) {                         \
            PMIX_COORD_FREE((m)->coordinates, (m)->ncoords);    \
        }                                                       \
    } while (0)

#define PMIX_GEOMETRY_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_geometry_t*)pmix_calloc((n), sizeof(pmix_geometry_t))

#define PMIX_GEOMETRY_FREE(m, n)                                        \
    do {                                                                \
        size_t _pmix_gf_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_gf_i = 0; _pmix_gf_i < (size_t)(n); ++_pmix_gf_i) { \
                PMIX_GEOMETRY_DESTRUCT(&(m)[_pmix_gf_i]);               \
            }                                                           \
            pmix_free((m));                                             \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

typedef struct pmix_device_distance {
    char *uuid;
    char *osname;
    pmix_device_type_t type;
    uint16_t mindist;
    uint16_t maxdist;
} pmix_device_distance_t;

#define PMIX_DEVICE_DIST_STATIC_INIT { NULL, NULL, PMIX_DEVTYPE_UNKNOWN, 0, 0 }

/* distances start out "unknown" (UINT16_MAX) */
#define PMIX_DEVICE_DIST_CONSTRUCT(m)                       \
    do {                                                    \
        memset((m), 0, sizeof(pmix_device_distance_t));     \
        (m)->mindist = UINT16_MAX;                          \
        (m)->maxdist = UINT16_MAX;                          \
    } while (0)

#define PMIX_DEVICE_DIST_DESTRUCT(m)    \
    do {                                \
        if (NULL != (m)->uuid) {        \
            pmix_free((m)->uuid);       \
            (m)->uuid = NULL;           \
        }                               \
        if (NULL != (m)->osname) {      \
            pmix_free((m)->osname);     \
            (m)->osname = NULL;         \
        }                               \
    } while (0)

#define PMIX_DEVICE_DIST_CREATE(m, n)                                           \
    do {                                                                        \
        size_t _pmix_dc_n = (size_t)(n), _pmix_dc_i;                            \
        pmix_device_distance_t *_pmix_dc_m = NULL;                              \
        if (0 < _pmix_dc_n) {                                                   \
            _pmix_dc_m = (pmix_device_distance_t*)                              \
                pmix_calloc(_pmix_dc_n, sizeof(pmix_device_distance_t));        \
        }                                                                       \
        for (_pmix_dc_i = 0; NULL != _pmix_dc_m && _pmix_dc_i < _pmix_dc_n; ++_pmix_dc_i) { \
            _pmix_dc_m[_pmix_dc_i].mindist = UINT16_MAX;                        \
            _pmix_dc_m[_pmix_dc_i].maxdist = UINT16_MAX;                        \
        }                                                                       \
        (m) = _pmix_dc_m;                                                       \
    } while (0)

#define PMIX_DEVICE_DIST_FREE(m, n)                                     \
    do {                                                                \
        size_t _pmix_df_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_df_i = 0; _pmix_df_i < (size_t)(n); ++_pmix_df_i) { \
                PMIX_DEVICE_DIST_DESTRUCT(&(m)[_pmix_df_i]);            \
            }                                                           \
            pmix_free((m));                                             \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

/* ====================================================================
 * Byte objects: a counted, not necessarily NUL-terminated blob
 * ==================================================================== */
typedef struct pmix_byte_object {
    char *bytes;
    size_t size;
} pmix_byte_object_t;

#define PMIX_BYTE_OBJECT_STATIC_INIT { NULL, 0 }

#define PMIX_BYTE_OBJECT_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_byte_object_t*)pmix_calloc((n), sizeof(pmix_byte_object_t))

#define PMIX_BYTE_OBJECT_CONSTRUCT(m)   \
    do {                                \
        (m)->bytes = NULL;              \
        (m)->size = 0;                  \
    } while (0)

#define PMIX_BYTE_OBJECT_DESTRUCT(m)    \
    do {                                \
        if (NULL != (m)->bytes) {       \
            pmix_free((m)->bytes);      \
        }                               \
        (m)->bytes = NULL;              \
        (m)->size = 0;                  \
    } while (0)

#define PMIX_BYTE_OBJECT_FREE(m, n)                                     \
    do {                                                                \
        size_t _pmix_bf_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_bf_i = 0; _pmix_bf_i < (size_t)(n); ++_pmix_bf_i) { \
                PMIX_BYTE_OBJECT_DESTRUCT(&(m)[_pmix_bf_i]);            \
            }                                                           \
            pmix_free((m));                                             \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

/* Take ownership of the buffer d (s bytes); d and s are cleared. */
#define PMIX_BYTE_OBJECT_LOAD(b, d, s)      \
    do {                                    \
        (b)->bytes = (char*)(d);            \
        (d) = NULL;                         \
        (b)->size = (s);                    \
        (s) = 0;                            \
    } while (0)

/* ====================================================================
 * Fabric endpoints (Std: Chap_API_Fabric)
 * ==================================================================== */
typedef struct pmix_endpoint {
    char *uuid;
    char *osname;
    pmix_byte_object_t endpt;
} pmix_endpoint_t;

#define PMIX_ENDPOINT_STATIC_INIT { NULL, NULL, PMIX_BYTE_OBJECT_STATIC_INIT }

#define PMIX_ENDPOINT_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_endpoint_t))

#define PMIX_ENDPOINT_DESTRUCT(m)           \
    do {                                    \
        if (NULL != (m)->uuid) {            \
            pmix_free((m)->uuid);           \
            (m)->uuid = NULL;               \
        }                                   \
        if (NULL != (m)->osname) {          \
            pmix_free((m)->osname);         \
            (m)->osname = NULL;             \
        }                                   \
        if (NULL != (m)->endpt.bytes) {     \
            pmix_free((m)->endpt.bytes);    \
            (m)->endpt.bytes = NULL;        \
            (m)->endpt.size = 0;            \
        }                                   \
    } while (0)

#define PMIX_ENDPOINT_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_endpoint_t*)pmix_calloc((n), sizeof(pmix_endpoint_t))

#define PMIX_ENDPOINT_FREE(m, n)                                        \
    do {                                                                \
        size_t _pmix_ef_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_ef_i = 0; _pmix_ef_i < (size_t)(n); ++_pmix_ef_i) { \
                PMIX_ENDPOINT_DESTRUCT(&(m)[_pmix_ef_i]);               \
            }                                                           \
            pmix_free((m));                                             \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

/* ====================================================================
 * Environment modifications (Std: Chap_API_Struct): a variable, the value to
 * add, and the separator that list-like variables (PATH...) use.
 * ==================================================================== */
typedef struct {
    char *envar;
    char *value;
    char separator;
} pmix_envar_t;

#define PMIX_ENVAR_STATIC_INIT { NULL, NULL, '\0' }

#define PMIX_ENVAR_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_envar_t*)pmix_calloc((n), sizeof(pmix_envar_t))

/* releases the entries and the array; (m) is left unchanged */
#define PMIX_ENVAR_FREE(m, n)                                           \
    do {                                                                \
        size_t _pmix_vf_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_vf_i = 0; _pmix_vf_i < (size_t)(n); ++_pmix_vf_i) { \
                PMIX_ENVAR_DESTRUCT(&(m)[_pmix_vf_i]);                  \
            }                                                           \
            pmix_free((m));                                             \
        }                                                               \
    } while (0)

#define PMIX_ENVAR_CONSTRUCT(m)        \
    do {                               \
        (m)->envar = NULL;             \
        (m)->value = NULL;             \
        (m)->separator = '\0';         \
    } while (0)

#define PMIX_ENVAR_DESTRUCT(m)         \
    do {                               \
        if (NULL != (m)->envar) {      \
            pmix_free((m)->envar);     \
            (m)->envar = NULL;         \
        }                              \
        if (NULL != (m)->value) {      \
            pmix_free((m)->value);     \
            (m)->value = NULL;         \
        }                              \
    } while (0)

#define PMIX_ENVAR_LOAD(m, e, v, s)                         \
    do {                                                    \
        const char *_pmix_el_e = (e), *_pmix_el_v = (v);    \
        if (NULL != _pmix_el_e) {                           \
            (m)->envar = strdup(_pmix_el_e);                \
        }                                                   \
        if (NULL != _pmix_el_v) {                           \
            (m)->value = strdup(_pmix_el_v);                \
        }                                                   \
        (m)->separator = (s);                               \
    } while (0)

/* ====================================================================
 * Data buffers for PMIx_Data_pack/unpack (Std: Chap_API_Data_Mgmt).  The struct is
 * declared further down, next to the other aggregates.
 * ==================================================================== */
#define PMIX_DATA_BUFFER_CREATE(m)                                          \
    do {                                                                    \
        (m) = (pmix_data_buffer_t*)pmix_calloc(1, sizeof(pmix_data_buffer_t)); \
    } while (0)

#define PMIX_DATA_BUFFER_RELEASE(m)             \
    do {                                        \
        if (NULL != (m)->base_ptr) {            \
            pmix_free((m)->base_ptr);           \
        }                                       \
        pmix_free((m));                         \
        (m) = NULL;                             \
    } while (0)

#define PMIX_DATA_BUFFER_CONSTRUCT(m) \
    memset((m), 0, sizeof(pmix_data_buffer_t))

#define PMIX_DATA_BUFFER_DESTRUCT(m)        \
    do {                                    \
        if (NULL != (m)->base_ptr) {        \
            pmix_free((m)->base_ptr);       \
            (m)->base_ptr = NULL;           \
        }                                   \
        (m)->pack_ptr = NULL;               \
        (m)->unpack_ptr = NULL;             \
        (m)->bytes_allocated = 0;           \
        (m)->bytes_used = 0;                \
    } while (0)

/* Hand s bytes at d to the buffer (PMIx_Data_load, declared in pmix.h). */
#define PMIX_DATA_BUFFER_LOAD(b, d, s)          \
    do {                                        \
        pmix_byte_object_t _pmix_dl_bo;         \
        _pmix_dl_bo.bytes = (char*)(d);         \
        _pmix_dl_bo.size = (s);                 \
        PMIx_Data_load((b), &_pmix_dl_bo);      \
    } while (0)

/* Take the buffer's unread contents (PMIx_Data_unload, in pmix.h);
 * d/s become NULL/0 on failure. */
#define PMIX_DATA_BUFFER_UNLOAD(b, d, s)                        \
    do {                                                        \
        pmix_byte_object_t _pmix_du_bo;                         \
        if (PMIX_SUCCESS == PMIx_Data_unload((b), &_pmix_du_bo)) { \
            (d) = _pmix_du_bo.bytes;                            \
            (s) = _pmix_du_bo.size;                             \
        } else {                                                \
            (d) = NULL;                                         \
            (s) = 0;                                            \
        }                                                       \
    } while (0)

/* ====================================================================
 * Process identifiers (Std: Chap_API_Struct)
 * ==================================================================== */
typedef struct pmix_proc {
    pmix_nspace_t nspace;
    pmix_rank_t rank;
} pmix_proc_t;

#define PMIX_PROC_STATIC_INIT { {0}, PMIX_RANK_UNDEF }

#define PMIX_PROC_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_proc_t*)pmix_calloc((n), sizeof(pmix_proc_t))

#define PMIX_PROC_RELEASE(m)    \
    do {                        \
        pmix_free((m));         \
        (m) = NULL;             \
    } while (0)

#define PMIX_PROC_CONSTRUCT(m)                  \
    do {                                        \
        memset((m), 0, sizeof(pmix_proc_t));    \
    } while (0)

/* a pmix_proc_t owns no memory */
#define PMIX_PROC_DESTRUCT(m)

/* n is accepted for symmetry; the array is one allocation */
#define PMIX_PROC_FREE(m, n)                    \
    do {                                        \
        if (NULL != (m)) {                      \
            pmix_free((m));                     \
            (m) = NULL;                         \
        }                                       \
    } while (0)

#define PMIX_PROC_LOAD(m, n, r)                                 \
    do {                                                        \
        PMIX_PROC_CONSTRUCT((m));                               \
        pmix_strncpy((char*)(m)->nspace, (n), PMIX_MAX_NSLEN);  \
        (m)->rank = (r);                                        \
    } while (0)

/* Multi-cluster namespaces are "<cluster>:<nspace>".  CONSTRUCT leaves t
 * empty when the combination does not fit. */
#define PMIX_MULTICLUSTER_NSPACE_CONSTRUCT(t, c, n)                             \
    do {                                                                        \
        size_t _pmix_mc_len;                                                    \
        memset((t), 0, PMIX_MAX_NSLEN+1);                                       \
        _pmix_mc_len = pmix_nslen((c));                                         \
        if ((_pmix_mc_len + pmix_nslen((n))) < PMIX_MAX_NSLEN) {                \
            pmix_strncpy((char*)(t), (c), PMIX_MAX_NSLEN);                      \
            (t)[_pmix_mc_len] = ':';                                            \
            pmix_strncpy((char*)&(t)[_pmix_mc_len+1], (n), PMIX_MAX_NSLEN - _pmix_mc_len); \
        }                                                                       \
    } while (0)

/* Split t at the first ':' into cluster c and nspace n. */
#define PMIX_MULTICLUSTER_NSPACE_PARSE(t, c, n)                             \
    do {                                                                    \
        size_t _pmix_mp_i = 0, _pmix_mp_j = 0;                              \
        while (_pmix_mp_i < PMIX_MAX_NSLEN && '\0' != (t)[_pmix_mp_i] &&    \
               ':' != (t)[_pmix_mp_i]) {                                    \
            (c)[_pmix_mp_i] = (t)[_pmix_mp_i];                              \
            ++_pmix_mp_i;                                                   \
        }                                                                   \
        (c)[_pmix_mp_i] = '\0';                                             \
        if (':' == (t)[_pmix_mp_i]) {                                       \
            ++_pmix_mp_i;                                                   \
            while (_pmix_mp_i <= PMIX_MAX_NSLEN && '\0' != (t)[_pmix_mp_i]) { \
                (n)[_pmix_mp_j++] = (t)[_pmix_mp_i++];                      \
            }                                                               \
        }                                                                   \
        (n)[_pmix_mp_j] = '\0';                                             \
    } while (0)

/* ====================================================================
 * Process descriptions returned by proctable queries (Std: Chap_API_Struct)
 * ==================================================================== */
typedef struct pmix_proc_info {
    pmix_proc_t proc;
    char *hostname;
    char *executable_name;
    pid_t pid;
    int exit_code;
    pmix_proc_state_t state;
} pmix_proc_info_t;

#define PMIX_PROC_INFO_STATIC_INIT \
    { PMIX_PROC_STATIC_INIT, NULL, NULL, 0, 0, PMIX_PROC_STATE_UNDEF }

#define PMIX_PROC_INFO_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_proc_info_t*)pmix_calloc((n), sizeof(pmix_proc_info_t))

/* releases the entry; (m) is left unchanged */
#define PMIX_PROC_INFO_RELEASE(m)      \
    do {                               \
        PMIX_PROC_INFO_FREE((m), 1);   \
    } while (0)

#define PMIX_PROC_INFO_CONSTRUCT(m)                 \
    do {                                            \
        memset((m), 0, sizeof(pmix_proc_info_t));   \
    } while (0)

#define PMIX_PROC_INFO_DESTRUCT(m)              \
    do {                                        \
        if (NULL != (m)->hostname) {            \
            pmix_free((m)->hostname);           \
            (m)->hostname = NULL;               \
        }                                       \
        if (NULL != (m)->executable_name) {     \
            pmix_free((m)->executable_name);    \
            (m)->executable_name = NULL;        \
        }                                       \
    } while (0)

/* releases the entries and the array; (m) is left unchanged */
#define PMIX_PROC_INFO_FREE(m, n)                                       \
    do {                                                                \
        size_t _pmix_pf_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_pf_i = 0; _pmix_pf_i < (size_t)(n); ++_pmix_pf_i) { \
                PMIX_PROC_INFO_DESTRUCT(&(m)[_pmix_pf_i]);              \
            }                                                           \
            pmix_free((m));                                             \
        }                                                               \
    } while (0)

/* ====================================================================
 * Typed arrays (Std: Chap_API_Struct).  The element-allocating macros are at
 * the end of this file, once every element type is known.
 * ==================================================================== */
typedef struct pmix_data_array {
    pmix_data_type_t type;
    size_t size;
    void *array;
} pmix_data_array_t;

#define PMIX_DATA_ARRAY_STATIC_INIT { PMIX_UNDEF, 0, NULL }

/* ====================================================================
 * Pack/unpack buffer (Std: Chap_API_Data_Mgmt).  Treat the fields as read-only.
 * ==================================================================== */
typedef struct pmix_data_buffer {
    char *base_ptr;           /* start of the allocation */
    char *pack_ptr;           /* where the next pack writes */
    char *unpack_ptr;         /* where the next unpack reads */
    size_t bytes_allocated;
    size_t bytes_used;
} pmix_data_buffer_t;

#define PMIX_DATA_BUFFER_STATIC_INIT { NULL, NULL, NULL, 0, 0 }

/* ====================================================================
 * Resource statistics (an OpenPMIx extension; not in the Standard)
 * ==================================================================== */
typedef struct pmix_proc_stats {
    /* which process */
    char *node;
    pmix_proc_t proc;
    pid_t pid;
    char *cmd;
    /* its usage */
    char state;
    struct timeval time;
    float percent_cpu;
    int32_t priority;
    uint16_t num_threads;
    float pss;            /* memory figures in MBytes */
    float vsize;
    float rss;
    float peak_vsize;
    uint16_t processor;
    struct timeval sample_time;
} pmix_proc_stats_t;

#define PMIX_PROC_STATS_STATIC_INIT                                 \
    { NULL, PMIX_PROC_STATIC_INIT, 0, NULL, '\0', {0, 0}, 0.0f, 0,  \
      0, 0.0f, 0.0f, 0.0f, 0.0f, 0, {0, 0} }

#define PMIX_PROC_STATS_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_proc_stats_t*)pmix_calloc((n), sizeof(pmix_proc_stats_t))

#define PMIX_PROC_STATS_RELEASE(m)      \
    do {                                \
        PMIX_PROC_STATS_FREE((m), 1);   \
    } while (0)

#define PMIX_PROC_STATS_CONSTRUCT(m)                \
    do {                                            \
        memset((m), 0, sizeof(pmix_proc_stats_t));  \
    } while (0)

#define PMIX_PROC_STATS_DESTRUCT(m)     \
    do {                                \
        if (NULL != (m)->node) {        \
            pmix_free((m)->node);       \
            (m)->node = NULL;           \
        }                               \
        if (NULL != (m)->cmd) {         \
            pmix_free((m)->cmd);        \
            (m)->cmd = NULL;            \
        }                               \
    } while (0)

/* Destruct n entries (the array itself is not released). */
static inline void pmix_proc_stats_free(pmix_proc_stats_t *ps, size_t n)
{
    size_t i;

    for (i = 0; NULL != ps && i < n; ++i) {
        PMIX_PROC_STATS_DESTRUCT(&ps[i]);
    }
}

#define PMIX_PROC_STATS_FREE(m, n)  \
    do {                            \
        pmix_proc_stats_free(m, n); \
        pmix_free(m);               \
        (m) = NULL;                 \
    } while (0)

typedef struct {
    char *disk;
    uint64_t num_reads_completed;
    uint64_t num_reads_merged;
    uint64_t num_sectors_read;
    uint64_t milliseconds_reading;
    uint64_t num_writes_completed;
    uint64_t num_writes_merged;
    uint64_t num_sectors_written;
    uint64_t milliseconds_writing;
    uint64_t num_ios_in_progress;
    uint64_t milliseconds_io;
    uint64_t weighted_milliseconds_io;
} pmix_disk_stats_t;

#define PMIX_DISK_STATS_STATIC_INIT { NULL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }

#define PMIX_DISK_STATS_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_disk_stats_t*)pmix_calloc((n), sizeof(pmix_disk_stats_t))

#define PMIX_DISK_STATS_RELEASE(m)      \
    do {                                \
        PMIX_DISK_STATS_FREE((m), 1);   \
    } while (0)

#define PMIX_DISK_STATS_CONSTRUCT(m)                \
    do {                                            \
        memset((m), 0, sizeof(pmix_disk_stats_t));  \
    } while (0)

#define PMIX_DISK_STATS_DESTRUCT(m)     \
    do {                                \
        if (NULL != (m)->disk) {        \
            pmix_free((m)->disk);       \
            (m)->disk = NULL;           \
        }                               \
    } while (0)

static inline void pmix_disk_stats_free(pmix_disk_stats_t *d, size_t n)
{
    size_t i;

    for (i = 0; NULL != d && i < n; ++i) {
        PMIX_DISK_STATS_DESTRUCT(&d[i]);
    }
}

#define PMIX_DISK_STATS_FREE(m, n)  \
    do {                            \
        pmix_disk_stats_free(m, n); \
        pmix_free(m);               \
        (m) = NULL;                 \
    } while (0)

typedef struct {
    char *net_interface;
    uint64_t num_bytes_recvd;
    uint64_t num_packets_recvd;
    uint64_t num_recv_errs;
    uint64_t num_bytes_sent;
    uint64_t num_packets_sent;
    uint64_t num_send_errs;
} pmix_net_stats_t;

#define PMIX_NET_STATS_STATIC_INIT { NULL, 0, 0, 0, 0, 0, 0 }

#define PMIX_NET_STATS_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_net_stats_t*)pmix_calloc((n), sizeof(pmix_net_stats_t))

#define PMIX_NET_STATS_RELEASE(m)       \
    do {                                \
        PMIX_NET_STATS_FREE((m), 1);    \
    } while (0)

#define PMIX_NET_STATS_CONSTRUCT(m)                 \
    do {                                            \
        memset((m), 0, sizeof(pmix_net_stats_t));   \
    } while (0)

#define PMIX_NET_STATS_DESTRUCT(m)          \
    do {                                    \
        if (NULL != (m)->net_interface) {   \
            pmix_free((m)->net_interface);  \
            (m)->net_interface = NULL;      \
        }                                   \
    } while (0)

static inline void pmix_net_stats_free(pmix_net_stats_t *nst, size_t n)
{
    size_t i;

    for (i = 0; NULL != nst && i < n; ++i) {
        PMIX_NET_STATS_DESTRUCT(&nst[i]);
    }
}

#define PMIX_NET_STATS_FREE(m, n)   \
    do {                            \
        pmix_net_stats_free(m, n);  \
        pmix_free(m);               \
        (m) = NULL;                 \
    } while (0)

typedef struct {
    char *node;
    /* load averages over 1, 5 and 15 minutes */
    float la;
    float la5;
    float la15;
    /* memory, in MBytes */
    float total_mem;
    float free_mem;
    float buffers;
    float cached;
    float swap_cached;
    float swap_total;
    float swap_free;
    float mapped;
    struct timeval sample_time;
    /* one entry per disk and per network interface */
    pmix_disk_stats_t *diskstats;
    size_t ndiskstats;
    pmix_net_stats_t *netstats;
    size_t nnetstats;
} pmix_node_stats_t;

#define PMIX_NODE_STATS_STATIC_INIT                                         \
    { NULL, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f,    \
      0.0f, {0, 0}, NULL, 0, NULL, 0 }

#define PMIX_NODE_STATS_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_node_stats_t*)pmix_calloc((n), sizeof(pmix_node_stats_t))

#define PMIX_NODE_STATS_CONSTRUCT(m)                \
    do {                                            \
        memset((m), 0, sizeof(pmix_node_stats_t));  \
    } while (0)

#define PMIX_NODE_STATS_DESTRUCT(m)                                 \
    do {                                                            \
        if (NULL != (m)->node) {                                    \
            pmix_free((m)->node);                                   \
            (m)->node = NULL;                                       \
        }                                                           \
        if (NULL != (m)->diskstats) {                               \
            PMIX_DISK_STATS_FREE((m)->diskstats, (m)->ndiskstats);  \
        }                                                           \
        if (NULL != (m)->netstats) {                                \
            PMIX_NET_STATS_FREE((m)->netstats, (m)->nnetstats);     \
        }                                                           \
    } while (0)

static inline void pmix_node_stats_free(pmix_node_stats_t *nd, size_t n)
{
    size_t i;

    for (i = 0; NULL != nd && i < n; ++i) {
        PMIX_NODE_STATS_DESTRUCT(&nd[i]);
    }
}

#define PMIX_NODE_STATS_FREE(m, n)  \
    do {                            \
        pmix_node_stats_free(m, n); \
        pmix_free(m);               \
        (m) = NULL;                 \
    } while (0)

/* destructs one entry; the storage itself is not released */
#define PMIX_NODE_STATS_RELEASE(m)  \
    pmix_node_stats_free(m, 1)

/* ====================================================================
 * Values (Std: Chap_API_Struct): a type tag plus a union holding the datum.
 * Pointer members own their target once loaded by PMIx_Value_load.
 * Registered-attribute arrays (pmix_regattr_t) travel through "ptr".
 * ==================================================================== */
typedef struct pmix_value {
    pmix_data_type_t type;
    union {
        bool flag;
        uint8_t byte;
        char *string;
        size_t size;
        pid_t pid;
        int integer;
        int8_t int8;
        int16_t int16;
        int32_t int32;
        int64_t int64;
        unsigned int uint;
        uint8_t uint8;
        uint16_t uint16;
        uint32_t uint32;
        uint64_t uint64;
        float fval;
        double dval;
        struct timeval tv;
        time_t time;
        pmix_status_t status;
        pmix_rank_t rank;
        pmix_nspace_t *nspace;
        pmix_proc_t *proc;
        pmix_byte_object_t bo;
        pmix_persistence_t persist;
        pmix_scope_t scope;
        pmix_data_range_t range;
        pmix_proc_state_t state;
        pmix_proc_info_t *pinfo;
        pmix_data_array_t *darray;
        void *ptr;
        pmix_alloc_directive_t adir;
        pmix_envar_t envar;
        pmix_coord_t *coord;
        pmix_link_state_t linkstate;
        pmix_job_state_t jstate;
        pmix_topology_t *topo;
        pmix_cpuset_t *cpuset;
        pmix_locality_t locality;
        pmix_geometry_t *geometry;
        pmix_device_type_t devtype;
        pmix_device_distance_t *devdist;
        pmix_endpoint_t *endpoint;
        pmix_data_buffer_t *dbuf;
        pmix_proc_stats_t *pstats;
        pmix_disk_stats_t *dkstats;
        pmix_net_stats_t *netstats;
        pmix_node_stats_t *ndstats;
    } data;
} pmix_value_t;

/* C++ cannot name a union member in an initializer before C++20, so it
 * gets the positional form; both leave the value empty (PMIX_UNDEF). */
#if defined(__cplusplus)
#define PMIX_VALUE_STATIC_INIT { PMIX_UNDEF, { false } }
#else
#define PMIX_VALUE_STATIC_INIT { .type = PMIX_UNDEF, .data.ptr = NULL }
#endif

#define PMIX_VALUE_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_value_t*)pmix_calloc((n), sizeof(pmix_value_t))

#define PMIX_VALUE_CONSTRUCT(m)                 \
    do {                                        \
        memset((m), 0, sizeof(pmix_value_t));   \
        (m)->type = PMIX_UNDEF;                 \
    } while (0)

/* Convert any numeric value m to type t into n; s is PMIX_SUCCESS, or
 * PMIX_ERR_BAD_PARAM when m does not hold a number. */
#define PMIX_VALUE_GET_NUMBER(s, m, n, t)                               \
    do {                                                                \
        (s) = PMIX_SUCCESS;                                             \
        switch ((m)->type) {                                            \
            case PMIX_SIZE:      (n) = (t)((m)->data.size);    break;  \
            case PMIX_INT:       (n) = (t)((m)->data.integer); break;  \
            case PMIX_INT8:      (n) = (t)((m)->data.int8);    break;  \
            case PMIX_INT16:     (n) = (t)((m)->data.int16);   break;  \
            case PMIX_INT32:     (n) = (t)((m)->data.int32);   break;  \
            case PMIX_INT64:     (n) = (t)((m)->data.int64);   break;  \
            case PMIX_UINT:      (n) = (t)((m)->data.uint);    break;  \
            case PMIX_UINT8:     (n) = (t)((m)->data.uint8);   break;  \
            case PMIX_UINT16:    (n) = (t)((m)->data.uint16);  break;  \
            case PMIX_UINT32:    (n) = (t)((m)->data.uint32);  break;  \
            case PMIX_UINT64:    (n) = (t)((m)->data.uint64);  break;  \
            case PMIX_FLOAT:     (n) = (t)((m)->data.fval);    break;  \
            case PMIX_DOUBLE:    (n) = (t)((m)->data.dval);    break;  \
            case PMIX_PID:       (n) = (t)((m)->data.pid);     break;  \
            case PMIX_PROC_RANK: (n) = (t)((m)->data.rank);    break;  \
            default:             (s) = PMIX_ERR_BAD_PARAM;     break;  \
        }                                                               \
    } while (0)

/* ====================================================================
 * Key/value pairs with directives (Std: Chap_API_Struct)
 * ==================================================================== */
typedef struct pmix_info {
    pmix_key_t key;
    pmix_info_directives_t flags;
    pmix_value_t value;
} pmix_info_t;

#define PMIX_INFO_STATIC_INIT { {0}, 0, PMIX_VALUE_STATIC_INIT }

#define PMIX_INFO_CONSTRUCT(m)                  \
    do {                                        \
        memset((m), 0, sizeof(pmix_info_t));    \
        (m)->value.type = PMIX_UNDEF;           \
    } while (0)

/* Arrays made here flag their last element with PMIX_INFO_ARRAY_END. */
#define PMIX_INFO_CREATE(m, n)                                              \
    do {                                                                    \
        size_t _pmix_ic_n = (size_t)(n);                                    \
        pmix_info_t *_pmix_ic_m = NULL;                                     \
        if (0 < _pmix_ic_n) {                                               \
            _pmix_ic_m = (pmix_info_t*)pmix_calloc(_pmix_ic_n, sizeof(pmix_info_t)); \
            if (NULL != _pmix_ic_m) {                                       \
                _pmix_ic_m[_pmix_ic_n - 1].flags = PMIX_INFO_ARRAY_END;     \
            }                                                               \
        }                                                                   \
        (m) = _pmix_ic_m;                                                   \
    } while (0)

/* directive flags */
#define PMIX_INFO_REQUIRED(m) \
    ((m)->flags |= PMIX_INFO_REQD)
#define PMIX_INFO_OPTIONAL(m) \
    ((m)->flags &= ~PMIX_INFO_REQD)
#define PMIX_INFO_IS_REQUIRED(m) \
    ((m)->flags & PMIX_INFO_REQD)
#define PMIX_INFO_IS_OPTIONAL(m) \
    (!((m)->flags & PMIX_INFO_REQD))
#define PMIX_INFO_PROCESSED(m) \
    ((m)->flags |= PMIX_INFO_REQD_PROCESSED)
#define PMIX_INFO_WAS_PROCESSED(m) \
    ((m)->flags & PMIX_INFO_REQD_PROCESSED)
#define PMIX_INFO_SET_END(m) \
    ((m)->flags |= PMIX_INFO_ARRAY_END)
#define PMIX_INFO_IS_END(m) \
    ((m)->flags & PMIX_INFO_ARRAY_END)
#define PMIX_INFO_SET_QUALIFIER(i) \
    ((i)->flags |= PMIX_INFO_QUALIFIER)
#define PMIX_INFO_IS_QUALIFIER(i) \
    ((i)->flags & PMIX_INFO_QUALIFIER)
#define PMIX_INFO_SET_PERSISTENT(ii) \
    ((ii)->flags |= PMIX_INFO_PERSISTENT)
#define PMIX_INFO_IS_PERSISTENT(ii) \
    ((ii)->flags & PMIX_INFO_PERSISTENT)

/* Result of interpreting a value as a boolean. */
typedef enum {
    PMIX_BOOL_TRUE,
    PMIX_BOOL_FALSE,
    PMIX_NON_BOOL
} pmix_boolean_t;

/* A boolean attribute may arrive with no value (PMIX_UNDEF, meaning true),
 * as a bool, or as a string: an empty string, a non-zero number, "yes" or
 * "true" mean true; zero, "no" or "false" mean false (words are matched
 * case-insensitively as prefixes, after leading white space). */
static inline pmix_boolean_t pmix_check_true(const pmix_value_t *value)
{
    const char *s;

    if (PMIX_UNDEF == value->type) {
        return PMIX_BOOL_TRUE;
    }
    if (PMIX_BOOL == value->type) {
        return value->data.flag ? PMIX_BOOL_TRUE : PMIX_BOOL_FALSE;
    }
    if (PMIX_STRING != value->type) {
        return PMIX_NON_BOOL;
    }
    s = value->data.string;
    if (NULL == s) {
        return PMIX_BOOL_TRUE;
    }
    while (isspace((unsigned char)*s)) {
        ++s;
    }
    if ('\0' == *s) {
        return PMIX_BOOL_TRUE;
    }
    if (isdigit((unsigned char)*s)) {
        return (0 == atoi(s)) ? PMIX_BOOL_FALSE : PMIX_BOOL_TRUE;
    }
    if (0 == strncasecmp(s, "yes", 3) || 0 == strncasecmp(s, "true", 4)) {
        return PMIX_BOOL_TRUE;
    }
    if (0 == strncasecmp(s, "no", 2) || 0 == strncasecmp(s, "false", 5)) {
        return PMIX_BOOL_FALSE;
    }
    return PMIX_NON_BOOL;
}

#define PMIX_CHECK_TRUE(a) \
    (PMIX_BOOL_TRUE == pmix_check_true(a) ? true : false)

#define PMIX_CHECK_BOOL(a) \
    (PMIX_NON_BOOL == pmix_check_true(a) ? false : true)

#define PMIX_INFO_TRUE(m) \
    (PMIX_BOOL_TRUE == pmix_check_true(&(m)->value) ? true : false)

/* ====================================================================
 * Lookup results (Std: Chap_API_Publish): who published which key/value
 * ==================================================================== */
typedef struct pmix_pdata {
    pmix_proc_t proc;
    pmix_key_t key;
    pmix_value_t value;
} pmix_pdata_t;

#define PMIX_LOOKUP_STATIC_INIT \
    { PMIX_PROC_STATIC_INIT, {0}, PMIX_VALUE_STATIC_INIT }

#define PMIX_PDATA_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_pdata_t*)pmix_calloc((n), sizeof(pmix_pdata_t))

#define PMIX_PDATA_CONSTRUCT(m)                 \
    do {                                        \
        memset((m), 0, sizeof(pmix_pdata_t));   \
        (m)->value.type = PMIX_UNDEF;           \
    } while (0)

/* ====================================================================
 * Application descriptions for PMIx_Spawn (Std: Chap_API_Proc_Mgmt)
 * ==================================================================== */
typedef struct pmix_app {
    char *cmd;
    char **argv;
    char **env;
    char *cwd;
    int maxprocs;
    pmix_info_t *info;
    size_t ninfo;
} pmix_app_t;

#define PMIX_APP_STATIC_INIT { NULL, NULL, NULL, NULL, 0, NULL, 0 }

#define PMIX_APP_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_app_t*)pmix_calloc((n), sizeof(pmix_app_t))

#define PMIX_APP_INFO_CREATE(m, n)                  \
    do {                                            \
        (m)->ninfo = (n);                           \
        PMIX_INFO_CREATE((m)->info, (m)->ninfo);    \
    } while (0)

#define PMIX_APP_RELEASE(m)                     \
    do {                                        \
        PMIX_APP_DESTRUCT((m));                 \
        pmix_free((m));                         \
        (m) = NULL;                             \
    } while (0)

#define PMIX_APP_CONSTRUCT(m)                   \
    do {                                        \
        memset((m), 0, sizeof(pmix_app_t));     \
    } while (0)

/* ====================================================================
 * Queries (Std: Chap_API_Query): keys plus qualifiers
 * ==================================================================== */
typedef struct pmix_query {
    char **keys;
    pmix_info_t *qualifiers;
    size_t nqual;
} pmix_query_t;

#define PMIX_QUERY_STATIC_INIT { NULL, NULL, 0 }

#define PMIX_QUERY_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_query_t*)pmix_calloc((n), sizeof(pmix_query_t))

#define PMIX_QUERY_QUALIFIERS_CREATE(m, n)                  \
    do {                                                    \
        (m)->nqual = (n);                                   \
        PMIX_INFO_CREATE((m)->qualifiers, (m)->nqual);      \
    } while (0)

#define PMIX_QUERY_RELEASE(m)       \
    do {                            \
        PMIX_QUERY_DESTRUCT((m));   \
        pmix_free((m));             \
        (m) = NULL;                 \
    } while (0)

#define PMIX_QUERY_CONSTRUCT(m)                 \
    do {                                        \
        memset((m), 0, sizeof(pmix_query_t));   \
    } while (0)

#define PMIX_QUERY_DESTRUCT(m)                                  \
    do {                                                        \
        if (NULL != (m)->keys) {                                \
            pmix_argv_free((m)->keys);                          \
            (m)->keys = NULL;                                   \
        }                                                       \
        if (NULL != (m)->qualifiers) {                          \
            PMIX_INFO_FREE((m)->qualifiers, (m)->nqual);        \
            (m)->qualifiers = NULL;                             \
            (m)->nqual = 0;                                     \
        }                                                       \
    } while (0)

#define PMIX_QUERY_FREE(m, n)                                           \
    do {                                                                \
        size_t _pmix_qf_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_qf_i = 0; _pmix_qf_i < (size_t)(n); ++_pmix_qf_i) { \
                PMIX_QUERY_DESTRUCT(&((m)[_pmix_qf_i]));                \
            }                                                           \
            pmix_free((m));                                             \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

/* ====================================================================
 * Attribute registration (Std: Chap_API_Server): name, key string, type and an
 * argv-style description
 * ==================================================================== */
typedef struct pmix_regattr_t {
    char *name;
    pmix_key_t string;
    pmix_data_type_t type;
    char **description;
} pmix_regattr_t;

#define PMIX_REGATTR_STATIC_INIT { NULL, {0}, PMIX_UNDEF, NULL }

#define PMIX_REGATTR_CONSTRUCT(a)                       \
    do {                                                \
        if (NULL != (a)) {                              \
            (a)->name = NULL;                           \
            memset((a)->string, 0, PMIX_MAX_KEYLEN+1);  \
            (a)->type = PMIX_UNDEF;                     \
            (a)->description = NULL;                    \
        }                                               \
    } while (0)

/* name n, key k, type t, and v appended to the description */
#define PMIX_REGATTR_LOAD(a, n, k, t, v)                                \
    do {                                                                \
        const char *_pmix_rl_n = (n), *_pmix_rl_v = (v);                \
        if (NULL != _pmix_rl_n) {                                       \
            (a)->name = strdup(_pmix_rl_n);                             \
        }                                                               \
        if (NULL != (const char*)(k)) {                                 \
            PMIX_LOAD_KEY((a)->string, (k));                            \
        }                                                               \
        (a)->type = (t);                                                \
        if (NULL != _pmix_rl_v) {                                       \
            (void)pmix_argv_append_nosize(&(a)->description, _pmix_rl_v); \
        }                                                               \
    } while (0)

#define PMIX_REGATTR_DESTRUCT(a)                    \
    do {                                            \
        if (NULL != (a)) {                          \
            if (NULL != (a)->name) {                \
                pmix_free((a)->name);               \
                (a)->name = NULL;                   \
            }                                       \
            if (NULL != (a)->description) {         \
                pmix_argv_free((a)->description);   \
                (a)->description = NULL;            \
            }                                       \
        }                                           \
    } while (0)

#define PMIX_REGATTR_CREATE(m, n) \
    (m) = (0 == (n)) ? NULL : (pmix_regattr_t*)pmix_calloc((n), sizeof(pmix_regattr_t))

#define PMIX_REGATTR_FREE(m, n)                                         \
    do {                                                                \
        size_t _pmix_rf_i;                                              \
        pmix_regattr_t *_pmix_rf_m = (pmix_regattr_t*)(m);              \
        if (NULL != _pmix_rf_m) {                                       \
            for (_pmix_rf_i = 0; _pmix_rf_i < (size_t)(n); ++_pmix_rf_i) { \
                PMIX_REGATTR_DESTRUCT(&_pmix_rf_m[_pmix_rf_i]);         \
            }                                                           \
            pmix_free(_pmix_rf_m);                                      \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

/* deep copy of b into a */
#define PMIX_REGATTR_XFER(a, b)                                         \
    do {                                                                \
        PMIX_REGATTR_CONSTRUCT((a));                                    \
        if (NULL != (b)->name) {                                        \
            (a)->name = strdup((b)->name);                              \
        }                                                               \
        PMIX_LOAD_KEY((a)->string, (b)->string);                        \
        (a)->type = (b)->type;                                          \
        if (NULL != (b)->description) {                                 \
            (a)->description = pmix_argv_copy((b)->description);        \
        }                                                               \
    } while (0)

/* ====================================================================
 * Fabric registration object (Std: Chap_API_Fabric)
 * ==================================================================== */
typedef struct pmix_fabric_s {
    char *name;             /* caller's label */
    size_t index;           /* assigned by the library */
    pmix_info_t *info;      /* library-provided description */
    size_t ninfo;
    void *module;           /* library-private */
} pmix_fabric_t;

#define PMIX_FABRIC_STATIC_INIT { NULL, 0, NULL, 0, NULL }

#define PMIX_FABRIC_CONSTRUCT(x) \
    memset(x, 0, sizeof(pmix_fabric_t))

typedef enum {
    PMIX_FABRIC_REQUEST_INFO,
    PMIX_FABRIC_UPDATE_INFO
} pmix_fabric_operation_t;

/* ====================================================================
 * Callback signatures for the non-blocking APIs (Std: Chap_API_Struct)
 * ==================================================================== */

/* Lets the receiver of data tell its owner that it is done with it. */
typedef void (*pmix_release_cbfunc_t)(void *cbdata);

/* Server side: collected modex data from a fence or direct get; the
 * host owns "data" and frees it when release_fn is called. */
typedef void (*pmix_modex_cbfunc_t)(pmix_status_t status,
                                    const char *data, size_t ndata,
                                    void *cbdata,
                                    pmix_release_cbfunc_t release_fn,
                                    void *release_cbdata);

/* Spawn completion; nspace is valid only during the call. */
typedef void (*pmix_spawn_cbfunc_t)(pmix_status_t status,
                                    pmix_nspace_t nspace, void *cbdata);

/* Completion of an operation that only returns a status. */
typedef void (*pmix_op_cbfunc_t)(pmix_status_t status, void *cbdata);

/* Lookup results; "data" is valid only during the call. */
typedef void (*pmix_lookup_cbfunc_t)(pmix_status_t status,
                                     pmix_pdata_t data[], size_t ndata,
                                     void *cbdata);

/* Event handlers must call this when done so that the next handler in
 * the chain can run; results are passed on to that handler. */
typedef void (*pmix_event_notification_cbfunc_fn_t)(pmix_status_t status,
                                                    pmix_info_t *results, size_t nresults,
                                                    pmix_op_cbfunc_t cbfunc, void *thiscbdata,
                                                    void *notification_cbdata);

/* An event handler (Std: Chap_API_Event): source is the process that raised the
 * event (empty nspace and PMIX_RANK_UNDEF when the RM did). */
typedef void (*pmix_notification_fn_t)(size_t evhdlr_registration_id,
                                       pmix_status_t status,
                                       const pmix_proc_t *source,
                                       pmix_info_t info[], size_t ninfo,
                                       pmix_info_t *results, size_t nresults,
                                       pmix_event_notification_cbfunc_fn_t cbfunc,
                                       void *cbdata);

/* Completion of a handler registration; refid identifies it later. */
typedef void (*pmix_hdlr_reg_cbfunc_t)(pmix_status_t status,
                                       size_t refid,
                                       void *cbdata);
/* older name of the same signature */
typedef void (*pmix_evhdlr_reg_cbfunc_t)(pmix_status_t status,
                                         size_t refid,
                                         void *cbdata);

/* PMIx_Get_nb result; kv is NULL when nothing was found. */
typedef void (*pmix_value_cbfunc_t)(pmix_status_t status,
                                    pmix_value_t *kv, void *cbdata);

/* Query-style results, released through release_fn. */
typedef void (*pmix_info_cbfunc_t)(pmix_status_t status,
                                   pmix_info_t *info, size_t ninfo,
                                   void *cbdata,
                                   pmix_release_cbfunc_t release_fn,
                                   void *release_cbdata);

/* Credential request result (Std: Chap_API_Security); the receiver owns the
 * credential, the library owns info. */
typedef void (*pmix_credential_cbfunc_t)(pmix_status_t status,
                                         pmix_byte_object_t *credential,
                                         pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

/* Credential validation result; the library owns info. */
typedef void (*pmix_validation_cbfunc_t)(pmix_status_t status,
                                         pmix_info_t info[], size_t ninfo,
                                         void *cbdata);

/* Device distance results, released through release_fn. */
typedef void (*pmix_device_dist_cbfunc_t)(pmix_status_t status,
                                          pmix_device_distance_t *dist,
                                          size_t ndist,
                                          void *cbdata,
                                          pmix_release_cbfunc_t release_fn,
                                          void *release_cbdata);

/* ====================================================================
 * Data array construction, now that every element type is known
 * ==================================================================== */
#define PMIX_DATA_ARRAY_INIT(m, t)      \
    do {                                \
        (m)->array = NULL;              \
        (m)->type = (t);                \
        (m)->size = 0;                  \
    } while (0)

/* Allocate n zeroed elements of type t.  PMIX_INFO arrays get their end
 * marker and device distances start "unknown", as with their CREATE
 * macros.  Types without an element layout here yield an empty array. */
#define PMIX_DATA_ARRAY_CONSTRUCT(m, n, t)                                  \
    do {                                                                    \
        size_t _pmix_da_n = (size_t)(n), _pmix_da_sz = 0;                   \
        pmix_data_type_t _pmix_da_t = (pmix_data_type_t)(t);                \
        void *_pmix_da_p = NULL;                                            \
        switch (_pmix_da_t) {                                               \
            case PMIX_BOOL:             _pmix_da_sz = sizeof(bool); break;  \
            case PMIX_BYTE: case PMIX_INT8: case PMIX_UINT8:                \
            case PMIX_PERSIST: case PMIX_SCOPE: case PMIX_DATA_RANGE:       \
            case PMIX_PROC_STATE: case PMIX_ALLOC_DIRECTIVE:                \
            case PMIX_LINK_STATE:       _pmix_da_sz = 1; break;             \
            case PMIX_INT16: case PMIX_UINT16:                              \
            case PMIX_DATA_TYPE: case PMIX_IOF_CHANNEL:                     \
                                        _pmix_da_sz = 2; break;             \
            case PMIX_INT32: case PMIX_UINT32:                              \
            case PMIX_PROC_RANK: case PMIX_INFO_DIRECTIVES:                 \
                                        _pmix_da_sz = 4; break;             \
            case PMIX_INT64: case PMIX_UINT64:                              \
                                        _pmix_da_sz = 8; break;             \
            case PMIX_INT: case PMIX_UINT: case PMIX_STATUS:                \
                                        _pmix_da_sz = sizeof(int); break;   \
            case PMIX_SIZE:             _pmix_da_sz = sizeof(size_t); break; \
            case PMIX_PID:              _pmix_da_sz = sizeof(pid_t); break; \
            case PMIX_FLOAT:            _pmix_da_sz = sizeof(float); break; \
            case PMIX_DOUBLE:           _pmix_da_sz = sizeof(double); break; \
            case PMIX_TIMEVAL:          _pmix_da_sz = sizeof(struct timeval); break; \
            case PMIX_TIME:             _pmix_da_sz = sizeof(time_t); break; \
            case PMIX_STRING:           _pmix_da_sz = sizeof(char*); break; \
            case PMIX_POINTER:          _pmix_da_sz = sizeof(void*); break; \
            case PMIX_PROC_NSPACE:      _pmix_da_sz = sizeof(pmix_nspace_t); break; \
            case PMIX_VALUE:            _pmix_da_sz = sizeof(pmix_value_t); break; \
            case PMIX_PROC:             _pmix_da_sz = sizeof(pmix_proc_t); break; \
            case PMIX_PROC_INFO:        _pmix_da_sz = sizeof(pmix_proc_info_t); break; \
            case PMIX_PDATA:            _pmix_da_sz = sizeof(pmix_pdata_t); break; \
            case PMIX_APP:              _pmix_da_sz = sizeof(pmix_app_t); break; \
            case PMIX_QUERY:            _pmix_da_sz = sizeof(pmix_query_t); break; \
            case PMIX_ENVAR:            _pmix_da_sz = sizeof(pmix_envar_t); break; \
            case PMIX_BYTE_OBJECT: case PMIX_COMPRESSED_STRING:             \
                                        _pmix_da_sz = sizeof(pmix_byte_object_t); break; \
            case PMIX_COORD:            _pmix_da_sz = sizeof(pmix_coord_t); break; \
            case PMIX_REGATTR:          _pmix_da_sz = sizeof(pmix_regattr_t); break; \
            case PMIX_ENDPOINT:         _pmix_da_sz = sizeof(pmix_endpoint_t); break; \
            case PMIX_GEOMETRY:         _pmix_da_sz = sizeof(pmix_geometry_t); break; \
            case PMIX_PROC_CPUSET:      _pmix_da_sz = sizeof(pmix_cpuset_t); break; \
            case PMIX_PROC_STATS:       _pmix_da_sz = sizeof(pmix_proc_stats_t); break; \
            case PMIX_DISK_STATS:       _pmix_da_sz = sizeof(pmix_disk_stats_t); break; \
            case PMIX_NET_STATS:        _pmix_da_sz = sizeof(pmix_net_stats_t); break; \
            case PMIX_NODE_STATS:       _pmix_da_sz = sizeof(pmix_node_stats_t); break; \
            default:                    break;                              \
        }                                                                   \
        if (0 < _pmix_da_n) {                                               \
            if (PMIX_INFO == _pmix_da_t) {                                  \
                pmix_info_t *_pmix_da_i;                                    \
                PMIX_INFO_CREATE(_pmix_da_i, _pmix_da_n);                   \
                _pmix_da_p = _pmix_da_i;                                    \
            } else if (PMIX_DEVICE_DIST == _pmix_da_t) {                    \
                pmix_device_distance_t *_pmix_da_d;                         \
                PMIX_DEVICE_DIST_CREATE(_pmix_da_d, _pmix_da_n);            \
                _pmix_da_p = _pmix_da_d;                                    \
            } else if (0 < _pmix_da_sz) {                                   \
                _pmix_da_p = pmix_calloc(_pmix_da_n, _pmix_da_sz);          \
            }                                                               \
        }                                                                   \
        (m)->type = _pmix_da_t;                                             \
        (m)->array = _pmix_da_p;                                            \
        (m)->size = (NULL == _pmix_da_p) ? 0 : _pmix_da_n;                  \
    } while (0)

#define PMIX_DATA_ARRAY_CREATE(m, n, t)                                         \
    do {                                                                        \
        (m) = (pmix_data_array_t*)pmix_calloc(1, sizeof(pmix_data_array_t));    \
        if (NULL != (m)) {                                                      \
            PMIX_DATA_ARRAY_CONSTRUCT((m), (n), (t));                           \
        }                                                                       \
    } while (0)

/* Retired names, constants and the helper prototypes that the macros
 * below rely on. */
#include "pmix_deprecated.h"

/* ====================================================================
 * Release helpers that forward to library functions
 * ==================================================================== */

/* release whatever the value holds; the struct itself stays */
#define PMIX_VALUE_DESTRUCT(m) PMIx_Value_destruct(m)

#define PMIX_VALUE_RELEASE(m)       \
    do {                            \
        PMIX_VALUE_DESTRUCT((m));   \
        pmix_free((m));             \
        (m) = NULL;                 \
    } while (0)

#define PMIX_VALUE_FREE(m, n)                                           \
    do {                                                                \
        size_t _pmix_lf_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_lf_i = 0; _pmix_lf_i < (size_t)(n); ++_pmix_lf_i) { \
                PMIX_VALUE_DESTRUCT(&((m)[_pmix_lf_i]));                \
            }                                                           \
            pmix_free((m));                                             \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

/* persistent entries do not own their value */
#define PMIX_INFO_DESTRUCT(m)                   \
    do {                                        \
        if (!PMIX_INFO_IS_PERSISTENT((m))) {    \
            PMIX_VALUE_DESTRUCT(&(m)->value);   \
        }                                       \
    } while (0)

#define PMIX_INFO_FREE(m, n)                                            \
    do {                                                                \
        size_t _pmix_if_i;                                              \
        if (NULL != (m)) {                                              \
            for (_pmix_if_i = 0; _pmix_if_i < (size_t)(n); ++_pmix_if_i) { \
                PMIX_INFO_DESTRUCT(&((m)[_pmix_if_i]));                 \
            }                                                           \
            pmix_free((m));                                             \
            (m) = NULL;                                                 \
        }                                                               \
    } while (0)

#define PMIX_APP_DESTRUCT(m)                                    \
    do {                                                        \
        if (NULL != (m)->cmd) {                                 \
            pmix_free((m)->cmd);                                \
            (m)->cmd = NULL;                                    \
        }                                                       \
        if (NULL != (m)->argv) {                                \
            pmix_argv_free((m)->argv);                          \
            (m)->argv = NULL;                                   \
        }                                                       \
        if (NULL != (m)->env) {                                 \
            pmix_argv_free((m)->env);                           \
            (m)->env = NULL;                                    \
        }                                                       \
        if (NULL != (m)->cwd) {                                 \
            pmix_free((m)->cwd);                                \
            (m)->cwd = NULL;                                    \
        }                                                       \
        if (NULL != (m)->info) {                                \
            PMIX_INFO_FREE((m)->info, (m)->ninfo);              \
            (m)->info = NULL;                                   \
            (m)->ninfo = 0;                                     \
        }                                                       \
    } while (0)

/* Destruct n apps (the array itself is not released). */
static inline void pmix_app_free(pmix_app_t *ap, size_t n)
{
    size_t i;

    for (i = 0; NULL != ap && i < n; ++i) {
        PMIX_APP_DESTRUCT(&ap[i]);
    }
}

#define PMIX_APP_FREE(m, n)     \
    do {                        \
        pmix_app_free(m, n);    \
        pmix_free(m);           \
        (m) = NULL;             \
    } while (0)

/* release the elements and their storage; the struct itself stays */
#define PMIX_DATA_ARRAY_DESTRUCT(m) PMIx_Data_array_destruct(m)

#define PMIX_DATA_ARRAY_FREE(m)             \
    do {                                    \
        if (NULL != (m)) {                  \
            PMIX_DATA_ARRAY_DESTRUCT(m);    \
            pmix_free((m));                 \
            (m) = NULL;                     \
        }                                   \
    } while (0)

#define PMIX_PDATA_RELEASE(m)                   \
    do {                                        \
        PMIX_VALUE_DESTRUCT(&(m)->value);       \
        pmix_free((m));                         \
        (m) = NULL;                             \
    } while (0)

#define PMIX_PDATA_DESTRUCT(m)                  \
    do {                                        \
        PMIX_VALUE_DESTRUCT(&(m)->value);       \
    } while (0)

/* Destruct n entries (the array itself is not released). */
static inline void pmix_pdata_free(pmix_pdata_t *pd, size_t n)
{
    size_t i;

    for (i = 0; NULL != pd && i < n; ++i) {
        PMIX_PDATA_DESTRUCT(&pd[i]);
    }
}

#define PMIX_PDATA_FREE(m, n)   \
    do {                        \
        pmix_pdata_free(m, n);  \
        pmix_free(m);           \
        (m) = NULL;             \
    } while (0)

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_COMMON_H */
