// spawn_process (spawner.h): posix_spawn, or vfork with a child that makes system calls only.
#include "spawner.h"

#include <pthread.h>

#include "spawn_thread.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

// What the vfork child sends back through its close-on-exec pipe when a step fails (nothing
// arrives when the exec succeeds: the pipe closes with it).
struct ChildFailure {
    SpawnResult::Failed step;
    int error;
};

bool executable_file(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

// `name` taken from `base` (absolute), without "./" in front.
std::string from_dir(const std::string& base, const std::string& name) {
    if (!name.empty() && name[0] == '/') return name;
    std::string rest = name;
    while (rest.compare(0, 2, "./") == 0) rest.erase(0, 2);
    if (rest.empty() || rest == ".") return base;
    return base == "/" ? "/" + rest : base + "/" + rest;
}

std::string our_directory() {
    char buffer[4096];
    return ::getcwd(buffer, sizeof buffer) != nullptr ? buffer : ".";
}

// posix_spawn reports a failed chdir as it does a failed exec: the directory is checked first.
bool is_directory(const char* path) {
    struct stat st;
    return ::stat(path, &st) == 0 && S_ISDIR(st.st_mode) && ::access(path, X_OK) == 0;
}

// `mask`: the signal mask the child starts with (the thread that asked for it has it).
SpawnResult spawn_posix(const SpawnSpec& spec, const char* program, char* const* argv,
                        const sigset_t& mask) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
    // dup2 onto 0, 1 and 2 clears their close-on-exec flag (glibc also when the descriptor is
    // already the target); the launcher's own descriptors are all close-on-exec.
    const int targets[] = {spec.stdin_fd, spec.stdout_fd, spec.stderr_fd};
    for (int target = 0; target < 3; ++target)
        if (targets[target] >= 0)
            posix_spawn_file_actions_adddup2(&actions, targets[target], target);
    if (spec.cwd != nullptr) posix_spawn_file_actions_addchdir_np(&actions, spec.cwd);
    short flags = 0;
    if (spec.own_process_group) {
        flags |= POSIX_SPAWN_SETPGROUP;
        posix_spawnattr_setpgroup(&attributes, 0);
    }
    if (!spec.default_signals.empty()) {
        sigset_t defaults;
        sigemptyset(&defaults);
        for (int sig : spec.default_signals) sigaddset(&defaults, sig);
        posix_spawnattr_setsigdefault(&attributes, &defaults);
        flags |= POSIX_SPAWN_SETSIGDEF;
    }
    posix_spawnattr_setsigmask(&attributes, &mask);
    flags |= POSIX_SPAWN_SETSIGMASK;
    posix_spawnattr_setflags(&attributes, flags);
    SpawnResult result;
    const int rc = ::posix_spawn(&result.pid, program, &actions, &attributes, argv, spec.envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (rc != 0) {  // glibc reports the exec's errno too (and has reaped that child)
        result.pid = -1;
        result.failed = SpawnResult::Failed::exec;
        result.error = rc;
    }
    return result;
}

[[noreturn]] void child_fails(int report_fd, SpawnResult::Failed step, int status) {
    const ChildFailure failure{step, errno};
    [[maybe_unused]] const ssize_t written = ::write(report_fd, &failure, sizeof failure);
    ::_exit(status);
}

// The vfork child: it runs in the parent's memory on the parent's stack, so it only makes system
// calls. Every signal is blocked on entry; handlers are reset before the parent's mask comes back
// (a handler of the launcher must not run here), and so are the signals the spec lists. The ids
// change with raw system calls: glibc's setuid/setgid/setgroups would make every thread of the
// parent change too (they live in this memory), and Linux credentials are per thread.
[[noreturn]] void vfork_child(const SpawnSpec& spec, const char* program, pid_t parent,
                              int report_fd, const sigset_t& mask) {
    struct sigaction action;
    for (int sig = 1; sig < NSIG; ++sig) {
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        if (::sigaction(sig, nullptr, &action) != 0) continue;
        if (action.sa_handler == SIG_DFL || action.sa_handler == SIG_IGN) continue;
        action.sa_handler = SIG_DFL;
        action.sa_flags = 0;
        ::sigaction(sig, &action, nullptr);
    }
    action.sa_handler = SIG_DFL;
    action.sa_flags = 0;
    for (const int sig : spec.default_signals) ::sigaction(sig, &action, nullptr);
    if (spec.own_process_group) ::setpgid(0, 0);
    if (spec.die_with_parent && (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent))
        ::_exit(127);  // the parent is already gone
    const int targets[] = {spec.stdin_fd, spec.stdout_fd, spec.stderr_fd};
    for (int target = 0; target < 3; ++target) {
        if (targets[target] < 0) continue;
        const bool ok = targets[target] == target ? ::fcntl(target, F_SETFD, 0) == 0
                                                  : ::dup2(targets[target], target) == target;
        if (!ok) child_fails(report_fd, SpawnResult::Failed::start, 127);
    }
    if (spec.switch_user &&
        (::syscall(SYS_setgroups, 0, nullptr) != 0 || ::syscall(SYS_setgid, spec.gid) != 0 ||
         ::syscall(SYS_setuid, spec.uid) != 0))
        child_fails(report_fd, SpawnResult::Failed::user, 126);
    if (spec.cwd != nullptr && ::chdir(spec.cwd) != 0)
        child_fails(report_fd, SpawnResult::Failed::cwd, 127);
    if (spec.stop_on_exec && ::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) != 0)
        child_fails(report_fd, SpawnResult::Failed::start, 127);
    ::sigprocmask(SIG_SETMASK, &mask, nullptr);
    ::execve(program, spec.argv, spec.envp);
    child_fails(report_fd, SpawnResult::Failed::exec, 127);
}

