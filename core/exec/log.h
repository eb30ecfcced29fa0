// core/exec/log.h - one-line diagnostics on stderr.
//
// The progress thread has no caller to return an error to when a callback throws or a peer
// sends garbage, so it says why on stderr and carries on. Each line is written with a single
// write(2), so lines from different threads and processes never interleave mid-line.
#pragma once

#include <string_view>

namespace pmix::exec {

// Writes "pmix[<pid>] <component>: <message>\n". Never throws; output is cut at 1 KiB.
void log_line(std::string_view component, std::string_view message) noexcept;

// Invokes `fn()` and reports anything it throws (with `what`) instead of letting it escape:
// used around every user callback the progress thread runs.
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
