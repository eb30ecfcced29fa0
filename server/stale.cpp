// server/stale.cpp - at PMIx_server_init, removes what servers of this user that died without
// finalizing (kill -9, a crash) left behind. Every name involved carries its owner's pid:
//   /dev/shm/<prefix>-<pid>-<n>, /dev/shm/<prefix>-fb-<pid>-<n>   store segments, fence boards
//                                                                 (gds/backing_shm.cpp)
//   <tmpdir>/pmix-cpp.<host>.<pid>                                session directory (server.cpp)
//   /tmp/pmix-cpp.<pid>.XXXXXX                                    short socket directory
//   <tmpdir>/pmix.<host>.tool[.*], pmix.sys.<host>, ...           rendezvous files (the pid is
//                                                                 inside, wire/rendezvous.h)
//   <tmpdir>/pmix.<...>.tmp.<pid>                                 a rendezvous file not yet
//                                                                 renamed into place
// An entry is removed only when it belongs to this process's effective uid, its name has exactly
// that form (with this server's prefix and host name) and no process with that pid exists
// (kill(pid, 0); EPERM counts as alive). Never a live server's: at worst a dead server's pid
// reused by another process keeps its leftovers until that process ends too. Pids are those of
// this PID namespace: servers sharing /dev/shm across PID namespaces must use distinct prefixes
// (PMIX_CPP_GDS_PREFIX) and tmpdirs.
#include "server/board.h"
#include "server/state.h"
#include "server/stale.h"
#include "wire/rendezvous.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace pmix::server {

namespace {

namespace fs = std::filesystem;

bool all_digits(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

// A whole decimal pid, else 0.
int pid_of(std::string_view s) {
    if (!all_digits(s) || s.size() > 10) return 0;
    const long pid = std::strtol(std::string(s).c_str(), nullptr, 10);
    return pid > 0 && pid <= 0x7fffffff ? static_cast<int>(pid) : 0;
}

// A zombie is dead too: clients whose server was killed are reparented, and where nobody reaps
// them (a container's init that does not) kill(pid, 0) keeps answering for them.
bool zombie(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return false;
    const std::size_t close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

bool owned_by_dead(const fs::path& path, int pid) {
    struct stat st {};
    return pid > 0 && pid != ::getpid() && ::lstat(path.c_str(), &st) == 0 &&
           st.st_uid == ::geteuid() && (!wire::pid_alive(pid) || zombie(pid));
}

// "<stem>-<pid>-<n>" or "<stem>-fb-<pid>-<n>": the pid, else 0.
int segment_pid(std::string_view name, std::string_view stem) {
    if (name.substr(0, stem.size()) != stem || name.size() <= stem.size() + 1 ||
        name[stem.size()] != '-') {
        return 0;
    }
    std::string_view rest = name.substr(stem.size() + 1);
    if (rest.substr(0, 3) == "fb-") rest.remove_prefix(3);
    const std::size_t dash = rest.find('-');
    if (dash == std::string_view::npos || !all_digits(rest.substr(dash + 1))) return 0;
    return pid_of(rest.substr(0, dash));
}

// "pmix-cpp.<pid>.XXXXXX" (mkdtemp's six letters or digits, not all digits: a session
// directory "pmix-cpp.<host>.<pid>" of a host with a numeric name never matches): the pid.
int socket_dir_pid(std::string_view name) {
    constexpr std::string_view lead = "pmix-cpp.";
    if (name.substr(0, lead.size()) != lead) return 0;
    name.remove_prefix(lead.size());
    const std::size_t dot = name.find('.');
    if (dot == std::string_view::npos || name.size() - dot - 1 != 6) return 0;
    const std::string_view suffix = name.substr(dot + 1);
    for (char c : suffix) {
        if (!std::isalnum(static_cast<unsigned char>(c))) return 0;
    }
    return all_digits(suffix) ? 0 : pid_of(name.substr(0, dot));
}

int remove_stale_segments(const std::string& stem) {
    int removed = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev/shm", ec)) {
        const std::string name = e.path().filename().string();
        if (owned_by_dead(e.path(), segment_pid(name, stem))) {
            removed += ::shm_unlink(("/" + name).c_str()) == 0 ? 1 : 0;
        }
    }
    return removed;
}

// The directories of `dir` whose name `pid_in` reads a dead owner's pid from.
template <class PidIn>
int remove_stale_dirs(const std::string& dir, PidIn pid_in) {
    int removed = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const int pid = pid_in(e.path().filename().string());
        if (pid != 0 && !e.is_symlink(ec) && e.is_directory(ec) && owned_by_dead(e.path(), pid)) {
            removed += fs::remove_all(e.path(), ec) > 0 ? 1 : 0;
        }
    }
    return removed;
}

// "pmix.<...>.tmp.<pid>": a rendezvous file its writer was killed before renaming into place
// (wire::write_rendezvous writes there first); the pid, else 0.
int rendezvous_temp_pid(std::string_view name) {
    constexpr std::string_view lead = "pmix.", mark = ".tmp.";
    const std::size_t at = name.rfind(mark);
    if (name.substr(0, lead.size()) != lead || at == std::string_view::npos) return 0;
    return pid_of(name.substr(at + mark.size()));
}

int remove_stale_rendezvous_temps(const std::string& dir) {
    int removed = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const int pid = rendezvous_temp_pid(e.path().filename().string());
        if (pid != 0 && e.is_regular_file(ec) && owned_by_dead(e.path(), pid)) {
            removed += ::unlink(e.path().c_str()) == 0 ? 1 : 0;
        }
    }
    return removed;
}

