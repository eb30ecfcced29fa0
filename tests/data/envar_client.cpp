// A client started from PMIx_server_setup_fork's environment (test_envar_fork.cpp): prints
// "NAME=value" (or "NAME unset") for each name on its command line, then "init=<status>" after
// PMIx_Init and PMIx_Finalize, so the host sees both the environment and that the client still
// reaches its server.
#include <pmix.h>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        const char* value = std::getenv(argv[i]);
        if (value == nullptr) std::printf("%s unset\n", argv[i]);
        else std::printf("%s=%s\n", argv[i], value);
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    if (rc == PMIX_SUCCESS) rc = PMIx_Finalize(nullptr, 0);
    std::printf("init=%s\n", PMIx_Error_string(rc));
    return rc == PMIX_SUCCESS ? 0 : 1;
}
