// server/job_access.cpp - see job_access.h.
#include "server/job_access.h"

#include "server/state.h"

#include "data/value.h"
#include "wire/unix_socket.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <vector>

namespace pmix::server {

namespace {

// The Standard types PMIX_USERID, PMIX_GRPID and PMIX_SOCKET_MODE as uint32_t; hosts are not
// all that careful, so any non-negative integer is taken.
std::optional<std::uint32_t> as_u32(const pmix_value_t& v) {
    switch (v.type) {
        case PMIX_UINT32:
            return v.data.uint32;
        case PMIX_UINT:
            return static_cast<std::uint32_t>(v.data.uint);
        case PMIX_UINT16:
            return v.data.uint16;
        case PMIX_UINT64:
            if (v.data.uint64 <= 0xffffffffu) return static_cast<std::uint32_t>(v.data.uint64);
            return std::nullopt;
        case PMIX_INT:
            if (v.data.integer >= 0) return static_cast<std::uint32_t>(v.data.integer);
            return std::nullopt;
        case PMIX_INT32:
            if (v.data.int32 >= 0) return static_cast<std::uint32_t>(v.data.int32);
            return std::nullopt;
        default:
            return std::nullopt;
    }
}

std::optional<std::uint32_t> job_number(const Registration& reg, const char* key) {
    auto it = reg.job.find(key);
    return it == reg.job.end() ? std::nullopt : as_u32(it->second.get());
}

std::string parent_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

std::string errno_text(const std::string& what) { return what + ": " + std::strerror(errno); }

// Adds `bits` to a directory's mode (never removes any).
bool add_mode_bits(const std::string& dir, mode_t bits) {
    struct stat sb {};
    if (::stat(dir.c_str(), &sb) != 0) return false;
    return (sb.st_mode & bits) == bits || ::chmod(dir.c_str(), (sb.st_mode & 07777) | bits) == 0;
}

// The levels a job's process walks through to its socket, made by this server: the socket's
// directory and, when that is the session directory, the tmpdir levels we created.
std::vector<std::string> walked_dirs(const State& st) {
    std::vector<std::string> dirs{parent_of(st.socket_path)};
    if (st.socket_dir.empty())
        dirs.insert(dirs.end(), st.created_tmpdirs.begin(), st.created_tmpdirs.end());
    return dirs;
}

bool foreign(uid_t uid, gid_t gid) { return uid != ::geteuid() || gid != ::getegid(); }

// A uid given without its group: the user's primary group.
std::optional<gid_t> primary_group(uid_t uid) {
    struct passwd pw {};
    struct passwd* found = nullptr;
    std::vector<char> buf(16384);
    if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
        return std::nullopt;
    }
    return found->pw_gid;
}

// The socket of group `gid` (mu held): its directory server:gid 0710, the socket 0660.
pmix_status_t open_group_socket(State& st, gid_t gid, std::string& why) {
    if (st.access.sockets.count(gid) != 0) return PMIX_SUCCESS;
    JobAccess::GroupSocket gs;
    gs.dir = parent_of(st.socket_path) + "/group." + std::to_string(gid);
    if (gs.dir.size() + 12 > wire::max_socket_path()) {  // "/server.sock"
        std::string templ =
            "/tmp/pmix-cpp." + std::to_string(::getpid()) + ".g" + std::to_string(gid) + ".XXXXXX";
        if (::mkdtemp(templ.data()) == nullptr) {
            why = errno_text("mkdtemp " + templ);
            return PMIX_ERR_NO_PERMISSIONS;
        }
        gs.dir = templ;
    }
    gs.path = gs.dir + "/server.sock";
    State* s = &st;
    auto r = wire::Listener::open(
        *st.ex, gs.path, [s](const std::shared_ptr<wire::Connection>& c, const wire::Peer& p) {
            return s->accept(c, p);
        });
    if (!r.ok()) {
        why = "cannot listen on " + gs.path + ": " + r.error;
        std::error_code ec;
        std::filesystem::remove_all(gs.dir, ec);
        return r.status;
    }
    gs.listener = std::move(r.value);
    const uid_t keep = static_cast<uid_t>(-1);
    bool given = ::chown(gs.path.c_str(), keep, gid) == 0 && ::chmod(gs.path.c_str(), 0660) == 0 &&
                 ::chown(gs.dir.c_str(), keep, gid) == 0 && ::chmod(gs.dir.c_str(), 0710) == 0;
    if (!given) why = errno_text("cannot give " + gs.path + " to group " + std::to_string(gid));
    for (const std::string& dir : walked_dirs(st)) {
        if (given && !add_mode_bits(dir, 0011)) {
            why = errno_text("cannot make " + dir + " traversable");
            given = false;
        }
    }
    if (!given) {
        gs.listener->close();
        std::error_code ec;
        std::filesystem::remove_all(gs.dir, ec);
        return PMIX_ERR_NO_PERMISSIONS;
    }
    st.access.sockets.emplace(gid, std::move(gs));
    return PMIX_SUCCESS;
}

void share_board(State& st, const std::string& nspace, gid_t gid) {
    std::lock_guard lock(st.boards.mu);
    auto it = st.boards.by_namespace.find(nspace);
    if (it != st.boards.by_namespace.end() && it->second->share(gid) != PMIX_SUCCESS) {
        it->second->disable();  // its processes could not map it: they meet at the server
    }
}

// Shares `nspace`'s socket and board with `gid` (its store: share_store, on the loop). The
// board again only when `new_board` (a registration made it just now): one register_client per
// process must not cost a shm_open each.
pmix_status_t share_with_group(State& st, const std::string& nspace, gid_t gid, bool new_board) {
    std::string why;
    pmix_status_t rc = PMIX_SUCCESS;
    bool fresh = false;
    {
        std::lock_guard lock(st.access.mu);
        auto [it, added] = st.access.group_of.emplace(nspace, gid);
        fresh = added;
        if (!fresh && it->second != gid) {
            slog(exec::LogLevel::warn, "namespace " + nspace + " is shared with group " +
                                           std::to_string(it->second) + " already; group " +
                                           std::to_string(gid) + " is not let in");
            return PMIX_SUCCESS;
        }
        rc = open_group_socket(st, gid, why);
        if (rc != PMIX_SUCCESS) st.access.group_of.erase(nspace);
    }
    if (rc == PMIX_SUCCESS) {
        if (fresh || new_board) share_board(st, nspace, gid);
        return PMIX_SUCCESS;
    }
    slog(exec::LogLevel::error, "cannot let group " + std::to_string(gid) + " reach namespace " +
                                    nspace + " (its processes will not connect): " + why);
    return rc;
}

}  // namespace

