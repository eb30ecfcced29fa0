// tests/tools/host_process.cpp - see host_process.h.
#include "host_process.h"

#include <pmix_tool.h>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace tooltest {

HostProcess::HostProcess(std::vector<std::string> args) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, out[1], 2);  // PMIX_LOG_STDERR lands here too
    args.insert(args.begin(), TOOL_HOST_PATH);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, TOOL_HOST_PATH, &fa, nullptr, argv.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    in_ = in[1];
    out_ = out[0];
}

HostProcess::~HostProcess() { stop(std::chrono::seconds(10)); }

bool HostProcess::read_some(int timeout_ms) {
    if (out_ < 0) return false;
    pollfd p{out_, POLLIN, 0};
    if (poll(&p, 1, timeout_ms) <= 0) return true;  // nothing yet
    char buf[4096];
    const ssize_t n = read(out_, buf, sizeof(buf));
    if (n <= 0) {
        close(out_);
        out_ = -1;
        return false;
    }
    pending_.append(buf, static_cast<std::size_t>(n));
    for (auto nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n')) {
        lines_.push_back(pending_.substr(0, nl));
        pending_.erase(0, nl + 1);
    }
    return true;
}

std::string HostProcess::wait_line(const std::string& prefix, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        for (; scanned_ < lines_.size(); ++scanned_) {
            if (lines_[scanned_].rfind(prefix, 0) == 0) return lines_[scanned_++];
        }
        if (std::chrono::steady_clock::now() >= deadline) return {};
        if (!read_some(100)) {
            if (scanned_ >= lines_.size()) return {};
        }
    }
}

bool HostProcess::wait_ready(std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        for (const auto& l : lines_) {
            if (l.rfind("READY", 0) == 0) {
                const auto at = l.find("nspace=");
                nspace_ = l.substr(at + 7);
                return true;
            }
            if (l.rfind("INIT FAILED", 0) == 0) return false;
        }
        if (std::chrono::steady_clock::now() >= deadline || !read_some(100)) return false;
    }
}

int HostProcess::stop(std::chrono::seconds limit) {
    if (in_ >= 0) {
        close(in_);
        in_ = -1;
    }
    if (pid_ <= 0) return -1;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int status = 0;
    for (;;) {
        read_some(50);
        const pid_t r = waitpid(pid_, &status, WNOHANG);
        if (r == pid_) break;
        if (std::chrono::steady_clock::now() >= deadline) {
            kill(pid_, SIGKILL);
            waitpid(pid_, &status, 0);
            pid_ = -1;
            return -1;
        }
    }
    while (read_some(0)) {
        if (out_ < 0) break;
        pollfd p{out_, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0) break;
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

ScratchDir::ScratchDir() {
    char templ[] = "/tmp/pmix-tooltest.XXXXXX";
    if (mkdtemp(templ) != nullptr) path_ = templ;
}

ScratchDir::~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
}

std::vector<std::string> ScratchDir::entries() const {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(path_, ec)) {
        out.push_back(e.path().filename().string());
    }
    std::sort(out.begin(), out.end());
    return out;
}

std::string host_name() {
    char buf[256] = {};
    gethostname(buf, sizeof(buf) - 1);
    return buf;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

bool other_user(uid_t* uid, gid_t* gid) {
    passwd* pw = getpwnam("pmixtooltest");
    if (pw == nullptr && geteuid() == 0) {
        if (std::system("useradd --system --no-create-home --shell /usr/sbin/nologin pmixtooltest "
                        ">/dev/null 2>&1") != 0)
            return false;
        pw = getpwnam("pmixtooltest");
    }
    if (pw == nullptr) return false;
    *uid = pw->pw_uid;
    *gid = pw->pw_gid;
    return true;
}

// PMIx_tool_init in a child running as uid/gid; returns its status (or a code < -1000).
namespace {

// PMIx_tool_init (then finalize) in a forked child, optionally as another user; its status.
pmix_status_t init_forked(Infos& info, bool switch_user, uid_t uid, gid_t gid) {
    pid_t child = fork();
    if (child == 0) {
        if (switch_user && (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0))
            _exit(250);
        pmix_proc_t me;
        const pmix_status_t rc = PMIx_tool_init(&me, info.data(), info.size());
        if (rc == PMIX_SUCCESS) PMIx_tool_finalize();
        _exit(static_cast<unsigned char>(-rc));
    }
    int status = 0;
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 250) return -1001;
    return -static_cast<pmix_status_t>(WEXITSTATUS(status));
}

}  // namespace

pmix_status_t init_as(uid_t uid, gid_t gid, Infos& info) {
    return init_forked(info, true, uid, gid);
}

pmix_status_t init_in_child(Infos& info) { return init_forked(info, false, 0, 0); }

HeldTool::HeldTool(Infos& info, const std::function<bool(const pmix_proc_t&)>& check) {
    if (pipe(ready_) != 0 || pipe(go_) != 0) return;
    pid_ = fork();
    if (pid_ != 0) return;
    pmix_proc_t me;
    const pmix_status_t rc = PMIx_tool_init(&me, info.data(), info.size());
    const char ok = rc == PMIX_SUCCESS && (!check || check(me)) ? 'y' : 'n';
    if (write(ready_[1], &ok, 1) != 1) _exit(3);
    char c;
    if (read(go_[0], &c, 1) != 1) _exit(4);
    _exit(rc == PMIX_SUCCESS && PMIx_tool_finalize() == PMIX_SUCCESS ? 0 : 5);
}

HeldTool::~HeldTool() {
    if (pid_ > 0 && status_ == -1) release();
    for (int fd : {ready_[0], ready_[1], go_[0], go_[1]}) {
        if (fd >= 0) close(fd);
    }
}

bool HeldTool::ready() {
    char ok = 0;
    return pid_ > 0 && read(ready_[0], &ok, 1) == 1 && ok == 'y';
}

int HeldTool::release() {
    if (pid_ <= 0) return -1;
    if (write(go_[1], "x", 1) != 1) kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return status_;
}

}  // namespace tooltest
