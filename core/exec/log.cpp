// core/exec/log.cpp - see log.h.
#include "exec/log.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

namespace pmix::exec {

void log_line(std::string_view component, std::string_view message) noexcept {
    char line[1024];
    int head = std::snprintf(line, sizeof line, "pmix[%d] %.*s: ", static_cast<int>(::getpid()),
                             static_cast<int>(std::min<std::size_t>(component.size(), 64)),
                             component.data());
    if (head < 0) {
        return;
    }
    std::size_t used = std::min<std::size_t>(static_cast<std::size_t>(head), sizeof line - 2);
    std::size_t room = sizeof line - 1 - used;  // keep one byte for the newline
    std::size_t n = std::min(room, message.size());
    std::memcpy(line + used, message.data(), n);
    used += n;
    line[used++] = '\n';
    // Best effort: a failed or short write to stderr has nowhere else to be reported.
    ssize_t ignored = ::write(STDERR_FILENO, line, used);
    (void)ignored;
}

void log_current_exception(std::string_view what) noexcept {
    try {
        throw;
    } catch (const std::exception& e) {
        std::string msg;
        try {
            msg.append(what).append(" threw: ").append(e.what());
        } catch (...) {
            log_line("exec", "a callback threw and the message could not be built");
            return;
        }
        log_line("exec", msg);
    } catch (...) {
        log_line("exec", what);
        log_line("exec", "  (threw a non-std::exception object)");
    }
}

}  // namespace pmix::exec
