// gds/backing_shm.cpp - segments in POSIX shared memory.
//
// Plain shm_open/mmap rather than Boost.Interprocess (measured in bench/deps, decided in
// docs/ARCHITECTURE.md): Boost's shared_memory_object + mapped_region cost the same (27 us at
// 64 KiB either way) but have no posix_fallocate (an 8 MiB segment on a 1 MiB /dev/shm killed the
// writer with SIGBUS and left the segment behind; ours returns PMIX_ERR_OUT_OF_RESOURCE), no
// fchown (a server hosting another user's job shares segments with it: share_shm_object), and throw
// interprocess_exception, which must not cross capi/. Its managed segments bring an allocator and
// in-segment lock that readers must not see.
#include "gds/backing.h"
#include "gds/layout.h"
#include "gds/store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <string>

namespace pmix::gds {

pmix_status_t shm_status_from_errno(int err) noexcept {
    switch (err) {
        case ENOENT:
            return PMIX_ERR_NOT_FOUND;
        case EACCES:
        case EPERM:
            return PMIX_ERR_NO_PERMISSIONS;
        case ENOSPC:
        case ENOMEM:
        case EMFILE:
        case ENFILE:
        case EFBIG:
            return PMIX_ERR_OUT_OF_RESOURCE;
        case ENOSYS:
        case EOPNOTSUPP:
            return PMIX_ERR_NOT_SUPPORTED;
        default:
            return PMIX_ERROR;
    }
}

namespace {

// A name the store may open: "/x" with no other '/', short enough for a header's name field.
bool valid_name(std::string_view name) noexcept {
    return name.size() >= 2 && name.size() < layout::kNameBytes && name[0] == '/' &&
           name.find('/', 1) == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

class ShmSegment final : public WritableSegment {
public:
    ShmSegment(std::byte* base, std::size_t size, std::string name)
        : WritableSegment(base, size, std::move(name)), creator_(::getpid()) {}
    ~ShmSegment() override {
        ::munmap(base(), size());
        // Only the creating process removes the name: a forked child that exits normally runs
        // the same destructors on its copy, and must not take its parent's segments away.
        if (::getpid() == creator_) ::shm_unlink(name().c_str());
    }

private:
    pid_t creator_;
};

}  // namespace

pmix_status_t create_shm_object(const std::string& stem, std::size_t size,
                                bool (*acceptable)(std::string_view), int& fd, std::string& name) {
    static std::atomic<std::uint64_t> counter{0};
    fd = -1;
    // A crashed server with our pid may have left names behind: skip them.
    for (int attempt = 0; attempt < 1000 && fd < 0; ++attempt) {
        name = stem + "-" + std::to_string(::getpid()) + "-" +
               std::to_string(counter.fetch_add(1, std::memory_order_relaxed));
        if (acceptable != nullptr && !acceptable(name)) {
            return PMIX_ERR_BAD_PARAM;
        }
        fd = ::shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 && errno != EEXIST) {
            return shm_status_from_errno(errno);
        }
    }
    if (fd < 0) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    int err = ::ftruncate(fd, static_cast<off_t>(size)) == 0 ? 0 : errno;
    if (err == 0) {
        // Reserve the pages now: on a full /dev/shm a later first touch would raise SIGBUS in
        // the writer; posix_fallocate turns that into an error here. Filesystems that cannot
        // preallocate (EOPNOTSUPP/EINVAL) keep the sparse object.
        err = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
        if (err == EOPNOTSUPP || err == EINVAL) err = 0;
    }
    if (err != 0) {
        ::close(fd);
        fd = -1;
        ::shm_unlink(name.c_str());
        return shm_status_from_errno(err);
    }
    return PMIX_SUCCESS;
}

pmix_status_t share_shm_object(const std::string& name, const SegmentAccess& access) {
    const int fd = ::shm_open(name.c_str(), O_RDWR, 0);
    if (fd < 0) {
        return shm_status_from_errno(errno);
    }
    int err = 0;
    if (access.group != static_cast<gid_t>(-1) &&
        ::fchown(fd, static_cast<uid_t>(-1), access.group) != 0) {
        err = errno;
    } else if (::fchmod(fd, access.mode & 0777) != 0) {
        err = errno;
    }
    ::close(fd);
    return err == 0 ? PMIX_SUCCESS : shm_status_from_errno(err);
}

// Every page of a segment exists from its creation (posix_fallocate), so populating maps them now,
// and a record the writer appends later is read without a page fault. Measured (release,
// bench-scenario): the first Get of a peer's key right after a fence 1.7-2.3 -> 0.6-0.7 us at
// N = 2 (warm 0.33), 4.0 -> 2.5 us at N = 16, 5.1 -> 3.6 us at N = 64. Only segments up to
// kPopulateBytes: at N = 1,024 the first modex chains larger segments, and every rank populating
// them at once (in the warm-up after the fence) made that fence 52-69 ms instead of 20-22 ms,
// with the first Get after it no faster (6.0-6.6 us either way). Only what is written and a
// margin: the whole 1 MiB first segment (256 pages) was 0.4-0.5 ms of a 2-process job's
// PMIx_Init (0.9-1.5 ms against 0.46-0.56 ms without populating; release, this 2-vCPU VM).
void populate_written(const std::byte* base, std::size_t size) noexcept {
    if (size < sizeof(layout::SegmentHeader) || size > kPopulateBytes) return;
    using layout::SegmentHeader;
    const auto* h = reinterpret_cast<const SegmentHeader*>(base);
    // index and nspace are written once, before the name is published; root moves (release-store).
    const layout::Ref root = __atomic_load_n(&h->root, __ATOMIC_ACQUIRE);
    std::uint64_t extent = size;
    if (h->nspace[0] != '\0' && h->index == 0 && root != 0 && layout::ref_segment(root) == 0) {
        extent = layout::ref_offset(root) + sizeof(layout::RootRecord) + kPopulateMargin;
    }
    constexpr std::uint64_t kPage = 4096;
    extent = std::min<std::uint64_t>(size, (extent + kPage - 1) / kPage * kPage);
#ifndef MADV_POPULATE_READ
    constexpr int MADV_POPULATE_READ = 22;  // Linux 5.14
#endif
    // A hint: where the kernel lacks it, pages fault in as they are read.
    (void)::madvise(const_cast<std::byte*>(base), static_cast<std::size_t>(extent),
                    MADV_POPULATE_READ);
}

namespace {

class ShmMapping final : public MappedSegment {
public:
    ShmMapping(const std::byte* base, std::size_t size) : MappedSegment(base, size) {}
    ~ShmMapping() override { ::munmap(const_cast<std::byte*>(base()), size()); }
};

class ShmBacking final : public Backing {
public:
    explicit ShmBacking(std::string prefix) : prefix_(std::move(prefix)) {}

