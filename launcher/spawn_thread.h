// Starting processes from a thread with a descriptor table of its own (spawn_thread.cpp).
// No PMIx header: part of pmix_launcher_base.
#pragma once

#include <signal.h>

#include "spawner.h"

namespace pmix::launcher {

// How spawn_process starts a process when posix_spawn is enough (spawner.cpp).
using PosixSpawn = SpawnResult (*)(const SpawnSpec& spec, const char* program, char* const* argv,
                                   const sigset_t& mask);

// Runs `start` on the spawn thread, whose descriptor table holds only our standard descriptors,
// descriptors we inherited without close-on-exec, and the ones `spec` names (passed to it for the
// call). False when that thread is not available (it could not be started, or the descriptors not
// passed, e.g. at the descriptor limit): the caller then starts the process itself, as before.
bool spawn_on_own_table(PosixSpawn start, const SpawnSpec& spec, const char* program,
                        char* const* argv, SpawnResult& result);

// The spawn thread's name (/proc/<pid>/task/<tid>/comm). It runs with every signal blocked.
inline constexpr const char* kSpawnThreadName = "pmix-spawn";

}  // namespace pmix::launcher
