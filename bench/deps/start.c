/* bench/deps/start.c - an empty program linked to libpmix, with and without libtbb: what loading
 * TBB would add to the start of every client process if libpmix linked it (bench/deps/run.sh). */
#include <pmix.h>

int main(void) { return PMIx_Initialized() ? 1 : 0; }
