/* split_alltoall: MPI_Comm_split into even and odd ranks, then an MPI_Alltoall in each half and
 * one in MPI_COMM_WORLD; every rank checks what it received and prints one line. Exit 1 on a
 * wrong value. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Each rank sends 1000 * its rank + the receiver's rank; returns how many values were wrong. */
static int alltoall_check(MPI_Comm comm) {
    int rank, size, bad = 0;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int* out = malloc(sizeof(int) * (size_t)size);
    int* in = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) out[i] = 1000 * rank + i;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, comm);
    for (int i = 0; i < size; i++) bad += in[i] != 1000 * i + rank;
    free(out);
    free(in);
    return bad;
}

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank, size, sub_rank, sub_size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Comm_rank(half, &sub_rank);
    MPI_Comm_size(half, &sub_size);
    int bad = alltoall_check(half) + alltoall_check(MPI_COMM_WORLD);
    printf("split_alltoall: rank %d of %d is %d of %d in the %s half: %s\n", rank, size, sub_rank,
           sub_size, rank % 2 ? "odd" : "even", bad ? "WRONG" : "OK");
    MPI_Comm_free(&half);
    MPI_Finalize();
    return bad ? 1 : 0;
}
