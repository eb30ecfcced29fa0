/* maps: prints the libpmix.so this MPI process loaded, the one its parent (mpirun or orted, the
 * PMIx server hosting it) loaded, and its node name; the compat tests check both libraries are
 * ours and that a two-node job really ran on both nodes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void print_libpmix(const char* maps, const char* label) {
    FILE* f = fopen(maps, "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) {
        if (strstr(line, "libpmix.so")) {
            printf("%s%s", label, strchr(line, '/'));
            break;
        }
    }
    if (f) fclose(f);
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    char parent_maps[64], host[256] = "";
    snprintf(parent_maps, sizeof parent_maps, "/proc/%d/maps", (int)getppid());
    gethostname(host, sizeof host - 1);
    print_libpmix("/proc/self/maps", "");
    print_libpmix(parent_maps, "server ");
    printf("node %s\n", host);
    MPI_Finalize();
    return 0;
}
