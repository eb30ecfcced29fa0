/*
 * A program that uses an installed libpmix the way an outside project does. It reports which
 * libpmix.so.2 the dynamic loader actually picked and, given the expected path, fails unless it
 * is that one (check_install.sh builds it with pkg-config and with CMake).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

int main(int argc, char** argv) {
    /* A real call, so that the link keeps libpmix even with --as-needed. */
    const char* version = PMIx_Get_version();
    /* dlsym, not &PMIx_Get_version: in a non-PIE executable the address of an imported function
     * can be a PLT stub inside the executable itself, and dladdr would name the executable. */
    void* fn = dlsym(RTLD_DEFAULT, "PMIx_Get_version");
    Dl_info info;
    char loaded[PATH_MAX], wanted[PATH_MAX];
    struct link_map* map = NULL;
    void* handle;

    if (NULL == fn || 0 == dladdr(fn, &info) || NULL == info.dli_fname) {
        fprintf(stderr, "consumer: cannot locate PMIx_Get_version: %s\n", dlerror());
        return 2;
    }
    if (NULL == realpath(info.dli_fname, loaded)) {
        snprintf(loaded, sizeof(loaded), "%s", info.dli_fname);
    }
    printf("version: %s\n", NULL != version ? version : "(null)");
    printf("dladdr:  %s\n", info.dli_fname);
    printf("loaded:  %s\n", loaded);
    handle = dlopen("libpmix.so.2", RTLD_NOW | RTLD_NOLOAD);
    if (NULL != handle && 0 == dlinfo(handle, RTLD_DI_LINKMAP, &map) && NULL != map) {
        printf("linkmap: %s\n", map->l_name);
    }
    if (argc > 1) {
        if (NULL == realpath(argv[1], wanted)) {
            fprintf(stderr, "consumer: expected library %s does not exist\n", argv[1]);
            return 2;
        }
        if (0 != strcmp(wanted, loaded)) {
            fprintf(stderr, "consumer: loaded %s, expected %s\n", loaded, wanted);
            return 1;
        }
    }
    return 0;
}
