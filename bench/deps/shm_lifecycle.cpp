// bench/deps/shm_lifecycle.cpp - should Boost.Interprocess own the shared-memory object lifecycle?
// Times create + map + first touch + unmap + unlink of one segment, 64 KiB .. 64 MiB, three ways:
//   ours    gds::create_shm_object (O_EXCL 0600, ftruncate + posix_fallocate) + mmap
//   boost   shared_memory_object(create_only, 0600) + truncate + mapped_region
//   boost+f the same with posix_fallocate on boost's handle (Boost has no reserve call)
// Median of N reps, microseconds. `bench-deps-shm enospc` shows what each does when /dev/shm is
// full: run it with a small tmpfs over /dev/shm in a private mount namespace (bench/deps/run.sh);
// the Boost path without fallocate is run in a child process, which SIGBUS may kill.
// Usage: bench-deps-shm [reps] | bench-deps-shm enospc
#include "gds/backing.h"

#include <boost/interprocess/mapped_region.hpp>
#include <boost/interprocess/shared_memory_object.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

namespace bip = boost::interprocess;
using Clock = std::chrono::steady_clock;

std::string boost_name() {
    static int counter = 0;
    return "pmixbench-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

// Writes one byte per page, as the store's writer eventually does.
void touch(void* base, std::size_t size) {
    auto* p = static_cast<volatile char*>(base);
    for (std::size_t off = 0; off < size; off += 4096) p[off] = 1;
}

// Our path; returns 0 on success or the PMIx status.
int ours(std::size_t size) {
    int fd = -1;
    std::string name;
    if (pmix_status_t rc = pmix::gds::create_shm_object("/pmixbench", size, nullptr, fd, name);
        rc != PMIX_SUCCESS) {
        return rc;
    }
    void* base = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    ::close(fd);
    if (base == MAP_FAILED) {
        ::shm_unlink(name.c_str());
        return PMIX_ERROR;
    }
    touch(base, size);
    ::munmap(base, size);
    ::shm_unlink(name.c_str());
    return 0;
}

// Boost's path; returns 0, or the errno-like code of the interprocess_exception.
int boost(std::size_t size, bool fallocate) {
    const std::string name = boost_name();
    try {
        bip::permissions owner_only(0600);
        bip::shared_memory_object shm(bip::create_only, name.c_str(), bip::read_write, owner_only);
        try {
            shm.truncate(static_cast<bip::offset_t>(size));
            if (fallocate) {
                if (int err = ::posix_fallocate(shm.get_mapping_handle().handle, 0,
                                                static_cast<off_t>(size));
                    err != 0) {
                    bip::shared_memory_object::remove(name.c_str());
                    return err;
                }
            }
            bip::mapped_region region(shm, bip::read_write, 0, size);
            touch(region.get_address(), size);
        } catch (...) {
            bip::shared_memory_object::remove(name.c_str());
            throw;
        }
        bip::shared_memory_object::remove(name.c_str());
    } catch (const bip::interprocess_exception& e) {
        std::fprintf(stderr, "  boost threw: %s (native error %d)\n", e.what(),
                     e.get_native_error());
        return e.get_native_error() != 0 ? e.get_native_error() : -1;
    }
    return 0;
}

double median(std::vector<double>& t) {
    std::nth_element(t.begin(), t.begin() + static_cast<long>(t.size() / 2), t.end());
    return t[t.size() / 2];
}

// One rep runs the three variants in a rotating order, so drift and warm-up on a shared machine
// hit each alike; returns false when one fails.
bool time_size(std::size_t size, int reps, double out[3]) {
    std::vector<double> t[3];
    for (int i = 0; i < reps; ++i) {
        for (int k = 0; k < 3; ++k) {
            const int v = (i + k) % 3;
            const auto t0 = Clock::now();
            const int rc = v == 0 ? ours(size) : boost(size, v == 2);
            if (rc != 0) return false;
            t[v].push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
        }
    }
    for (int v = 0; v < 3; ++v) out[v] = median(t[v]);
    return true;
}

int timings(int reps) {
    std::printf("| size | ours (us) | boost (us) | boost + fallocate (us) |\n|---|---|---|---|\n");
    for (std::size_t size = 64 << 10; size <= (64u << 20); size *= 4) {
        double us[3];
        if (!time_size(size, size >= (16u << 20) ? std::max(5, reps / 2) : reps, us)) return 1;
        std::printf("| %zu KiB | %.1f | %.1f | %.1f |\n", size >> 10, us[0], us[1], us[2]);
    }
    return 0;
}

// Runs f in a child; reports how it ended (a status, or the signal that killed it).
template <class F>
void in_child(const char* what, F&& f) {
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int rc = f();
        std::fflush(stdout);
        std::_Exit(rc);
    }
    int st = 0;
    ::waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) {
        std::printf("%-34s killed by signal %d (%s)\n", what, WTERMSIG(st),
                    strsignal(WTERMSIG(st)));
    } else {
        std::printf("%-34s exit %d (%s)\n", what, WEXITSTATUS(st),
                    WEXITSTATUS(st) == 0 ? "success" : "error returned, no crash");
    }
}

int enospc() {
    const std::size_t size = 8u << 20;  // larger than the 1 MiB tmpfs run.sh mounts
    std::printf("8 MiB segment on a 1 MiB /dev/shm:\n");
    in_child("ours (create_shm_object):", [&] {
        const int rc = ours(size);
        std::printf("  ours returned %d (PMIX_ERR_OUT_OF_RESOURCE = %d)\n", rc,
                    PMIX_ERR_OUT_OF_RESOURCE);
        return rc == 0 ? 0 : 1;
    });
    in_child("boost, no fallocate:", [&] { return boost(size, false) == 0 ? 0 : 1; });
    in_child("boost + posix_fallocate:", [&] { return boost(size, true) == 0 ? 0 : 1; });
    std::printf("left in /dev/shm afterwards:\n");
    std::fflush(stdout);
    return std::system("ls -l /dev/shm | grep pmixbench || echo '  nothing'");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "enospc") == 0) return enospc();
    const int reps = argc > 1 ? std::atoi(argv[1]) : 41;
    return timings(reps > 0 ? reps : 41);
}
