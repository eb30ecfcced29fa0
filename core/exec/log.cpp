// core/exec/log.cpp - see log.h.
#include "exec/log.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <utility>

namespace pmix::exec {

namespace {

constexpr const char* kLevelVariable = "PMIX_CPP_LOG";
constexpr const char* kFileVariable = "PMIX_CPP_LOG_FILE";

// Set once from the environment (first use), or by set_log_output. Relaxed atomics: a line
// racing a set_log_output may go to either destination, nothing worse.
struct Output {
    std::atomic<int> threshold{static_cast<int>(LogLevel::error)};
    std::atomic<int> fd{STDERR_FILENO};
};

void write_line(int fd, std::string_view component, std::string_view message) noexcept {
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
    // Best effort: a failed or short write has nowhere else to be reported.
    ssize_t ignored = ::write(fd, line, used);
    (void)ignored;
}

// Reads PMIX_CPP_LOG_FILE, then PMIX_CPP_LOG. A file we cannot open, or a level we do not
// understand, is said once (at error level, to wherever lines go): the user asked for something
// and would otherwise not know that it was ignored.
void configure_from_environment(Output& out) noexcept {
    if (const char* path = std::getenv(kFileVariable); path != nullptr && *path != '\0') {
        const int fd = ::open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd >= 0) {
            out.fd.store(fd, std::memory_order_relaxed);  // kept open for the life of the process
        } else {
            write_line(STDERR_FILENO, "log", "cannot open PMIX_CPP_LOG_FILE; logging to stderr");
        }
    }
    const char* level = std::getenv(kLevelVariable);
    if (level == nullptr || *level == '\0') {
        return;
    }
    if (const auto parsed = parse_log_level(level)) {
        out.threshold.store(static_cast<int>(*parsed), std::memory_order_relaxed);
    } else {
        write_line(out.fd.load(std::memory_order_relaxed), "log",
                   "PMIX_CPP_LOG must be none, error, warn, info or debug; using error");
    }
}

Output& output() noexcept {
    static Output out;
    static const bool configured = (configure_from_environment(out), true);
    (void)configured;
    return out;
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view text) noexcept {
    constexpr std::pair<std::string_view, LogLevel> kNames[] = {{"none", LogLevel::none},
                                                                {"error", LogLevel::error},
                                                                {"warn", LogLevel::warn},
                                                                {"info", LogLevel::info},
                                                                {"debug", LogLevel::debug}};
    for (const auto& [name, level] : kNames) {
        if (text.size() == name.size() &&
            std::equal(text.begin(), text.end(), name.begin(),
                       [](char a, char b) { return (a | 0x20) == b; })) {
            return level;
        }
    }
    return std::nullopt;
}

bool log_enabled(LogLevel level) noexcept {
    return level != LogLevel::none &&
           static_cast<int>(level) <= output().threshold.load(std::memory_order_relaxed);
}

void log_at(LogLevel level, std::string_view component, std::string_view message) noexcept {
    if (log_enabled(level)) {
        write_line(output().fd.load(std::memory_order_relaxed), component, message);
    }
}

void set_log_output(LogLevel threshold, int fd) noexcept {
    Output& out = output();
    out.threshold.store(static_cast<int>(threshold), std::memory_order_relaxed);
    out.fd.store(fd < 0 ? STDERR_FILENO : fd, std::memory_order_relaxed);
}

void log_current_exception(std::string_view what) noexcept {
    try {
        throw;
    } catch (const std::exception& e) {
        std::string msg;
        try {
            msg.append(what).append(" threw: ").append(e.what());
        } catch (...) {
            log_error("exec", "a callback threw and the message could not be built");
            return;
        }
        log_error("exec", msg);
    } catch (...) {
        log_error("exec", what);
        log_error("exec", "  (threw a non-std::exception object)");
    }
}

}  // namespace pmix::exec
