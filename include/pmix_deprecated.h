/*
 * pmix_deprecated.h - names the PMIx Standard has retired but that existing
 * code still uses: an API, status codes, a data type, attribute keys, and
 * the value/info macros together with the prototypes they expand to.
 *
 * Part of a drop-in replacement for OpenPMIx 4.2.2 (libpmix.so.2); names,
 * values and signatures match that release.  pmix_common.h includes this
 * file part-way through, once the types below are defined.  Including this
 * file on its own first pulls in pmix_common.h, which then brings us in at
 * that point.  pmix.h tests PMIx_DEPRECATED_H to avoid re-declaring the
 * prototypes, so the guard name is part of the contract.
 */
#ifndef PMIx_COMMON_H
#include "pmix_common.h"
#else
#ifndef PMIx_DEPRECATED_H
#define PMIx_DEPRECATED_H

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ====================================================================
 * APIs retired in v4
 * ==================================================================== */

/* superseded by PMIx_tool_attach_to_server */
PMIX_EXPORT pmix_status_t PMIx_tool_connect_to_server(pmix_proc_t *proc,
                                                      pmix_info_t info[], size_t ninfo);

/* ====================================================================
 * Retired data type and constants
 * ==================================================================== */
#define PMIX_BUFFER                     26

#define PMIX_ERR_SILENT                             -2
#define PMIX_ERR_DEBUGGER_RELEASE                   -3   /* now PMIX_DEBUGGER_RELEASE */
#define PMIX_ERR_PROC_ABORTED                       -7
#define PMIX_ERR_PROC_ABORTING                      -9
#define PMIX_ERR_SERVER_FAILED_REQUEST              -10
#define PMIX_EXISTS                                 -11  /* now PMIX_ERR_EXISTS */
#define PMIX_ERR_HANDSHAKE_FAILED                   -13
#define PMIX_ERR_READY_FOR_HANDSHAKE                -14
#define PMIX_ERR_PROC_ENTRY_NOT_FOUND               -17
#define PMIX_ERR_PACK_MISMATCH                      -22
#define PMIX_ERR_IN_ERRNO                           -26
#define PMIX_ERR_DATA_VALUE_NOT_FOUND               -30
#define PMIX_ERR_INVALID_ARG                        -33
#define PMIX_ERR_INVALID_KEY                        -34
#define PMIX_ERR_INVALID_KEY_LENGTH                 -35
#define PMIX_ERR_INVALID_VAL                        -36
#define PMIX_ERR_INVALID_VAL_LENGTH                 -37
#define PMIX_ERR_INVALID_LENGTH                     -38
#define PMIX_ERR_INVALID_NUM_ARGS                   -39
#define PMIX_ERR_INVALID_ARGS                       -40
#define PMIX_ERR_INVALID_NUM_PARSED                 -41
#define PMIX_ERR_INVALID_KEYVALP                    -42
#define PMIX_ERR_INVALID_SIZE                       -43
#define PMIX_ERR_INVALID_NAMESPACE                  -44
#define PMIX_ERR_SERVER_NOT_AVAIL                   -45
#define PMIX_ERR_NOT_IMPLEMENTED                    -48
#define PMIX_DEBUG_WAITING_FOR_NOTIFY               -58  /* now PMIX_READY_FOR_DEBUG */
#define PMIX_ERR_FATAL                              -63
#define PMIX_ERR_NOT_AVAILABLE                      -64
#define PMIX_ERR_VALUE_OUT_OF_BOUNDS                -65
#define PMIX_ERR_FILE_OPEN_FAILURE                  -67
#define PMIX_ERR_FILE_READ_FAILURE                  -68
#define PMIX_ERR_FILE_WRITE_FAILURE                 -69
#define PMIX_ERR_SYS_LIMITS_PIPES                   -70
#define PMIX_ERR_SYS_LIMITS_CHILDREN                -71
#define PMIX_ERR_PIPE_SETUP_FAILURE                 -72
#define PMIX_ERR_EXE_NOT_ACCESSIBLE                 -73
#define PMIX_ERR_JOB_WDIR_NOT_ACCESSIBLE            -74
#define PMIX_ERR_SYS_LIMITS_FILES                   -75
#define PMIX_ERR_LOST_CONNECTION_TO_SERVER          -101
#define PMIX_ERR_LOST_PEER_CONNECTION               -102
#define PMIX_ERR_LOST_CONNECTION_TO_CLIENT          -103
#define PMIX_NOTIFY_ALLOC_COMPLETE                  -105
#define PMIX_ERR_INVALID_TERMINATION                -112
#define PMIX_ERR_JOB_TERMINATED                     -145 /* now PMIX_EVENT_JOB_END */
#define PMIX_ERR_UPDATE_ENDPOINTS                   -146
#define PMIX_GDS_ACTION_COMPLETE                    -148
#define PMIX_PROC_HAS_CONNECTED                     -149
#define PMIX_CONNECT_REQUESTED                      -150
#define PMIX_ERR_NODE_DOWN                          -231 /* now PMIX_EVENT_NODE_DOWN */
#define PMIX_ERR_NODE_OFFLINE                       -232 /* now PMIX_EVENT_NODE_OFFLINE */

