/* publish: rank 0 opens a port and publishes it under a service name; the other ranks look it
 * up, and rank 0 accepts / the others connect one after the other; each side prints a line. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char port[MPI_MAX_PORT_NAME] = {0};
    if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name("compat-svc", MPI_INFO_NULL, port);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) {
        char found[MPI_MAX_PORT_NAME] = {0};
        MPI_Lookup_name("compat-svc", MPI_INFO_NULL, found);
        printf("rank %d looked up the service: %s\n", rank, found[0] ? "found" : "empty");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Unpublish_name("compat-svc", MPI_INFO_NULL, port);
        MPI_Close_port(port);
        printf("rank 0 unpublished\n");
    }
    MPI_Finalize();
    return 0;
}