// vfork returns twice: kept apart from everything the parent does afterwards.
__attribute__((noinline)) pid_t vfork_and_exec(const SpawnSpec& spec, const char* program,
                                               pid_t parent, int report_fd, const sigset_t& mask) {
    const pid_t pid = ::vfork();
    if (pid == 0) vfork_child(spec, program, parent, report_fd, mask);
    return pid;
}

// A traced child stops with SIGTRAP once its exec succeeded: detached there with SIGSTOP, it stays
// stopped at its first instruction until someone sends SIGCONT. Its stop is awaited too: until
// the child is scheduled again it is runnable ('R'), and on a busy host that lasted long enough for
// a tool told "launch complete" to see it so (1 run in 3 under a parallel build, 3 processes).
// Nothing else waits for this child meanwhile (the launcher reaps on the thread that spawns, and
// never asks for stops).
void hold_after_exec(SpawnResult& result) {
    int status = 0;
    bool reaped = false;
    auto stopped = [&](int flags) {
        pid_t got;
        while ((got = ::waitpid(result.pid, &status, flags)) < 0 && errno == EINTR) {
        }
        reaped = got != result.pid || !WIFSTOPPED(status);
        return !reaped;
    };
    if (stopped(__WALL) &&
        ::ptrace(PTRACE_DETACH, result.pid, nullptr, reinterpret_cast<void*>(SIGSTOP)) == 0 &&
        stopped(WUNTRACED))
        return;
    // It ended before its first instruction (killed meanwhile), or could not be held: no process.
    if (!reaped) {
        ::kill(result.pid, SIGKILL);
        while (::waitpid(result.pid, &status, __WALL) < 0 && errno == EINTR) {
        }
    }
    result.pid = -1;
    result.failed = SpawnResult::Failed::exec;
    result.error = ECHILD;
}

SpawnResult spawn_vfork(const SpawnSpec& spec, const char* program) {
    SpawnResult result;
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) {
        result.failed = SpawnResult::Failed::start;
        result.error = errno;
        return result;
    }
    sigset_t all, mask;
    sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &mask);
    const pid_t pid = vfork_and_exec(spec, program, ::getpid(), report[1], mask);
    const int vfork_error = errno;
    ::pthread_sigmask(SIG_SETMASK, &mask, nullptr);
    ::close(report[1]);
    ChildFailure failure{};
    ssize_t got = 0;
    if (pid > 0) {  // EOF once it exec'd (vfork: it has by now; a fork under TSan: we wait)
        do got = ::read(report[0], &failure, sizeof failure);
        while (got < 0 && errno == EINTR);
    }
    ::close(report[0]);
    if (pid < 0) {
        result.failed = SpawnResult::Failed::start;
        result.error = vfork_error;
    } else if (got == static_cast<ssize_t>(sizeof failure)) {
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        result.failed = failure.step;
        result.error = failure.error;
    } else {
        result.pid = pid;
        if (spec.stop_on_exec) hold_after_exec(result);
    }
    return result;
}

}  // namespace

