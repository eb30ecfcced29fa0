/*
 * pmix_attributes.h - every attribute key string of the PMIx API.
 *
 * Part of pmix_cpp, a from-scratch PMIx implementation that is ABI compatible
 * with OpenPMIx 4.2.2 (libpmix.so.2). Included by pmix_common.h; it has no
 * dependencies of its own and contains nothing but macros and comments, so it
 * is valid C (C99 and later) and C++.
 *
 * Key strings are ABI: they travel on the wire and live in peers' data
 * stores, so each macro below carries exactly the string OpenPMIx 4.2.2
 * uses. Where the PMIx Standard spells a key differently, the OpenPMIx
 * string is used and a trailing remark says so ("Std: ...").
 *
 * Layout contract (a build step turns this file into the attribute
 * dictionary behind PMIx_Get_attribute_string/_name and the printers):
 *   - one attribute per line: "#define", the macro name, the quoted key
 *     string, then a block comment whose text starts with "type:" followed
 *     by the type of the value that goes with the key.
 *   - the type is spelled as the C type a pmix_value_t holds (bool, char*,
 *     uint32_t, pmix_rank_t, pmix_proc_t*, pmix_data_array_t*, ...).
 *     "varies" means more than one type is accepted; "void*" means an
 *     opaque pointer.
 *   - an optional second block comment after the type is a free-form
 *     remark; "OpenPMIx-only" marks keys the Standard does not define.
 *   - every string macro in this file is an attribute key. Environment
 *     variable names (PMIX_LAUNCHER_RNDZ_URI, PMIX_LAUNCHER_RNDZ_FILE,
 *     PMIX_KEEPALIVE_PIPE) live in pmix_common.h; deprecated keys live in
 *     pmix_deprecated.h.
 *
 * A few keys share their string with another key, exactly as in OpenPMIx
 * 4.2.2; each is flagged where it occurs. A lookup by string can therefore
 * name only one member of such a pair.
 */

#ifndef PMIX_ATTRIBUTES_H
#define PMIX_ATTRIBUTES_H


/* ==========================================================================
 * Placeholder key
 * Standard: Introduction (attribute conventions)
 * ========================================================================= */
/* A key that stands for 'no attribute at all'. */
#define PMIX_ATTR_UNDEF                       "pmix.undef"            /* type: void* */ /* no value */

/* ==========================================================================
 * Server initialization
 * Standard chapter: Server-Specific Interfaces -- Server Initialization Attributes
 * ========================================================================= */
/* Passed to PMIx_server_init() by the host environment (and a few also
   understood by PMIx_tool_init() when a tool acts as a server). */
#define PMIX_EXTERNAL_PROGRESS                "pmix.evext"            /* type: bool */
#define PMIX_SERVER_TOOL_SUPPORT              "pmix.srvr.tool"        /* type: bool */
#define PMIX_SERVER_REMOTE_CONNECTIONS        "pmix.srvr.remote"      /* type: bool */
#define PMIX_SERVER_SYSTEM_SUPPORT            "pmix.srvr.sys"         /* type: bool */
#define PMIX_SERVER_SESSION_SUPPORT           "pmix.srvr.sess"        /* type: bool */
#define PMIX_SERVER_TMPDIR                    "pmix.srvr.tmpdir"      /* type: char* */
#define PMIX_SYSTEM_TMPDIR                    "pmix.sys.tmpdir"       /* type: char* */
#define PMIX_SERVER_SHARE_TOPOLOGY            "pmix.srvr.share"       /* type: bool */
#define PMIX_SERVER_ENABLE_MONITORING         "pmix.srv.monitor"      /* type: bool */
#define PMIX_SERVER_NSPACE                    "pmix.srv.nspace"       /* type: char* */
#define PMIX_SERVER_RANK                      "pmix.srv.rank"         /* type: pmix_rank_t */
#define PMIX_SERVER_GATEWAY                   "pmix.srv.gway"         /* type: bool */
#define PMIX_SERVER_SCHEDULER                 "pmix.srv.sched"        /* type: bool */
#define PMIX_SERVER_START_TIME                "pmix.srv.strtime"      /* type: char* */ /* Std: "pmix.srvr.strtime" */
#define PMIX_HOMOGENEOUS_SYSTEM               "pmix.homo"             /* type: bool */
#define PMIX_SINGLETON                        "pmix.singleton"        /* type: char* */
#define PMIX_TOPOLOGY2                        "pmix.topo2"            /* type: pmix_topology_t* */
#define PMIX_BIND_PROGRESS_THREAD             "pmix.bind.pt"          /* type: char* */ /* OpenPMIx-only */
#define PMIX_BIND_REQUIRED                    "pmix.bind.reqd"        /* type: bool */ /* OpenPMIx-only */

/* ==========================================================================
 * Client initialization and finalization
 * Standard chapter: Client Initialization and Finalization -- Initialization attributes
 * ========================================================================= */
/* Given to PMIx_Init() by a programming-model library to describe itself. */
#define PMIX_PROGRAMMING_MODEL                "pmix.pgm.model"        /* type: char* */
#define PMIX_MODEL_LIBRARY_NAME               "pmix.mdl.name"         /* type: char* */
#define PMIX_MODEL_LIBRARY_VERSION            "pmix.mld.vrs"          /* type: char* */
#define PMIX_THREADING_MODEL                  "pmix.threads"          /* type: char* */
#define PMIX_MODEL_NUM_THREADS                "pmix.mdl.nthrds"       /* type: uint64_t */
#define PMIX_MODEL_NUM_CPUS                   "pmix.mdl.ncpu"         /* type: uint64_t */
#define PMIX_MODEL_CPU_TYPE                   "pmix.mdl.cputype"      /* type: char* */
#define PMIX_MODEL_PHASE_NAME                 "pmix.mdl.phase"        /* type: char* */
#define PMIX_MODEL_PHASE_TYPE                 "pmix.mdl.ptype"        /* type: char* */
#define PMIX_MODEL_AFFINITY_POLICY            "pmix.mdl.tap"          /* type: char* */

/* --- TCP transport settings (client, server and tool init) --- */
#define PMIX_TCP_REPORT_URI                   "pmix.tcp.repuri"       /* type: char* */
#define PMIX_TCP_URI                          "pmix.tcp.uri"          /* type: char* */
#define PMIX_TCP_IF_INCLUDE                   "pmix.tcp.ifinclude"    /* type: char* */
#define PMIX_TCP_IF_EXCLUDE                   "pmix.tcp.ifexclude"    /* type: char* */
#define PMIX_TCP_IPV4_PORT                    "pmix.tcp.ipv4"         /* type: int */
#define PMIX_TCP_IPV6_PORT                    "pmix.tcp.ipv6"         /* type: int */
#define PMIX_TCP_DISABLE_IPV4                 "pmix.tcp.disipv4"      /* type: bool */
#define PMIX_TCP_DISABLE_IPV6                 "pmix.tcp.disipv6"      /* type: bool */

/* --- Finalize --- */
/* (Standard: Client Initialization and Finalization -- Finalize attributes) */
#define PMIX_EMBED_BARRIER                    "pmix.embed.barrier"    /* type: bool */

/* ==========================================================================
 * Tool initialization and connection
 * Standard chapter: Tools and Debuggers -- Connection Mechanisms
 * ========================================================================= */
/* Given to PMIx_tool_init() / PMIx_tool_attach_to_server() to pick the
   server to talk to and how to reach it. */
