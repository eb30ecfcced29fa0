// The client side of the client tests: each scenario runs in a child process started by the
// test with the server's environment, uses only the public C API, and exits 0 when every check
// held (otherwise it says which check failed on stderr and exits non-zero).
#include "scenarios.h"

#include "scenario_support.h"

#include <pmix.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <condition_variable>
#include <string>
#include <thread>

namespace clienttest {

namespace {

int lifecycle() {
    pmix_proc_t a{}, b{};
    CHECK(PMIx_Initialized() == 0);
    CHECK_RC(PMIx_Init(&a, nullptr, 0), PMIX_SUCCESS);
    CHECK(PMIx_Initialized() == 1);
    CHECK(std::strcmp(a.nspace, kNamespace) == 0);
    const char* rank = std::getenv("PMIX_RANK");
    CHECK(rank != nullptr && a.rank == static_cast<pmix_rank_t>(std::atoi(rank)));
    CHECK_RC(PMIx_Init(&b, nullptr, 0), PMIX_SUCCESS);  // counted, same identity
    CHECK(std::memcmp(&a, &b, sizeof(a)) == 0);
    CHECK_RC(PMIx_Init(nullptr, nullptr, 0), PMIX_SUCCESS);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    CHECK(PMIx_Initialized() == 1);  // one reference left
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    CHECK(PMIx_Initialized() == 0);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_ERR_INIT);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "after.finalize", nullptr), PMIX_ERR_INIT);
    // A second life in the same process works too.
    CHECK_RC(PMIx_Init(&b, nullptr, 0), PMIX_SUCCESS);
    CHECK(std::memcmp(&a, &b, sizeof(a)) == 0);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

int put_get() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "hello", PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "my.string", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    std::uint64_t big = 1ULL << 40;
    PMIX_VALUE_LOAD(&v, &big, PMIX_UINT64);
    CHECK_RC(PMIx_Put(PMIX_LOCAL, "my.u64", &v), PMIX_SUCCESS);
    int i = -5;
    PMIX_VALUE_LOAD(&v, &i, PMIX_INT);
    CHECK_RC(PMIx_Put(PMIX_REMOTE, "my.int", &v), PMIX_SUCCESS);
    i = 6;  // a later put of the same key wins
    PMIX_VALUE_LOAD(&v, &i, PMIX_INT);
    CHECK_RC(PMIx_Put(PMIX_REMOTE, "my.int", &v), PMIX_SUCCESS);

    // Own keys are answered locally, before and after the commit.
    pmix_value_t* got = nullptr;
    CHECK_RC(PMIx_Get(&me, "my.string", nullptr, 0, &got), PMIX_SUCCESS);
    CHECK(got != nullptr && got->type == PMIX_STRING &&
          std::strcmp(got->data.string, "hello") == 0);
    PMIX_VALUE_RELEASE(got);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    CHECK_RC(PMIx_Get(&me, "my.int", nullptr, 0, &got), PMIX_SUCCESS);
    CHECK(got->type == PMIX_INT && got->data.integer == 6);
    PMIX_VALUE_RELEASE(got);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);  // nothing new: an empty commit

    // A peer's key comes from the server.
    pmix_proc_t peer = me;
    peer.rank = 1;
    CHECK_RC(PMIx_Get(&peer, "peer.key", nullptr, 0, &got), PMIX_SUCCESS);
    CHECK(got->type == PMIX_STRING && std::strcmp(got->data.string, "peer-value") == 0);
    PMIX_VALUE_RELEASE(got);
    CHECK_RC(PMIx_Get(&peer, "no.such.key", nullptr, 0, &got), PMIX_ERR_NOT_FOUND);

    // key NULL: every key of the process as a DATA_ARRAY of INFO.
    got = nullptr;
    CHECK_RC(PMIx_Get(&peer, nullptr, nullptr, 0, &got), PMIX_SUCCESS);
    CHECK(got->type == PMIX_DATA_ARRAY && got->data.darray->type == PMIX_INFO);
    CHECK(got->data.darray->size == 2);
    auto* infos = static_cast<pmix_info_t*>(got->data.darray->array);
    std::map<std::string, pmix_data_type_t> seen;
    for (std::size_t k = 0; k < got->data.darray->size; ++k)
        seen[infos[k].key] = infos[k].value.type;
    CHECK(seen["peer.key"] == PMIX_STRING && seen["peer.num"] == PMIX_UINT32);
    PMIX_VALUE_RELEASE(got);

    // Job-level: asked once, then cached (the test counts the server's gets).
    pmix_proc_t job = me;
    job.rank = PMIX_RANK_WILDCARD;
    for (int round = 0; round < 3; ++round) {
        CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &got), PMIX_SUCCESS);
        CHECK(got->type == PMIX_UINT32 && got->data.uint32 == 2);
        PMIX_VALUE_RELEASE(got);
    }

    // Get_nb: the callback runs on the progress thread, not in the call.
    Signal sig;
    CHECK_RC(PMIx_Get_nb(&peer, "peer.key", nullptr, 0, value_cb, &sig), PMIX_SUCCESS);
    CHECK(sig.wait());
    CHECK(sig.status == PMIX_SUCCESS && sig.text == "peer-value");
    CHECK(sig.thread != std::this_thread::get_id());
    Signal local;
    CHECK_RC(PMIx_Get_nb(&me, "my.string", nullptr, 0, value_cb, &local), PMIX_SUCCESS);
    CHECK(local.wait());
    CHECK(local.status == PMIX_SUCCESS && local.text == "hello");
    CHECK(local.thread != std::this_thread::get_id());

    // Store_internal lands in the local cache.
    pmix_proc_t other = me;
    other.rank = 5;
    PMIX_VALUE_LOAD(&v, "stored", PMIX_STRING);
    CHECK_RC(PMIx_Store_internal(&other, "internal.key", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Get(&other, "internal.key", nullptr, 0, &got), PMIX_SUCCESS);
    CHECK(std::strcmp(got->data.string, "stored") == 0);
    PMIX_VALUE_RELEASE(got);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

int fence() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_SUCCESS);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    Signal sig;
    CHECK_RC(PMIx_Fence_nb(nullptr, 0, &info, 1, op_cb, &sig), PMIX_SUCCESS);
    CHECK(sig.wait());
    CHECK_RC(sig.status, PMIX_SUCCESS);
    CHECK(sig.thread != std::this_thread::get_id());
    PMIX_INFO_DESTRUCT(&info);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

