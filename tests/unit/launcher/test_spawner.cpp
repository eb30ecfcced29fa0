// spawn_process (launcher/spawner.h), both ways it starts a process: posix_spawn, and vfork when
// the process must die with its parent or change user. Each test starts /bin/sh and checks what
// reached it: environment, working directory, stdin/stdout/stderr, process group, signals, ids,
// and how an exec that fails is reported (no child left behind).
#include "spawn_thread.h"
#include "spawner.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace pmix::launcher {
namespace {

struct Strings {
    explicit Strings(std::vector<std::string> words) : text(std::move(words)) {
        for (std::string& word : text) pointers.push_back(word.data());
        pointers.push_back(nullptr);
    }
    std::vector<std::string> text;
    std::vector<char*> pointers;
    char* const* get() const { return pointers.data(); }
};

struct Ran {
    SpawnResult result;
    std::string out, err;
    int status = -1;
};

std::string read_all(int fd) {
    std::string text;
    char chunk[4096];
    for (ssize_t got; (got = ::read(fd, chunk, sizeof chunk)) != 0;) {
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) break;
        text.append(chunk, static_cast<size_t>(got));
    }
    return text;
}

// Runs `argv` with `env` as `spec` says (its descriptors set here), its stdin fed `input`; waits.
Ran run(SpawnSpec spec, const Strings& argv, const Strings& env, const std::string& input = "") {
    int in[2], out[2], err[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    spec.argv = argv.get();
    spec.envp = env.get();
    spec.stdin_fd = in[0];
    spec.stdout_fd = out[1];
    spec.stderr_fd = err[1];
    Ran ran;
    ran.result = spawn_process(spec);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (!input.empty()) {
        EXPECT_EQ(::write(in[1], input.data(), input.size()), ssize_t(input.size()));
    }
    ::close(in[1]);
    ran.out = read_all(out[0]);
    ran.err = read_all(err[0]);
    ::close(out[0]);
    ::close(err[0]);
    if (ran.result.pid > 0) {
        EXPECT_EQ(::waitpid(ran.result.pid, &ran.status, 0), ran.result.pid);
    }
    return ran;
}

const Strings kShellEnv({"SPAWNER_TEST=forty two", "PATH=/usr/bin:/bin"});

// What a shell prints about itself: its environment variable, stdin, cwd, process group, pid.
const Strings kReport({"/bin/sh", "-c",
                       "echo \"$SPAWNER_TEST\"; read line; echo \"$line\"; pwd; "
                       "read -r pid comm state ppid pgrp rest < /proc/$$/stat; echo $pgrp $$; "
                       "echo to-stderr >&2"});

std::string cwd() {
    char path[PATH_MAX] = {};
    return ::getcwd(path, sizeof path) != nullptr ? path : "";
}

void expect_report(const Ran& ran) {
    ASSERT_GT(ran.result.pid, 0) << ran.result.message(SpawnSpec{});
    EXPECT_TRUE(WIFEXITED(ran.status) && WEXITSTATUS(ran.status) == 0) << ran.status;
    const std::string pid = std::to_string(ran.result.pid);
    EXPECT_EQ(ran.out, "forty two\nfrom stdin\n" + cwd() + "\n" + pid + " " + pid + "\n");
    EXPECT_EQ(ran.err, "to-stderr\n");
}

TEST(Spawner, PosixSpawnGivesEnvironmentCwdPipesAndOwnGroup) {
    expect_report(run(SpawnSpec{}, kReport, kShellEnv, "from stdin\n"));
}

// The thread posix_spawn runs on (spawn_thread.h) has its own descriptor table, so a signal
// handler must never run there (pmixrun's write to its self-pipe would hit another descriptor):
// it blocks every signal, and the child still starts with the caller's mask.
TEST(Spawner, TheSpawnThreadTakesNoSignals) {
#if defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "no spawn thread under ThreadSanitizer (spawner.cpp)";
#endif
    const Ran ran = run(SpawnSpec{}, kReport, kShellEnv, "from stdin\n");
    expect_report(ran);
    bool found = false;
    for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
        std::ifstream comm(task.path() / "comm");
        std::string name;
        std::getline(comm, name);
        if (name != kSpawnThreadName) continue;
        found = true;
        std::ifstream status(task.path() / "status");
        std::string line;
        unsigned long long blocked = 0;
        while (std::getline(status, line)) {
            if (line.rfind("SigBlk:", 0) == 0) blocked = std::stoull(line.substr(7), nullptr, 16);
        }
        for (int sig : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGPIPE}) {
            EXPECT_NE(blocked & (1ull << (sig - 1)), 0u) << "signal " << sig << " not blocked";
        }
    }
    EXPECT_TRUE(found) << "no thread named " << kSpawnThreadName;
}