#define PMIX_TOOL_NSPACE                      "pmix.tool.nspace"      /* type: char* */
#define PMIX_TOOL_RANK                        "pmix.tool.rank"        /* type: uint32_t */
#define PMIX_LAUNCHER                         "pmix.tool.launcher"    /* type: bool */
#define PMIX_SERVER_PIDINFO                   "pmix.srvr.pidinfo"     /* type: pid_t */
#define PMIX_CONNECT_TO_SYSTEM                "pmix.cnct.sys"         /* type: bool */
#define PMIX_CONNECT_SYSTEM_FIRST             "pmix.cnct.sys.first"   /* type: bool */
#define PMIX_SERVER_URI                       "pmix.srvr.uri"         /* type: char* */
#define PMIX_MYSERVER_URI                     "pmix.mysrvr.uri"       /* type: char* */ /* OpenPMIx-only */
#define PMIX_SERVER_HOSTNAME                  "pmix.srvr.host"        /* type: char* */
#define PMIX_CONNECT_MAX_RETRIES              "pmix.tool.mretries"    /* type: uint32_t */
#define PMIX_CONNECT_RETRY_DELAY              "pmix.tool.retry"       /* type: uint32_t */
#define PMIX_TOOL_DO_NOT_CONNECT              "pmix.tool.nocon"       /* type: bool */
#define PMIX_TOOL_CONNECT_OPTIONAL            "pmix.tool.conopt"      /* type: bool */
#define PMIX_LAUNCHER_RENDEZVOUS_FILE         "pmix.tool.lncrnd"      /* type: char* */
#define PMIX_TOOL_ATTACHMENT_FILE             "pmix.tool.attach"      /* type: char* */
#define PMIX_PRIMARY_SERVER                   "pmix.pri.srvr"         /* type: bool */
#define PMIX_WAIT_FOR_CONNECTION              "pmix.wait.conn"        /* type: bool */

/* --- Identity of a connecting/requesting process (passed to host callbacks) --- */
/* (Standard: Server-Specific Interfaces -- Server Function Pointers) */
#define PMIX_USERID                           "pmix.euid"             /* type: uint32_t */
#define PMIX_GRPID                            "pmix.egid"             /* type: uint32_t */
#define PMIX_VERSION_INFO                     "pmix.version"          /* type: char* */
#define PMIX_REQUESTOR_IS_TOOL                "pmix.req.tool"         /* type: bool */
#define PMIX_REQUESTOR_IS_CLIENT              "pmix.req.client"       /* type: bool */

/* ==========================================================================
 * Launching applications with tools
 * Standard chapter: Tools and Debuggers -- Tool spawn-related attributes
 * ========================================================================= */
/* Spawn directives a tool hands to its launcher. */
#define PMIX_NOHUP                            "pmix.nohup"            /* type: bool */
#define PMIX_LAUNCHER_DAEMON                  "pmix.lnch.dmn"         /* type: char* */
#define PMIX_EXEC_AGENT                       "pmix.exec.agnt"        /* type: char* */
#define PMIX_FORKEXEC_AGENT                   "pmix.fe.agnt"          /* type: char* */ /* Std: "pmix.frkex.agnt" */
#define PMIX_LAUNCH_DIRECTIVES                "pmix.lnch.dirs"        /* type: pmix_data_array_t* */
#define PMIX_FWD_STDIN                        "pmix.fwd.stdin"        /* type: bool */ /* Std type pmix_rank_t */
#define PMIX_FWD_STDOUT                       "pmix.fwd.stdout"       /* type: bool */
#define PMIX_FWD_STDERR                       "pmix.fwd.stderr"       /* type: bool */
#define PMIX_FWD_STDDIAG                      "pmix.fwd.stddiag"      /* type: bool */

/* ==========================================================================
 * Debugger support
 * Standard chapter: Tools and Debuggers -- Debugger attributes
 * ========================================================================= */
#define PMIX_DEBUG_STOP_ON_EXEC               "pmix.dbg.exec"         /* type: varies */ /* bool, pmix_rank_t or proc array */
#define PMIX_DEBUG_STOP_IN_INIT               "pmix.dbg.init"         /* type: varies */ /* bool, pmix_rank_t or proc array */
#define PMIX_DEBUG_STOP_IN_APP                "pmix.dbg.notify"       /* type: varies */ /* bool, pmix_rank_t or proc array */
#define PMIX_BREAKPOINT                       "pmix.brkpnt"           /* type: char* */
#define PMIX_DEBUG_TARGET                     "pmix.dbg.tgt"          /* type: pmix_proc_t* */
#define PMIX_DEBUG_DAEMONS_PER_PROC           "pmix.dbg.dpproc"       /* type: uint16_t */
#define PMIX_DEBUG_DAEMONS_PER_NODE           "pmix.dbg.dpnd"         /* type: uint16_t */
#define PMIX_DEBUGGER_DAEMONS                 "pmix.debugger"         /* type: bool */
#define PMIX_COSPAWN_APP                      "pmix.cospawn"          /* type: bool */
#define PMIX_QUERY_PROC_TABLE                 "pmix.qry.ptable"       /* type: pmix_data_array_t* */
#define PMIX_QUERY_LOCAL_PROC_TABLE           "pmix.qry.lptable"      /* type: pmix_data_array_t* */

/* --- Job life-cycle tracking --- */
/* (Standard: Tools and Debuggers -- Tracking the job lifecycle) */
#define PMIX_JOB_TERM_STATUS                  "pmix.job.term.status"  /* type: pmix_status_t */
#define PMIX_PROC_TERM_STATUS                 "pmix.proc.term.status" /* type: pmix_status_t */
#define PMIX_PROC_STATE_STATUS                "pmix.proc.state"       /* type: pmix_proc_state_t */

/* ==========================================================================
 * IO forwarding (IOF)
 * Standard chapter: Tools and Debuggers -- IO Forwarding attributes
 * ========================================================================= */
/* Used with PMIx_IOF_pull/push/deregister and as spawn directives that shape
   how output is delivered. */
#define PMIX_IOF_CACHE_SIZE                   "pmix.iof.csize"        /* type: uint32_t */
#define PMIX_IOF_DROP_OLDEST                  "pmix.iof.old"          /* type: bool */
#define PMIX_IOF_DROP_NEWEST                  "pmix.iof.new"          /* type: bool */
#define PMIX_IOF_BUFFERING_SIZE               "pmix.iof.bsize"        /* type: uint32_t */
#define PMIX_IOF_BUFFERING_TIME               "pmix.iof.btime"        /* type: uint32_t */
#define PMIX_IOF_COMPLETE                     "pmix.iof.cmp"          /* type: bool */
#define PMIX_IOF_PUSH_STDIN                   "pmix.iof.stdin"        /* type: bool */
#define PMIX_IOF_TAG_OUTPUT                   "pmix.iof.tag"          /* type: bool */
#define PMIX_IOF_TAG_DETAILED_OUTPUT          "pmix.iof.tagdet"       /* type: bool */ /* OpenPMIx-only */
#define PMIX_IOF_TAG_FULLNAME_OUTPUT          "pmix.iof.tagfull"      /* type: bool */ /* OpenPMIx-only */
#define PMIX_IOF_RANK_OUTPUT                  "pmix.iof.rank"         /* type: bool */
#define PMIX_IOF_TIMESTAMP_OUTPUT             "pmix.iof.ts"           /* type: bool */
#define PMIX_IOF_MERGE_STDERR_STDOUT          "pmix.iof.mrg"          /* type: bool */
#define PMIX_IOF_XML_OUTPUT                   "pmix.iof.xml"          /* type: bool */
#define PMIX_IOF_OUTPUT_TO_FILE               "pmix.iof.file"         /* type: char* */
#define PMIX_IOF_FILE_PATTERN                 "pmix.iof.fpt"          /* type: bool */
#define PMIX_IOF_OUTPUT_TO_DIRECTORY          "pmix.iof.dir"          /* type: char* */
#define PMIX_IOF_FILE_ONLY                    "pmix.iof.fonly"        /* type: bool */
#define PMIX_IOF_COPY                         "pmix.iof.cpy"          /* type: bool */
#define PMIX_IOF_REDIRECT                     "pmix.iof.redir"        /* type: bool */
#define PMIX_IOF_LOCAL_OUTPUT                 "pmix.iof.local"        /* type: bool */
#define PMIX_IOF_OUTPUT_RAW                   "pmix.iof.raw"          /* type: bool */

