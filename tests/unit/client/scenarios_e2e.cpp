// The client scenarios that run against the real server (test_e2e.cpp): the data exchange and
// its read path, a lost peer, job-control cleanup, the model-declared event, the event handler
// chain and two namespaces. Helpers are in scenario_support.h.
#include "scenario_support.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

namespace clienttest {

namespace {

// Against the real server (test_e2e.cpp): every rank puts, commits, fences with data
// collection, then reads every peer's key.
// Write system calls this process made so far (/proc/self/io counts every thread).
long write_syscalls() {
    FILE* f = std::fopen("/proc/self/io", "r");
    if (f == nullptr) return -1;
    char line[128];
    long n = -1;
    while (std::fgets(line, sizeof line, f) != nullptr) {
        if (std::strncmp(line, "syscw:", 6) == 0) n = std::atol(line + 6);
    }
    std::fclose(f);
    return n;
}

// A process's own keys: what it put (committed or not) comes from its cache and, with the store,
// its own proc-level job data (PMIX_LOCAL_RANK) from the store, on the calling thread: not a
// single write system call (before, each such Get woke the progress thread, and proc-level data
// went to the server). PMIX_GET_REFRESH_CACHE still asks the server, and agrees.
int check_own_keys(const pmix_proc_t& me, bool store) {
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, "one", PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_LOCAL, "test.own.key", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    PMIX_VALUE_LOAD(&v, "two", PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_LOCAL, "test.own.key", &v), PMIX_SUCCESS);  // not committed
    PMIX_VALUE_DESTRUCT(&v);
    const std::string committed = "value-of-" + std::to_string(me.rank);
    long before = write_syscalls();
    for (int i = 0; i < 200; ++i) {
        pmix_value_t* got = nullptr;
        CHECK_RC(PMIx_Get(&me, "test.own.key", nullptr, 0, &got), PMIX_SUCCESS);
        CHECK(got->type == PMIX_STRING && got->data.string == std::string("two"));
        PMIX_VALUE_RELEASE(got);
        CHECK_RC(PMIx_Get(&me, "test.rank.key", nullptr, 0, &got), PMIX_SUCCESS);
        CHECK(got->type == PMIX_STRING && got->data.string == committed);
        PMIX_VALUE_RELEASE(got);
    }
    CHECK(write_syscalls() == before);
    pmix_value_t* local = nullptr;
    before = write_syscalls();
    for (int i = 0; i < 200; ++i) {
        if (local != nullptr) PMIX_VALUE_RELEASE(local);
        CHECK_RC(PMIx_Get(&me, PMIX_LOCAL_RANK, nullptr, 0, &local), PMIX_SUCCESS);
    }
    const long writes = write_syscalls() - before;
    CHECK(store ? writes == 0 : writes >= 200);
    pmix_info_t refresh;
    bool yes = true;
    PMIX_INFO_LOAD(&refresh, PMIX_GET_REFRESH_CACHE, &yes, PMIX_BOOL);
    pmix_value_t* asked = nullptr;
    before = write_syscalls();
    CHECK_RC(PMIx_Get(&me, PMIX_LOCAL_RANK, &refresh, 1, &asked), PMIX_SUCCESS);
    CHECK(write_syscalls() > before);
    CHECK(local->type == PMIX_UINT16 && asked->type == PMIX_UINT16 &&
          local->data.uint16 == asked->data.uint16);
    PMIX_VALUE_RELEASE(local);
    PMIX_VALUE_RELEASE(asked);
    return 0;
}

// TEST_EXPECT_STORE=1: peer Gets are answered from the shared store (no request to the server,
// so not a single write system call), and a pointer-mode value lives in read-only memory (a
// forked child writing to it dies of SIGSEGV, this process is unharmed). =0: they go to the
// server (at least one write per Get).
int check_read_path(const pmix_proc_t& me, int n) {
    const char* expect = std::getenv("TEST_EXPECT_STORE");
    if (expect == nullptr) return 0;
    pmix_proc_t peer = me;
    peer.rank = static_cast<pmix_rank_t>((me.rank + 1) % static_cast<pmix_rank_t>(n));
    const long before = write_syscalls();
    for (int i = 0; i < 1000; ++i) {
        pmix_value_t* got = nullptr;
        CHECK_RC(PMIx_Get(&peer, "test.rank.key", nullptr, 0, &got), PMIX_SUCCESS);
        PMIX_VALUE_RELEASE(got);
    }
    const long writes = write_syscalls() - before;
    if (int rc = check_own_keys(me, std::strcmp(expect, "1") == 0); rc != 0) return rc;
    if (std::strcmp(expect, "1") != 0) {
        CHECK(writes >= 1000);
        return 0;
    }
    CHECK(writes == 0);
    pmix_info_t ptr;
    bool yes = true;
    PMIX_INFO_LOAD(&ptr, PMIX_GET_POINTER_VALUES, &yes, PMIX_BOOL);
    pmix_value_t* view = nullptr;
    CHECK_RC(PMIx_Get(&peer, "test.rank.key", &ptr, 1, &view), PMIX_SUCCESS);
    CHECK(view->type == PMIX_STRING &&
          view->data.string == "value-of-" + std::to_string(peer.rank));
    // One pmix_value_t per stored value: asking again hands out the same one (memory does not
    // grow with the number of pointer-mode Gets), and a different key gets a different one.
    for (int i = 0; i < 100; ++i) {
        pmix_value_t* again = nullptr;
        CHECK_RC(PMIx_Get(&peer, "test.rank.key", &ptr, 1, &again), PMIX_SUCCESS);
        CHECK(again == view);
    }
    pmix_value_t* size = nullptr;
    CHECK_RC(PMIx_Get(nullptr, PMIX_JOB_SIZE, &ptr, 1, &size), PMIX_SUCCESS);
    CHECK(size != view && size->type == PMIX_UINT32 &&
          size->data.uint32 == static_cast<uint32_t>(n));
    const pid_t child = ::fork();
    if (child == 0) {
        view->data.string[0] = 'X';  // read-only mapping: SIGSEGV here
        ::_exit(0);
    }
    int status = 0;
    CHECK(::waitpid(child, &status, 0) == child);
    // SIGSEGV (or, under AddressSanitizer, its report and abort): the write never succeeds.
    CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
    CHECK(view->data.string == "value-of-" + std::to_string(peer.rank));  // still intact
    return 0;
}

}  // namespace

