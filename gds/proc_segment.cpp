// gds/proc_segment.cpp - see proc_segment.h.
#include "gds/proc_segment.h"
#include "gds/backing.h"

#include "data/value.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace pmix::gds {

namespace {

// A process commits a few keys per generation: a small first segment (chained, twice the size,
// when full), so that 1,024 processes on a node reserve 64 KiB each, not the server's 1 MiB.
constexpr std::size_t kOwnSegmentBytes = std::size_t{64} << 10;

bool all_digits(std::string_view s) noexcept {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string owner_stamp(pmix_rank_t rank, pid_t pid) {
    return std::to_string(rank) + ":" + std::to_string(pid);
}

// "<rank>:<pid>" -> rank and pid; false when it is not that shape.
bool parse_stamp(std::string_view s, pmix_rank_t* rank, pid_t* pid) noexcept {
    const std::size_t colon = s.find(':');
    if (colon == std::string_view::npos || colon > 10 || s.size() - colon - 1 > 10 ||
        !all_digits(s.substr(0, colon)) || !all_digits(s.substr(colon + 1))) {
        return false;
    }
    const std::string r(s.substr(0, colon)), p(s.substr(colon + 1));
    *rank = static_cast<pmix_rank_t>(std::strtoul(r.c_str(), nullptr, 10));
    *pid = static_cast<pid_t>(std::strtol(p.c_str(), nullptr, 10));
    return true;
}

}  // namespace

pmix_status_t OwnSegment::create(const std::string& prefix, std::string_view nspace,
                                 pmix_rank_t rank, std::unique_ptr<OwnSegment>& out) {
    StoreOptions options;
    options.segment_bytes = kOwnSegmentBytes;
    options.prefix = prefix;
    pmix_status_t rc = PMIX_SUCCESS;
    auto seg = std::make_unique<OwnSegment>();
    seg->store_ = make_shm_store(options, &rc);
    if (seg->store_ == nullptr) return rc == PMIX_SUCCESS ? PMIX_ERROR : rc;
    seg->nspace_ = std::string(nspace);
    seg->rank_ = rank;
    seg->locator_ = seg->store_->locator();
    const std::string stamp = owner_stamp(rank, ::getpid());
    pmix_value_t v{};
    v.type = PMIX_STRING;
    v.data.string = const_cast<char*>(stamp.c_str());
    rc = seg->store_->begin_namespace(nspace);
    if (rc == PMIX_SUCCESS) rc = seg->store_->put(nspace, Entity::job(), kOwnerKey, v);
    if (rc == PMIX_SUCCESS) rc = seg->store_->commit();
    if (rc != PMIX_SUCCESS) return rc;
    out = std::move(seg);
    return PMIX_SUCCESS;
}

pmix_status_t OwnSegment::commit(const ModexPut* puts, std::size_t n) {
    pmix_status_t rc = store_->begin_namespace(nspace_);
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        const pmix_scope_t scope =
            puts[i].scope == PMIX_SCOPE_UNDEF ? pmix_scope_t{PMIX_GLOBAL} : puts[i].scope;
        rc = store_->put_modex(nspace_, rank_, scope, puts[i].key, *puts[i].value);
    }
    // A commit that fails half-way publishes nothing: readers stay on the previous generation.
    return rc == PMIX_SUCCESS ? store_->commit() : rc;
}

std::unique_ptr<StoreReader> open_peer_segment(std::string_view locator, std::string_view nspace,
                                               pmix_rank_t rank, pmix_status_t* status,
                                               pid_t* pid_out) {
    pmix_status_t rc = PMIX_SUCCESS;
    auto reader = open_shm_reader(locator, &rc);
    if (reader != nullptr) rc = reader->attach(nspace);
    pmix_value_t v{};
    if (rc == PMIX_SUCCESS) rc = reader->get(nspace, Entity::job(), kOwnerKey, &v);
    pmix_rank_t stamped = PMIX_RANK_UNDEF;
    pid_t pid = 0;
    if (rc == PMIX_SUCCESS) {
        const bool ok = v.type == PMIX_STRING && v.data.string != nullptr &&
                        parse_stamp(v.data.string, &stamped, &pid) && stamped == rank;
        rc = ok ? PMIX_SUCCESS : kErrCorrupt;
        pmix::data::value_destruct(&v);
    } else if (rc != PMIX_ERR_NOT_FOUND || reader != nullptr) {
        rc = rc == PMIX_ERR_NOT_FOUND ? kErrCorrupt : rc;  // a store without a stamp is no segment
    }
    if (status != nullptr) *status = rc;
    if (rc != PMIX_SUCCESS) return nullptr;
    if (pid_out != nullptr) *pid_out = pid;
    return reader;
}

bool segment_name_of(std::string_view name, std::string_view prefix, pid_t pid) noexcept {
    if (name.size() <= prefix.size() + 1 || name.substr(0, prefix.size()) != prefix ||
        name[prefix.size()] != '-') {
        return false;
    }
    std::string_view rest = name.substr(prefix.size() + 1);
    const std::size_t dash = rest.find('-');
    if (dash == std::string_view::npos || !all_digits(rest.substr(dash + 1))) return false;
    return rest.substr(0, dash) == std::to_string(pid);
}

std::string prefix_of_locator(std::string_view locator) {
    const std::size_t last = locator.rfind('-');
    if (last == std::string_view::npos || last == 0 || !all_digits(locator.substr(last + 1))) {
        return {};
    }
    const std::size_t before = locator.rfind('-', last - 1);
    if (before == std::string_view::npos || before == 0 ||
        !all_digits(locator.substr(before + 1, last - before - 1))) {
        return {};
    }
    return std::string(locator.substr(0, before));
}

pmix_status_t check_announced(std::string_view locator, std::string_view prefix,
                              std::string_view nspace, pmix_rank_t rank, pid_t pid, uid_t uid,
                              bool deep) {
    if (!segment_name_of(locator, prefix, pid)) return PMIX_ERR_BAD_PARAM;
    const std::string name(locator);
    const int fd = ::shm_open(name.c_str(), O_RDONLY | O_NOFOLLOW, 0);
    if (fd < 0) return shm_status_from_errno(errno);
    struct stat st {};
    const bool owned = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == uid &&
                       (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
    ::close(fd);
    if (!owned) return PMIX_ERR_NO_PERMISSIONS;
    if (!deep) return PMIX_SUCCESS;
    pmix_status_t rc = PMIX_SUCCESS;
    pid_t stamped = 0;
    auto reader = open_peer_segment(locator, nspace, rank, &rc, &stamped);
    if (reader == nullptr) return rc;
    return stamped == pid ? PMIX_SUCCESS : kErrCorrupt;
}

}  // namespace pmix::gds