/* ==========================================================================
 * Session information (reserved keys)
 * Standard chapter: Reserved Keys -- Session realm attributes
 * ========================================================================= */
/* Reserved keys: values supplied by the host environment, read with PMIx_Get. */
#define PMIX_SESSION_ID                       "pmix.session.id"       /* type: uint32_t */
#define PMIX_CLUSTER_ID                       "pmix.clid"             /* type: char* */
#define PMIX_RM_NAME                          "pmix.rm.name"          /* type: char* */
#define PMIX_RM_VERSION                       "pmix.rm.version"       /* type: char* */
#define PMIX_TMPDIR                           "pmix.tmpdir"           /* type: char* */
#define PMIX_TDIR_RMCLEAN                     "pmix.tdir.rmclean"     /* type: bool */
#define PMIX_HOSTNAME_KEEP_FQDN               "pmix.fqdn"             /* type: bool */
#define PMIX_UNIV_SIZE                        "pmix.univ.size"        /* type: uint32_t */
#define PMIX_MAX_PROCS                        "pmix.max.size"         /* type: uint32_t */
#define PMIX_NUM_SLOTS                        "pmix.num.slots"        /* type: uint32_t */
#define PMIX_NUM_NODES                        "pmix.num.nodes"        /* type: uint32_t */
#define PMIX_NUM_ALLOCATED_NODES              "pmix.num.anodes"       /* type: uint32_t */
#define PMIX_NODE_LIST                        "pmix.nlist"            /* type: char* */
#define PMIX_ALLOCATED_NODELIST               "pmix.alist"            /* type: char* */

/* --- Node and process maps handed from the host to the server library --- */
/* (Standard: Reserved Keys -- Session realm attributes) */
#define PMIX_NODE_MAP                         "pmix.nmap"             /* type: char* */
#define PMIX_NODE_MAP_RAW                     "pmix.nmap.raw"         /* type: char* */
#define PMIX_PROC_MAP                         "pmix.pmap"             /* type: char* */
#define PMIX_PROC_MAP_RAW                     "pmix.pmap.raw"         /* type: char* */
#define PMIX_ANL_MAP                          "pmix.anlmap"           /* type: char* */

/* ==========================================================================
 * Job information (reserved keys)
 * Standard chapter: Reserved Keys -- Job realm attributes
 * ========================================================================= */
#define PMIX_JOBID                            "pmix.jobid"            /* type: char* */
#define PMIX_JOB_SIZE                         "pmix.job.size"         /* type: uint32_t */
#define PMIX_JOB_NUM_APPS                     "pmix.job.napps"        /* type: uint32_t */
#define PMIX_LOCAL_SIZE                       "pmix.local.size"       /* type: uint32_t */
#define PMIX_NPROC_OFFSET                     "pmix.offset"           /* type: pmix_rank_t */
#define PMIX_LOCALLDR                         "pmix.lldr"             /* type: pmix_rank_t */
#define PMIX_LOCAL_PEERS                      "pmix.lpeers"           /* type: char* */
#define PMIX_LOCAL_CPUSETS                    "pmix.lcpus"            /* type: char* */ /* Std type pmix_data_array_t* */
#define PMIX_NSDIR                            "pmix.nsdir"            /* type: char* */
#define PMIX_CMD_LINE                         "pmix.cmd.line"         /* type: char* */

/* ==========================================================================
 * Application information (reserved keys)
 * Standard chapter: Reserved Keys -- Application realm attributes
 * ========================================================================= */
#define PMIX_APP_SIZE                         "pmix.app.size"         /* type: uint32_t */
#define PMIX_APPLDR                           "pmix.aldr"             /* type: pmix_rank_t */
#define PMIX_APP_ARGV                         "pmix.app.argv"         /* type: char* */
#define PMIX_APP_MAP_TYPE                     "pmix.apmap.type"       /* type: char* */
#define PMIX_APP_MAP_REGEX                    "pmix.apmap.regex"      /* type: char* */

/* ==========================================================================
 * Process information (reserved keys)
 * Standard chapter: Reserved Keys -- Process realm attributes
 * ========================================================================= */
#define PMIX_PROCID                           "pmix.procid"           /* type: pmix_proc_t* */
#define PMIX_NSPACE                           "pmix.nspace"           /* type: char* */
#define PMIX_RANK                             "pmix.rank"             /* type: pmix_rank_t */
#define PMIX_APPNUM                           "pmix.appnum"           /* type: uint32_t */
#define PMIX_GLOBAL_RANK                      "pmix.grank"            /* type: pmix_rank_t */
#define PMIX_APP_RANK                         "pmix.apprank"          /* type: pmix_rank_t */
#define PMIX_LOCAL_RANK                       "pmix.lrank"            /* type: uint16_t */
#define PMIX_NODE_RANK                        "pmix.nrank"            /* type: uint16_t */
#define PMIX_PACKAGE_RANK                     "pmix.pkgrank"          /* type: uint16_t */
#define PMIX_PROC_PID                         "pmix.ppid"             /* type: pid_t */
#define PMIX_PARENT_ID                        "pmix.parent"           /* type: pmix_proc_t* */
#define PMIX_SPAWNED                          "pmix.spawned"          /* type: bool */
#define PMIX_EXIT_CODE                        "pmix.exit.code"        /* type: int */
#define PMIX_REINCARNATION                    "pmix.reinc"            /* type: uint32_t */
#define PMIX_CPUSET                           "pmix.cpuset"           /* type: char* */
#define PMIX_CPUSET_BITMAP                    "pmix.bitmap"           /* type: pmix_cpuset_t* */
#define PMIX_CREDENTIAL                       "pmix.cred"             /* type: char* */
#define PMIX_PROCDIR                          "pmix.pdir"             /* type: char* */

/* ==========================================================================
 * Node information (reserved keys)
 * Standard chapter: Reserved Keys -- Node realm keys
 * ========================================================================= */
#define PMIX_HOSTNAME                         "pmix.hname"            /* type: char* */
#define PMIX_HOSTNAME_ALIASES                 "pmix.alias"            /* type: char* */
#define PMIX_NODEID                           "pmix.nodeid"           /* type: uint32_t */
#define PMIX_NODE_SIZE                        "pmix.node.size"        /* type: uint32_t */
#define PMIX_LOCAL_PROCS                      "pmix.lprocs"           /* type: pmix_data_array_t* */
#define PMIX_NODE_OVERSUBSCRIBED              "pmix.ndosub"           /* type: bool */
#define PMIX_AVAIL_PHYS_MEMORY                "pmix.pmem"             /* type: uint64_t */

/* ==========================================================================
 * Realm selectors for PMIx_Get
 * Standard chapter: Reserved Keys -- Data realms
 * ========================================================================= */
/* Qualifiers telling PMIx_Get which realm a reserved key is asked about. */
#define PMIX_SESSION_INFO                     "pmix.ssn.info"         /* type: bool */
#define PMIX_JOB_INFO                         "pmix.job.info"         /* type: bool */
#define PMIX_APP_INFO                         "pmix.app.info"         /* type: bool */
#define PMIX_NODE_INFO                        "pmix.node.info"        /* type: bool */

/* ==========================================================================
 * Data retrieval (PMIx_Get)
 * Standard chapter: Data Access and Sharing -- Retrieval attributes
 * ========================================================================= */
