/* tests/tools/tool_target.c - a job for tools to look at: every rank initialises; rank 0
 * finalizes and exits at once (so tools see a finished process next to running ones); the
 * others wait until the file named by $TOOL_TARGET_GO exists (at most 120 s), then finalize. */
#include <pmix.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(void) {
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    const char* go = getenv("TOOL_TARGET_GO");
    if (me.rank != 0 && go != NULL) {
        for (int i = 0; i < 1200 && access(go, F_OK) != 0; ++i) usleep(100000);
    }
    PMIx_Finalize(NULL, 0);
    return 0;
}
