// core/exec/log.h - levelled one-line diagnostics, quiet by default.
//
// The library runs inside someone else's program (a host, an MPI rank, a tool): its stderr is
// not ours. So a line is written only at or above the verbosity chosen by PMIX_CPP_LOG
// (none | error | warn | info | debug; unset: error), to PMIX_CPP_LOG_FILE when that is set
// (appended, created 0600) and to stderr otherwise. Both are read once, at the first line.
//
// Which level (each call site picks one by this rule):
//   error - the user must know and no status returned to anyone reports it (a callback threw,
//           a peer's message was dropped, the progress thread cannot go on).
//   warn  - something failed and the library worked around it (a slower path, a refused
//           connection, a connection lost that an event also reports).
//   info  - the detail behind a status a caller does receive (why init could not listen).
//   debug - routine events worth seeing when tracing (a connection closed).
//
// Each line is written with a single write(2), so lines from different threads and processes
// never interleave mid-line.
#pragma once

#include <optional>
#include <string_view>

namespace pmix::exec {

enum class LogLevel : int { none = 0, error = 1, warn = 2, info = 3, debug = 4 };

// True when a line of `level` would be written (to skip building an expensive message).
bool log_enabled(LogLevel level) noexcept;

// Writes "pmix[<pid>] <component>: <message>\n" when `level` is enabled. Never throws; output
// is cut at 1 KiB.
void log_at(LogLevel level, std::string_view component, std::string_view message) noexcept;

inline void log_error(std::string_view component, std::string_view message) noexcept {
    log_at(LogLevel::error, component, message);
}
inline void log_warn(std::string_view component, std::string_view message) noexcept {
    log_at(LogLevel::warn, component, message);
}
inline void log_info(std::string_view component, std::string_view message) noexcept {
    log_at(LogLevel::info, component, message);
}
inline void log_debug(std::string_view component, std::string_view message) noexcept {
    log_at(LogLevel::debug, component, message);
}

// A PMIX_CPP_LOG value ("none", "error", "warn", "info", "debug"; case-insensitive); nullopt
// when it is none of these.
std::optional<LogLevel> parse_log_level(std::string_view text) noexcept;

// Replaces what the environment chose: lines at or above `threshold` go to `fd` (stderr when
// fd < 0; the caller keeps ownership of fd). For tests and for programs that choose themselves.
void set_log_output(LogLevel threshold, int fd) noexcept;

// Invokes `fn()` and reports anything it throws (with `what`, at error level) instead of
// letting it escape: used around every user callback the progress thread runs.
template <class Fn>
void invoke_guarded(std::string_view what, Fn&& fn) noexcept;

// Implementation detail of invoke_guarded, out of line to keep <exception> handling in one place.
void log_current_exception(std::string_view what) noexcept;

template <class Fn>
void invoke_guarded(std::string_view what, Fn&& fn) noexcept {
    try {
        static_cast<Fn&&>(fn)();
    } catch (...) {
        log_current_exception(what);
    }
}

}  // namespace pmix::exec
