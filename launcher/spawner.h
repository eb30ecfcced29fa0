// Starting one process without copying the launcher's page tables. fork() from pmixrun cost about
// 1.5 ms per rank at -n 1024 (its address space grows with the job), 1.5 s of a 2.3 s job; the
// child here shares the parent's memory until it execs (glibc's posix_spawn: clone(CLONE_VM |
// CLONE_VFORK)), so a start costs the same at every job size.
// No PMIx header: part of pmix_launcher_base, tested in tests/unit/launcher.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace pmix::launcher {

struct SpawnSpec {
    char* const* argv = nullptr;  // argv[0] is looked up by find_program (envp's PATH, cwd)
    char* const* envp = nullptr;  // the process's whole environment
    int stdin_fd = -1;            // -1: ours is inherited
    int stdout_fd = -1, stderr_fd = -1;
    // The directory it starts in (nullptr: ours); a relative argv[0] is found from there.
    const char* cwd = nullptr;
    bool own_process_group = true;  // setpgid(0, 0): our ^C is ours to handle, not the ranks'
    bool die_with_parent = false;   // PR_SET_PDEATHSIG SIGKILL (pmixd: gone, so are its ranks)
    // Signals we catch that the process starts with at their default action.
    std::vector<int> default_signals;
    bool switch_user = false;  // setgroups({}), setgid(gid), setuid(uid) before exec (--user)
    // PMIX_DEBUG_STOP_ON_EXEC: the process is left stopped (SIGSTOP, 'T' in /proc) at its first
    // instruction after exec, as prte does: traced across the exec, then detached with SIGSTOP.
    bool stop_on_exec = false;
    uid_t uid = 0;
    gid_t gid = 0;
};

struct SpawnResult {
    pid_t pid = -1;  // > 0: started (exec succeeded)
    enum class Failed { no, start, user, cwd, exec } failed = Failed::no;
    int error = 0;  // errno of the step that failed
    // What went wrong, naming the program ("cannot execute 'x': No such file or directory").
    std::string message(const SpawnSpec& spec) const;
};

// Where an app's program is, as OpenPMIx and prte find an app's command (the app's PATH, then its
// working directory): a relative name with a '/' is taken from `cwd`; a bare name is searched in
// `path` (nullptr: our PATH), then in `cwd`. `cwd` nullptr or "": ours; relative PATH entries
// ("", ".") are taken from `cwd` too. Absolute; "" when there is no executable file there.
std::string find_program(const std::string& program, const char* path, const char* cwd);
// The value of PATH in the environment `envp` (nullptr when it sets none, or no `envp`).
const char* path_in(char* const* envp);

// Starts argv[0] as `spec` says, from the absolute path find_program gives (envp's PATH, else ours;
// spec.cwd; none: Failed::exec, ENOENT), so that the process runs the program a check before the
// start found. posix_spawn when its attributes and file actions are enough; with die_with_parent,
// switch_user or stop_on_exec (no posix_spawn attribute does those) vfork, whose child makes
// only system calls (raw ones for the ids: glibc's setuid would signal the parent's threads)
// before exec. Either way the exec's failure comes back here, and no child is left behind then.
SpawnResult spawn_process(const SpawnSpec& spec);

}  // namespace pmix::launcher
