/* spawn: the job spawns 2 children (this program with argument "child"); parent rank 0 sends
 * each child a number over the intercommunicator, the child answers with number + its rank. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int x = 0;
        MPI_Recv(&x, 1, MPI_INT, 0, 7, parent, MPI_STATUS_IGNORE);
        x += rank;
        MPI_Send(&x, 1, MPI_INT, 0, 8, parent);
        printf("child %d got %d\n", rank, x - rank);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    MPI_Comm children;
    char* args[] = {"child", NULL};
    int errs[2];
    MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &children, errs);
    if (rank == 0) {
        for (int c = 0; c < 2; ++c) {
            int x = 100 * (c + 1);
            MPI_Send(&x, 1, MPI_INT, c, 7, children);
        }
        for (int c = 0; c < 2; ++c) {
            int y = 0;
            MPI_Recv(&y, 1, MPI_INT, c, 8, children, MPI_STATUS_IGNORE);
            printf("parent got %d from child %d\n", y, c);
        }
    }
    MPI_Comm_disconnect(&children);
    MPI_Finalize();
    return 0;
}
