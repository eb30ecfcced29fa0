/* ring: a token goes around MPI_COMM_WORLD twice; every rank prints what it received. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    for (int lap = 0; lap < 2; ++lap) {
        int token = 0;
        if (rank == 0) {
            token = 1000 * (lap + 1);
            MPI_Send(&token, 1, MPI_INT, next, lap, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_INT, next, lap, MPI_COMM_WORLD);
        }
        printf("ring lap %d rank %d token %d\n", lap, rank, token);
    }
    MPI_Finalize();
    return 0;
}