#define PMIX_ERR_SYS_BASE                           PMIX_EVENT_SYS_BASE
#define PMIX_ERR_SYS_OTHER                          PMIX_EVENT_SYS_OTHER

#define PMIX_JOB_STATE_PREPPED                   1

/* ====================================================================
 * Retired attribute keys.  Same layout as pmix_attributes.h: the comment
 * after each key gives the type of its value (void* = opaque pointer).
 * ==================================================================== */

/* progress, connection and listener control */
#define PMIX_EVENT_BASE                     "pmix.evbase"           /* type: void* */
#define PMIX_RECONNECT_SERVER               "pmix.cnct.recon"       /* type: bool */
#define PMIX_USOCK_DISABLE                  "pmix.usock.disable"    /* type: bool */
#define PMIX_SOCKET_MODE                    "pmix.sockmode"         /* type: uint32_t */
#define PMIX_SINGLE_LISTENER                "pmix.sing.listnr"      /* type: bool */

/* debugger */
#define PMIX_DEBUG_JOB                      "pmix.dbg.job"          /* type: char* */
#define PMIX_DEBUG_JOB_DIRECTIVES           "pmix.dbg.jdirs"        /* type: pmix_data_array_t* */
#define PMIX_DEBUG_APP_DIRECTIVES           "pmix.dbg.adirs"        /* type: pmix_data_array_t* */

/* network allocation requests */
#define PMIX_ALLOC_NETWORK                  "pmix.alloc.net"        /* type: pmix_data_array_t* */
#define PMIX_ALLOC_NETWORK_ID               "pmix.alloc.netid"      /* type: char* */
#define PMIX_ALLOC_NETWORK_QOS              "pmix.alloc.netqos"     /* type: char* */
#define PMIX_ALLOC_NETWORK_TYPE             "pmix.alloc.nettype"    /* type: char* */
#define PMIX_ALLOC_NETWORK_PLANE            "pmix.alloc.netplane"   /* type: char* */
#define PMIX_ALLOC_NETWORK_ENDPTS           "pmix.alloc.endpts"     /* type: size_t */
#define PMIX_ALLOC_NETWORK_ENDPTS_NODE      "pmix.alloc.endpts.nd"  /* type: size_t */
#define PMIX_ALLOC_NETWORK_SEC_KEY          "pmix.alloc.nsec"       /* type: pmix_byte_object_t */

/* process data and locality */
#define PMIX_PROC_DATA                      "pmix.pdata"            /* type: pmix_data_array_t* */
#define PMIX_LOCALITY                       "pmix.loc"              /* type: uint16_t */
#define PMIX_PROC_BLOB                      "pmix.pblob"            /* type: pmix_byte_object_t */
#define PMIX_MAP_BLOB                       "pmix.mblob"            /* type: pmix_byte_object_t */
#define PMIX_PROC_URI                       "pmix.puri"             /* type: char* */
#define PMIX_ARCH                           "pmix.arch"             /* type: uint32_t */

