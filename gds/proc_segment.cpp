// gds/proc_segment.cpp - see proc_segment.h.
#include "gds/proc_segment.h"
#include "gds/backing.h"

#include "data/value.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
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

std::string owner_stamp(pmix_rank_t rank, pid_t pid, std::string_view nonce) {
    return std::to_string(rank) + ":" + std::to_string(pid) + ":" + std::string(nonce);
}

// "<rank>:<pid>:<nonce>" -> rank, pid and nonce; false when it is not that shape.
bool parse_stamp(std::string_view s, pmix_rank_t* rank, pid_t* pid,
                 std::string_view* nonce) noexcept {
    const std::size_t colon = s.find(':');
    const std::size_t second = colon == std::string_view::npos ? colon : s.find(':', colon + 1);
    if (second == std::string_view::npos || colon > 10 || second - colon - 1 > 10 ||
        !all_digits(s.substr(0, colon)) || !all_digits(s.substr(colon + 1, second - colon - 1)) ||
        !all_digits(s.substr(second + 1)) || s.size() - second - 1 > 20) {
        return false;
    }
    const std::string r(s.substr(0, colon)), p(s.substr(colon + 1, second - colon - 1));
    *rank = static_cast<pmix_rank_t>(std::strtoul(r.c_str(), nullptr, 10));
    *pid = static_cast<pid_t>(std::strtol(p.c_str(), nullptr, 10));
    *nonce = s.substr(second + 1);
    return true;
}

// "<locator>#<nonce>" -> its parts; false when it is not that shape.
bool split_announcement(std::string_view a, std::string_view* locator,
                        std::string_view* nonce) noexcept {
    const std::size_t hash = a.rfind('#');
    if (hash == std::string_view::npos || !all_digits(a.substr(hash + 1)) ||
        a.size() - hash - 1 > 20) {
        return false;
    }
    *locator = a.substr(0, hash);
    *nonce = a.substr(hash + 1);
    return true;
}

// Distinct for every segment ever created on this node: the monotonic clock in nanoseconds.
std::string fresh_nonce() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    static std::atomic<std::uint64_t> last{0};
    std::uint64_t now = static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
                        static_cast<std::uint64_t>(ts.tv_nsec);
    // Two segments within one clock tick of this process still differ.
    std::uint64_t prev = last.load();
    while (!last.compare_exchange_weak(prev, now > prev ? now : prev + 1)) {
    }
    return std::to_string(now > prev ? now : prev + 1);
}

}  // namespace

pmix_status_t OwnSegment::create(std::string_view nspace, pmix_rank_t rank,
                                 std::unique_ptr<OwnSegment>& out) {
    StoreOptions options;
    options.segment_bytes = kOwnSegmentBytes;
    options.sealed = true;
    pmix_status_t rc = PMIX_SUCCESS;
    auto seg = std::make_unique<OwnSegment>();
    seg->store_ = make_shm_store(options, &rc);
    if (seg->store_ == nullptr) return rc == PMIX_SUCCESS ? PMIX_ERROR : rc;
    seg->nspace_ = std::string(nspace);
    seg->rank_ = rank;
    const std::string nonce = fresh_nonce();
    seg->announcement_ = seg->store_->locator() + "#" + nonce;
    const std::string stamp = owner_stamp(rank, ::getpid(), nonce);
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

void OwnSegment::retire(bool abandoned) noexcept { store_->retire(nspace_, abandoned); }

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

std::unique_ptr<StoreReader> open_peer_segment(std::string_view announcement,
                                               std::string_view nspace, pmix_rank_t rank,
                                               pmix_status_t* status, pid_t* pid_out) {
    std::string_view locator, nonce, stamped_nonce;
    pmix_status_t rc = split_announcement(announcement, &locator, &nonce) ? PMIX_SUCCESS
                                                                          : kErrCorrupt;
    std::unique_ptr<StoreReader> reader;
    if (rc == PMIX_SUCCESS) reader = open_sealed_reader(locator, &rc);
    if (reader != nullptr) rc = reader->attach(nspace);
    pmix_value_t v{};
    if (rc == PMIX_SUCCESS) rc = reader->get(nspace, Entity::job(), kOwnerKey, &v);
    pmix_rank_t stamped = PMIX_RANK_UNDEF;
    pid_t pid = 0;
    if (rc == PMIX_SUCCESS) {
        const bool ok = v.type == PMIX_STRING && v.data.string != nullptr &&
                        parse_stamp(v.data.string, &stamped, &pid, &stamped_nonce) &&
                        stamped == rank && stamped_nonce == nonce;
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

pmix_status_t check_announced(std::string_view announcement, std::string_view nspace,
                              pmix_rank_t rank, pid_t pid, uid_t uid, bool deep) {
    std::string_view locator, nonce;
    pid_t named = 0;
    if (!split_announcement(announcement, &locator, &nonce) || !memfd_name_of(locator, &named) ||
        named != pid) {
        return PMIX_ERR_BAD_PARAM;
    }
    int fd = -1;
    std::size_t size = 0;
    if (pmix_status_t rc = open_sealed_memfd(locator, fd, size); rc != PMIX_SUCCESS) return rc;
    struct stat st {};
    const bool owned = ::fstat(fd, &st) == 0 && st.st_uid == uid &&
                       (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
    ::close(fd);
    if (!owned) return PMIX_ERR_NO_PERMISSIONS;
    if (!deep) return PMIX_SUCCESS;
    pmix_status_t rc = PMIX_SUCCESS;
    pid_t stamped = 0;
    auto reader = open_peer_segment(announcement, nspace, rank, &rc, &stamped);
    if (reader == nullptr) return rc;
    return stamped == pid ? PMIX_SUCCESS : kErrCorrupt;
}

}  // namespace pmix::gds
