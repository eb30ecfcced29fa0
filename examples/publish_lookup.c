/* publish_lookup: rank 0 publishes a "service address"; every rank looks it up, waiting for it
 * with PMIX_WAIT; after a fence rank 0 unpublishes it, and after another fence a lookup without
 * waiting must report it gone. Exit 0 when all of that held. */
#include <pmix.h>

#include <stdio.h>
#include <string.h>

#define SERVICE_KEY "publish_lookup.service"
#define SERVICE_VAL "tcp://example:4242"

static int lookup(const pmix_proc_t* me, int wait, int expect_found) {
    pmix_pdata_t pd;
    pmix_info_t winfo;
    bool yes = true;
    pmix_status_t rc;
    int ok;

    PMIX_PDATA_CONSTRUCT(&pd);
    snprintf(pd.key, sizeof(pd.key), "%s", SERVICE_KEY);
    PMIX_INFO_LOAD(&winfo, PMIX_WAIT, &yes, PMIX_BOOL);
    rc = PMIx_Lookup(&pd, 1, wait ? &winfo : NULL, wait ? 1 : 0);
    if (expect_found) {
        ok = PMIX_SUCCESS == rc && PMIX_STRING == pd.value.type &&
             0 == strcmp(pd.value.data.string, SERVICE_VAL) && 0 == pd.proc.rank;
        printf("publish_lookup: rank %u looked up %s: %s\n", me->rank, SERVICE_KEY,
               ok ? pd.value.data.string : PMIx_Error_string(rc));
    } else {
        ok = PMIX_SUCCESS != rc;
        printf("publish_lookup: rank %u after unpublish: %s\n", me->rank, PMIx_Error_string(rc));
    }
    PMIX_PDATA_DESTRUCT(&pd);
    PMIX_INFO_DESTRUCT(&winfo);
    return ok;
}

int main(void) {
    pmix_proc_t me;
    pmix_info_t pub;
    pmix_status_t rc;
    int ok = 1;

    if (PMIX_SUCCESS != PMIx_Init(&me, NULL, 0)) {
        fprintf(stderr, "publish_lookup: init failed\n");
        return 1;
    }
    if (0 == me.rank) {
        PMIX_INFO_LOAD(&pub, SERVICE_KEY, SERVICE_VAL, PMIX_STRING);
        rc = PMIx_Publish(&pub, 1);
        PMIX_INFO_DESTRUCT(&pub);
        if (PMIX_SUCCESS != rc) {
            fprintf(stderr, "publish_lookup: publish failed: %s\n", PMIx_Error_string(rc));
            ok = 0;
        }
    }
    ok &= lookup(&me, 1, 1);
    PMIx_Fence(NULL, 0, NULL, 0);
    if (0 == me.rank) {
        char* keys[] = {SERVICE_KEY, NULL};
        rc = PMIx_Unpublish(keys, NULL, 0);
        if (PMIX_SUCCESS != rc) {
            fprintf(stderr, "publish_lookup: unpublish failed: %s\n", PMIx_Error_string(rc));
            ok = 0;
        }
    }
    PMIx_Fence(NULL, 0, NULL, 0);
    ok &= lookup(&me, 0, 0);
    PMIx_Finalize(NULL, 0);
    return ok ? 0 : 1;
}