// Event handlers get their own cbdata only through the registration, so they report here.
Signal g_specific, g_default;

void specific_handler(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t*, size_t,
                      pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
                      void* cbdata) {
    g_specific.set(status, std::to_string(source->rank));
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

void default_handler(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t*, size_t,
                     pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
                     void* cbdata) {
    g_default.set(status, std::to_string(source->rank));
    if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

struct RegResult {
    Signal sig;
    size_t ref = 0;
};

void reg_cb(pmix_status_t st, size_t ref, void* cbdata) {
    auto* r = static_cast<RegResult*>(cbdata);
    r->ref = ref;
    r->sig.set(st);
}

int events() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    pmix_status_t code = PMIX_ERR_PROC_ABORTED;
    // Blocking registration returns the reference; the fake server then raises that code.
    pmix_status_t ref =
        PMIx_Register_event_handler(&code, 1, nullptr, 0, specific_handler, nullptr, nullptr);
    CHECK(ref >= 1);
    CHECK(g_specific.wait());
    CHECK_RC(g_specific.status, PMIX_ERR_PROC_ABORTED);
    CHECK(g_specific.text == "7");
    CHECK(g_specific.thread != std::this_thread::get_id());
    // A default handler (no codes) gets what nobody else asked for.
    RegResult reg;
    CHECK_RC(PMIx_Register_event_handler(nullptr, 0, nullptr, 0, default_handler, reg_cb, &reg),
             PMIX_SUCCESS);
    CHECK(reg.sig.wait());
    CHECK_RC(reg.sig.status, PMIX_SUCCESS);
    CHECK(reg.ref >= 1 && reg.ref != static_cast<size_t>(ref));
    Signal notified;
    CHECK_RC(PMIx_Notify_event(PMIX_EVENT_JOB_END, &me, PMIX_RANGE_NAMESPACE, nullptr, 0, op_cb,
                               &notified),
             PMIX_SUCCESS);
    CHECK(notified.wait());
    CHECK_RC(notified.status, PMIX_SUCCESS);
    CHECK(g_default.wait());
    CHECK_RC(g_default.status, PMIX_EVENT_JOB_END);
    CHECK(g_default.text == std::to_string(me.rank));
    // Deregistration.
    Signal dereg;
    CHECK_RC(PMIx_Deregister_event_handler(reg.ref, op_cb, &dereg), PMIX_SUCCESS);
    CHECK(dereg.wait());
    CHECK_RC(PMIx_Deregister_event_handler(static_cast<size_t>(ref), nullptr, nullptr),
             PMIX_SUCCESS);
    CHECK_RC(PMIx_Deregister_event_handler(reg.ref, nullptr, nullptr), PMIX_ERR_NOT_FOUND);
    CHECK_RC(PMIx_Register_event_handler(&code, 1, nullptr, 0, nullptr, nullptr, nullptr),
             PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Register_event_handler(nullptr, 2, nullptr, 0, default_handler, nullptr, nullptr),
             PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

int fence_server_dies() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    CHECK(PMIx_Register_event_handler(nullptr, 0, nullptr, 0, default_handler, nullptr, nullptr) >=
          1);
    pmix_status_t rc = PMIx_Fence(nullptr, 0, nullptr, 0);
    CHECK(rc == PMIX_ERR_LOST_CONNECTION || rc == PMIX_ERR_UNREACH);
    // Registered handlers hear about the loss.
    CHECK(g_default.wait());
    CHECK_RC(g_default.status, PMIX_ERR_LOST_CONNECTION);
    // The process carries on: local puts still work, server calls fail at once.
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "x", PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "after.loss", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK(PMIx_Commit() != PMIX_SUCCESS);
    CHECK(PMIx_Fence(nullptr, 0, nullptr, 0) != PMIX_SUCCESS);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

int get_timeout() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    pmix_info_t info;
    int secs = 1;
    PMIX_INFO_LOAD(&info, PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_proc_t peer = me;
    peer.rank = 1;
    pmix_value_t* got = nullptr;
    CHECK_RC(PMIx_Get(&peer, kSilentKey, &info, 1, &got), PMIX_ERR_TIMEOUT);
    CHECK(got == nullptr);
    Signal sig;
    CHECK_RC(PMIx_Get_nb(&peer, kSilentKey, &info, 1, value_cb, &sig), PMIX_SUCCESS);
    CHECK(sig.wait());
    CHECK_RC(sig.status, PMIX_ERR_TIMEOUT);
    PMIX_INFO_DESTRUCT(&info);
    // The connection is still good after a timed-out request.
    CHECK_RC(PMIx_Get(&peer, "peer.key", nullptr, 0, &got), PMIX_SUCCESS);
    PMIX_VALUE_RELEASE(got);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

int bad_args() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "x", PMIX_STRING);
    std::string long_key(PMIX_MAX_KEYLEN + 1, 'k');
    std::string max_key(PMIX_MAX_KEYLEN, 'm');
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, nullptr, &v), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "", &v), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, long_key.c_str(), &v), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, max_key.c_str(), &v), PMIX_SUCCESS);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "k", nullptr), PMIX_ERR_BAD_PARAM);
    pmix_value_t* got = nullptr;
    CHECK_RC(PMIx_Get(&me, max_key.c_str(), nullptr, 0, &got), PMIX_SUCCESS);
    PMIX_VALUE_RELEASE(got);
    CHECK_RC(PMIx_Get(&me, long_key.c_str(), nullptr, 0, &got), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Get(&me, "k", nullptr, 0, nullptr), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Get(&me, "k", nullptr, 2, &got), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Get_nb(&me, "k", nullptr, 0, nullptr, nullptr), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Fence(nullptr, 2, nullptr, 0), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Fence_nb(nullptr, 0, nullptr, 0, nullptr, nullptr), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Store_internal(nullptr, "k", &v), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Store_internal(&me, long_key.c_str(), &v), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Publish(nullptr, 1), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Lookup(nullptr, 1, nullptr, 0), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Lookup_nb(nullptr, nullptr, 0, nullptr, nullptr), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Abort(1, "x", nullptr, 3), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Connect(nullptr, 0, nullptr, 0), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Log(nullptr, 0, nullptr, 0), PMIX_ERR_BAD_PARAM);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

