// core/base/env_names.h - the environment variables the library reads or writes, named once.
//
// The first group crosses the server/client boundary: PMIx_server_setup_fork writes them into a
// child's environment and the client's PMIx_Init reads them back, so both sides must spell them
// alike. The names without the PMIX_CPP_ prefix are OpenPMIx's (a client of either library finds
// its server through them); PMIX_CPP_* are this library's own. The second group are settings
// read on one side only (tuning and test hooks), listed here so every name has one home.
#pragma once

namespace pmix::env {

// ---- set by setup_fork, read by the client -------------------------------------------------
inline constexpr char kNamespace[] = "PMIX_NAMESPACE";
inline constexpr char kRank[] = "PMIX_RANK";
// "<server nspace>.<rank>;unix:<socket path>"; OpenPMIx clients of every version look for one of
// these, newest first.
inline constexpr char kServerUri[] = "PMIX_SERVER_URI";
inline constexpr const char* kServerUriVersions[] = {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4",
                                                     "PMIX_SERVER_URI3", "PMIX_SERVER_URI2",
                                                     "PMIX_SERVER_URI21"};
inline constexpr char kServerSocket[] = "PMIX_CPP_SERVER_SOCKET";  // the socket path alone
inline constexpr char kServerTmpdir[] = "PMIX_SERVER_TMPDIR";
inline constexpr char kSystemTmpdir[] = "PMIX_SYSTEM_TMPDIR";
inline constexpr char kSecurityMode[] = "PMIX_SECURITY_MODE";
inline constexpr char kHostname[] = "PMIX_HOSTNAME";
inline constexpr char kVersion[] = "PMIX_VERSION";
inline constexpr char kFenceBoard[] = "PMIX_CPP_FENCE_BOARD";  // the namespace's fence board
inline constexpr char kGdsLocator[] = "PMIX_CPP_GDS_LOCATOR";  // the shared store's segment
// ip:port a process opens its fabric endpoint on (the ofi_tcp plugin's per-process variable).
inline constexpr char kFabricEndpoint[] = "PMIX_CPP_FABRIC_ENDPOINT";

// ---- read on one side only -------------------------------------------------------------------
// Tool rendezvous file: the Standard's spelling, then OpenPMIx's.
inline constexpr char kLauncherRndzFile[] = "PMIX_LAUNCHER_RNDZ_FILE";
inline constexpr char kLauncherRendezvousFile[] = "PMIX_LAUNCHER_RENDEZVOUS_FILE";
inline constexpr char kGdsModule[] = "PMIX_GDS_MODULE";            // server: store choice
inline constexpr char kGdsPrefix[] = "PMIX_CPP_GDS_PREFIX";        // server: segment name prefix
inline constexpr char kLocalFence[] = "PMIX_CPP_LOCAL_FENCE";      // server: fence board on/off
inline constexpr char kSyslogSocket[] = "PMIX_CPP_SYSLOG_SOCKET";  // server: PMIx_Log's syslog
inline constexpr char kFenceSpinUs[] = "PMIX_CPP_FENCE_SPIN_US";   // client: board spin budget
// client: "on" (or "1") gives PMIx_Commit its own modex segment and no wait for the server
// after the first commit (gds/proc_segment.h); unset or anything else: the synchronous commit.
inline constexpr char kCommitSegment[] = "PMIX_CPP_COMMIT_SEGMENT";
inline constexpr char kFabricProvider[] = "PMIX_CPP_FABRIC_PROVIDER";  // fabric: libfabric provider
inline constexpr char kFabricNode[] = "PMIX_CPP_FABRIC_NODE";          // fabric: endpoint address
// server: which base a fence's modex deltas use (server/modex_delta.h): set (default), any, off.
inline constexpr char kModexDelta[] = "PMIX_CPP_MODEX_DELTA";

}  // namespace pmix::env
