/* abort: rank 1 (or 0 with one process) calls MPI_Abort with error code 3; the others wait. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == (size > 1 ? 1 : 0)) MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Barrier(MPI_COMM_WORLD); /* never completes: the aborting rank does not arrive */
    MPI_Finalize();
    return 0;
}