/* Directives modifying how PMIx_Get / PMIx_Get_nb search for a value. */
#define PMIX_TIMEOUT                          "pmix.timeout"          /* type: int */
#define PMIX_IMMEDIATE                        "pmix.immediate"        /* type: bool */
#define PMIX_WAIT                             "pmix.wait"             /* type: int */
#define PMIX_DATA_SCOPE                       "pmix.scope"            /* type: pmix_scope_t */
#define PMIX_OPTIONAL                         "pmix.optional"         /* type: bool */
#define PMIX_GET_STATIC_VALUES                "pmix.get.static"       /* type: bool */
#define PMIX_GET_POINTER_VALUES               "pmix.get.pntrs"        /* type: bool */
#define PMIX_GET_REFRESH_CACHE                "pmix.get.refresh"      /* type: bool */
#define PMIX_QUALIFIED_VALUE                  "pmix.qual.val"         /* type: pmix_data_array_t* */ /* OpenPMIx-only */

/* ==========================================================================
 * Fence / modex
 * Standard chapter: Synchronization -- Fence-related attributes
 * ========================================================================= */
#define PMIX_COLLECT_DATA                     "pmix.collect"          /* type: bool */
#define PMIX_ALL_CLONES_PARTICIPATE           "pmix.clone.part"       /* type: bool */
#define PMIX_COLLECT_GENERATED_JOB_INFO       "pmix.collect.gen"      /* type: bool */
#define PMIX_LOCAL_COLLECTIVE_STATUS          "pmix.loc.col.st"       /* type: pmix_status_t */

/* ==========================================================================
 * Publish / lookup
 * Standard chapter: Publish/Lookup Operations -- Publish-specific attributes
 * ========================================================================= */
#define PMIX_RANGE                            "pmix.range"            /* type: pmix_data_range_t */
#define PMIX_PERSISTENCE                      "pmix.persist"          /* type: pmix_persistence_t */
#define PMIX_ACCESS_PERMISSIONS               "pmix.aperms"           /* type: pmix_data_array_t* */
#define PMIX_ACCESS_USERIDS                   "pmix.auids"            /* type: pmix_data_array_t* */
#define PMIX_ACCESS_GRPIDS                    "pmix.agids"            /* type: pmix_data_array_t* */

/* ==========================================================================
 * Events
 * Standard chapter: Event Notification -- Event handler registration and notification attributes
 * ========================================================================= */
/* Event-handler registration and PMIx_Notify_event information. */
#define PMIX_EVENT_HDLR_NAME                  "pmix.evname"           /* type: char* */
#define PMIX_EVENT_HDLR_FIRST                 "pmix.evfirst"          /* type: bool */
#define PMIX_EVENT_HDLR_LAST                  "pmix.evlast"           /* type: bool */
#define PMIX_EVENT_HDLR_FIRST_IN_CATEGORY     "pmix.evfirstcat"       /* type: bool */
#define PMIX_EVENT_HDLR_LAST_IN_CATEGORY      "pmix.evlastcat"        /* type: bool */
#define PMIX_EVENT_HDLR_BEFORE                "pmix.evbefore"         /* type: char* */
#define PMIX_EVENT_HDLR_AFTER                 "pmix.evafter"          /* type: char* */
#define PMIX_EVENT_HDLR_PREPEND               "pmix.evprepend"        /* type: bool */
#define PMIX_EVENT_HDLR_APPEND                "pmix.evappend"         /* type: bool */
#define PMIX_EVENT_CUSTOM_RANGE               "pmix.evrange"          /* type: pmix_data_array_t* */
#define PMIX_EVENT_AFFECTED_PROC              "pmix.evproc"           /* type: pmix_proc_t* */
#define PMIX_EVENT_AFFECTED_PROCS             "pmix.evaffected"       /* type: pmix_data_array_t* */
#define PMIX_EVENT_NON_DEFAULT                "pmix.evnondef"         /* type: bool */
#define PMIX_EVENT_RETURN_OBJECT              "pmix.evobject"         /* type: void* */ /* returned to the registrant */
#define PMIX_EVENT_DO_NOT_CACHE               "pmix.evnocache"        /* type: bool */
#define PMIX_EVENT_PROXY                      "pmix.evproxy"          /* type: pmix_proc_t* */
#define PMIX_EVENT_TEXT_MESSAGE               "pmix.evtext"           /* type: char* */
#define PMIX_EVENT_TIMESTAMP                  "pmix.evtstamp"         /* type: time_t */
#define PMIX_EVENT_ONESHOT                    "pmix.evone"            /* type: bool */ /* OpenPMIx-only */

/* --- Fault-response hints carried with an event --- */
#define PMIX_EVENT_TERMINATE_SESSION          "pmix.evterm.sess"      /* type: bool */
#define PMIX_EVENT_TERMINATE_JOB              "pmix.evterm.job"       /* type: bool */
#define PMIX_EVENT_TERMINATE_NODE             "pmix.evterm.node"      /* type: bool */
#define PMIX_EVENT_TERMINATE_PROC             "pmix.evterm.proc"      /* type: bool */
#define PMIX_EVENT_ACTION_TIMEOUT             "pmix.evtimeout"        /* type: int */

/* ==========================================================================
 * Spawn
 * Standard chapter: Process Management -- Spawn attributes
 * ========================================================================= */
/* Directives for PMIx_Spawn (job-level info array or per-app info array). */
#define PMIX_PERSONALITY                      "pmix.pers"             /* type: char* */
#define PMIX_HOST                             "pmix.host"             /* type: char* */
#define PMIX_HOSTFILE                         "pmix.hostfile"         /* type: char* */
#define PMIX_ADD_HOST                         "pmix.addhost"          /* type: char* */
#define PMIX_ADD_HOSTFILE                     "pmix.addhostfile"      /* type: char* */
#define PMIX_PREFIX                           "pmix.prefix"           /* type: char* */
#define PMIX_WDIR                             "pmix.wdir"             /* type: char* */
#define PMIX_WDIR_USER_SPECIFIED              "pmix.wdir.user"        /* type: bool */ /* OpenPMIx-only */
#define PMIX_SET_SESSION_CWD                  "pmix.ssncwd"           /* type: bool */
#define PMIX_PRELOAD_BIN                      "pmix.preloadbin"       /* type: bool */
#define PMIX_PRELOAD_FILES                    "pmix.preloadfiles"     /* type: char* */
#define PMIX_STDIN_TGT                        "pmix.stdin"            /* type: pmix_proc_t* */ /* Std type uint32_t */
#define PMIX_INDEX_ARGV                       "pmix.indxargv"         /* type: bool */
#define PMIX_SPAWN_TOOL                       "pmix.spwn.tool"        /* type: bool */
#define PMIX_ENVARS_HARVESTED                 "pmix.evar.hvstd"       /* type: bool */
#define PMIX_RUNTIME_OPTIONS                  "pmix.runopt"           /* type: char* */ /* OpenPMIx-only */

/* --- Placement: mapping, ranking, binding --- */
#define PMIX_PPR                              "pmix.ppr"              /* type: char* */
#define PMIX_MAPBY                            "pmix.mapby"            /* type: char* */
#define PMIX_RANKBY                           "pmix.rankby"           /* type: char* */
#define PMIX_BINDTO                           "pmix.bindto"           /* type: char* */
#define PMIX_CPUS_PER_PROC                    "pmix.cpuperproc"       /* type: uint32_t */
#define PMIX_CPU_LIST                         "pmix.cpulist"          /* type: char* */
#define PMIX_NO_PROCS_ON_HEAD                 "pmix.nolocal"          /* type: bool */
#define PMIX_NO_OVERSUBSCRIBE                 "pmix.noover"           /* type: bool */
#define PMIX_REPORT_BINDINGS                  "pmix.repbind"          /* type: bool */
#define PMIX_COLOCATE_PROCS                   "pmix.colproc"          /* type: pmix_data_array_t* */ /* OpenPMIx-only */
#define PMIX_COLOCATE_NPERPROC                "pmix.colnum.proc"      /* type: uint16_t */ /* OpenPMIx-only */
#define PMIX_COLOCATE_NPERNODE                "pmix.colnum.node"      /* type: uint16_t */ /* OpenPMIx-only */