pmix_status_t apply_socket_mode(State& st, const pmix_info_t* info, std::size_t ninfo) {
    const pmix_info_t* mode_info = data::find_info(info, ninfo, PMIX_SOCKET_MODE);
    if (mode_info == nullptr) return PMIX_SUCCESS;
    const auto mode = as_u32(mode_info->value);
    if (!mode) {
        slog(exec::LogLevel::info, "PMIX_SOCKET_MODE must be a uint32_t mode");
        return PMIX_ERR_BAD_PARAM;
    }
    const mode_t bits = static_cast<mode_t>(*mode & 0777);  // the Standard: 9 bits valid
    mode_t enter = 0;
    if ((bits & 0070) != 0) enter |= 0010;
    if ((bits & 0007) != 0) enter |= 0001;
    if (::chmod(st.socket_path.c_str(), bits) != 0) {
        slog(exec::LogLevel::info, errno_text("PMIX_SOCKET_MODE: chmod " + st.socket_path));
        return PMIX_ERR_NO_PERMISSIONS;
    }
    for (const std::string& dir : walked_dirs(st)) {
        if (enter != 0 && !add_mode_bits(dir, enter)) {
            slog(exec::LogLevel::info, errno_text("PMIX_SOCKET_MODE: chmod " + dir));
            return PMIX_ERR_NO_PERMISSIONS;
        }
    }
    return PMIX_SUCCESS;
}