int exchange() {
    pmix_proc_t me{};
    CHECK_RC(PMIx_Init(&me, nullptr, 0), PMIX_SUCCESS);
    const int n =
        std::atoi(std::getenv("TEST_NPROCS") != nullptr ? std::getenv("TEST_NPROCS") : "0");
    CHECK(n > 0);
    std::string mine = "value-of-" + std::to_string(me.rank);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, mine.c_str(), PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "test.rank.key", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(nullptr, 0, &info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
    for (int r = 0; r < n; ++r) {
        pmix_proc_t peer = me;
        peer.rank = static_cast<pmix_rank_t>(r);
        pmix_value_t* got = nullptr;
        CHECK_RC(PMIx_Get(&peer, "test.rank.key", nullptr, 0, &got), PMIX_SUCCESS);
        CHECK(got->type == PMIX_STRING && got->data.string == "value-of-" + std::to_string(r));
        PMIX_VALUE_RELEASE(got);
    }
    if (int rc = check_read_path(me, n); rc != 0) return rc;
    pmix_proc_t job = me;
    job.rank = PMIX_RANK_WILDCARD;
    pmix_value_t* size = nullptr;
    CHECK_RC(PMIx_Get(&job, PMIX_JOB_SIZE, nullptr, 0, &size), PMIX_SUCCESS);
    CHECK(size->type == PMIX_UINT32 && size->data.uint32 == static_cast<std::uint32_t>(n));
    PMIX_VALUE_RELEASE(size);
    pmix_proc_t* peers = nullptr;
    size_t npeers = 0;
    CHECK_RC(PMIx_Resolve_peers(nullptr, me.nspace, &peers, &npeers), PMIX_SUCCESS);
    CHECK(npeers == static_cast<size_t>(n));
    PMIX_PROC_FREE(peers, npeers);
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_SUCCESS);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

namespace {

std::atomic<int> g_lost_from{-1};
std::atomic<int> g_lost_affected{-1};
std::atomic<int> g_default_saw_lost{0};

void on_any(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t*, size_t, pmix_info_t*,
            size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    if (status == PMIX_ERR_LOST_CONNECTION) ++g_default_saw_lost;
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

void on_lost(size_t, pmix_status_t status, const pmix_proc_t* source, pmix_info_t info[],
             size_t ninfo, pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
             void* cbdata) {
    if (status == PMIX_ERR_LOST_CONNECTION && source != nullptr) {
        for (size_t i = 0; i < ninfo; ++i) {
            if (std::strncmp(info[i].key, PMIX_EVENT_AFFECTED_PROC, PMIX_MAX_KEYLEN) == 0 &&
                info[i].value.type == PMIX_PROC) {
                g_lost_affected = static_cast<int>(info[i].value.data.proc->rank);
            }
        }
        g_lost_from = static_cast<int>(source->rank);
    }
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

}  // namespace

// Rank 1 leaves without PMIx_Finalize after a fence; rank 0, registered for
// PMIX_ERR_LOST_CONNECTION, must hear about it from the server (source and affected proc = 1).
// Rank 2 (in 3-rank jobs) has only a default handler, as an MPI rank does, and must not: the
// host alone decides what a dead peer means for the others (as with OpenPMIx).
int lost_peer() {
    pmix_proc_t me{};
    CHECK_RC(PMIx_Init(&me, nullptr, 0), PMIX_SUCCESS);
    pmix_status_t code = PMIX_ERR_LOST_CONNECTION;
    if (me.rank == 2) {
        CHECK(PMIx_Register_event_handler(nullptr, 0, nullptr, 0, on_any, nullptr, nullptr) >= 0);
    } else {
        CHECK(PMIx_Register_event_handler(&code, 1, nullptr, 0, on_lost, nullptr, nullptr) >= 0);
    }
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_SUCCESS);
    if (me.rank == 1) ::_exit(0);  // no PMIx_Finalize: the server sees a lost client
    if (me.rank == 2) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        CHECK(g_default_saw_lost.load() == 0);
        CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
        return 0;
    }
    for (int i = 0; i < 1000 && g_lost_from.load() < 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(g_lost_from.load() == 1);
    CHECK(g_lost_affected.load() == 1);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

// Job_control cleanup registrations (as Open MPI sends them: no callback): the server removes
// the registered file and directory tree when this client ends; a file owned by another user is
// never removed. TEST_CLEANUP_DIR is a scratch directory the host test checks afterwards.
int cleanup() {
    pmix_proc_t me{};
    CHECK_RC(PMIx_Init(&me, nullptr, 0), PMIX_SUCCESS);
    const char* base = std::getenv("TEST_CLEANUP_DIR");
    CHECK(base != nullptr);
    const std::string file = std::string(base) + "/segment";
    const std::string foreign = std::string(base) + "/foreign";
    const std::string dir = std::string(base) + "/session";
    CHECK(::mkdir(dir.c_str(), 0700) == 0 && ::mkdir((dir + "/sub").c_str(), 0700) == 0);
    for (const std::string& f : {file, foreign, dir + "/a", dir + "/sub/b"}) {
        FILE* out = std::fopen(f.c_str(), "w");
        CHECK(out != nullptr);
        std::fclose(out);
    }
    CHECK(::chown(foreign.c_str(), 65534, 65534) == 0);
    pmix_info_t dirs[3];
    const std::string files = file + "," + foreign;
    PMIX_INFO_LOAD(&dirs[0], PMIX_REGISTER_CLEANUP, files.c_str(), PMIX_STRING);
    PMIX_INFO_LOAD(&dirs[1], PMIX_REGISTER_CLEANUP_DIR, dir.c_str(), PMIX_STRING);
    bool yes = true;
    PMIX_INFO_LOAD(&dirs[2], PMIX_CLEANUP_RECURSIVE, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Job_control_nb(nullptr, 0, dirs, 3, nullptr, nullptr), PMIX_SUCCESS);
    for (auto& d : dirs) PMIX_INFO_DESTRUCT(&d);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

namespace {

// A repeated PMIx_Init declaring a programming model (as Open MPI's second PMIx_Init does) raises
// PMIX_MODEL_DECLARED for this process's handlers registered for it, carrying the declaration;
// it is non-default, so a default handler does not see it; Init/Finalize stay reference counted.
std::atomic<int> g_model_seen{0};
std::atomic<int> g_model_default_seen{0};
std::atomic<bool> g_model_is_mpi{false};

void on_model(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
              pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    if (status == PMIX_MODEL_DECLARED) {
        for (size_t i = 0; i < ninfo; ++i) {
            if (std::strncmp(info[i].key, PMIX_PROGRAMMING_MODEL, PMIX_MAX_KEYLEN) == 0 &&
                info[i].value.type == PMIX_STRING) {
                g_model_is_mpi = std::strcmp(info[i].value.data.string, "MPI") == 0;
            }
        }
        ++g_model_seen;
    }
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

void on_model_default(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t*, size_t,
                      pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc,
                      void* cbdata) {
    if (status == PMIX_MODEL_DECLARED) ++g_model_default_seen;
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

}  // namespace

int model_declared() {
    pmix_proc_t me{};
    CHECK_RC(PMIx_Init(&me, nullptr, 0), PMIX_SUCCESS);
    pmix_status_t code = PMIX_MODEL_DECLARED;
    CHECK(PMIx_Register_event_handler(&code, 1, nullptr, 0, on_model, nullptr, nullptr) >= 0);
    CHECK(PMIx_Register_event_handler(nullptr, 0, nullptr, 0, on_model_default, nullptr, nullptr) >=
          0);
    pmix_info_t model[2];
    PMIX_INFO_LOAD(&model[0], PMIX_PROGRAMMING_MODEL, "MPI", PMIX_STRING);
    PMIX_INFO_LOAD(&model[1], PMIX_MODEL_LIBRARY_NAME, "TestMPI", PMIX_STRING);
    pmix_proc_t again{};
    CHECK_RC(PMIx_Init(&again, model, 2), PMIX_SUCCESS);
    for (auto& m : model) PMIX_INFO_DESTRUCT(&m);
    CHECK(again.rank == me.rank && std::strcmp(again.nspace, me.nspace) == 0);
    for (int i = 0; i < 500 && g_model_seen.load() == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(g_model_seen.load() == 1);
    CHECK(g_model_is_mpi.load());
    CHECK(g_model_default_seen.load() == 0);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);  // the second reference
    CHECK(PMIx_Initialized());
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    CHECK(!PMIx_Initialized());
    return 0;
}

namespace {

constexpr pmix_status_t kChainCode = PMIX_EXTERNAL_ERR_BASE - 11;
constexpr pmix_status_t kStopCode = PMIX_EXTERNAL_ERR_BASE - 12;
std::mutex g_chain_mu;
std::string g_chain;  // handler letters in call order

template <char Letter, pmix_status_t Completion>
void chain_handler(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t*, size_t, pmix_info_t*,
                   size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_chain_mu);
        g_chain += Letter;
    }
    if (cbfunc != nullptr) cbfunc(Completion, nullptr, 0, nullptr, nullptr, cbdata);
}

std::string chain_so_far() {
    std::lock_guard lock(g_chain_mu);
    return g_chain;
}

bool wait_for_chain(const std::string& want) {
    for (int i = 0; i < 1000 && chain_so_far() != want; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // nothing else may follow
    return chain_so_far() == want;
}

pmix_status_t reg(pmix_status_t* code, pmix_notification_fn_t fn, const char* key = nullptr,
                  const pmix_proc_t* affected = nullptr) {
    pmix_info_t info;
    bool yes = true;
    if (key != nullptr && affected != nullptr) PMIX_INFO_LOAD(&info, key, affected, PMIX_PROC);
    else if (key != nullptr) PMIX_INFO_LOAD(&info, key, &yes, PMIX_BOOL);
    const pmix_status_t rc =
        PMIx_Register_event_handler(code, code != nullptr ? 1 : 0, key != nullptr ? &info : nullptr,
                                    key != nullptr ? 1 : 0, fn, nullptr, nullptr);
    if (key != nullptr) PMIX_INFO_DESTRUCT(&info);
    return rc;
}

}  // namespace

// The Standard's handler chain on a real server. Rank 1 registers for kChainCode: A (plain),
// B (PMIX_EVENT_HDLR_FIRST), C (PMIX_EVENT_HDLR_LAST), E (affected proc = rank 7, which the
// event does not name), a default D; and for kStopCode: S completing with
// PMIX_EVENT_ACTION_COMPLETE. Rank 0 notifies both codes with affected proc = rank 0.
// Expected: "BACD" (specific in placement order, E filtered out, then default), then "S" only.
int event_chain() {
    pmix_proc_t me{};
    CHECK_RC(PMIx_Init(&me, nullptr, 0), PMIX_SUCCESS);
    if (me.rank == 1) {
        pmix_status_t code = kChainCode, stop = kStopCode;
        pmix_proc_t other = me;
        other.rank = 7;
        CHECK(reg(&code, chain_handler<'A', PMIX_SUCCESS>) >= 0);
        CHECK(reg(&code, chain_handler<'B', PMIX_SUCCESS>, PMIX_EVENT_HDLR_FIRST) >= 0);
        CHECK(reg(&code, chain_handler<'C', PMIX_SUCCESS>, PMIX_EVENT_HDLR_LAST) >= 0);
        CHECK(reg(&code, chain_handler<'E', PMIX_SUCCESS>, PMIX_EVENT_AFFECTED_PROC, &other) >= 0);
        CHECK(reg(nullptr, chain_handler<'D', PMIX_SUCCESS>) >= 0);
        CHECK(reg(&stop, chain_handler<'S', PMIX_EVENT_ACTION_COMPLETE>) >= 0);
    }
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_SUCCESS);
    if (me.rank == 0) {
        pmix_info_t affected;
        PMIX_INFO_LOAD(&affected, PMIX_EVENT_AFFECTED_PROC, &me, PMIX_PROC);
        CHECK_RC(PMIx_Notify_event(kChainCode, &me, PMIX_RANGE_NAMESPACE, &affected, 1, nullptr,
                                   nullptr),
                 PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&affected);
    } else {
        CHECK(wait_for_chain("BACD"));
    }
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_SUCCESS);
    if (me.rank == 0) {
        CHECK_RC(
            PMIx_Notify_event(kStopCode, &me, PMIX_RANGE_NAMESPACE, nullptr, 0, nullptr, nullptr),
            PMIX_SUCCESS);
    } else {
        CHECK(wait_for_chain("BACDS"));  // the default handler D does not run after S completed
    }
    CHECK_RC(PMIx_Fence(nullptr, 0, nullptr, 0), PMIX_SUCCESS);
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

// Two jobs fencing together: every process of this namespace and of TEST_OTHER_NS (both
// wildcards) fences with PMIX_COLLECT_DATA, then reads a key of rank 0 and 1 of the other job.
int two_namespaces() {
    pmix_proc_t me{};
    CHECK_RC(PMIx_Init(&me, nullptr, 0), PMIX_SUCCESS);
    const char* other = std::getenv("TEST_OTHER_NS");
    CHECK(other != nullptr);
    const std::string mine = std::string(me.nspace) + "/" + std::to_string(me.rank);
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, mine.c_str(), PMIX_STRING);
    CHECK_RC(PMIx_Put(PMIX_GLOBAL, "test.two.key", &v), PMIX_SUCCESS);
    PMIX_VALUE_DESTRUCT(&v);
    CHECK_RC(PMIx_Commit(), PMIX_SUCCESS);
    pmix_proc_t both[2];
    PMIX_LOAD_PROCID(&both[0], me.nspace, PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&both[1], other, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    CHECK_RC(PMIx_Fence(both, 2, &info, 1), PMIX_SUCCESS);
    PMIX_INFO_DESTRUCT(&info);
    for (pmix_rank_t r = 0; r < 2; ++r) {
        pmix_proc_t peer;
        PMIX_LOAD_PROCID(&peer, other, r);
        pmix_value_t* got = nullptr;
        CHECK_RC(PMIx_Get(&peer, "test.two.key", nullptr, 0, &got), PMIX_SUCCESS);
        CHECK(got->type == PMIX_STRING &&
              got->data.string == std::string(other) + "/" + std::to_string(r));
        PMIX_VALUE_RELEASE(got);
    }
    CHECK_RC(PMIx_Fence(both, 2, nullptr, 0), PMIX_SUCCESS);  // a data-less fence across both
    CHECK_RC(PMIx_Finalize(nullptr, 0), PMIX_SUCCESS);
    return 0;
}

}  // namespace clienttest
