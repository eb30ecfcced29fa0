/* last_words MODE LINES [RANK]: rank RANK (default 0) writes LINES numbered lines to stdout ("line
 * <n>"), then a last line without a newline to stdout ("last words <MODE>") and one to stderr ("err
 * words <MODE>"), then ends as MODE says: abort (PMIx_Abort(3), then waits to be killed), signal
 * (SIGKILL to itself), exit (PMIx_Finalize, exit 0). The other ranks finalize and exit at once
 * (abort: they wait to be killed). Everything written must reach pmixrun's output. */
#include <pmix.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
    pmix_proc_t me;
    if (argc < 3 || PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS) return 1;
    const char* mode = argv[1];
    const long lines = atol(argv[2]);
    const long writer = argc > 3 ? atol(argv[3]) : 0;
    if ((long)me.rank != writer) {
        if (strcmp(mode, "abort") == 0)
            for (;;) pause();
        PMIx_Finalize(NULL, 0);
        return 0;
    }
    for (long n = 0; n < lines; ++n) printf("line %ld\n", n);
    printf("last words %s", mode);
    fflush(stdout);
    fprintf(stderr, "err words %s", mode);
    fflush(stderr);
    if (strcmp(mode, "abort") == 0) {
        PMIx_Abort(3, "last_words: giving up on purpose", NULL, 0);
        for (;;) pause();
    }
    if (strcmp(mode, "signal") == 0) raise(SIGKILL);
    PMIx_Finalize(NULL, 0);
    return 0;
}
