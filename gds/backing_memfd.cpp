// gds/backing_memfd.cpp - segments nobody can shrink: sealed memfds, named /proc/<pid>/fd/<fd>.
//
// Why: a reader maps a segment and reads it later without a system call. If whoever may write a
// shared-memory object truncates it, every reader's next access past the new end raises SIGBUS
// (the fence boards showed it: tests/faults, case truncated_board). A process's own modex
// segment (proc_segment.h) is written by a client, which peers must not have to trust that far:
// its segments are memfds sealed against shrinking and growing before anyone learns their name,
// so ftruncate fails with EPERM for the owner as for everyone else. Readers of the same uid open
// them through the owner's /proc/<pid>/fd (the kernel's ptrace check: same uid and dumpable, or
// root); they vanish with the last descriptor and mapping, so nothing is left in /dev/shm when
// the owner dies. A reader accepts only such a name and only an object that carries both seals.
#include "gds/backing.h"
#include "gds/layout.h"
#include "gds/store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace pmix::gds {

namespace {

constexpr unsigned kRequiredSeals = F_SEAL_SHRINK | F_SEAL_GROW;

bool decimal_digits(std::string_view s) noexcept {
    return !s.empty() && s.size() <= 10 && s.find_first_not_of("0123456789") == std::string_view::npos;
}

class MemfdSegment final : public WritableSegment {
public:
    MemfdSegment(std::byte* base, std::size_t size, std::string name, int fd)
        : WritableSegment(base, size, std::move(name)), fd_(fd) {}
    ~MemfdSegment() override {
        ::munmap(base(), size());
        ::close(fd_);  // the object goes with the last descriptor and mapping (readers keep theirs)
    }

private:
    int fd_;
};

class MemfdMapping final : public MappedSegment {
public:
    MemfdMapping(const std::byte* base, std::size_t size) : MappedSegment(base, size) {}
    ~MemfdMapping() override { ::munmap(const_cast<std::byte*>(base()), size()); }
};

// A sealed memfd of `size` bytes, its pages reserved, mapped writable. -1 and errno on failure.
int create_sealed(std::size_t size, void** base) {
    const int fd = ::memfd_create("pmix-modex", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    int err = ::ftruncate(fd, static_cast<off_t>(size)) == 0 ? 0 : errno;
    if (err == 0) err = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
    if (err == 0 && ::fchmod(fd, 0600) != 0) err = errno;
    if (err == 0 && ::fcntl(fd, F_ADD_SEALS, kRequiredSeals | F_SEAL_SEAL) != 0) err = errno;
    if (err == 0) {
        *base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (*base == MAP_FAILED) err = errno;
    }
    if (err != 0) {
        ::close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

class MemfdBacking final : public Backing {
public:
    pmix_status_t create(std::size_t size, std::unique_ptr<WritableSegment>& out) override {
        void* base = nullptr;
        const int fd = create_sealed(size, &base);
        if (fd < 0) return shm_status_from_errno(errno);
        std::string name = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(fd);
        out = std::make_unique<MemfdSegment>(static_cast<std::byte*>(base), size, std::move(name),
                                             fd);
        return PMIX_SUCCESS;
    }

    pmix_status_t open(std::string_view name, std::unique_ptr<MappedSegment>& out) override {
        int fd = -1;
        std::size_t size = 0;
        if (pmix_status_t rc = open_sealed_memfd(name, fd, size); rc != PMIX_SUCCESS) return rc;
        void* base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
        const int err = errno;
        ::close(fd);
        if (base == MAP_FAILED) return shm_status_from_errno(err);
        populate_written(static_cast<const std::byte*>(base), size);
        out = std::make_unique<MemfdMapping>(static_cast<const std::byte*>(base), size);
        return PMIX_SUCCESS;
    }

    bool shared() const noexcept override { return true; }

    // Other users cannot open our /proc/<pid>/fd entries: a sealed segment is for one uid.
    pmix_status_t share(const std::string&, const SegmentAccess&) override {
        return PMIX_ERR_NOT_SUPPORTED;
    }
};

}  // namespace

bool memfd_name_of(std::string_view name, pid_t* pid) noexcept {
    constexpr std::string_view kLead = "/proc/";
    if (name.size() >= layout::kNameBytes || name.substr(0, kLead.size()) != kLead) return false;
    const std::string_view rest = name.substr(kLead.size());
    const std::size_t slash = rest.find("/fd/");
    if (slash == std::string_view::npos || !decimal_digits(rest.substr(0, slash)) ||
        !decimal_digits(rest.substr(slash + 4))) {
        return false;
    }
    if (pid != nullptr) {
        *pid = static_cast<pid_t>(std::stol(std::string(rest.substr(0, slash))));
    }
    return true;
}

pmix_status_t open_sealed_memfd(std::string_view name, int& fd, std::size_t& size) {
    fd = -1;
    if (!memfd_name_of(name, nullptr)) return kErrCorrupt;
    // O_NONBLOCK: a name that leads to a FIFO must not block the reader (refused below).
    const int opened = ::open(std::string(name).c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (opened < 0) return shm_status_from_errno(errno);
    struct stat st {};
    pmix_status_t rc = PMIX_SUCCESS;
    if (::fstat(opened, &st) != 0) {
        rc = shm_status_from_errno(errno);
    } else if (!S_ISREG(st.st_mode) || st.st_size < static_cast<off_t>(layout::kSegmentHeaderBytes) ||
               static_cast<std::uint64_t>(st.st_size) > layout::kMaxSegmentBytes) {
        rc = kErrCorrupt;
    } else {
        const int seals = ::fcntl(opened, F_GET_SEALS);
        rc = seals >= 0 && (static_cast<unsigned>(seals) & kRequiredSeals) == kRequiredSeals
                 ? PMIX_SUCCESS
                 : kErrCorrupt;  // could be shrunk under our mapping: not a segment we read
    }
    if (rc != PMIX_SUCCESS) {
        ::close(opened);
        return rc;
    }
    fd = opened;
    size = static_cast<std::size_t>(st.st_size);
    return PMIX_SUCCESS;
}

std::shared_ptr<Backing> make_memfd_backing() { return std::make_shared<MemfdBacking>(); }

}  // namespace pmix::gds