int publish_lookup() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    pmix_info_t info;
    PMIX_INFO_LOAD(&info, "svc.port", "1234", PMIX_STRING);
    CHECK_RC(PMIx_Publish(&info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    std::strncpy(pd.key, "svc.port", PMIX_MAX_KEYLEN);
    CHECK_RC(PMIx_Lookup(&pd, 1, nullptr, 0), PMIX_SUCCESS);
    CHECK(pd.value.type == PMIX_STRING && std::strcmp(pd.value.data.string, "1234") == 0);
    CHECK(std::strcmp(pd.proc.nspace, kNamespace) == 0);
    PMIX_PDATA_DESTRUCT(&pd);
    char key[] = "svc.port";
    char* keys[] = {key, nullptr};
    Signal sig;
    auto cb = [](pmix_status_t st, pmix_pdata_t data[], size_t n, void* cbdata) {
        std::string text = (st == PMIX_SUCCESS && n == 1) ? data[0].value.data.string : "";
        static_cast<Signal*>(cbdata)->set(st, text);
    };
    CHECK_RC(PMIx_Lookup_nb(keys, nullptr, 0, cb, &sig), PMIX_SUCCESS);
    CHECK(sig.wait());
    CHECK(sig.status == PMIX_SUCCESS && sig.text == "1234");
    // Operations the (fake) server's host does not provide come back NOT_SUPPORTED.
    CHECK_RC(PMIx_Unpublish(keys, nullptr, 0), PMIX_ERR_NOT_SUPPORTED);
    CHECK_RC(PMIx_Connect(&me, 1, nullptr, 0), PMIX_ERR_NOT_SUPPORTED);
    pmix_info_t line;
    PMIX_INFO_LOAD(&line, PMIX_LOG_STDERR, "log line", PMIX_STRING);
    CHECK_RC(PMIx_Log(&line, 1, nullptr, 0), PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&line);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

int abort_call() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    CHECK_RC(PMIx_Abort(3, "giving up", nullptr, 0), PMIX_SUCCESS);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

// Blocking calls made from a callback (the progress thread) must not deadlock.
int would_block() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "x", PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "wb.key", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    struct Probe {
        Signal sig;
        pmix_status_t get = PMIX_SUCCESS, fence = PMIX_SUCCESS, commit = PMIX_SUCCESS;
        pmix_status_t finalize = PMIX_SUCCESS;
    } probe;
    auto cb = [](pmix_status_t, pmix_value_t*, void* cbdata) {
        auto* p = static_cast<Probe*>(cbdata);
        pmix_value_t* got = nullptr;
        p->get = PMIx_Get(nullptr, "wb.key", nullptr, 0, &got);
        p->fence = PMIx_Fence(nullptr, 0, nullptr, 0);
        p->commit = PMIx_Commit();
        p->finalize = PMIx_Finalize(nullptr, 0);
        p->sig.set(PMIX_SUCCESS);
    };
    CHECK_RC(PMIx_Get_nb(&me, "wb.key", nullptr, 0, cb, &probe), PMIX_SUCCESS);
    CHECK(probe.sig.wait());
    CHECK_RC(probe.get, PMIX_ERR_WOULD_BLOCK);
    CHECK_RC(probe.fence, PMIX_ERR_WOULD_BLOCK);
    CHECK_RC(probe.commit, PMIX_ERR_WOULD_BLOCK);
    CHECK_RC(probe.finalize, PMIX_ERR_WOULD_BLOCK);
    CHECK(PMIx_Initialized() == 1);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

void info_cb(pmix_status_t st, pmix_info_t* info, size_t n, void* cbdata,
             pmix_release_cbfunc_t release, void* release_data) {
    std::string text = (st == PMIX_SUCCESS && n == 1 && info[0].value.type == PMIX_STRING)
                           ? info[0].value.data.string
                           : "";
    if (release != nullptr) release(release_data);
    static_cast<Signal*>(cbdata)->set(st, text);
}

int forwarded_ops() {
    pmix_proc_t me{};
    if (init_as_env(&me) != 0) return 1;
    // Query: answered by the fake host.
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char key[] = "q.key";
    char* keys[] = {key, nullptr};
    q.keys = keys;
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    CHECK_RC(PMIx_Query_info(&q, 1, &results, &nresults), PMIX_SUCCESS);
    CHECK(nresults == 1 && std::strcmp(results[0].value.data.string, "answer:q.key") == 0);
    PMIX_INFO_FREE(results, nresults);
    Signal sig;
    CHECK_RC(PMIx_Query_info_nb(&q, 1, info_cb, &sig), PMIX_SUCCESS);
    CHECK(sig.wait());
    CHECK(sig.status == PMIX_SUCCESS && sig.text == "answer:q.key");
    q.keys = nullptr;  // not owned by q
    CHECK_RC(PMIx_Query_info(nullptr, 0, &results, &nresults), PMIX_ERR_BAD_PARAM);
    // Spawn and job control: the fake host has neither.
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    char cmd[] = "/bin/true";
    app.cmd = cmd;
    app.maxprocs = 1;
    pmix_nspace_t ns;
    CHECK_RC(PMIx_Spawn(nullptr, 0, &app, 1, ns), PMIX_ERR_NOT_SUPPORTED);
    CHECK_RC(PMIx_Spawn(nullptr, 0, nullptr, 0, ns), PMIX_ERR_BAD_PARAM);
    app.cmd = nullptr;
    pmix_info_t dir;
    bool yes = true;
    PMIX_INFO_LOAD(&dir, PMIX_JOB_CTRL_KILL, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Job_control(&me, 1, &dir, 1, &results, &nresults), PMIX_ERR_NOT_SUPPORTED);
    Signal jc;
    CHECK_RC(PMIx_Job_control_nb(&me, 1, &dir, 1, info_cb, &jc), PMIX_SUCCESS);
    CHECK(jc.wait());
    CHECK_RC(jc.status, PMIX_ERR_NOT_SUPPORTED);
    PMIX_INFO_DESTRUCT(&dir);
    // Resolve: from PMIX_LOCAL_PEERS, and from the node and proc maps.
    pmix_proc_t* peers = nullptr;
    size_t npeers = 0;
    CHECK_RC(PMIx_Resolve_peers(nullptr, nullptr, &peers, &npeers), PMIX_SUCCESS);
    CHECK(npeers == 3 && peers[0].rank == 0 && peers[1].rank == 1 && peers[2].rank == 3);
    CHECK(std::strcmp(peers[2].nspace, kNamespace) == 0);
    PMIX_PROC_FREE(peers, npeers);
    CHECK_RC(PMIx_Resolve_peers("nodeB", kNamespace, &peers, &npeers), PMIX_SUCCESS);
    CHECK(npeers == 1 && peers[0].rank == 2);
    PMIX_PROC_FREE(peers, npeers);
    CHECK_RC(PMIx_Resolve_peers("nowhere", kNamespace, &peers, &npeers), PMIX_ERR_NOT_FOUND);
    CHECK_RC(PMIx_Resolve_peers(nullptr, nullptr, nullptr, &npeers), PMIX_ERR_BAD_PARAM);
    char* nodes = nullptr;
    CHECK_RC(PMIx_Resolve_nodes(nullptr, &nodes), PMIX_SUCCESS);
    CHECK(nodes != nullptr && std::strcmp(nodes, "nodeA,nodeB") == 0);
    std::free(nodes);
    CHECK_RC(PMIx_Resolve_nodes(kNamespace, nullptr), PMIX_ERR_BAD_PARAM);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

// Only an address of another implementation's server (the test sets it): PMIx_Init says no.
int foreign_server() {
    pmix_proc_t me{};
    CHECK_RC(PMIx_Init(&me, nullptr, 0), PMIX_ERR_NOT_SUPPORTED);
    CHECK(PMIx_Initialized() == 0);
    return 0;
}

const std::map<std::string, std::function<int()>>& table() {
    static const std::map<std::string, std::function<int()>> t = {
        {"lifecycle", lifecycle},
        {"foreign_server", foreign_server},
        {"put_get", put_get},
        {"fence", fence},
        {"fence_server_dies", fence_server_dies},
        {"get_timeout", get_timeout},
        {"bad_args", bad_args},
        {"publish_lookup", publish_lookup},
        {"abort", abort_call},
        {"would_block", would_block},
        {"forwarded_ops", forwarded_ops},
        {"events", events},
        {"exchange", exchange},
        {"two_namespaces", two_namespaces},
        {"lost_peer", lost_peer},
        {"event_chain", event_chain},
        {"cleanup", cleanup},
        {"model_declared", model_declared},
        {"board_rounds", board_rounds},
        {"board_timeout", board_timeout},
        {"board_dead_peer", board_dead_peer},
        {"board_required_directive", board_required_directive},
    };
    return t;
}

}  // namespace

int run_scenario(const std::string& name) {
    auto it = table().find(name);
    if (it == table().end()) {
        std::fprintf(stderr, "unknown scenario %s\n", name.c_str());
        return 64;
    }
    return it->second();
}

}  // namespace clienttest
