// tests/tools/host_process.h - runs tool_host as a child: start, wait for READY, read what
// it prints (stdout and stderr, one pipe), stop (stdin closed, then SIGKILL after a deadline). Nothing outlives the object.
#pragma once

#include <sys/types.h>

#include <chrono>
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

}  // namespace tooltest
