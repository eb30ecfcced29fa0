// wire/unix_socket.h - Unix-domain stream sockets: the listening file and the client side.
//
// Rules for the socket file (it is the door to the server, so who can open it matters):
// - It lives in a directory that only the owner can enter (0700, owned by the effective uid).
//   A missing directory is created with 0700; an existing one that is anyone else's or is
//   group/other-accessible is refused, never chmod-ed (it may be someone else's choice).
// - The socket itself is 0600. Its owner may widen both afterwards (the server does, for a job
//   of another user or PMIX_SOCKET_MODE: server/job_access.h); SO_PEERCRED still names every peer.
// - An existing file at the path is removed only if it is a socket and nobody answers on it
//   (a server that died without cleaning up). A live server or a non-socket is an error.
// - On close, the file is removed only if it is still the one we created (same device, inode
//   and change time), and the directory only if we created it and it is empty.
#pragma once

#include "exec/unique_fd.h"
#include "base/result.h"

#include <sys/types.h>

#include <ctime>

#include <string>

namespace pmix::wire {

struct ListeningSocket {
    exec::UniqueFd fd;  // non-blocking, close-on-exec, listening
    std::string path;
    // Identity of the socket file we created. Inode numbers are reused as soon as a file is
    // deleted, so the change time (set by our chmod, nanosecond resolution) is part of it.
    dev_t dev = 0;
    ino_t ino = 0;
    timespec ctime{};
    bool created_dir = false;
    bool tcp = false;  // a TCP listener (tcp_socket.h): `path` is its URI, no file to remove
};

// Errors: PMIX_ERR_BAD_PARAM (path too long/relative/no directory part), PMIX_ERR_NO_PERMISSIONS
// (directory not ours or too open, or not creatable), PMIX_ERR_EXISTS (a live server answers,
// or the path is not a socket), PMIX_ERR_OUT_OF_RESOURCE (socket/bind/listen failed).
Result<ListeningSocket> listen_unix(const std::string& path, int backlog);

// Undo what listen_unix created (see the rules above). Safe on a default-constructed value.
void remove_listening_files(const ListeningSocket& sock) noexcept;

// A connected, non-blocking, close-on-exec socket. PMIX_ERR_WOULD_BLOCK when the server's
// backlog is full (retry later); PMIX_ERR_NO_PERMISSIONS when the socket or a directory on its
// path does not let this user in; PMIX_ERR_UNREACH when nobody listens; PMIX_ERR_BAD_PARAM for
// a path that does not fit in sockaddr_un.
Result<exec::UniqueFd> connect_unix(const std::string& path);

// Longest path sockaddr_un holds (107 bytes on Linux).
std::size_t max_socket_path() noexcept;

}  // namespace pmix::wire