std::string SpawnResult::message(const SpawnSpec& spec) const {
    const std::string program = spec.argv != nullptr && spec.argv[0] != nullptr ? spec.argv[0] : "";
    const std::string why = std::strerror(error);
    switch (failed) {
        case Failed::no:
            return "";
        case Failed::start:
            return "cannot start '" + program + "': " + why;
        case Failed::user:
            return "cannot become uid " + std::to_string(spec.uid) + " gid " +
                   std::to_string(spec.gid) + ": " + why;
        case Failed::cwd:
            return "cannot change to directory '" + std::string(spec.cwd ? spec.cwd : "") +
                   "': " + why;
        case Failed::exec:
            break;
    }
    return "cannot execute '" + program + "': " + why;
}

std::string find_program(const std::string& program, const char* path, const char* cwd) {
    if (program.empty()) return "";
    const std::string base =
        cwd != nullptr && *cwd != '\0' ? from_dir(our_directory(), cwd) : our_directory();
    if (program.find('/') != std::string::npos) {
        const std::string full = from_dir(base, program);
        return executable_file(full) ? full : "";
    }
    if (path == nullptr) path = std::getenv("PATH");
    const std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    for (size_t start = 0; start <= dirs.size();) {
        size_t end = dirs.find(':', start);
        if (end == std::string::npos) end = dirs.size();
        const std::string full = from_dir(from_dir(base, dirs.substr(start, end - start)), program);
        if (executable_file(full)) return full;
        start = end + 1;
    }
    const std::string here = from_dir(base, program);  // then the app's working directory
    return executable_file(here) ? here : "";
}

const char* path_in(char* const* envp) {
    for (char* const* entry = envp; entry != nullptr && *entry != nullptr; ++entry)
        if (std::strncmp(*entry, "PATH=", 5) == 0) return *entry + 5;
    return nullptr;
}

SpawnResult spawn_process(const SpawnSpec& spec) {
    SpawnResult result;
    if (spec.argv == nullptr || spec.argv[0] == nullptr) {
        result.failed = SpawnResult::Failed::exec;
        result.error = EINVAL;
        return result;
    }
    errno = 0;
    if (spec.cwd != nullptr && !is_directory(spec.cwd)) {
        result.failed = SpawnResult::Failed::cwd;
        result.error = errno != 0 ? errno : ENOTDIR;
        return result;
    }
    std::string program = find_program(spec.argv[0], path_in(spec.envp), spec.cwd);
    if (program.empty()) {
        result.failed = SpawnResult::Failed::exec;
        result.error = ENOENT;
        return result;
    }
    if (spec.die_with_parent || spec.switch_user || spec.stop_on_exec)
        return spawn_vfork(spec, program.c_str());
    // From the spawn thread (spawn_thread.h: the child's exec then closes a handful of descriptors,
    // not the ~3 per rank we hold), else from here.
    sigset_t mask;
    ::pthread_sigmask(SIG_BLOCK, nullptr, &mask);
    const auto posix = [&spec, &mask](const char* path, char* const* argv) {
        SpawnResult started;
#if !defined(__SANITIZE_THREAD__)
        // Not under ThreadSanitizer: it keeps one descriptor table per process and reports the
        // spawn thread's closes of its own (unshared) copies as races with the main thread.
        if (spawn_on_own_table(&spawn_posix, spec, path, argv, started)) return started;
#else
        (void)started;
#endif
        return spawn_posix(spec, path, argv, mask);
    };
    result = posix(program.c_str(), spec.argv);
    if (result.failed != SpawnResult::Failed::exec || result.error != ENOEXEC) return result;
    // An executable file without "#!": execvp runs it with /bin/sh, posix_spawn does not; the fork
    // path ran such scripts, so they still run.
    std::vector<char*> with_shell{const_cast<char*>("/bin/sh"), program.data()};
    for (char* const* arg = spec.argv + 1; *arg != nullptr; ++arg) with_shell.push_back(*arg);
    with_shell.push_back(nullptr);
    SpawnResult by_shell = posix("/bin/sh", with_shell.data());
    return by_shell.failed == SpawnResult::Failed::no ? by_shell : result;
}

}  // namespace pmix::launcher
