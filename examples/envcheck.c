/* envcheck: prints the named environment variables as NAME=value (or NAME unset) and exits 0 if
 * all are set. Used to check pmixrun's -x forwarding; it is not a PMIx client on purpose. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
    int i, ok = 1;
    for (i = 1; i < argc; i++) {
        const char* v = getenv(argv[i]);
        if (NULL == v) {
            printf("%s unset\n", argv[i]);
            ok = 0;
        } else {
            printf("%s=%s\n", argv[i], v);
        }
    }
    return ok ? 0 : 1;
}
