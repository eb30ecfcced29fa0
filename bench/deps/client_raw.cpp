// bench/deps/client_raw.cpp - the client side of a segment (open read-only, size, map) with plain
// POSIX calls: the baseline for the code-size comparison with client_boost.cpp.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    const int fd = ::shm_open(argv[1], O_RDONLY, 0);
    if (fd < 0) return 1;
    struct stat st {};
    void* base = ::fstat(fd, &st) == 0 ? ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                                                MAP_SHARED, fd, 0)
                                       : MAP_FAILED;
    ::close(fd);
    if (base == MAP_FAILED) return 1;
    std::printf("%d\n", static_cast<const char*>(base)[0]);
    return ::munmap(base, static_cast<size_t>(st.st_size));
}
