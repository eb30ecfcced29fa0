// client/iof_files.cpp - see iof_files.h.
#include "client/iof_files.h"

#include "data/directives.h"
#include "exec/log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

namespace pmix::client {

namespace {

constexpr mode_t kDirMode = S_IRWXU | S_IRGRP | S_IXGRP;  // as OpenPMIx
constexpr mode_t kFileMode = 0644;

// Checks a pattern's conversions: only %n, %r and %%.
bool pattern_ok(std::string_view pattern) {
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%') continue;
        if (i + 1 == pattern.size()) return false;
        const char c = pattern[++i];
        if (c != 'n' && c != 'r' && c != '%') return false;
    }
    return true;
}

std::string expand_pattern(std::string_view pattern, std::string_view nspace, pmix_rank_t rank) {
    std::string out;
    for (std::size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%' || i + 1 == pattern.size()) {
            out += pattern[i];
            continue;
        }
        const char c = pattern[++i];
        if (c == 'n') {
            out += nspace;
        } else if (c == 'r') {
            out += std::to_string(rank);
        } else {
            out += c;
        }
    }
    return out;
}

std::string padded(pmix_rank_t rank, int digits) {
    std::string r = std::to_string(rank);
    if (static_cast<int>(r.size()) < digits)
        r.insert(0, static_cast<std::size_t>(digits) - r.size(), '0');
    return r;
}

pmix_status_t status_of_errno(int err) {
    return err == EACCES || err == EPERM || err == EROFS ? PMIX_ERR_NO_PERMISSIONS
                                                         : PMIX_ERR_FILE_OPEN_FAILURE;
}

// mkdir -p `path`; 0 or the errno of the failing step.
int make_directories(const std::string& path) {
    if (path.empty()) return 0;
    std::size_t at = 0;
    while (at != std::string::npos) {
        at = path.find('/', at + 1);
        const std::string prefix = path.substr(0, at);
        if (prefix.empty()) continue;
        if (::mkdir(prefix.c_str(), kDirMode) != 0 && errno != EEXIST) return errno;
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return errno;
    if (!S_ISDIR(st.st_mode)) return ENOTDIR;
    return 0;
}

std::string directory_of(const std::string& path) {
    const auto slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

// The directory exists (created if need be) and we may create files in it.
pmix_status_t ready_directory(const std::string& dir) {
    if (const int err = make_directories(dir); err != 0) return status_of_errno(err);
    if (::access(dir.c_str(), W_OK | X_OK) != 0) return status_of_errno(errno);
    return PMIX_SUCCESS;
}

}  // namespace

int rank_digits(std::size_t nprocs) noexcept {
    int digits = 1;
    for (std::size_t n = nprocs / 10; n > 0; n /= 10) ++digits;
    return digits;
}

pmix_status_t parse_iof_files(const pmix_info_t* info, std::size_t ninfo, IofFileSpec* out) {
    IofFileSpec spec;
    for (std::size_t i = 0; i < ninfo; ++i) {
        const pmix_info_t& d = info[i];
        const bool is_file = data::key_is(d, PMIX_IOF_OUTPUT_TO_FILE);
        if (is_file || data::key_is(d, PMIX_IOF_OUTPUT_TO_DIRECTORY)) {
            if (d.value.type != PMIX_STRING || d.value.data.string == nullptr ||
                d.value.data.string[0] == '\0')
                return PMIX_ERR_BAD_PARAM;
            (is_file ? spec.file : spec.directory) = d.value.data.string;
        } else if (data::key_is(d, PMIX_IOF_FILE_PATTERN)) {
            spec.pattern = data::flag_true(d);
        } else if (data::key_is(d, PMIX_IOF_FILE_ONLY)) {
            spec.file_only = data::flag_true(d);
        } else if (data::key_is(d, PMIX_IOF_MERGE_STDERR_STDOUT)) {
            spec.merge = data::flag_true(d);
        } else if (data::key_is(d, PMIX_IOF_LOCAL_OUTPUT)) {
            spec.local_output = data::flag_true(d);
        }
    }
    if (!spec.directory.empty()) spec.file.clear();  // the directory wins, as OpenPMIx
    if (spec.pattern && !spec.file.empty() && !pattern_ok(spec.file)) return PMIX_ERR_BAD_PARAM;
    *out = std::move(spec);
    return PMIX_SUCCESS;
}

std::string iof_file_path(const IofFileSpec& spec, std::string_view nspace, pmix_rank_t rank,
                          pmix_iof_channel_t channel, int digits) {
    const bool to_stdout = spec.merge || (channel & PMIX_FWD_STDOUT_CHANNEL) != 0;
    if (!spec.directory.empty()) {
        return spec.directory + "/" + std::string(nspace) + "/rank." + padded(rank, digits) +
               (to_stdout ? "/stdout" : "/stderr");
    }
    const char* suffix = to_stdout ? ".out" : ".err";
    if (spec.pattern) return expand_pattern(spec.file, nspace, rank) + suffix;
    return spec.file + "." + std::string(nspace) + "." + padded(rank, digits) + suffix;
}

pmix_status_t prepare_iof_files(const IofFileSpec& spec, const pmix_proc_t* procs,
                                std::size_t nprocs) {
    if (!spec.directory.empty()) {
        std::set<std::string> nspaces;
        for (std::size_t i = 0; i < nprocs; ++i)
            nspaces.emplace(procs[i].nspace, strnlen(procs[i].nspace, PMIX_MAX_NSLEN));
        if (nspaces.empty()) return ready_directory(spec.directory);
        for (const std::string& ns : nspaces) {
            if (const pmix_status_t rc = ready_directory(spec.directory + "/" + ns);
                rc != PMIX_SUCCESS)
                return rc;
        }
        return PMIX_SUCCESS;
    }
    if (spec.file.empty()) return PMIX_SUCCESS;
    const std::string dir = directory_of(spec.file);
    if (spec.pattern && dir.find('%') != std::string::npos) return PMIX_SUCCESS;  // per source
    return ready_directory(dir);
}

IofFiles::~IofFiles() {
    for (auto& [path, fd] : fds_)
        if (fd >= 0) ::close(fd);
}

void IofFiles::write(const pmix_proc_t& source, pmix_iof_channel_t channel, std::string_view text) {
    const std::string ns(source.nspace, strnlen(source.nspace, PMIX_MAX_NSLEN));
    const auto d = digits_.find(ns);
    const std::string path =
        iof_file_path(spec_, ns, source.rank, channel, d == digits_.end() ? 1 : d->second);
    auto it = fds_.find(path);
    if (it == fds_.end()) {
        int fd = -1;
        int err = make_directories(directory_of(path));
        if (err == 0) {
            fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, kFileMode);
            if (fd < 0) err = errno;
        }
        if (fd < 0) {
            exec::log_error("pmix iof", "cannot open output file " + path + ": " +
                                            std::strerror(err) + "; its output is dropped");
        }
        it = fds_.emplace(path, fd).first;
    }
    if (it->second < 0) return;
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(it->second, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            exec::log_error("pmix iof", "cannot write output file " + path + ": " +
                                            std::strerror(errno) + "; its output is dropped");
            ::close(it->second);
            it->second = -1;
            return;
        }
        done += static_cast<std::size_t>(n);
    }
}

}  // namespace pmix::client