/* topology sharing (replaced by pmix_topology_t) */
#define PMIX_TOPOLOGY                       "pmix.topo"             /* type: void* */
#define PMIX_LOCAL_TOPO                     "pmix.ltopo"            /* type: char* */
#define PMIX_TOPOLOGY_XML                   "pmix.topo.xml"         /* type: char* */
#define PMIX_TOPOLOGY_FILE                  "pmix.topo.file"        /* type: char* */
#define PMIX_TOPOLOGY_SIGNATURE             "pmix.toposig"          /* type: char* */
#define PMIX_HWLOC_SHMEM_ADDR               "pmix.hwlocaddr"        /* type: size_t */
#define PMIX_HWLOC_SHMEM_SIZE               "pmix.hwlocsize"        /* type: size_t */
#define PMIX_HWLOC_SHMEM_FILE               "pmix.hwlocfile"        /* type: char* */
#define PMIX_HWLOC_XML_V1                   "pmix.hwlocxml1"        /* type: char* */
#define PMIX_HWLOC_XML_V2                   "pmix.hwlocxml2"        /* type: char* */
#define PMIX_HWLOC_SHARE_TOPO               "pmix.hwlocsh"          /* type: bool */
#define PMIX_HWLOC_HOLE_KIND                "pmix.hwlocholek"       /* type: char* */

/* implementation internals that leaked into the API */
#define PMIX_DSTPATH                        "pmix.dstpath"          /* type: char* */
#define PMIX_COLLECTIVE_ALGO                "pmix.calgo"            /* type: char* */
#define PMIX_COLLECTIVE_ALGO_REQD           "pmix.calreqd"          /* type: bool */
#define PMIX_GDS_MODULE                     "pmix.gds.mod"          /* type: char* */
#define PMIX_BFROPS_MODULE                  "pmix.bfrops.mod"       /* type: char* */
#define PMIX_PNET_SETUP_APP                 "pmix.pnet.setapp"      /* type: pmix_byte_object_t */

/* spawn and events */
#define PMIX_MAPPER                         "pmix.mapper"           /* type: char* */
#define PMIX_NON_PMI                        "pmix.nonpmi"           /* type: bool */
#define PMIX_NOTIFY_LAUNCH                  "pmix.note.lnch"        /* type: bool */
#define PMIX_EVENT_NO_TERMINATION           "pmix.evnoterm"         /* type: bool */
#define PMIX_EVENT_WANT_TERMINATION         "pmix.evterm"           /* type: bool */

/* output handling (now the PMIX_IOF_* attributes) */
#define PMIX_TAG_OUTPUT                     "pmix.tagout"           /* type: bool */
#define PMIX_TIMESTAMP_OUTPUT               "pmix.tsout"            /* type: bool */
#define PMIX_MERGE_STDERR_STDOUT            "pmix.mergeerrout"      /* type: bool */
#define PMIX_OUTPUT_TO_FILE                 "pmix.outfile"          /* type: char* */
#define PMIX_OUTPUT_TO_DIRECTORY            "pmix.outdir"           /* type: char* */
#define PMIX_OUTPUT_NOCOPY                  "pmix.nocopy"           /* type: bool */
#define PMIX_IOF_STOP                       "pmix.iof.stop"         /* type: bool */

/* ====================================================================
 * Library functions the value/info macros expand to.  pmix.h declares
 * them too; they are repeated here so that code including only
 * pmix_common.h can use the macros.
 * ==================================================================== */