/* --- Launch reporting and dry runs --- */
#define PMIX_DISPLAY_MAP                      "pmix.dispmap"          /* type: bool */
#define PMIX_DISPLAY_MAP_DETAILED             "pmix.dispmapdet"       /* type: bool */ /* OpenPMIx-only */
#define PMIX_DISPLAY_ALLOCATION               "pmix.dispalloc"        /* type: bool */ /* OpenPMIx-only */
#define PMIX_DISPLAY_TOPOLOGY                 "pmix.disptopo"         /* type: char* */ /* OpenPMIx-only */
#define PMIX_DO_NOT_LAUNCH                    "pmix.dnl"              /* type: bool */ /* OpenPMIx-only */
#define PMIX_SHOW_LAUNCH_PROGRESS             "pmix.showprog"         /* type: bool */ /* OpenPMIx-only */
#define PMIX_AGGREGATE_HELP                   "pmix.agg.help"         /* type: bool */ /* OpenPMIx-only */

/* --- Fault tolerance and timeouts --- */
#define PMIX_JOB_RECOVERABLE                  "pmix.recover"          /* type: bool */
#define PMIX_JOB_CONTINUOUS                   "pmix.continuous"       /* type: bool */
#define PMIX_MAX_RESTARTS                     "pmix.maxrestarts"      /* type: uint32_t */
#define PMIX_JOB_TIMEOUT                      "pmix.job.time"         /* type: int */
#define PMIX_SPAWN_TIMEOUT                    "pmix.sp.time"          /* type: int */
#define PMIX_TIMEOUT_STACKTRACES              "pmix.tim.stack"        /* type: bool */
#define PMIX_TIMEOUT_REPORT_STATE             "pmix.tim.state"        /* type: bool */
#define PMIX_ABORT_NON_ZERO_TERM              "pmix.abnz"             /* type: bool */ /* OpenPMIx-only */
#define PMIX_REPORT_CHILD_SEP                 "pmix.rptchildsep"      /* type: bool */ /* OpenPMIx-only */

/* --- Job life-cycle notification and logging requests --- */
#define PMIX_NOTIFY_COMPLETION                "pmix.notecomp"         /* type: bool */
#define PMIX_EVENT_SILENT_TERMINATION         "pmix.evsilentterm"     /* type: bool */
#define PMIX_NOTIFY_JOB_EVENTS                "pmix.note.jev"         /* type: bool */
#define PMIX_NOTIFY_PROC_TERMINATION          "pmix.noteproc"         /* type: bool */
#define PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION "pmix.noteabproc"       /* type: bool */
#define PMIX_LOG_PROC_TERMINATION             "pmix.logproc"          /* type: bool */
#define PMIX_LOG_PROC_ABNORMAL_TERMINATION    "pmix.logabproc"        /* type: bool */
#define PMIX_LOG_JOB_EVENTS                   "pmix.log.jev"          /* type: bool */
#define PMIX_LOG_COMPLETION                   "pmix.logcomp"          /* type: bool */

/* --- Environment variable operations --- */
#define PMIX_SET_ENVAR                        "pmix.envar.set"        /* type: pmix_envar_t* */
#define PMIX_ADD_ENVAR                        "pmix.envar.add"        /* type: pmix_envar_t* */
#define PMIX_UNSET_ENVAR                      "pmix.envar.unset"      /* type: char* */
#define PMIX_PREPEND_ENVAR                    "pmix.envar.prepnd"     /* type: pmix_envar_t* */
#define PMIX_APPEND_ENVAR                     "pmix.envar.appnd"      /* type: pmix_envar_t* */
#define PMIX_FIRST_ENVAR                      "pmix.envar.first"      /* type: pmix_envar_t* */

/* ==========================================================================
 * Process locality and device distances
 * Standard chapter: Process Management -- Process Locality / Device distance attributes
 * ========================================================================= */
#define PMIX_LOCALITY_STRING                  "pmix.locstr"           /* type: char* */
#define PMIX_DEVICE_DISTANCES                 "pmix.dev.dist"         /* type: pmix_data_array_t* */
#define PMIX_DEVICE_TYPE                      "pmix.dev.type"         /* type: pmix_device_type_t */
#define PMIX_DEVICE_ID                        "pmix.dev.id"           /* type: char* */

/* ==========================================================================
 * Process sets
 * Standard chapter: Process Sets and Groups -- Process Set Attributes
 * ========================================================================= */
#define PMIX_PSET_NAME                        "pmix.pset.nm"          /* type: char* */
#define PMIX_PSET_NAMES                       "pmix.pset.nms"         /* type: pmix_data_array_t* */
#define PMIX_PSET_MEMBERS                     "pmix.pset.mems"        /* type: pmix_data_array_t* */
#define PMIX_QUERY_NUM_PSETS                  "pmix.qry.psetnum"      /* type: size_t */
#define PMIX_QUERY_PSET_NAMES                 "pmix.qry.psets"        /* type: char* */ /* Std type pmix_data_array_t* */
#define PMIX_QUERY_PSET_MEMBERSHIP            "pmix.qry.pmems"        /* type: pmix_data_array_t* */

/* ==========================================================================
 * Groups
 * Standard chapter: Process Sets and Groups -- Process Group Attributes
 * ========================================================================= */
#define PMIX_GROUP_ID                         "pmix.grp.id"           /* type: char* */
#define PMIX_GROUP_LEADER                     "pmix.grp.ldr"          /* type: bool */
#define PMIX_GROUP_OPTIONAL                   "pmix.grp.opt"          /* type: bool */
#define PMIX_GROUP_NOTIFY_TERMINATION         "pmix.grp.notterm"      /* type: bool */
#define PMIX_GROUP_FT_COLLECTIVE              "pmix.grp.ftcoll"       /* type: bool */
#define PMIX_GROUP_MEMBERSHIP                 "pmix.grp.mbrs"         /* type: pmix_data_array_t* */
#define PMIX_GROUP_ASSIGN_CONTEXT_ID          "pmix.grp.actxid"       /* type: bool */ /* id returned as size_t */
#define PMIX_GROUP_CONTEXT_ID                 "pmix.grp.ctxid"        /* type: size_t */
#define PMIX_GROUP_LOCAL_ONLY                 "pmix.grp.lcl"          /* type: bool */
#define PMIX_GROUP_ENDPT_DATA                 "pmix.grp.endpt"        /* type: pmix_byte_object_t */
#define PMIX_GROUP_NAMES                      "pmix.pgrp.nm"          /* type: pmix_data_array_t* */
#define PMIX_GROUP_INFO                       "pmix.grp.info"         /* type: pmix_data_array_t* */ /* OpenPMIx-only */
#define PMIX_GROUP_LOCAL_CID                  "pmix.grp.lclid"        /* type: size_t */
#define PMIX_GROUP_ADD_MEMBERS                "pmix.grp.add"          /* type: pmix_data_array_t* */
#define PMIX_QUERY_NUM_GROUPS                 "pmix.qry.pgrpnum"      /* type: size_t */
#define PMIX_QUERY_GROUP_NAMES                "pmix.qry.pgrp"         /* type: pmix_data_array_t* */
#define PMIX_QUERY_GROUP_MEMBERSHIP           "pmix.qry.pgrpmems"     /* type: pmix_data_array_t* */

/* ==========================================================================
 * Query keys
 * Standard chapter: Query Operations -- Query keys
 * ========================================================================= */
/* Keys placed in pmix_query_t.keys. The type shown is that of the value
   that comes back, not of anything supplied with the key. */