// Rendezvous files (wire/rendezvous.h) in `dir` naming a dead server of this host, and the
// temporary files dead writers left.
int remove_stale_rendezvous(const std::string& dir, const std::string& host) {
    std::vector<std::string> files = wire::tool_files_in(dir, host);
    for (const std::string& f : {wire::system_file(dir, host), wire::scheduler_file(dir, host),
                                 wire::controller_file(dir, host)}) {
        files.push_back(f);
    }
    int removed = remove_stale_rendezvous_temps(dir);
    for (const std::string& f : files) {
        const auto r = wire::read_rendezvous(f);
        if (r.ok() && owned_by_dead(f, r.value.pid)) removed += ::unlink(f.c_str()) == 0 ? 1 : 0;
    }
    return removed;
}

}  // namespace

int remove_client_segments(const std::map<pid_t, uid_t>& owners) {
    if (owners.empty()) return 0;
    const std::string stem = shm_prefix().substr(1);
    int removed = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/dev/shm", ec)) {
        const std::string name = e.path().filename().string();
        const auto owner = owners.find(segment_pid(name, stem));
        struct stat st {};
        if (owner != owners.end() && owner->first > 0 && name.find("-fb-") == std::string::npos &&
            ::lstat(e.path().c_str(), &st) == 0 && st.st_uid == owner->second) {
            removed += ::shm_unlink(("/" + name).c_str()) == 0 ? 1 : 0;
        }
    }
    return removed;
}

int remove_client_segments(pid_t pid, uid_t uid) {
    return pid > 0 ? remove_client_segments(std::map<pid_t, uid_t>{{pid, uid}}) : 0;
}

void remove_stale_leftovers(const State& st, const std::string& system_tmpdir) {
    const int segments = remove_stale_segments(shm_prefix().substr(1));
    const std::string session_lead = "pmix-cpp." + st.hostname + ".";
    int dirs = remove_stale_dirs(st.tmpdir, [&](std::string_view name) {
        return name.substr(0, session_lead.size()) == session_lead
                   ? pid_of(name.substr(session_lead.size()))
                   : 0;
    });
    dirs += remove_stale_dirs("/tmp", socket_dir_pid);
    int files = remove_stale_rendezvous(st.tmpdir, st.hostname);
    if (system_tmpdir != st.tmpdir) files += remove_stale_rendezvous(system_tmpdir, st.hostname);
    if (segments + dirs + files > 0) {
        slog(exec::LogLevel::info, "removed what dead servers left: " + std::to_string(segments) +
                                       " shared-memory segment(s), " + std::to_string(dirs) +
                                       " session or socket directory(ies), " +
                                       std::to_string(files) + " rendezvous file(s)");
    }
}

}  // namespace pmix::server