TEST(Spawner, VforkGivesTheSameWhenTheProcessDiesWithItsParent) {
    SpawnSpec spec;
    spec.die_with_parent = true;
    expect_report(run(spec, kReport, kShellEnv, "from stdin\n"));
}

// Our handler for SIGTERM is not the process's: it starts with the default action (and SIGINT,
// which we ignore here, is reset as asked), both ways.
// die_with_parent (pmixd's ranks): a process whose parent exits is killed. The parent here is an
// intermediate child that spawns `sleep` and exits; the sleep must be gone soon after.
TEST(Spawner, DiesWithItsParent) {
    int report[2];
    ASSERT_EQ(::pipe(report), 0);
    const pid_t middle = ::fork();
    ASSERT_GE(middle, 0);
    if (middle == 0) {
        ::close(report[0]);
        const Strings argv({"/bin/sleep", "30"});
        SpawnSpec spec;
        spec.argv = argv.get();
        spec.envp = kShellEnv.get();
        spec.die_with_parent = true;
        const pid_t pid = spawn_process(spec).pid;
        ::_exit(::write(report[1], &pid, sizeof pid) == sizeof pid ? 0 : 1);
    }
    ::close(report[1]);
    pid_t sleeper = -1;
    ASSERT_EQ(::read(report[0], &sleeper, sizeof sleeper), ssize_t(sizeof sleeper));
    ::close(report[0]);
    ASSERT_GT(sleeper, 0);
    int status = 0;
    ASSERT_EQ(::waitpid(middle, &status, 0), middle);
    // Reparented and killed: gone (or a zombie until its new parent reaps it) within 10 s.
    bool gone = false;
    for (int i = 0; i < 1000 && !gone; ++i) {
        std::ifstream stat("/proc/" + std::to_string(sleeper) + "/stat");
        std::string pid_field, comm, state;
        gone = !(stat >> pid_field >> comm >> state) || state == "Z";
        if (!gone) ::usleep(10000);
    }
    EXPECT_TRUE(gone);
    if (!gone) ::kill(sleeper, SIGKILL);
}

TEST(Spawner, CaughtAndListedSignalsStartAtTheirDefault) {
    struct sigaction ignore {
    }, caught{}, saved_int{}, saved_term{};
    ignore.sa_handler = SIG_IGN;
    caught.sa_handler = [](int) {};
    ASSERT_EQ(::sigaction(SIGINT, &ignore, &saved_int), 0);
    ASSERT_EQ(::sigaction(SIGTERM, &caught, &saved_term), 0);
    // SigIgn and SigCgt of /proc/self/status, in hex: bit (sig - 1).
    const Strings show({"/bin/sh", "-c", "grep -E '^Sig(Ign|Cgt)' /proc/$$/status"});
    for (bool vfork_path : {false, true}) {
        SpawnSpec spec;
        spec.die_with_parent = vfork_path;
        spec.default_signals = {SIGINT, SIGTERM};
        const Ran ran = run(spec, show, kShellEnv);
        ASSERT_GT(ran.result.pid, 0);
        const size_t ign = ran.out.find("SigIgn:");
        ASSERT_NE(ign, std::string::npos) << ran.out;
        const unsigned long ignored = std::stoul(ran.out.substr(ign + 7), nullptr, 16);
        EXPECT_EQ(ignored & (1ul << (SIGINT - 1)), 0u) << ran.out << " vfork " << vfork_path;
    }
    ::sigaction(SIGINT, &saved_int, nullptr);
    ::sigaction(SIGTERM, &saved_term, nullptr);
}

TEST(Spawner, MissingProgramIsReportedByNameBothWays) {
    const Strings missing({"spawner-test-no-such-program", "x"});
    for (bool vfork_path : {false, true}) {
        SpawnSpec spec;
        spec.die_with_parent = vfork_path;
        const Ran ran = run(spec, missing, kShellEnv);
        EXPECT_EQ(ran.result.pid, -1);
        EXPECT_EQ(ran.result.failed, SpawnResult::Failed::exec);
        EXPECT_EQ(ran.result.error, ENOENT);
        SpawnSpec named;
        named.argv = missing.get();
        EXPECT_EQ(ran.result.message(named),
                  "cannot execute 'spawner-test-no-such-program': No such file or directory");
        EXPECT_EQ(ran.out, "");
    }
    errno = 0;
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);  // the failed child was reaped
    EXPECT_EQ(errno, ECHILD);
}