#define PMIX_QUERY_SUPPORTED_KEYS             "pmix.qry.keys"         /* type: char* */
#define PMIX_QUERY_NAMESPACES                 "pmix.qry.ns"           /* type: char* */
#define PMIX_QUERY_NAMESPACE_INFO             "pmix.qry.nsinfo"       /* type: pmix_data_array_t* */
#define PMIX_QUERY_JOB_STATUS                 "pmix.qry.jst"          /* type: pmix_status_t */
#define PMIX_QUERY_QUEUE_LIST                 "pmix.qry.qlst"         /* type: char* */
#define PMIX_QUERY_QUEUE_STATUS               "pmix.qry.qst"          /* type: pmix_data_array_t* */
#define PMIX_QUERY_AUTHORIZATIONS             "pmix.qry.auths"        /* type: pmix_data_array_t* */
#define PMIX_QUERY_SPAWN_SUPPORT              "pmix.qry.spawn"        /* type: char* */
#define PMIX_QUERY_DEBUG_SUPPORT              "pmix.qry.debug"        /* type: char* */
#define PMIX_QUERY_MEMORY_USAGE               "pmix.qry.mem"          /* type: pmix_data_array_t* */
#define PMIX_QUERY_ALLOC_STATUS               "pmix.query.alloc"      /* type: char* */
#define PMIX_TIME_REMAINING                   "pmix.time.remaining"   /* type: uint32_t */
#define PMIX_QUERY_ATTRIBUTE_SUPPORT          "pmix.qry.attrs"        /* type: pmix_data_array_t* */
#define PMIX_QUERY_AVAIL_SERVERS              "pmix.qry.asrvrs"       /* type: pmix_data_array_t* */
#define PMIX_SERVER_INFO_ARRAY                "pmix.srv.arr"          /* type: pmix_data_array_t* */
#define PMIX_DAEMON_MEMORY                    "pmix.dmn.mem"          /* type: float */
#define PMIX_CLIENT_AVG_MEMORY                "pmix.cl.mem.avg"       /* type: float */
#define PMIX_QUERY_STABLE_ABI_VERSION         "pmix.qry.stabiver"     /* type: char* */
#define PMIX_QUERY_PROVISIONAL_ABI_VERSION    "pmix.qry.prabiver"     /* type: char* */
#define PMIX_CLIENT_FUNCTIONS                 "pmix.client.fns"       /* type: char* */
#define PMIX_SERVER_FUNCTIONS                 "pmix.srvr.fns"         /* type: char* */
#define PMIX_TOOL_FUNCTIONS                   "pmix.tool.fns"         /* type: char* */
#define PMIX_HOST_FUNCTIONS                   "pmix.host.fns"         /* type: char* */ /* Std typo: "pmix.srvr.fns" */

/* --- Query qualifiers and result wrappers --- */
/* (Standard: Query Operations -- Query attributes) */
/* Qualifiers narrow a query (type = value supplied with it); the last two
   wrap returned results (type = what comes back). */
#define PMIX_QUERY_REFRESH_CACHE              "pmix.qry.rfsh"         /* type: bool */
#define PMIX_QUERY_LOCAL_ONLY                 "pmix.qry.local"        /* type: bool */
#define PMIX_QUERY_REPORT_AVG                 "pmix.qry.avg"          /* type: bool */
#define PMIX_QUERY_REPORT_MINMAX              "pmix.qry.minmax"       /* type: bool */
#define PMIX_CLIENT_ATTRIBUTES                "pmix.client.attrs"     /* type: char* */
#define PMIX_SERVER_ATTRIBUTES                "pmix.srvr.attrs"       /* type: char* */
#define PMIX_HOST_ATTRIBUTES                  "pmix.host.attrs"       /* type: char* */
#define PMIX_TOOL_ATTRIBUTES                  "pmix.tool.attrs"       /* type: char* */ /* Std typo: "pmix.setup.env" */
#define PMIX_QUERY_SUPPORTED_QUALIFIERS       "pmix.qry.quals"        /* type: bool */ /* string shared; Std type char* */
#define PMIX_QUERY_QUALIFIERS                 "pmix.qry.quals"        /* type: pmix_data_array_t* */ /* string shared with ..._SUPPORTED_QUALIFIERS */
#define PMIX_QUERY_RESULTS                    "pmix.qry.res"          /* type: pmix_data_array_t* */

/* ==========================================================================
 * Log
 * Standard chapter: Job Management and Reporting -- Log attributes
 * ========================================================================= */
/* Channels and directives for PMIx_Log / PMIx_Log_nb. */
#define PMIX_LOG_SOURCE                       "pmix.log.source"       /* type: pmix_proc_t* */
#define PMIX_LOG_STDERR                       "pmix.log.stderr"       /* type: char* */
#define PMIX_LOG_STDOUT                       "pmix.log.stdout"       /* type: char* */
#define PMIX_LOG_SYSLOG                       "pmix.log.syslog"       /* type: char* */
#define PMIX_LOG_LOCAL_SYSLOG                 "pmix.log.lsys"         /* type: char* */
#define PMIX_LOG_GLOBAL_SYSLOG                "pmix.log.gsys"         /* type: char* */
#define PMIX_LOG_SYSLOG_PRI                   "pmix.log.syspri"       /* type: int */
#define PMIX_LOG_TIMESTAMP                    "pmix.log.tstmp"        /* type: time_t */
#define PMIX_LOG_GENERATE_TIMESTAMP           "pmix.log.gtstmp"       /* type: bool */
#define PMIX_LOG_TAG_OUTPUT                   "pmix.log.tag"          /* type: bool */
#define PMIX_LOG_TIMESTAMP_OUTPUT             "pmix.log.tsout"        /* type: bool */
#define PMIX_LOG_XML_OUTPUT                   "pmix.log.xml"          /* type: bool */
#define PMIX_LOG_ONCE                         "pmix.log.once"         /* type: bool */
#define PMIX_LOG_MSG                          "pmix.log.msg"          /* type: pmix_byte_object_t */ /* Std type char* */
#define PMIX_LOG_KEY                          "pmix.log.key"          /* type: char* */ /* OpenPMIx-only */
#define PMIX_LOG_VAL                          "pmix.log.val"          /* type: char* */ /* OpenPMIx-only */
#define PMIX_LOG_AGG                          "pmix.log.agg"          /* type: bool */ /* OpenPMIx-only */
#define PMIX_LOG_GLOBAL_DATASTORE             "pmix.log.gstore"       /* type: bool */ /* Std type pmix_data_array_t* */
#define PMIX_LOG_JOB_RECORD                   "pmix.log.jrec"         /* type: bool */ /* Std type char* */

/* --- Email channel --- */
#define PMIX_LOG_EMAIL                        "pmix.log.email"        /* type: pmix_data_array_t* */
#define PMIX_LOG_EMAIL_ADDR                   "pmix.log.emaddr"       /* type: char* */
#define PMIX_LOG_EMAIL_SENDER_ADDR            "pmix.log.emfaddr"      /* type: char* */
#define PMIX_LOG_EMAIL_SUBJECT                "pmix.log.emsub"        /* type: char* */
#define PMIX_LOG_EMAIL_MSG                    "pmix.log.emmsg"        /* type: char* */ /* OpenPMIx-only */
#define PMIX_LOG_EMAIL_SERVER                 "pmix.log.esrvr"        /* type: char* */
#define PMIX_LOG_EMAIL_SRVR_PORT              "pmix.log.esrvrprt"     /* type: int32_t */

/* ==========================================================================
 * Allocation
 * Standard chapter: Job Management and Reporting -- Job Allocation attributes
 * ========================================================================= */
