/* loaded_libpmix OURS DEBIAN: an MPI hello (MPI_Allreduce of the ranks) that also says which
 * libpmix.so it and its parent (mpirun or orted, the PMIx server hosting it) really mapped, by
 * comparing the mapped file's bytes with OURS and DEBIAN. Once the package is installed both
 * libraries have the same path (pmix2/lib/libpmix.so.2.6.2, Debian's one diverted aside), so the
 * path alone says nothing; the file behind the mapping is read through /proc/<pid>/map_files (needs
 * root, as the test does). */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* 1 when the two open files have identical contents. */
static int same_bytes(FILE* a, FILE* b) {
    char x[65536], y[65536];
    for (;;) {
        size_t n = fread(x, 1, sizeof x, a), m = fread(y, 1, sizeof y, b);
        if (n != m || memcmp(x, y, n) != 0) return 0;
        if (n == 0) return 1;
    }
}

static const char* identify(const char* mapped, const char* ours, const char* debian) {
    const char* names[2] = {"ours", "debian"};
    const char* refs[2] = {ours, debian};
    for (int i = 0; i < 2; ++i) {
        FILE* a = fopen(mapped, "rb");
        FILE* b = fopen(refs[i], "rb");
        int same = a && b && same_bytes(a, b);
        if (a) fclose(a);
        if (b) fclose(b);
        if (!a) return "unreadable";
        if (same) return names[i];
    }
    return "neither";
}

/* Prints "<label>: <path> is ours|debian|neither|unreadable" for the first libpmix mapping of pid,
 * or "<label>: no libpmix mapped". */
static void report(int pid, const char* label, const char* ours, const char* debian) {
    char maps[64], line[512];
    snprintf(maps, sizeof maps, "/proc/%d/maps", pid);
    FILE* f = fopen(maps, "r");
    while (f && fgets(line, sizeof line, f)) {
        char* path = strchr(line, '/');
        if (!path || !strstr(path, "/libpmix.so")) continue;
        path[strcspn(path, "\n")] = '\0';
        char range[64], mapped[128];
        sscanf(line, "%63s", range);
        snprintf(mapped, sizeof mapped, "/proc/%d/map_files/%s", pid, range);
        printf("%s: %s is %s\n", label, path, identify(mapped, ours, debian));
        fclose(f);
        return;
    }
    if (f) fclose(f);
    printf("%s: no libpmix mapped\n", label);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: loaded_libpmix OURS DEBIAN\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int rank = 0, size = 0, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("hello from %d of %d, sum %d\n", rank, size, sum);
    char label[64];
    snprintf(label, sizeof label, "rank %d", rank);
    report((int)getpid(), label, argv[1], argv[2]);
    snprintf(label, sizeof label, "rank %d server", rank);
    report((int)getppid(), label, argv[1], argv[2]);
    /* The library Open MPI loaded (RTLD_NOLOAD: only if it is already there) names itself. */
    void* lib = dlopen("libpmix.so.2", RTLD_LAZY | RTLD_NOLOAD);
    const char* (*get_version)(void) =
        lib ? (const char* (*)(void))dlsym(lib, "PMIx_Get_version") : NULL;
    printf("rank %d: PMIx_Get_version: %s\n", rank, get_version ? get_version() : "(not loaded)");
    MPI_Finalize();
    return 0;
}
