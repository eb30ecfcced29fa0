// wire/rendezvous.cpp - see rendezvous.h.
#include "wire/rendezvous.h"
#include "wire/tcp_socket.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_version.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace pmix::wire {

namespace {

constexpr char kScheme[] = ";unix:";
constexpr std::size_t kMaxFileBytes = 4096;  // ours are ~150 bytes; anything larger is not one

bool parse_u64(const std::string& s, unsigned long long max, unsigned long long* out) {
    if (s.empty() || s.size() > 20 || !std::all_of(s.begin(), s.end(), ::isdigit)) return false;
    errno = 0;
    unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
    if (errno != 0 || v > max) return false;
    *out = v;
    return true;
}

}  // namespace

bool make_dirs(const std::string& dir, std::vector<std::string>* created) {
    if (dir.empty()) return true;
    struct stat sb {};
    if (::stat(dir.c_str(), &sb) == 0) return S_ISDIR(sb.st_mode);
    const auto slash = dir.find_last_of('/');
    if (slash != std::string::npos && slash > 0 && !make_dirs(dir.substr(0, slash), created)) {
        return false;
    }
    if (::mkdir(dir.c_str(), 0700) != 0) return errno == EEXIST;
    if (created != nullptr) created->push_back(dir);
    return true;
}

namespace {

std::string parent_of(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

std::string make_uri(const std::string& nspace, pmix_rank_t rank, const std::string& socket) {
    return nspace + "." + std::to_string(rank) + kScheme + socket;
}

Result<Rendezvous> parse_uri(const std::string& uri) {
    if (is_tcp_uri(uri)) {  // bare: the server's identity comes with its answer
        auto a = parse_tcp_uri(uri);
        if (!a.ok()) return Result<Rendezvous>::failure(a.status, a.error);
        Rendezvous r;
        r.uri = uri;
        r.socket = uri;
        return Result<Rendezvous>::success(std::move(r));
    }
    const auto tcp_at = uri.find(";tcp");
    const bool tcp = tcp_at != std::string::npos && is_tcp_uri(uri.substr(tcp_at + 1));
    const auto semi = tcp ? tcp_at : uri.find(kScheme);
    if (semi == std::string::npos) {
        return Result<Rendezvous>::failure(
            PMIX_ERR_BAD_PARAM,
            "not a '<nspace>.<rank>;unix:<path>' or '...;tcp4://<ip>:<port>' URI: " + uri);
    }
    const std::string who = uri.substr(0, semi);
    const auto dot = who.find_last_of('.');
    unsigned long long rank = 0;
    if (dot == std::string::npos || dot == 0 || dot > PMIX_MAX_NSLEN ||
        !parse_u64(who.substr(dot + 1), PMIX_RANK_VALID, &rank)) {
        return Result<Rendezvous>::failure(PMIX_ERR_BAD_PARAM, "bad '<nspace>.<rank>' in " + uri);
    }
    Rendezvous r;
    r.uri = uri;
    r.nspace = who.substr(0, dot);
    r.rank = static_cast<pmix_rank_t>(rank);
    if (tcp) {
        r.socket = uri.substr(semi + 1);
        auto a = parse_tcp_uri(r.socket);
        if (!a.ok()) return Result<Rendezvous>::failure(a.status, a.error);
        return Result<Rendezvous>::success(std::move(r));
    }
    r.socket = uri.substr(semi + sizeof(kScheme) - 1);
    if (r.socket.empty() || r.socket[0] != '/') {
        return Result<Rendezvous>::failure(PMIX_ERR_BAD_PARAM,
                                           "the socket path must be absolute: " + uri);
    }
    return Result<Rendezvous>::success(std::move(r));
}

std::string format_rendezvous(const Rendezvous& r) {
    std::ostringstream out;
    out << r.uri << '\n'
        << (r.version.empty()
                ? std::to_string(PMIX_VERSION_MAJOR) + "." + std::to_string(PMIX_VERSION_MINOR) +
                      "." + std::to_string(PMIX_VERSION_RELEASE)
                : r.version)
        << '\n'
        << r.pid << '\n'
        << r.uid << ':' << r.gid << '\n';
    if (!r.host.empty()) out << "host:" << r.host << '\n';
    if (!r.tcp_uri.empty()) out << "tcp:" << r.tcp_uri << '\n' << "secret:" << r.secret << '\n';
    return out.str();
}

Result<Rendezvous> parse_rendezvous(const std::string& text) {
    using R = Result<Rendezvous>;
    std::istringstream in(text);
    std::string uri, version, pid, ids;
    if (!std::getline(in, uri) || !std::getline(in, version) || !std::getline(in, pid) ||
        !std::getline(in, ids)) {
        return R::failure(PMIX_ERR_BAD_PARAM, "truncated rendezvous file (4 lines expected)");
    }
    auto parsed = parse_uri(uri);
    if (!parsed.ok()) return parsed;
    Rendezvous r = std::move(parsed.value);
    r.version = version;
    unsigned long long p = 0, uid = 0, gid = 0;
    const auto colon = ids.find(':');
    if (!parse_u64(pid, 0x7fffffff, &p) || p == 0 || colon == std::string::npos ||
        !parse_u64(ids.substr(0, colon), 0xffffffffu, &uid) ||
        !parse_u64(ids.substr(colon + 1), 0xffffffffu, &gid)) {
        return R::failure(PMIX_ERR_BAD_PARAM, "bad pid or uid:gid line in rendezvous file");
    }
    r.pid = static_cast<std::int32_t>(p);
    r.uid = static_cast<std::uint32_t>(uid);
    r.gid = static_cast<std::uint32_t>(gid);
    for (std::string line; std::getline(in, line);) {
        const auto colon = line.find(':');
        const std::string name = line.substr(0, colon),
                          value = colon == std::string::npos ? "" : line.substr(colon + 1);
        if (name == "host") r.host = value;
        if (name == "secret") r.secret = value;
        if (name == "tcp") {
            auto t = parse_uri(value);
            if (!t.ok() || !is_tcp_uri(t.value.socket)) {
                return R::failure(PMIX_ERR_BAD_PARAM, "bad tcp line in rendezvous file: " + value);
            }
            r.tcp_uri = value;
        }
    }
    if (!r.tcp_uri.empty() && r.secret.empty()) {
        return R::failure(PMIX_ERR_BAD_PARAM, "rendezvous file gives a tcp URI without its secret");
    }
    return R::success(std::move(r));
}

Result<Rendezvous> read_rendezvous(const std::string& path) {
    using R = Result<Rendezvous>;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        const int e = errno;
        if (e == ENOENT || e == ENOTDIR) return R::failure(PMIX_ERR_NOT_FOUND, "no file " + path);
        if (e == EACCES || e == EPERM) {
            return R::failure(PMIX_ERR_NO_PERMISSIONS, "not allowed to read " + path);
        }
        return R::failure(PMIX_ERR_FILE_OPEN_FAILURE, path + ": " + std::strerror(e));
    }
    std::string text(kMaxFileBytes + 1, '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    ::close(fd);
    if (got > kMaxFileBytes) return R::failure(PMIX_ERR_BAD_PARAM, path + " is too large");
    text.resize(got);
    auto r = parse_rendezvous(text);
    if (!r.ok()) r.error = path + ": " + r.error;
    return r;
}

bool pid_alive(std::int32_t pid) noexcept {
    return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM);
}

Result<bool> write_rendezvous(const std::string& path, const Rendezvous& r,
                              std::vector<std::string>* created_dirs) {
    using R = Result<bool>;
    if (auto old = read_rendezvous(path); old.ok()) {
        const bool ours = old.value.pid == ::getpid();
        if (!ours && pid_alive(old.value.pid)) {
            return R::failure(PMIX_ERR_EXISTS, path + " belongs to a live server (pid " +
                                                   std::to_string(old.value.pid) + ")");
        }
    }
    if (!make_dirs(parent_of(path), created_dirs)) {
        return R::failure(PMIX_ERR_FILE_OPEN_FAILURE,
                          "cannot create " + parent_of(path) + ": " + std::strerror(errno));
    }
    const std::string tmp = path + ".tmp." + std::to_string(::getpid());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        return R::failure(PMIX_ERR_FILE_OPEN_FAILURE, tmp + ": " + std::strerror(errno));
    }
    const std::string text = format_rendezvous(r);
    const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    ::fchmod(fd, 0600);  // whatever the umask says
    ::close(fd);
    if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        return R::failure(PMIX_ERR_FILE_WRITE_FAILURE, path + ": " + std::strerror(e));
    }
    return R::success(true);
}

