/* iof_lines: a job for output-file tests. Waits until the file $IOF_GO exists (at most 20 s: the
 * tools have pulled by then), then rank r writes "out r 0".."out r 2" and a partial line "part r"
 * to stdout, "err r 0".."err r 2" to stderr, waits until $IOF_STOP exists (at most 30 s) and
 * exits 0. */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void wait_for(const char* path, int tenths) {
    for (int i = 0; path != NULL && i < tenths && access(path, F_OK) != 0; ++i) usleep(100000);
}

int main(void) {
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    wait_for(getenv("IOF_GO"), 200);
    for (int i = 0; i < 3; ++i) {
        printf("out %u %d\n", me.rank, i);
        fflush(stdout);
        fprintf(stderr, "err %u %d\n", me.rank, i);
        fflush(stderr);
    }
    printf("part %u", me.rank);
    fflush(stdout);
    wait_for(getenv("IOF_STOP"), 300);
    PMIx_Finalize(NULL, 0);
    return 0;
}
