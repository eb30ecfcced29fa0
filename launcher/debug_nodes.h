// launcher/debug_nodes.h - the debugger stops of pmixrun's own job across nodes (--stop-in-init,
// --stop-on-exec, --stop-in-app with --host/--hostfile). Every pmixd registers the stops with its
// node's part of the job and holds its processes as pmixrun does on one node (debug.cpp); the
// events a debugger waits for are the head's, since tools attach to the head:
// - each held process's PMIX_READY_FOR_DEBUG goes from its pmixd to the head (debug_ready), which
//   passes it on to its tools and, once every held process of every node reported, raises the
//   job's one PMIX_READY_FOR_DEBUG;
// - stop on exec: each pmixd reports its part started (debug_started); once every node did, the
//   head raises PMIX_LAUNCH_COMPLETE (the processes cannot connect before they are released)
//   and the job's PMIX_READY_FOR_DEBUG;
// - a tool's PMIX_DEBUGGER_RELEASE, which the head hears, goes to every pmixd (debug_release):
//   SIGCONT to those held on exec, the release event to those held in init or in the application.
// A job a rank spawns (pmixrun --host, or a job of the persistent launcher) is held the same way:
// its stops travel in its job info (remote_spawn.h), the head watches it (head_debug_hold) and
// sends the requester's events (PMIX_READY_FOR_DEBUG) to the daemons, whose servers deliver them
// to it; the requester's PMIX_DEBUGGER_RELEASE goes from its pmixd to the head (debug_release),
// which sends it to every daemon.
#pragma once

#include "channel.h"
#include "launcher.h"

#include <functional>
#include <string>
#include <vector>

namespace pmix::launcher {

// "i", "e", "a" for --stop-in-init, --stop-on-exec, --stop-in-app ("" none): JobMessage's field.
std::string debug_stop_letters(const Options& options);

// The head, once its server runs: watches its job's stops and sends every release it hears to
// the daemons through `send_all` (debug_release's fields). Nothing when no stop was asked.
void head_debug_setup(Launcher& view, const std::string& nspace,
                      std::function<void(const std::vector<std::string>&)> send_all);
// The persistent launcher's head (dvm_head.h): every release it hears goes to the daemons (the
// same forward), for the jobs its tools spawn with stops; pmixd --dvm always reports (uplink).
void head_debug_forward(std::function<void(const std::vector<std::string>&)> send_all);
// The head: a job placed across the nodes (a rank's spawn, a tool's at the persistent launcher)
// with stops: watched here, its requester's events sent to the daemons when it is a rank (the
// daemons' servers deliver them; `send_all` sends to every daemon), the releases forwarded.
using DebugSendAll = std::function<void(MessageKind, const std::vector<std::string>&)>;
void head_debug_hold(Launcher& view, const std::string& nspace, const pmix_proc_t& requester,
                     const StopRequest& stops, const DebugSendAll& send_all);
// A daemon's debug_ready, debug_started or debug_release (a release its process raised); true when
// the job's PMIX_LAUNCH_COMPLETE is due now (every one of `nodes` reported its stopped-on-exec part
// started).
bool head_debug_report(Launcher& view, const Message& message, size_t nodes);

// pmixd, with the job: its stops (the letters) in launcher.options, and its reports to the head.
void daemon_debug_setup(Launcher& launcher, Channel& head, const std::string& letters);
// The head's debug_release.
void daemon_debug_release(Launcher& launcher, const Message& message);

}  // namespace pmix::launcher
