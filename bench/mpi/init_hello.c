/* bench/mpi/init_hello.c - Open MPI startup as an MPI user sees it: each rank times MPI_Init
 * (which runs PMIx_Init, the modex Put/Commit and the startup fence), then does one
 * MPI_Allreduce so that every rank really wired up, and prints
 *   MPIBENCH rank=R size=N init_us=T sum=S
 * Run by bench/mpi/startup.py under Debian's mpirun, once on OpenPMIx and once on our library. */
#include <mpi.h>
#include <stdio.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
    double t0 = now_us();
    MPI_Init(&argc, &argv);
    double init_us = now_us() - t0;
    int rank = 0, size = 0, sum = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2) {
        fprintf(stderr, "init_hello: wrong allreduce result %d\n", sum);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("MPIBENCH rank=%d size=%d init_us=%.1f sum=%d\n", rank, size, init_us, sum);
    MPI_Finalize();
    return 0;
}
