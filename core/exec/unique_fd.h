// core/exec/unique_fd.h - sole owner of one file descriptor.
//
// Every descriptor the library opens (epoll, eventfd, timerfd, sockets) is held by a UniqueFd
// from the moment it exists, so an early return cannot leak it and a moved-from owner never
// closes a number someone else now owns.
#pragma once

#include <unistd.h>

#include <utility>

namespace pmix::exec {

class UniqueFd {
public:
    UniqueFd() noexcept = default;
    explicit UniqueFd(int fd) noexcept : fd_(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept {
        if (this != &other) {
            reset(std::exchange(other.fd_, -1));
        }
        return *this;
    }
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd() { reset(); }

    explicit operator bool() const noexcept { return fd_ >= 0; }
    int get() const noexcept { return fd_; }

    // Give up ownership without closing.
    [[nodiscard]] int release() noexcept { return std::exchange(fd_, -1); }

    // Close the current descriptor (if any) and own `fd` instead. close() errors are ignored on
    // purpose: on Linux the descriptor is released even when close reports EINTR/EIO, so
    // retrying could close an unrelated descriptor another thread just opened.
    void reset(int fd = -1) noexcept {
        int old = std::exchange(fd_, fd);
        if (old >= 0) {
            ::close(old);
        }
    }

private:
    int fd_ = -1;
};

}  // namespace pmix::exec
