// server/cleanup.cpp - PMIx_Job_control(_nb) cleanup registrations, handled inside the library
// as OpenPMIx does (Open MPI registers its session directory and shared-memory segment this way,
// with no callback): PMIX_REGISTER_CLEANUP (files) and PMIX_REGISTER_CLEANUP_DIR (directories),
// comma-separated, with PMIX_CLEANUP_RECURSIVE, PMIX_CLEANUP_EMPTY (only empty directories),
// PMIX_CLEANUP_IGNORE (names kept) and PMIX_CLEANUP_LEAVE_TOPDIR. The paths are removed when the
// client's connection ends (finalized or dead). The server may run as root while its clients do
// not: only absolute paths, and only entries owned by the client's uid, are ever removed.
#include "server/state.h"

#include "data/directives.h"
#include "exec/log.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <sstream>

namespace pmix::server {

namespace {

using data::flag_true;
using data::key_is;

void split_into(const pmix_value_t& v, std::vector<std::string>* out) {
    if (v.type != PMIX_STRING || v.data.string == nullptr) return;
    std::stringstream in(v.data.string);
    for (std::string part; std::getline(in, part, ',');) {
        if (!part.empty()) out->push_back(part);
    }
}

bool owned_by(const struct stat& st, uid_t uid) { return st.st_uid == uid; }

bool ignored(const CleanupRequest& req, const std::string& name) {
    return std::find(req.ignore.begin(), req.ignore.end(), name) != req.ignore.end();
}

// Depth-first: entries first, then the directory itself (unless it is the kept top).
void remove_tree(const std::string& path, const CleanupRequest& req, uid_t uid, bool top) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !owned_by(st, uid)) return;
    if (!S_ISDIR(st.st_mode)) {
        ::unlink(path.c_str());
        return;
    }
    if (req.recursive && !req.empty_only) {
        if (DIR* d = ::opendir(path.c_str()); d != nullptr) {
            std::vector<std::string> names;
            while (dirent* e = ::readdir(d)) {
                const std::string name = e->d_name;
                if (name != "." && name != ".." && !ignored(req, name)) names.push_back(name);
            }
            ::closedir(d);
            for (const auto& name : names) remove_tree(path + "/" + name, req, uid, false);
        }
    }
    if (!(top && req.leave_topdir)) ::rmdir(path.c_str());  // fails (kept) when not empty
}

}  // namespace

bool State::take_cleanup_request(Client& c, const pmix_info_t* info, std::size_t ninfo) {
    CleanupRequest req;
    for (std::size_t i = 0; i < ninfo; ++i) {
        const pmix_info_t& in = info[i];
        if (key_is(in, PMIX_REGISTER_CLEANUP)) {
            split_into(in.value, &req.files);
        } else if (key_is(in, PMIX_REGISTER_CLEANUP_DIR)) {
            split_into(in.value, &req.dirs);
        } else if (key_is(in, PMIX_CLEANUP_RECURSIVE)) {
            req.recursive = flag_true(in);
        } else if (key_is(in, PMIX_CLEANUP_EMPTY)) {
            req.empty_only = flag_true(in);
        } else if (key_is(in, PMIX_CLEANUP_LEAVE_TOPDIR)) {
            req.leave_topdir = flag_true(in);
        } else if (key_is(in, PMIX_CLEANUP_IGNORE)) {
            split_into(in.value, &req.ignore);
        } else {
            return false;  // another directive: the host handles the request
        }
    }
    if (req.files.empty() && req.dirs.empty()) return false;
    c.cleanups.push_back(std::move(req));
    return true;
}

void State::run_cleanups(Client& c) {
    for (const CleanupRequest& req : c.cleanups) {
        for (const auto& f : req.files) {
            struct stat st {};
            if (!f.empty() && f[0] == '/' && ::lstat(f.c_str(), &st) == 0 && owned_by(st, c.uid) &&
                !S_ISDIR(st.st_mode)) {
                ::unlink(f.c_str());
            }
        }
        for (const auto& d : req.dirs) {
            if (!d.empty() && d[0] == '/') remove_tree(d, req, c.uid, true);
        }
    }
    c.cleanups.clear();
}

}  // namespace pmix::server