/* Directives for PMIx_Allocation_request. */
#define PMIX_ALLOC_REQ_ID                     "pmix.alloc.reqid"      /* type: char* */
#define PMIX_ALLOC_ID                         "pmix.alloc.id"         /* type: char* */
#define PMIX_ALLOC_QUEUE                      "pmix.alloc.queue"      /* type: char* */
#define PMIX_ALLOC_NUM_NODES                  "pmix.alloc.nnodes"     /* type: uint64_t */
#define PMIX_ALLOC_NODE_LIST                  "pmix.alloc.nlist"      /* type: char* */
#define PMIX_ALLOC_NUM_CPUS                   "pmix.alloc.ncpus"      /* type: uint64_t */
#define PMIX_ALLOC_NUM_CPU_LIST               "pmix.alloc.ncpulist"   /* type: char* */
#define PMIX_ALLOC_CPU_LIST                   "pmix.alloc.cpulist"    /* type: char* */
#define PMIX_ALLOC_MEM_SIZE                   "pmix.alloc.msize"      /* type: float */
#define PMIX_ALLOC_TIME                       "pmix.alloc.time"       /* type: uint32_t */

/* --- Fabric resources within an allocation --- */
#define PMIX_ALLOC_FABRIC                     "pmix.alloc.net"        /* type: pmix_data_array_t* */
#define PMIX_ALLOC_FABRIC_ID                  "pmix.alloc.netid"      /* type: char* */
#define PMIX_ALLOC_FABRIC_TYPE                "pmix.alloc.nettype"    /* type: char* */
#define PMIX_ALLOC_FABRIC_PLANE               "pmix.alloc.netplane"   /* type: char* */
#define PMIX_ALLOC_FABRIC_QOS                 "pmix.alloc.netqos"     /* type: char* */
#define PMIX_ALLOC_BANDWIDTH                  "pmix.alloc.bw"         /* type: float */
#define PMIX_ALLOC_FABRIC_ENDPTS              "pmix.alloc.endpts"     /* type: size_t */
#define PMIX_ALLOC_FABRIC_ENDPTS_NODE         "pmix.alloc.endpts.nd"  /* type: size_t */
#define PMIX_ALLOC_FABRIC_SEC_KEY             "pmix.alloc.nsec"       /* type: pmix_byte_object_t */

/* ==========================================================================
 * Job control
 * Standard chapter: Job Management and Reporting -- Job control attributes
 * ========================================================================= */
/* Directives for PMIx_Job_control. */
#define PMIX_JOB_CTRL_ID                      "pmix.jctrl.id"         /* type: char* */
#define PMIX_JOB_CTRL_PAUSE                   "pmix.jctrl.pause"      /* type: bool */
#define PMIX_JOB_CTRL_RESUME                  "pmix.jctrl.resume"     /* type: bool */
#define PMIX_JOB_CTRL_CANCEL                  "pmix.jctrl.cancel"     /* type: char* */
#define PMIX_JOB_CTRL_KILL                    "pmix.jctrl.kill"       /* type: bool */
#define PMIX_JOB_CTRL_TERMINATE               "pmix.jctrl.term"       /* type: bool */
#define PMIX_JOB_CTRL_SIGNAL                  "pmix.jctrl.sig"        /* type: int */
#define PMIX_JOB_CTRL_RESTART                 "pmix.jctrl.restart"    /* type: char* */
#define PMIX_JOB_CTRL_CHECKPOINT              "pmix.jctrl.ckpt"       /* type: char* */
#define PMIX_JOB_CTRL_CHECKPOINT_EVENT        "pmix.jctrl.ckptev"     /* type: bool */
#define PMIX_JOB_CTRL_CHECKPOINT_SIGNAL       "pmix.jctrl.ckptsig"    /* type: int */ /* string shared (Std too) */
#define PMIX_JOB_CTRL_CHECKPOINT_TIMEOUT      "pmix.jctrl.ckptsig"    /* type: int */ /* string shared (Std too) */
#define PMIX_JOB_CTRL_CHECKPOINT_METHOD       "pmix.jctrl.ckmethod"   /* type: pmix_data_array_t* */
#define PMIX_JOB_CTRL_PROVISION               "pmix.jctrl.pvn"        /* type: char* */
#define PMIX_JOB_CTRL_PROVISION_IMAGE         "pmix.jctrl.pvnimg"     /* type: char* */
#define PMIX_JOB_CTRL_PREEMPTIBLE             "pmix.jctrl.preempt"    /* type: bool */

/* --- Cleanup registration --- */
#define PMIX_REGISTER_CLEANUP                 "pmix.reg.cleanup"      /* type: char* */
#define PMIX_REGISTER_CLEANUP_DIR             "pmix.reg.cleanupdir"   /* type: char* */
#define PMIX_CLEANUP_RECURSIVE                "pmix.clnup.recurse"    /* type: bool */
#define PMIX_CLEANUP_EMPTY                    "pmix.clnup.empty"      /* type: bool */
#define PMIX_CLEANUP_IGNORE                   "pmix.clnup.ignore"     /* type: char* */
#define PMIX_CLEANUP_LEAVE_TOPDIR             "pmix.clnup.lvtop"      /* type: bool */

/* ==========================================================================
 * Monitoring
 * Standard chapter: Job Management and Reporting -- Monitoring attributes
 * ========================================================================= */
/* Directives for PMIx_Process_monitor / PMIx_Heartbeat. */
#define PMIX_MONITOR_ID                       "pmix.monitor.id"       /* type: char* */
#define PMIX_MONITOR_CANCEL                   "pmix.monitor.cancel"   /* type: char* */
#define PMIX_MONITOR_APP_CONTROL              "pmix.monitor.appctrl"  /* type: bool */
#define PMIX_MONITOR_HEARTBEAT                "pmix.monitor.mbeat"    /* type: bool */ /* Std: no value */
#define PMIX_SEND_HEARTBEAT                   "pmix.monitor.beat"     /* type: bool */ /* Std: no value */
#define PMIX_MONITOR_HEARTBEAT_TIME           "pmix.monitor.btime"    /* type: uint32_t */
#define PMIX_MONITOR_HEARTBEAT_DROPS          "pmix.monitor.bdrop"    /* type: uint32_t */
#define PMIX_MONITOR_FILE                     "pmix.monitor.fmon"     /* type: char* */ /* OpenPMIx-only */
#define PMIX_MONITOR_FILE_SIZE                "pmix.monitor.fsize"    /* type: bool */
#define PMIX_MONITOR_FILE_ACCESS              "pmix.monitor.faccess"  /* type: char* */ /* Std type bool */
#define PMIX_MONITOR_FILE_MODIFY              "pmix.monitor.fmod"     /* type: char* */ /* Std type bool */
#define PMIX_MONITOR_FILE_CHECK_TIME          "pmix.monitor.ftime"    /* type: uint32_t */
#define PMIX_MONITOR_FILE_DROPS               "pmix.monitor.fdrop"    /* type: uint32_t */

/* ==========================================================================
 * Security
 * Standard chapter: Security -- Credential Attributes
 * ========================================================================= */
/* Used with PMIx_Get_credential / PMIx_Validate_credential. */
#define PMIX_CRED_TYPE                        "pmix.sec.ctype"        /* type: char* */
#define PMIX_CRYPTO_KEY                       "pmix.sec.key"          /* type: pmix_byte_object_t */

/* ==========================================================================
 * Server support functions
 * Standard chapter: Server-Specific Interfaces -- Server Support Functions
 * ========================================================================= */
/* Information the host hands to the server library (register_nspace,
   dmodex, ...); normally not seen by applications. */
