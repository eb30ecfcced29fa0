/* examples/events.c - event notification between the processes of a job.
 *
 * Every rank registers a handler for a user-defined code and a default handler, then fences (so
 * every registration is in place). Rank 0 notifies the code with range PMIX_RANGE_NAMESPACE and
 * an info carrying a payload; every other rank waits (at most 10 s) for its handler to see it
 * and prints "events: rank R ok (got code C from rank 0, payload P)"; a final fence, then rank 0
 * prints "events: rank 0 ok (notified)". Public API only (built against ours and OpenPMIx). */
#include <pmix.h>

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define APP_EVENT (PMIX_EXTERNAL_ERR_BASE - 7)
#define PAYLOAD_KEY "events.example.payload"

/* Set by the handler (on the library's thread) after the fields below, read by main: the
 * release/acquire pair makes the fields visible with the flag. */
static atomic_int got = 0;
static pmix_rank_t got_from = PMIX_RANK_UNDEF;
static char got_payload[64];

static void app_handler(size_t id, pmix_status_t status, const pmix_proc_t* source,
                        pmix_info_t info[], size_t ninfo, pmix_info_t results[], size_t nresults,
                        pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    (void)id;
    (void)results;
    (void)nresults;
    if (status == APP_EVENT && source != NULL) {
        for (size_t i = 0; i < ninfo; ++i) {
            if (strcmp(info[i].key, PAYLOAD_KEY) == 0 && info[i].value.type == PMIX_STRING) {
                snprintf(got_payload, sizeof got_payload, "%s", info[i].value.data.string);
            }
        }
        got_from = source->rank;
        atomic_store_explicit(&got, 1, memory_order_release);
    }
    if (cbfunc != NULL) cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

static void default_handler(size_t id, pmix_status_t status, const pmix_proc_t* source,
                            pmix_info_t info[], size_t ninfo, pmix_info_t results[],
                            size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                            void* cbdata) {
    (void)id;
    (void)status;
    (void)source;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    if (cbfunc != NULL) cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

static int fail(const char* what, pmix_status_t rc) {
    fprintf(stderr, "events: %s failed: %s\n", what, PMIx_Error_string(rc));
    PMIx_Finalize(NULL, 0);
    return 1;
}

/* A fence that collects data: Slurm's plugin (22.05) completes a fence that collects nothing on
 * each node without waiting for the other nodes (its slurmd debug log), so only a collecting
 * fence makes sure every rank's handler is registered before rank 0 notifies. */
static pmix_status_t barrier(void) {
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    return PMIx_Fence(NULL, 0, &collect, 1);
}

int main(void) {
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "events: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_status_t code = APP_EVENT;
    rc = PMIx_Register_event_handler(&code, 1, NULL, 0, app_handler, NULL, NULL);
    if (rc < 0) return fail("PMIx_Register_event_handler", rc);
    rc = PMIx_Register_event_handler(NULL, 0, NULL, 0, default_handler, NULL, NULL);
    if (rc < 0) return fail("PMIx_Register_event_handler (default)", rc);
    if ((rc = barrier()) != PMIX_SUCCESS) return fail("PMIx_Fence", rc);

    if (me.rank == 0) {
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PAYLOAD_KEY, "hello from rank 0", PMIX_STRING);
        rc = PMIx_Notify_event(APP_EVENT, &me, PMIX_RANGE_NAMESPACE, &info, 1, NULL, NULL);
        PMIX_INFO_DESTRUCT(&info);
        if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
            return fail("PMIx_Notify_event", rc);
    } else {
        struct timespec tick = {0, 1000000};
        for (int i = 0; i < 10000 && !atomic_load_explicit(&got, memory_order_acquire); ++i)
            nanosleep(&tick, NULL);
        if (!atomic_load_explicit(&got, memory_order_acquire)) {
            fprintf(stderr, "events: rank %u: no event within 10 s\n", me.rank);
            PMIx_Finalize(NULL, 0);
            return 1;
        }
        printf("events: rank %u ok (got code %d from rank %u, payload %s)\n", me.rank, APP_EVENT,
               got_from, got_payload);
    }
    if ((rc = barrier()) != PMIX_SUCCESS) return fail("PMIx_Fence (final)", rc);
    if (me.rank == 0) printf("events: rank 0 ok (notified)\n");
    fflush(stdout);
    PMIx_Finalize(NULL, 0);
    return 0;
}