    pmix_status_t create(std::size_t size, std::unique_ptr<WritableSegment>& out) override {
        int fd = -1;
        std::string name;
        pmix_status_t rc = create_shm_object(prefix_, size, valid_name, fd, name);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
        void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        rc = base == MAP_FAILED ? shm_status_from_errno(errno) : PMIX_SUCCESS;
        ::close(fd);
        if (rc != PMIX_SUCCESS) {
            ::shm_unlink(name.c_str());
            return rc;
        }
        out = std::make_unique<ShmSegment>(static_cast<std::byte*>(base), size, name);
        return PMIX_SUCCESS;
    }

    pmix_status_t open(std::string_view name, std::unique_ptr<MappedSegment>& out) override {
        if (!valid_name(name)) {
            return kErrCorrupt;
        }
        const std::string path(name);
        const int fd = ::shm_open(path.c_str(), O_RDONLY, 0);
        if (fd < 0) {
            return shm_status_from_errno(errno);
        }
        struct stat st {};
        pmix_status_t rc = PMIX_SUCCESS;
        void* base = MAP_FAILED;
        if (::fstat(fd, &st) != 0) {
            rc = shm_status_from_errno(errno);
        } else if (st.st_size < static_cast<off_t>(sizeof(layout::SegmentHeader)) ||
                   static_cast<std::uint64_t>(st.st_size) > layout::kMaxSegmentBytes) {
            rc = kErrCorrupt;  // truncated (or absurd): never map what cannot be a segment
        } else {
            base = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_SHARED,
                          fd, 0);
            if (base == MAP_FAILED) {
                rc = shm_status_from_errno(errno);
            }
        }
        ::close(fd);
        if (rc == PMIX_SUCCESS) {
            populate_written(static_cast<const std::byte*>(base),
                             static_cast<std::size_t>(st.st_size));
            out = std::make_unique<ShmMapping>(static_cast<const std::byte*>(base),
                                               static_cast<std::size_t>(st.st_size));
        }
        return rc;
    }

    bool shared() const noexcept override { return true; }

    pmix_status_t share(const std::string& name, const SegmentAccess& access) override {
        return share_shm_object(name, access);
    }

private:
    std::string prefix_;
};

}  // namespace

std::shared_ptr<Backing> make_shm_backing(std::string prefix) {
    return std::make_shared<ShmBacking>(std::move(prefix));
}

}  // namespace pmix::gds
