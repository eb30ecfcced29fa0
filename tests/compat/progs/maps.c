/* maps: prints the libpmix.so this MPI process loaded (the compat tests check it is ours). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    FILE* f = fopen("/proc/self/maps", "r");
    char line[512];
    while (f && fgets(line, sizeof line, f)) if (strstr(line, "libpmix.so")) { printf("%s", strchr(line, '/')); break; }
    if (f) fclose(f);
    MPI_Finalize();
    return 0;
}