// SpawnSpec::cwd (pmixrun --wdir, pmix_app_t.cwd): the process starts there, and a relative
// program is found there; a directory that is not there is reported by name, no child left.
TEST(Spawner, StartsInItsDirectoryOrSaysWhichIsMissingBothWays) {
    const Strings pwd({"/bin/sh", "-c", "pwd"});
    const Strings relative({"./bin/sh", "-c", "pwd"});
    for (bool vfork_path : {false, true}) {
        SpawnSpec spec;
        spec.die_with_parent = vfork_path;
        spec.cwd = "/";
        const Ran ran = run(spec, pwd, kShellEnv);
        ASSERT_GT(ran.result.pid, 0) << ran.result.message(spec);
        EXPECT_EQ(ran.out, "/\n");
        const Ran found_there = run(spec, relative, kShellEnv);
        ASSERT_GT(found_there.result.pid, 0) << found_there.result.message(spec);
        EXPECT_EQ(found_there.out, "/\n");
        spec.cwd = "/spawner-test-no-such-directory";
        const Ran missing = run(spec, pwd, kShellEnv);
        EXPECT_EQ(missing.result.pid, -1);
        EXPECT_EQ(missing.result.failed, SpawnResult::Failed::cwd);
        spec.argv = pwd.get();
        EXPECT_EQ(missing.result.message(spec),
                  "cannot change to directory '/spawner-test-no-such-directory': No such file or "
                  "directory");
        EXPECT_EQ(missing.out, "");
    }
    errno = 0;
    EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1);  // the failed children were reaped
    EXPECT_EQ(errno, ECHILD);
}

char proc_state(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const size_t after = line.rfind(')');
    return after == std::string::npos || after + 2 >= line.size() ? '?' : line[after + 2];
}

// PMIX_DEBUG_STOP_ON_EXEC: the process is stopped ('T') when spawn_process returns, before its
// program ran a single instruction, and runs to its end on SIGCONT.
TEST(Spawner, StopOnExecHoldsTheProcessUntilSigcont) {
    const Strings argv({"/bin/sh", "-c", "exit 7"});
    SpawnSpec spec;
    spec.argv = argv.get();
    spec.envp = kShellEnv.get();
    spec.stop_on_exec = true;
    const SpawnResult started = spawn_process(spec);
    ASSERT_GT(started.pid, 0) << started.message(spec);
    EXPECT_EQ(proc_state(started.pid), 'T');
    int status = 0;
    EXPECT_EQ(::waitpid(started.pid, &status, WNOHANG), 0);  // held, not ended
    ASSERT_EQ(::kill(started.pid, SIGCONT), 0);
    ASSERT_EQ(::waitpid(started.pid, &status, 0), started.pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 7);
    // A program that cannot be executed is reported as without the stop.
    const Strings missing({"spawner-test-no-such-program"});
    spec.argv = missing.get();
    const SpawnResult failed = spawn_process(spec);
    EXPECT_EQ(failed.pid, -1);
    EXPECT_EQ(failed.failed, SpawnResult::Failed::exec);
    EXPECT_EQ(failed.error, ENOENT);
}

class SpawnerFiles : public ::testing::Test {
protected:
    void SetUp() override {
        char name[] = "/tmp/spawner-test.XXXXXX";
        ASSERT_NE(::mkdtemp(name), nullptr);
        dir_ = name;
    }
    void TearDown() override { (void)std::system(("rm -rf " + dir_).c_str()); }
    std::string write(const std::string& name, const std::string& text) {
        const std::string path = dir_ + "/" + name;
        std::ofstream(path) << text;
        ::chmod(path.c_str(), 0755);
        return path;
    }
    std::string dir_;
};

// An interpreter that does not exist: the file is executable, its exec fails (ENOENT).
TEST_F(SpawnerFiles, ExecFailureOfAnExistingFileIsReported) {
    const std::string path = write("bad-interpreter", "#!/spawner-test/no-interpreter\n");
    const Strings argv({path});
    const Ran ran = run(SpawnSpec{}, argv, kShellEnv);
    EXPECT_EQ(ran.result.failed, SpawnResult::Failed::exec);
    SpawnSpec named;
    named.argv = argv.get();
    EXPECT_EQ(ran.result.message(named),
              "cannot execute '" + path + "': No such file or directory");
}

