// tests/tools/host_process.h - runs tool_host as a child: start, wait for READY, read what
// it prints (stdout and stderr, one pipe), stop (stdin closed, then SIGKILL after a deadline).
// Nothing outlives the object.
#pragma once

#include <pmix_common.h>

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace tooltest {

class HostProcess {
public:
    explicit HostProcess(std::vector<std::string> args);
    ~HostProcess();
    HostProcess(const HostProcess&) = delete;
    HostProcess& operator=(const HostProcess&) = delete;

    // Waits for the READY line (false on INIT FAILED, exit or timeout; `line` says which).
    bool wait_ready(std::chrono::seconds limit = std::chrono::seconds(20));
    // Waits until a printed line starts with `prefix`; returns it (empty on timeout or exit).
    std::string wait_line(const std::string& prefix,
                          std::chrono::seconds limit = std::chrono::seconds(10));
    // Closes stdin, waits for the exit (kills after `limit`); returns the exit status or -1.
    int stop(std::chrono::seconds limit = std::chrono::seconds(20));

    pid_t pid() const { return pid_; }
    const std::string& nspace() const { return nspace_; }
    const std::vector<std::string>& lines() const { return lines_; }

private:
    bool read_some(int timeout_ms);
    pid_t pid_ = -1;
    int in_ = -1, out_ = -1;
    std::string pending_, nspace_;
    std::vector<std::string> lines_;
    std::size_t scanned_ = 0;
};

// A fresh directory under /tmp, removed (with everything in it) by the destructor.
class ScratchDir {
public:
    ScratchDir();
    ~ScratchDir();
    const std::string& path() const { return path_; }
    std::vector<std::string> entries() const;  // names, sorted
private:
    std::string path_;
};

// An info list built for one call.
struct Infos {
    std::vector<pmix_info_t> v;
    Infos& str(const char* key, const std::string& value) {
        v.emplace_back();
        PMIX_INFO_LOAD(&v.back(), key, value.c_str(), PMIX_STRING);
        return *this;
    }
    Infos& flag(const char* key) {
        v.emplace_back();
        bool yes = true;
        PMIX_INFO_LOAD(&v.back(), key, &yes, PMIX_BOOL);
        return *this;
    }
    Infos& u32(const char* key, uint32_t value) {
        v.emplace_back();
        PMIX_INFO_LOAD(&v.back(), key, &value, PMIX_UINT32);
        return *this;
    }
    Infos& pid(pid_t value) {
        v.emplace_back();
        PMIX_INFO_LOAD(&v.back(), PMIX_SERVER_PIDINFO, &value, PMIX_PID);
        return *this;
    }
    ~Infos() {
        for (auto& i : v) PMIX_INFO_DESTRUCT(&i);
    }
    pmix_info_t* data() { return v.empty() ? nullptr : v.data(); }
    size_t size() const { return v.size(); }
};

// This machine's host name; a whole file as a string (empty if unreadable).
std::string host_name();
std::string read_file(const std::string& path);

// A second Unix user "pmixtooltest" (created on first use when root; CI runs as root).
bool other_user(uid_t* uid, gid_t* gid);

// PMIx_tool_init in a forked child running as uid/gid; returns its status (or < -1000 when the
// child could not become that user or died).
pmix_status_t init_as(uid_t uid, gid_t gid, Infos& info);
// The same as this user.
pmix_status_t init_in_child(Infos& info);

// A tool held by a forked child (a forked copy of an initialised tool would share its state):
// it runs PMIx_tool_init with `info` (and `check` on the identity it got), then waits until
// release(), finalizes and exits 0 when everything went well.
class HeldTool {
public:
    explicit HeldTool(Infos& info, const std::function<bool(const pmix_proc_t&)>& check = {});
    ~HeldTool();
    HeldTool(const HeldTool&) = delete;
    HeldTool& operator=(const HeldTool&) = delete;
    bool ready();   // waits for its init: true when it succeeded and `check` held
    int release();  // lets it finalize; its exit status
    pid_t pid() const { return pid_; }

private:
    pid_t pid_ = -1;
    int ready_[2] = {-1, -1}, go_[2] = {-1, -1};
    int status_ = -1;
};

}  // namespace tooltest
