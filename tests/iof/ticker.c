/* ticker: each rank prints "tick <n>" to stdout every 20 ms until the file named by $TICKER_STOP
 * exists (or 60 s passed), then "bye" and exits 0. A job for a tool to pull output from. */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
    pmix_proc_t me;
    if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    const char* stop = getenv("TICKER_STOP");
    for (int n = 0; n < 3000; ++n) {
        if (stop != NULL && access(stop, F_OK) == 0) break;
        printf("tick %d\n", n);
        fflush(stdout);
        usleep(20000);
    }
    printf("bye\n");
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}
