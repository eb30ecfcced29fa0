// wire/unix_socket.cpp - see unix_socket.h.
#include "wire/unix_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pmix::wire {
namespace {

using exec::UniqueFd;
using Listen = Result<ListeningSocket>;

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

bool make_address(const std::string& path, sockaddr_un& addr) {
    if (path.empty() || path.size() > max_socket_path() || path.find('\0') != std::string::npos) {
        return false;
    }
    addr = sockaddr_un{};
    addr.sun_family = AF_UNIX;
    std::memcpy(addr.sun_path, path.data(), path.size());
    return true;
}

UniqueFd stream_socket() {
    return UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
}

// Creates `dir` with 0700 if it is missing, else checks that only we can enter it.
Result<bool> prepare_directory(const std::string& dir) {
    using R = Result<bool>;
    if (::mkdir(dir.c_str(), 0700) == 0) {
        return R::success(true);
    }
    if (errno != EEXIST) {
        return R::failure(PMIX_ERR_NO_PERMISSIONS, errno_text("cannot create " + dir));
    }
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        return R::failure(PMIX_ERR_NO_PERMISSIONS, dir + " is not a directory");
    }
    if (st.st_uid != ::geteuid()) {
        return R::failure(PMIX_ERR_NO_PERMISSIONS,
                          dir + " belongs to uid " + std::to_string(st.st_uid) + ", not to us");
    }
    if ((st.st_mode & 077) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 0777));
        return R::failure(PMIX_ERR_NO_PERMISSIONS,
                          dir + " has mode " + mode + "; the socket directory must be 0700");
    }
    return R::success(false);
}

// An existing file at `path`: removed if it is a socket nobody answers on, else an error.
Result<bool> clear_stale(const std::string& path, const sockaddr_un& addr) {
    using R = Result<bool>;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        return R::success(false);  // nothing there
    }
    if (!S_ISSOCK(st.st_mode)) {
        return R::failure(PMIX_ERR_EXISTS, path + " exists and is not a socket");
    }
    UniqueFd probe = stream_socket();
    if (!probe) {
        return R::failure(PMIX_ERR_OUT_OF_RESOURCE, errno_text("socket"));
    }
    if (::connect(probe.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 ||
        errno == EAGAIN) {  // EAGAIN: its backlog is full, so it is very much alive
        return R::failure(PMIX_ERR_EXISTS, "a server is already listening on " + path);
    }
    if (errno != ECONNREFUSED) {
        return R::failure(PMIX_ERR_EXISTS, errno_text("cannot probe " + path));
    }
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return R::failure(PMIX_ERR_NO_PERMISSIONS, errno_text("cannot remove stale " + path));
    }
    return R::success(true);
}

Listen bind_and_listen(ListeningSocket sock, const sockaddr_un& addr, int backlog) {
    sock.fd = stream_socket();
    if (!sock.fd) {
        return Listen::failure(PMIX_ERR_OUT_OF_RESOURCE, errno_text("socket"));
    }
    if (::bind(sock.fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        return Listen::failure(PMIX_ERR_OUT_OF_RESOURCE, errno_text("bind " + sock.path));
    }
    struct stat st {};
    // The directory is 0700, so nobody can reach the file between bind and chmod.
    if (::chmod(sock.path.c_str(), 0600) != 0 || ::lstat(sock.path.c_str(), &st) != 0) {
        std::string why = errno_text("chmod " + sock.path);
        ::unlink(sock.path.c_str());
        return Listen::failure(PMIX_ERR_NO_PERMISSIONS, why);
    }
    sock.dev = st.st_dev;
    sock.ino = st.st_ino;
    sock.ctime = st.st_ctim;
    if (::listen(sock.fd.get(), backlog) != 0) {
        std::string why = errno_text("listen " + sock.path);
        ::unlink(sock.path.c_str());
        return Listen::failure(PMIX_ERR_OUT_OF_RESOURCE, why);
    }
    return Listen::success(std::move(sock));
}

}  // namespace

std::size_t max_socket_path() noexcept { return sizeof(sockaddr_un::sun_path) - 1; }

Listen listen_unix(const std::string& path, int backlog) {
    sockaddr_un addr{};
    auto slash = path.rfind('/');
    if (!make_address(path, addr) || path[0] != '/' || slash == 0 || slash == path.size() - 1) {
        return Listen::failure(PMIX_ERR_BAD_PARAM,
                               "socket path must be absolute, name a file below a directory and "
                               "fit in " +
                                   std::to_string(max_socket_path()) + " bytes: " + path);
    }
    auto dir = prepare_directory(path.substr(0, slash));
    if (!dir.ok()) {
        return Listen::failure(dir.status, dir.error);
    }
    ListeningSocket sock;
    sock.path = path;
    sock.created_dir = dir.value;
    auto stale = clear_stale(path, addr);
    if (!stale.ok()) {
        remove_listening_files(sock);  // removes only the directory, and only if we made it
        return Listen::failure(stale.status, stale.error);
    }
    auto result = bind_and_listen(std::move(sock), addr, backlog);
    if (!result.ok() && dir.value) {
        ::rmdir(path.substr(0, slash).c_str());
    }
    return result;
}

void remove_listening_files(const ListeningSocket& sock) noexcept {
    if (sock.path.empty() || sock.tcp) {
        return;
    }
    struct stat st {};
    if (sock.ino != 0 && ::lstat(sock.path.c_str(), &st) == 0 && st.st_dev == sock.dev &&
        st.st_ino == sock.ino && st.st_ctim.tv_sec == sock.ctime.tv_sec &&
        st.st_ctim.tv_nsec == sock.ctime.tv_nsec) {
        ::unlink(sock.path.c_str());
    }
    if (sock.created_dir) {
        auto slash = sock.path.rfind('/');
        if (slash != std::string::npos && slash > 0) {
            ::rmdir(sock.path.substr(0, slash).c_str());  // fails (harmlessly) unless empty
        }
    }
}

Result<UniqueFd> connect_unix(const std::string& path) {
    using R = Result<UniqueFd>;
    sockaddr_un addr{};
    if (!make_address(path, addr)) {
        return R::failure(PMIX_ERR_BAD_PARAM, "socket path does not fit in " +
                                                  std::to_string(max_socket_path()) + " bytes");
    }
    UniqueFd fd = stream_socket();
    if (!fd) {
        return R::failure(PMIX_ERR_OUT_OF_RESOURCE, errno_text("socket"));
    }
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
        return R::success(std::move(fd));
    }
    if (errno == EAGAIN || errno == EINPROGRESS) {
        return R::failure(PMIX_ERR_WOULD_BLOCK, "backlog of " + path + " is full");
    }
    if (errno == EACCES || errno == EPERM) {  // a server of another user that did not let us in
        return R::failure(PMIX_ERR_NO_PERMISSIONS, errno_text("connect " + path));
    }
    return R::failure(PMIX_ERR_UNREACH, errno_text("connect " + path));
}

}  // namespace pmix::wire