PMIX_EXPORT pmix_status_t PMIx_Value_load(pmix_value_t *val,
                                          const void *data,
                                          pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Value_unload(pmix_value_t *val,
                                            void **data,
                                            size_t *sz);
PMIX_EXPORT void PMIx_Value_destruct(pmix_value_t *val);
PMIX_EXPORT pmix_status_t PMIx_Value_xfer(pmix_value_t *dest,
                                          const pmix_value_t *src);
PMIX_EXPORT pmix_value_cmp_t PMIx_Value_compare(pmix_value_t *v1,
                                                pmix_value_t *v2);
PMIX_EXPORT void PMIx_Data_array_destruct(pmix_data_array_t *d);

PMIX_EXPORT pmix_status_t PMIx_Info_load(pmix_info_t *info,
                                         const char *key,
                                         const void *data,
                                         pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_xfer(pmix_info_t *dest,
                                         const pmix_info_t *src);

/* Info lists: an opaque growable list that converts to an info array. */
PMIX_EXPORT void* PMIx_Info_list_start(void);
PMIX_EXPORT pmix_status_t PMIx_Info_list_add(void *ptr,
                                             const char *key,
                                             const void *value,
                                             pmix_data_type_t type);
PMIX_EXPORT pmix_status_t PMIx_Info_list_insert(void *ptr, pmix_info_t *info);
PMIX_EXPORT pmix_status_t PMIx_Info_list_xfer(void *ptr,
                                              const pmix_info_t *info);
PMIX_EXPORT pmix_status_t PMIx_Info_list_convert(void *ptr, pmix_data_array_t *par);
PMIX_EXPORT void PMIx_Info_list_release(void *ptr);

/* ====================================================================
 * Macro forms of those functions
 * ==================================================================== */

/* copy data of type t into value v */
#define PMIX_VALUE_LOAD(v, d, t) \
    PMIx_Value_load((v), (d), (t))

#define PMIX_VALUE_UNLOAD(r, k, d, s)      \
    (r) = PMIx_Value_unload((k), (d), (s))

/* copy s into v, allocating v first when it is NULL */
#define PMIX_VALUE_XFER(r, v, s)                                        \
    do {                                                                \
        if (NULL == (v)) {                                              \
            (v) = (pmix_value_t*)pmix_malloc(sizeof(pmix_value_t));     \
        }                                                               \
        if (NULL == (v)) {                                              \
            (r) = PMIX_ERR_NOMEM;                                       \
        } else {                                                        \
            (r) = PMIx_Value_xfer((v), (s));                            \
        }                                                               \
    } while (0)

#define PMIX_VALUE_XFER_DIRECT(r, v, s)     \
    (r) = PMIx_Value_xfer((v), (s))

#define PMIX_INFO_LOAD(i, k, d, t)  \
    (void) PMIx_Info_load(i, k, d, t)

#define PMIX_INFO_XFER(d, s)    \
    (void) PMIx_Info_xfer(d, s)

/* fill pdata m with proc p, key k and a copy of data v of type t */
#define PMIX_PDATA_LOAD(m, p, k, v, t)                          \
    do {                                                        \
        if (NULL != (m)) {                                      \
            memset((m), 0, sizeof(pmix_pdata_t));               \
            PMIX_LOAD_NSPACE((m)->proc.nspace, (p)->nspace);    \
            (m)->proc.rank = (p)->rank;                         \
            PMIX_LOAD_KEY((m)->key, k);                         \
            PMIx_Value_load(&((m)->value), (v), (t));           \
        }                                                       \
    } while (0)

#define PMIX_PDATA_XFER(d, s)                                       \
    do {                                                            \
        if (NULL != (d)) {                                          \
            memset((d), 0, sizeof(pmix_pdata_t));                   \
            PMIX_LOAD_NSPACE((d)->proc.nspace, (s)->proc.nspace);   \
            (d)->proc.rank = (s)->proc.rank;                        \
            PMIX_LOAD_KEY((d)->key, (s)->key);                      \
            PMIx_Value_xfer(&((d)->value), &((s)->value));          \
        }                                                           \
    } while (0)

#define PMIX_INFO_LIST_START(p)    \
    (p) = PMIx_Info_list_start()

#define PMIX_INFO_LIST_ADD(r, p, a, v, t)     \
    (r) = PMIx_Info_list_add((p), (a), (v), (t))

#define PMIX_INFO_LIST_INSERT(r, p, i)     \
    (r) = PMIx_Info_list_insert((p), (i))

#define PMIX_INFO_LIST_XFER(r, p, a)     \
    (r) = PMIx_Info_list_xfer((p), (a))

#define PMIX_INFO_LIST_CONVERT(r, p, m)     \
    (r) = PMIx_Info_list_convert((p), (m))

#define PMIX_INFO_LIST_RELEASE(p) \
    PMIx_Info_list_release((p))

/* PMIx_Topology_destruct is declared in pmix.h */
#define PMIX_TOPOLOGY_DESTRUCT(x) \
    PMIx_Topology_destruct(x)

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_DEPRECATED_H */
#endif /* PMIx_COMMON_H */