void remove_rendezvous(const std::string& path) {
    if (auto r = read_rendezvous(path); r.ok() && r.value.pid == ::getpid()) {
        ::unlink(path.c_str());
    }
}

std::string pick_tmpdir(const char* given, const char* env_name) {
    if (given != nullptr && *given != '\0') return given;
    for (const char* name : {env_name, "TMPDIR", "TEMP", "TMP"}) {
        if (name == nullptr) continue;
        if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return v;
    }
    return "/tmp";
}

std::string tool_file_by_pid(const std::string& dir, const std::string& host, std::int32_t pid) {
    return dir + "/pmix." + host + ".tool." + std::to_string(pid);
}
std::string tool_file_by_nspace(const std::string& dir, const std::string& host,
                                const std::string& nspace) {
    return dir + "/pmix." + host + ".tool." + nspace;
}
std::string session_file(const std::string& dir, const std::string& host) {
    return dir + "/pmix." + host + ".tool";
}
std::string system_file(const std::string& dir, const std::string& host) {
    return dir + "/pmix.sys." + host;
}
std::string scheduler_file(const std::string& dir, const std::string& host) {
    return dir + "/pmix.sched." + host;
}
std::string controller_file(const std::string& dir, const std::string& host) {
    return dir + "/pmix.sysctrlr." + host;
}

std::vector<std::string> tool_files_in(const std::string& dir, const std::string& host) {
    std::vector<std::string> out;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return out;
    const std::string session = "pmix." + host + ".tool";
    const std::string prefix = session + ".";
    bool has_session = false;
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name == session) {
            has_session = true;
        } else if (name.compare(0, prefix.size(), prefix) == 0 &&
                   name.find(".tmp.") == std::string::npos) {
            out.push_back(dir + "/" + name);
        }
    }
    ::closedir(d);
    std::sort(out.begin(), out.end());
    if (has_session) out.insert(out.begin(), dir + "/" + session);
    return out;
}

}  // namespace pmix::wire
