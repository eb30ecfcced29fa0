// wire/rendezvous.h - the files by which tools find a server (Standard, "Tools" chapter; PMIx
// RFC0001 and RFC0010; OpenPMIx's "Session Directories" documentation).
//
// A server with tool support writes one small file per way of finding it; a tool reads them.
// Names follow the Standard and OpenPMIx's code (ptl_base_listener.c), <host> being the server's
// host name:
//   <server tmpdir>/pmix.<host>.tool.<pid>     every tool-serving server
//   <server tmpdir>/pmix.<host>.tool.<nspace>  every tool-serving server
//   <server tmpdir>/pmix.<host>.tool           a session server (PMIX_SERVER_SESSION_SUPPORT)
//   <system tmpdir>/pmix.sys.<host>            the system server (PMIX_SERVER_SYSTEM_SUPPORT)
//   <system tmpdir>/pmix.sched.<host>          the scheduler (PMIX_SERVER_SCHEDULER)
//   <system tmpdir>/pmix.sysctrlr.<host>       the system controller (PMIX_SERVER_SYS_CONTROLLER)
//   any path given by PMIX_LAUNCHER_RENDEZVOUS_FILE (attribute or environment variable)
// Contents, one field per line, in OpenPMIx's order (a tool of one implementation is not
// expected to reach a server of another, but the shape is familiar to people who read them):
//   <nspace>.<rank>;unix:<socket path>     the URI
//   <PMIx version>                          e.g. 4.2.2
//   <pid>                                   the server's process id
//   <uid>:<gid>                             the server's effective ids
// and, after those, optional "name:value" lines (readers skip names they do not know):
//   host:<host name>                        the server's host
//   tcp:<nspace>.<rank>;tcp4://<ip>:<port>  its TCP listener (PMIX_SERVER_REMOTE_CONNECTIONS)
//   secret:<32 hex digits>                  what a tool must present to be let in over TCP
// Files are written 0600 (the owner alone may read: the first gate, before the host's own
// tool_connected decision), atomically (written aside, then renamed into place).
#pragma once

#include "base/result.h"

#include <pmix_common.h>

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pmix::wire {

struct Rendezvous {
    std::string uri;     // "<nspace>.<rank>;unix:<path>"
    std::string nspace;  // parsed from the URI
    pmix_rank_t rank = 0;
    std::string socket;  // parsed from the URI
    std::string version;
    std::int32_t pid = 0;
    std::uint32_t uid = 0, gid = 0;
    std::string host;     // optional
    std::string tcp_uri;  // optional: "<nspace>.<rank>;tcp4://<ip>:<port>"
    std::string secret;   // with tcp_uri
};

// "<nspace>.<rank>;unix:<path>" -> nspace, rank, socket. The namespace may itself hold dots:
// the rank is what follows the last dot before ';'. "<nspace>.<rank>;tcp4://<ip>:<port>" and a
// bare "tcp4://<ip>:<port>" (nspace empty) give `socket` = the tcp4:// URI, for wire::dial.
Result<Rendezvous> parse_uri(const std::string& uri);
std::string make_uri(const std::string& nspace, pmix_rank_t rank, const std::string& socket);

std::string format_rendezvous(const Rendezvous& r);
Result<Rendezvous> parse_rendezvous(const std::string& text);

// Reads and parses one file. PMIX_ERR_NOT_FOUND: no such file; PMIX_ERR_NO_PERMISSIONS: not
// readable by this process; PMIX_ERR_BAD_PARAM: not a rendezvous file (with the reason).
Result<Rendezvous> read_rendezvous(const std::string& path);

// Writes `r` to `path` (0600, atomically). A file already there is replaced when it is ours or
// its server is dead (stale); a file of another live server is PMIX_ERR_EXISTS (the Standard's
// one-system-server-per-node rule). Creates missing parent directories (0700) and appends
// them, outermost first, to `created_dirs`.
Result<bool> write_rendezvous(const std::string& path, const Rendezvous& r,
                              std::vector<std::string>* created_dirs);

// Removes `path` if it still names this process's server (pid matches).
void remove_rendezvous(const std::string& path);

// Creates every missing directory of `dir` (mode 0700), appending the ones it made, outermost
// first, to `created` (may be null). False when a level cannot be made or is not a directory.
bool make_dirs(const std::string& dir, std::vector<std::string>* created);

// True when a process with this pid exists (kill 0: EPERM counts as alive).
bool pid_alive(std::int32_t pid) noexcept;

// Directory lookups of the session-directory rules: `given` (the attribute, if any) wins, then
// the environment variable `env_name`, then TMPDIR, TEMP, TMP, then /tmp.
std::string pick_tmpdir(const char* given, const char* env_name);

// The file names above.
std::string tool_file_by_pid(const std::string& dir, const std::string& host, std::int32_t pid);
std::string tool_file_by_nspace(const std::string& dir, const std::string& host,
                                const std::string& nspace);
std::string session_file(const std::string& dir, const std::string& host);
std::string system_file(const std::string& dir, const std::string& host);
std::string scheduler_file(const std::string& dir, const std::string& host);
std::string controller_file(const std::string& dir, const std::string& host);

// Every "pmix.<host>.tool*" file in `dir`, session file first, then the others by name.
std::vector<std::string> tool_files_in(const std::string& dir, const std::string& host);

}  // namespace pmix::wire