// A script without "#!" runs with /bin/sh, as execvp runs it.
TEST_F(SpawnerFiles, ScriptWithoutInterpreterLineRunsWithTheShell) {
    const std::string path = write("plain-script", "echo \"plain $1 $SPAWNER_TEST\"\n");
    const Ran ran = run(SpawnSpec{}, Strings({path, "arg"}), kShellEnv);
    ASSERT_GT(ran.result.pid, 0) << ran.result.error;
    EXPECT_EQ(ran.out, "plain arg forty two\n");
}

// The app's program as OpenPMIx and prte find it: a relative name with a '/' from the app's
// directory; a bare name in the app's PATH first, then in its directory; "" when not there.
TEST_F(SpawnerFiles, FindProgramLooksInPathThenInTheWorkingDirectory) {
    ASSERT_EQ(::mkdir((dir_ + "/bin").c_str(), 0755), 0);
    const std::string here = write("prog", "#!/bin/sh\necho here\n");
    const std::string in_path = write("bin/prog", "#!/bin/sh\necho in-path\n");
    write("not-executable", "x");
    ::chmod((dir_ + "/not-executable").c_str(), 0644);
    const std::string bin = dir_ + "/bin";
    EXPECT_EQ(find_program("prog", "/usr/bin:/bin", dir_.c_str()), here);
    EXPECT_EQ(find_program("prog", bin.c_str(), dir_.c_str()), in_path);  // PATH first
    EXPECT_EQ(find_program("./prog", bin.c_str(), dir_.c_str()), here);
    EXPECT_EQ(find_program("bin/prog", "/usr/bin", dir_.c_str()), in_path);
    EXPECT_EQ(find_program("prog", "bin", dir_.c_str()), in_path);  // a relative PATH entry
    EXPECT_EQ(find_program("./prog", nullptr, "/"), "");
    EXPECT_EQ(find_program("not-executable", "/usr/bin", dir_.c_str()), "");
    EXPECT_EQ(find_program("sh", "/bin", "/"), "/bin/sh");
    const Strings env({"A=1", "PATH=/x:" + bin});
    EXPECT_STREQ(path_in(env.get()), ("/x:" + bin).c_str());
    EXPECT_EQ(path_in(kReport.get()), nullptr);
}

// spawn_process starts the program find_program gives, in its directory, both ways: a bare name
// that is only in the working directory runs (not one of our PATH or our directory).
TEST_F(SpawnerFiles, SpawnRunsTheProgramOfItsWorkingDirectoryBothWays) {
    write("spawner-test-here", "#!/bin/sh\necho \"ran in $(pwd)\"\n");
    for (bool vfork_path : {false, true}) {
        SpawnSpec spec;
        spec.die_with_parent = vfork_path;
        spec.cwd = dir_.c_str();
        for (const char* name : {"spawner-test-here", "./spawner-test-here"}) {
            const Ran ran = run(spec, Strings({name}), kShellEnv);
            ASSERT_GT(ran.result.pid, 0) << ran.result.message(spec);
            EXPECT_EQ(ran.out, "ran in " + dir_ + "\n");
        }
        spec.cwd = "/";
        const Ran elsewhere = run(spec, Strings({"spawner-test-here"}), kShellEnv);
        EXPECT_EQ(elsewhere.result.pid, -1);
        EXPECT_EQ(elsewhere.result.error, ENOENT);
    }
}

// --user: as root the process runs with the ids asked for and no supplementary group; without the
// privilege the change fails and that is reported (status 126 is the launcher's).
TEST(Spawner, SwitchUserChangesIdsOrReportsWhy) {
    SpawnSpec spec;
    spec.switch_user = true;
    spec.uid = ::geteuid() == 0 ? 65534 : ::geteuid();
    spec.gid = ::geteuid() == 0 ? 65534 : ::getegid();
    const Ran ran = run(spec, Strings({"/bin/sh", "-c", "id -u; id -g; id -G"}), kShellEnv);
    if (::geteuid() != 0) {
        EXPECT_EQ(ran.result.failed, SpawnResult::Failed::user);
        EXPECT_EQ(ran.result.error, EPERM);
        return;
    }
    ASSERT_GT(ran.result.pid, 0);
    EXPECT_EQ(ran.out, "65534\n65534\n65534\n");
    EXPECT_EQ(::getuid(), 0u);  // only the child changed
}

}  // namespace
}  // namespace pmix::launcher
