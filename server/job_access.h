// server/job_access.h - jobs of another user than the server's (a root server hosting a user's
// job, as Slurm's slurmstepd does): who may reach a namespace's socket, store segments and
// fence board (job_access.cpp).
//
// A namespace's user and group: PMIX_USERID / PMIX_GRPID of register_nspace, else those of
// PMIx_server_init (as OpenPMIx 4.2.2's dstore takes its PMIX_USERID; Slurm passes the job's uid
// there), else the uid/gid of the first register_client of it that differ from the server's; a
// uid without a group means that user's primary group (password database). A namespace of the
// server's own euid and egid changes nothing (socket 0600 in a 0700 directory, segments 0600).
// Otherwise everything stays owned by the server (a client that owned a segment the server writes
// could chmod it and scribble on the server's own data) and is opened to the job's group only:
//  - the group's own listening socket, <socket dir>/group.<gid>/server.sock: the directory
//    server:gid 0710, the socket 0660; the socket directory and the tmpdir levels the server
//    made gain o+x (enter, never list: 0711); setup_fork names that socket to the job;
//  - the namespace's store segments 0640 and its fence board 0660 to that group
//    (gds::StoreWriter::share_namespace, gds::FenceBoard::share), the store's directory 0644;
//  - every connecting client is still checked by the kernel (SO_PEERCRED) against the uid and
//    gid of its own register_client (requests.cpp): another user of the group is refused.
// PMIX_SOCKET_MODE (PMIx_server_init) sets the mode of the server's main socket instead of 0600;
// the socket directory then gains the x bits of the classes the mode lets in.
//
// Contract: shared by the host's thread (register_*, setup_fork) and the loop (store sharing,
// finalize): every access holds `mu`.
#pragma once

#include "server/registration.h"
#include "wire/listener.h"

#include <pmix_common.h>

#include <sys/types.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <optional>
#include <string>

namespace pmix::server {

class State;

struct JobAccess {
    struct GroupSocket {
        std::string dir;
        std::string path;
        std::shared_ptr<wire::Listener> listener;
    };
    std::mutex mu;
    std::map<std::string, gid_t> group_of;  // namespace -> the group it is shared with
    std::map<gid_t, GroupSocket> sockets;   // one listening socket per group
    // PMIx_server_init's PMIX_USERID / PMIX_GRPID (Slurm passes the job's uid there): the group
    // of every namespace whose registration names no user. Set at init, read-only after.
    std::optional<gid_t> default_group;
};

// PMIx_server_init's PMIX_USERID / PMIX_GRPID (before any registration).
pmix_status_t note_server_user(State& st, const pmix_info_t* info, std::size_t ninfo);

// PMIx_server_init's PMIX_SOCKET_MODE, applied to the main socket (after it listens).
pmix_status_t apply_socket_mode(State& st, const pmix_info_t* info, std::size_t ninfo);
// register_nspace, host's thread, after create_board: the user/group of its info, if any.
// PMIX_ERR_NO_PERMISSIONS (logged) when the kernel refuses to share with that group.
pmix_status_t grant_from_registration(State& st, const Registration& reg);
// register_client, host's thread: a client of another user than the server's.
void grant_from_client(State& st, const std::string& nspace, uid_t uid, gid_t gid);
// Loop thread, once the namespace is in the store: opens its segments to its group, if any.
void share_store(State& st, const std::string& nspace);
// deregister_nspace: a later namespace of that name starts unshared.
void forget_grant(State& st, const std::string& nspace);
// The socket setup_fork names to the processes of `nspace`.
std::string socket_for(State& st, const std::string& nspace);
// Finalize: close_group_sockets on the loop (stops accepting), drop_group_sockets after the
// loop has stopped (releases the listeners, removes their directories).
void close_group_sockets(State& st);
void drop_group_sockets(State& st);

}  // namespace pmix::server