namespace {

// The job's group from a uid and an optional gid: nullopt when neither makes it another user's
// job; `bad` when the uid has no group to go with it.
std::optional<gid_t> job_group(std::optional<std::uint32_t> uid, std::optional<std::uint32_t> gid,
                               bool& bad) {
    bad = false;
    if (!uid && !gid) return std::nullopt;
    if (!gid) {
        if (static_cast<uid_t>(*uid) == ::geteuid()) return std::nullopt;  // the server's own
        gid = primary_group(static_cast<uid_t>(*uid));
        if (!gid) {
            bad = true;
            return std::nullopt;
        }
    }
    const uid_t u = uid ? static_cast<uid_t>(*uid) : ::geteuid();
    if (!foreign(u, static_cast<gid_t>(*gid))) return std::nullopt;
    return static_cast<gid_t>(*gid);
}

std::optional<gid_t> group_of(State& st, const std::string& nspace) {
    std::lock_guard lock(st.access.mu);
    auto it = st.access.group_of.find(nspace);
    if (it == st.access.group_of.end()) return std::nullopt;
    return it->second;
}

}  // namespace

pmix_status_t note_server_user(State& st, const pmix_info_t* info, std::size_t ninfo) {
    std::optional<std::uint32_t> uid, gid;
    if (const pmix_info_t* u = data::find_info(info, ninfo, PMIX_USERID)) uid = as_u32(u->value);
    if (const pmix_info_t* g = data::find_info(info, ninfo, PMIX_GRPID)) gid = as_u32(g->value);
    bool bad = false;
    st.access.default_group = job_group(uid, gid, bad);
    if (bad) {
        slog(exec::LogLevel::info, "PMIX_USERID " + std::to_string(*uid) +
                                       " has no entry in the password database and no "
                                       "PMIX_GRPID was given");
        return PMIX_ERR_BAD_PARAM;
    }
    return PMIX_SUCCESS;
}

pmix_status_t grant_from_registration(State& st, const Registration& reg) {
    bool bad = false;
    std::optional<gid_t> gid =
        job_group(job_number(reg, PMIX_USERID), job_number(reg, PMIX_GRPID), bad);
    if (bad) {
        slog(exec::LogLevel::error, "namespace " + reg.name +
                                        ": its PMIX_USERID has no entry in the password "
                                        "database and no PMIX_GRPID was given: its processes "
                                        "cannot be let in");
        return PMIX_ERR_BAD_PARAM;
    }
    if (!gid && reg.job.count(PMIX_USERID) == 0 && reg.job.count(PMIX_GRPID) == 0) {
        // Neither named: the user of PMIx_server_init (Slurm's), else a register_client of
        // another user that came first (its board is new: share it too).
        gid = group_of(st, reg.name);
        if (!gid) gid = st.access.default_group;
    }
    return gid ? share_with_group(st, reg.name, *gid, true) : PMIX_SUCCESS;
}

void grant_from_client(State& st, const std::string& nspace, uid_t uid, gid_t gid) {
    if (foreign(uid, gid)) (void)share_with_group(st, nspace, gid, false);  // failures are logged
}

void share_store(State& st, const std::string& nspace) {
    gid_t gid = 0;
    {
        std::lock_guard lock(st.access.mu);
        auto it = st.access.group_of.find(nspace);
        if (it == st.access.group_of.end()) return;
        gid = it->second;
    }
    const pmix_status_t rc = st.store->share_namespace(nspace, gid);
    if (rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND) {  // not in the store yet: at registration
        slog(exec::LogLevel::error, "cannot share the store of " + nspace + " with group " +
                                        std::to_string(gid) + " (status " + std::to_string(rc) +
                                        "): its processes cannot read their job's data");
    }
}

void forget_grant(State& st, const std::string& nspace) {
    std::lock_guard lock(st.access.mu);
    st.access.group_of.erase(nspace);
}

std::string socket_for(State& st, const std::string& nspace) {
    std::lock_guard lock(st.access.mu);
    auto it = st.access.group_of.find(nspace);
    if (it == st.access.group_of.end()) return st.socket_path;
    auto sock = st.access.sockets.find(it->second);
    return sock == st.access.sockets.end() ? st.socket_path : sock->second.path;
}

void close_group_sockets(State& st) {
    std::lock_guard lock(st.access.mu);
    for (auto& [gid, gs] : st.access.sockets) gs.listener->close();
}

void drop_group_sockets(State& st) {
    std::lock_guard lock(st.access.mu);
    for (auto& [gid, gs] : st.access.sockets) {
        gs.listener.reset();
        std::error_code ec;
        std::filesystem::remove_all(gs.dir, ec);
    }
    st.access.sockets.clear();
    st.access.group_of.clear();
}

}  // namespace pmix::server