#define PMIX_REGISTER_NODATA                  "pmix.reg.nodata"       /* type: bool */
#define PMIX_SESSION_INFO_ARRAY               "pmix.ssn.arr"          /* type: pmix_data_array_t* */
#define PMIX_JOB_INFO_ARRAY                   "pmix.job.arr"          /* type: pmix_data_array_t* */
#define PMIX_APP_INFO_ARRAY                   "pmix.app.arr"          /* type: pmix_data_array_t* */
#define PMIX_PROC_INFO_ARRAY                  "pmix.pdata"            /* type: pmix_data_array_t* */
#define PMIX_NODE_INFO_ARRAY                  "pmix.node.arr"         /* type: pmix_data_array_t* */
#define PMIX_REQUIRED_KEY                     "pmix.req.key"          /* type: char* */
#define PMIX_SORTED_PROC_ARRAY                "pmix.sorted.parr"      /* type: bool */ /* OpenPMIx-only */

/* --- Application setup data (PMIx_server_setup_application) --- */
#define PMIX_SETUP_APP_ENVARS                 "pmix.setup.env"        /* type: bool */
#define PMIX_SETUP_APP_NONENVARS              "pmix.setup.nenv"       /* type: bool */ /* Std text has a stray quote */
#define PMIX_SETUP_APP_ALL                    "pmix.setup.all"        /* type: bool */

/* --- Attribute registration descriptors (pmix_regattr_t) --- */
/* (Standard: Server-Specific Interfaces -- PMIx_Register_attributes) */
#define PMIX_MAX_VALUE                        "pmix.descr.maxval"     /* type: varies */ /* type of the described key */
#define PMIX_MIN_VALUE                        "pmix.descr.minval"     /* type: varies */ /* type of the described key */
#define PMIX_ENUM_VALUE                       "pmix.descr.enum"       /* type: char* */

/* ==========================================================================
 * Storage
 * Standard chapter: Storage Support Definitions (provisional)
 * ========================================================================= */
/* Keys describing storage systems, used in queries. */
#define PMIX_QUERY_STORAGE_LIST               "pmix.strg.list"        /* type: char* */
#define PMIX_STORAGE_ID                       "pmix.strg.id"          /* type: char* */
#define PMIX_STORAGE_PATH                     "pmix.strg.path"        /* type: char* */
#define PMIX_STORAGE_TYPE                     "pmix.strg.type"        /* type: char* */
#define PMIX_STORAGE_VERSION                  "pmix.strg.ver"         /* type: char* */
#define PMIX_STORAGE_MEDIUM                   "pmix.strg.medium"      /* type: pmix_storage_medium_t */
#define PMIX_STORAGE_ACCESSIBILITY            "pmix.strg.access"      /* type: pmix_storage_accessibility_t */
#define PMIX_STORAGE_PERSISTENCE              "pmix.strg.persist"     /* type: pmix_storage_persistence_t */
#define PMIX_STORAGE_ACCESS_TYPE              "pmix.strg.atype"       /* type: pmix_storage_access_type_t */
#define PMIX_STORAGE_CAPACITY_LIMIT           "pmix.strg.cap"         /* type: uint64_t */ /* Std: "pmix.strg.caplim", double */
#define PMIX_STORAGE_CAPACITY_USED            "pmix.strg.capuse"      /* type: double */
#define PMIX_STORAGE_OBJECT_LIMIT             "pmix.strg.obj"         /* type: uint64_t */ /* Std: "pmix.strg.objlim" */
#define PMIX_STORAGE_OBJECTS_USED             "pmix.strg.objuse"      /* type: uint64_t */
#define PMIX_STORAGE_BW_CUR                   "pmix.strg.bwcur"       /* type: double */
#define PMIX_STORAGE_BW_MAX                   "pmix.strg.bwmax"       /* type: double */
#define PMIX_STORAGE_IOPS_CUR                 "pmix.strg.iopscur"     /* type: double */
#define PMIX_STORAGE_IOPS_MAX                 "pmix.strg.iopsmax"     /* type: double */
#define PMIX_STORAGE_MINIMAL_XFER_SIZE        "pmix.strg.minxfer"     /* type: double */
#define PMIX_STORAGE_SUGGESTED_XFER_SIZE      "pmix.strg.sxfer"       /* type: double */

/* ==========================================================================
 * Fabric
 * Standard chapter: Fabric Support Definitions -- Fabric Support Attributes
 * ========================================================================= */
/* Keys describing the fabric, used with PMIx_Fabric_register and PMIx_Get. */
#define PMIX_FABRIC_COST_MATRIX               "pmix.fab.cm"           /* type: void* */ /* 2-D uint16_t array */
#define PMIX_FABRIC_GROUPS                    "pmix.fab.grps"         /* type: char* */
#define PMIX_FABRIC_VENDOR                    "pmix.fab.vndr"         /* type: char* */
#define PMIX_FABRIC_IDENTIFIER                "pmix.fab.id"           /* type: char* */
#define PMIX_FABRIC_INDEX                     "pmix.fab.idx"          /* type: size_t */
#define PMIX_FABRIC_NUM_DEVICES               "pmix.fab.nverts"       /* type: size_t */
#define PMIX_FABRIC_DIMS                      "pmix.fab.dims"         /* type: uint32_t */
#define PMIX_FABRIC_PLANE                     "pmix.fab.plane"        /* type: char* */
#define PMIX_FABRIC_SWITCH                    "pmix.fab.switch"       /* type: char* */
#define PMIX_FABRIC_ENDPT                     "pmix.fab.endpt"        /* type: pmix_data_array_t* */
#define PMIX_FABRIC_SHAPE                     "pmix.fab.shape"        /* type: pmix_data_array_t* */
#define PMIX_FABRIC_SHAPE_STRING              "pmix.fab.shapestr"     /* type: char* */
#define PMIX_FABRIC_COORDINATES               "pmix.fab.coord"        /* type: pmix_data_array_t* */ /* Std: "pmix.fab.coords"; string shared */
#define PMIX_SWITCH_PEERS                     "pmix.speers"           /* type: char* */ /* returns pmix_data_array_t* */

/* --- Per-device descriptors --- */
#define PMIX_FABRIC_DEVICES                   "pmix.fab.devs"         /* type: pmix_data_array_t* */
#define PMIX_FABRIC_DEVICE                    "pmix.fabdev"           /* type: pmix_data_array_t* */
#define PMIX_FABRIC_DEVICE_NAME               "pmix.fabdev.nm"        /* type: char* */
#define PMIX_FABRIC_DEVICE_INDEX              "pmix.fabdev.idx"       /* type: uint32_t */
#define PMIX_FABRIC_DEVICE_VENDOR             "pmix.fabdev.vndr"      /* type: char* */
#define PMIX_FABRIC_DEVICE_VENDORID           "pmix.fabdev.vendid"    /* type: char* */
#define PMIX_FABRIC_DEVICE_BUS_TYPE           "pmix.fabdev.btyp"      /* type: char* */
#define PMIX_FABRIC_DEVICE_DRIVER             "pmix.fabdev.driver"    /* type: char* */
#define PMIX_FABRIC_DEVICE_FIRMWARE           "pmix.fabdev.fmwr"      /* type: char* */
#define PMIX_FABRIC_DEVICE_ADDRESS            "pmix.fabdev.addr"      /* type: char* */
#define PMIX_FABRIC_DEVICE_COORDINATES        "pmix.fab.coord"        /* type: pmix_geometry_t* */ /* string shared with FABRIC_COORDINATES */
#define PMIX_FABRIC_DEVICE_MTU                "pmix.fabdev.mtu"       /* type: size_t */
#define PMIX_FABRIC_DEVICE_SPEED              "pmix.fabdev.speed"     /* type: size_t */
#define PMIX_FABRIC_DEVICE_STATE              "pmix.fabdev.state"     /* type: pmix_link_state_t */
#define PMIX_FABRIC_DEVICE_TYPE               "pmix.fabdev.type"      /* type: char* */
#define PMIX_FABRIC_DEVICE_PCI_DEVID          "pmix.fabdev.pcidevid"  /* type: char* */

#endif /* PMIX_ATTRIBUTES_H */
