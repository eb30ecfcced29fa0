// hostlock_host: a server host that behaves as Slurm's PMIx plugin does, using only the public
// pmix_server.h / pmix.h API: it holds ONE lock (an error-checking pthread mutex) across every
// call it makes into the library and inside every upcall and callback it receives, and it calls
// every callback the library gives it inline, from inside the upcall, still holding that lock.
//
// The library must therefore never call the host back (an upcall, a callback, a release
// function) on a thread that is inside a call into the library: each host entry point checks
// a thread-local "inside the library" flag, and the lock itself answers EDEADLK when the same
// thread takes it twice. Either is recorded as a violation; any violation, a missing upcall, a
// client failing or a timeout fails the test (exit status 1; 3 for the watchdog).
//
//   hostlock_host CLIENT [N]     N clients (default 3) run every operation that reaches the
//                                host (hostlock_client.c), then registration, deregistration,
//                                application setup, dmodex, notify and error-path checks.
//   hostlock_host CLIENT --stuck the host never answers fence_nb; PMIx_server_finalize must
//                                return all the same and leave no segment in /dev/shm and no
//                                directory under the server's tmpdir.
//   hostlock_host CLIENT --stuck-release
//                                the host answers that fence late, from its own thread, and
//                                calls PMIx_server_finalize still holding the lock its release
//                                function takes: finalize gives up on its thread after its limit
//                                (PMIX_ERR_TIMEOUT, < 15 s) and removes the same.
#include <pmix.h>
#include <pmix_server.h>

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

pthread_mutex_t g_lock;
thread_local bool t_holding = false;     // this thread holds g_lock (in an upcall or a call)
thread_local bool t_in_library = false;  // this thread is inside a call into the library

std::mutex g_report_mu;
std::vector<std::string> g_violations;
std::map<std::string, int> g_seen;  // host entry point -> times entered

void violation(const std::string& what) {
    std::lock_guard lock(g_report_mu);
    g_violations.push_back(what);
    std::fprintf(stderr, "hostlock: VIOLATION: %s\n", what.c_str());
}

int seen(const std::string& name) {
    std::lock_guard lock(g_report_mu);
    return g_seen.count(name) ? g_seen[name] : 0;
}

// Entering the host from the library (an upcall, a callback, a release function): take the
// lock, as the plugin does. Released at scope exit.
class Entered {
public:
    explicit Entered(const char* name) {
        enter(name);
        // Counted once the lock is held: whoever waits for this count and then takes the lock
        // sees what the entry point did under it.
        std::lock_guard lock(g_report_mu);
        ++g_seen[name];
    }
    ~Entered() {
        if (!acquired_) return;
        t_holding = false;
        pthread_mutex_unlock(&g_lock);
    }
    Entered(const Entered&) = delete;
    Entered& operator=(const Entered&) = delete;

private:
    void enter(const char* name) {
        if (t_in_library) {
            violation(std::string(name) + " ran inside the host's own call into the library");
        }
        const int rc = pthread_mutex_lock(&g_lock);
        if (rc == EDEADLK) {
            violation(std::string(name) + ": EDEADLK, this thread already holds the host's lock");
            return;
        }
        if (rc != 0) {
            violation(std::string(name) + ": pthread_mutex_lock: " + std::strerror(rc));
            return;
        }
        acquired_ = true;
        t_holding = true;
    }

    bool acquired_ = false;
};

// A call into the library (an API function or a callback the library gave us): under the lock,
// which an upcall already holds.
template <class F>
auto call(F&& f) {
    const bool take = !t_holding;
    if (take) {
        pthread_mutex_lock(&g_lock);
        t_holding = true;
    }
    const bool outer = t_in_library;
    t_in_library = true;
    auto result = f();
    t_in_library = outer;
    if (take) {
        t_holding = false;
        pthread_mutex_unlock(&g_lock);
    }
    return result;
}

template <class F>
void call_void(F&& f) {
    call([&] {
        f();
        return 0;
    });
}

// ---- what the library gives back to the host's own calls ---------------------------------

struct Waiter {
    std::atomic<bool> done{false};
    std::atomic<int> status{PMIX_ERROR};
};

void op_cb(pmix_status_t status, void* cbdata) {
    Entered e("op callback");
    auto* w = static_cast<Waiter*>(cbdata);
    w->status = status;
    w->done = true;
}

bool wait_for(const char* what, const std::function<bool()>& ready, int seconds = 20) {
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    while (!ready()) {
        if (Clock::now() > deadline) {
            violation(std::string("timed out waiting for ") + what);
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

pmix_status_t wait_op(const char* what, Waiter& w) {
    if (!wait_for(what, [&] { return w.done.load(); })) return PMIX_ERR_TIMEOUT;
    return w.status;
}

void expect_status(const char* what, pmix_status_t got, pmix_status_t want) {
    std::printf("hostlock: %s -> %s\n", what, PMIx_Error_string(got));
    if (got != want) {
        violation(std::string(what) + ": " + PMIx_Error_string(got) + ", expected " +
                  PMIx_Error_string(want));
    }
}

// ---- the host's release functions: they take the lock, as the plugin's do ----------------

void release_malloced(void* cbdata) {
    Entered e("release_fn");
    std::free(cbdata);
}

void release_infos(void* cbdata) {
    Entered e("release_fn");
    auto* infos = static_cast<pmix_info_t*>(cbdata);
    if (infos != nullptr) PMIX_INFO_FREE(infos, 1);
}

// ---- upcalls -------------------------------------------------------------------------------

bool g_stuck = false;                 // --stuck*: fence_nb does not answer from the upcall
std::vector<char*> g_stuck_contribs;  // what fence_nb kept (freed at exit)
struct HeldFence {                    // the first fence_nb's callback, for a late answer
    pmix_modex_cbfunc_t cbfunc = nullptr;
    void* cbdata = nullptr;
    size_t ndata = 0;
} g_held_fence;

pmix_status_t up_client_connected(const pmix_proc_t*, void*, pmix_op_cbfunc_t cbfunc,
                                  void* cbdata) {
    Entered e("client_connected");
    if (cbfunc != nullptr) call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_client_finalized(const pmix_proc_t*, void*, pmix_op_cbfunc_t cbfunc,
                                  void* cbdata) {
    Entered e("client_finalized");
    if (cbfunc != nullptr) call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_abort(const pmix_proc_t*, void*, int, const char*, pmix_proc_t*, size_t,
                       pmix_op_cbfunc_t cbfunc, void* cbdata) {
    Entered e("abort");
    call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_fence_nb(const pmix_proc_t*, size_t nprocs, const pmix_info_t*, size_t, char* data,
                          size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
    Entered e(nprocs == 1 ? "fence_nb" : "fence_nb (subset)");
    if (g_stuck) {  // taken; answered late (--stuck-release) or never
        if (g_held_fence.cbfunc == nullptr) g_held_fence = {cbfunc, cbdata, ndata};
        g_stuck_contribs.push_back(data);
        return PMIX_SUCCESS;
    }
    // One node: everyone's data is the local contribution; handed back with its release.
    call_void([&] { cbfunc(PMIX_SUCCESS, data, ndata, cbdata, release_malloced, data); });
    return PMIX_SUCCESS;
}

pmix_status_t up_direct_modex(const pmix_proc_t*, const pmix_info_t*, size_t,
                              pmix_modex_cbfunc_t cbfunc, void* cbdata) {
    Entered e("direct_modex");
    call_void([&] { cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, cbdata, release_malloced, nullptr); });
    return PMIX_SUCCESS;
}

pmix_status_t up_publish(const pmix_proc_t*, const pmix_info_t*, size_t, pmix_op_cbfunc_t cbfunc,
                         void* cbdata) {
    Entered e("publish");
    call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_lookup(const pmix_proc_t*, char** keys, const pmix_info_t*, size_t,
                        pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
    Entered e("lookup");
    pmix_pdata_t pd;
    PMIX_PDATA_CONSTRUCT(&pd);
    PMIX_LOAD_PROCID(&pd.proc, "hostlock", 0);
    PMIX_LOAD_KEY(pd.key, keys[0]);
    PMIX_VALUE_LOAD(&pd.value, "yes", PMIX_STRING);
    call_void([&] { cbfunc(PMIX_SUCCESS, &pd, 1, cbdata); });
    PMIX_PDATA_DESTRUCT(&pd);
    return PMIX_SUCCESS;
}

pmix_status_t up_unpublish(const pmix_proc_t*, char**, const pmix_info_t*, size_t,
                           pmix_op_cbfunc_t cbfunc, void* cbdata) {
    Entered e("unpublish");
    call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_spawn(const pmix_proc_t*, const pmix_info_t*, size_t, const pmix_app_t*, size_t,
                       pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
    Entered e("spawn");
    char child[] = "hostlock-child";
    call_void([&] { cbfunc(PMIX_SUCCESS, child, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_connect(const pmix_proc_t*, size_t, const pmix_info_t*, size_t,
                         pmix_op_cbfunc_t cbfunc, void* cbdata) {
    Entered e("connect");
    call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_disconnect(const pmix_proc_t*, size_t, const pmix_info_t*, size_t,
                            pmix_op_cbfunc_t cbfunc, void* cbdata) {
    Entered e("disconnect");
    call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_notify_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t,
                              pmix_info_t*, size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    Entered e("notify_event");
    pmix_proc_t src = *source;  // the callback ends the library's hold on the arguments
    call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
    // A host distributes the event; on this node by notifying through the library, here to its
    // own handlers only, from inside this upcall (without a callback: it waits for nothing).
    const pmix_status_t rc = call([&] {
        return PMIx_Notify_event(code, &src, PMIX_RANGE_PROC_LOCAL, nullptr, 0, nullptr, nullptr);
    });
    if (rc != PMIX_SUCCESS)
        violation("PMIx_Notify_event inside notify_event: " + std::string(PMIx_Error_string(rc)));
    return PMIX_SUCCESS;
}

pmix_status_t up_query(pmix_proc_t*, pmix_query_t*, size_t, pmix_info_cbfunc_t cbfunc,
                       void* cbdata) {
    Entered e("query");
    pmix_info_t* answer = nullptr;
    PMIX_INFO_CREATE(answer, 1);
    PMIX_INFO_LOAD(&answer[0], "hl.query", "answer", PMIX_STRING);
    call_void([&] { cbfunc(PMIX_SUCCESS, answer, 1, cbdata, release_infos, answer); });
    return PMIX_SUCCESS;
}

void up_log(const pmix_proc_t*, const pmix_info_t*, size_t, const pmix_info_t*, size_t,
            pmix_op_cbfunc_t cbfunc, void* cbdata) {
    Entered e("log");
    call_void([&] { cbfunc(PMIX_SUCCESS, cbdata); });
}

pmix_status_t up_job_control(const pmix_proc_t*, const pmix_proc_t*, size_t, const pmix_info_t*,
                             size_t, pmix_info_cbfunc_t cbfunc, void* cbdata) {
    Entered e("job_control");
    call_void([&] { cbfunc(PMIX_SUCCESS, nullptr, 0, cbdata, release_infos, nullptr); });
    return PMIX_SUCCESS;
}

// Credentials and monitors: the host's own answers, inline (credential_ops.cpp, monitor.cpp).
pmix_status_t up_get_credential(const pmix_proc_t*, const pmix_info_t*, size_t,
                                pmix_credential_cbfunc_t cbfunc, void* cbdata) {
    Entered e("get_credential");
    char bytes[] = "hostlock-credential";
    pmix_byte_object_t cred{bytes, sizeof bytes};
    call_void([&] { cbfunc(PMIX_SUCCESS, &cred, nullptr, 0, cbdata); });
    return PMIX_SUCCESS;
}

pmix_status_t up_validate_credential(const pmix_proc_t*, const pmix_byte_object_t* cred,
                                     const pmix_info_t*, size_t, pmix_validation_cbfunc_t cbfunc,
                                     void* cbdata) {
    Entered e("validate_credential");
    const bool ours = cred->size == sizeof("hostlock-credential") &&
                      std::memcmp(cred->bytes, "hostlock-credential", cred->size) == 0;
    pmix_info_t uid;
    const uint32_t u = 4242;
    PMIX_INFO_LOAD(&uid, PMIX_USERID, &u, PMIX_UINT32);
    call_void([&] { cbfunc(ours ? PMIX_SUCCESS : PMIX_ERR_INVALID_CRED, &uid, 1, cbdata); });
    PMIX_INFO_DESTRUCT(&uid);
    return PMIX_SUCCESS;
}

pmix_status_t up_monitor(const pmix_proc_t*, const pmix_info_t*, pmix_status_t, const pmix_info_t*,
                         size_t, pmix_info_cbfunc_t cbfunc, void* cbdata) {
    Entered e("monitor");
    call_void([&] { cbfunc(PMIX_SUCCESS, nullptr, 0, cbdata, release_infos, nullptr); });
    return PMIX_SUCCESS;
}

void up_tool_connected(pmix_info_t*, size_t, pmix_tool_connection_cbfunc_t cbfunc, void* cbdata) {
    Entered e("tool_connected");
    pmix_proc_t tool;
    PMIX_LOAD_PROCID(&tool, "hostlock-tool", 0);
    call_void([&] { cbfunc(PMIX_SUCCESS, &tool, cbdata); });
}

// ---- the host's own event handlers (PMIx_Register_event_handler in the server process) ------

void handler_done(pmix_status_t, void*) { Entered e("event handler's own callback"); }

void event_handler(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t* info, size_t ninfo,
                   pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    Entered e("event handler");
    for (size_t i = 0; i < ninfo; ++i) {  // the client's heartbeat monitor tripped (monitor.cpp)
        if (PMIX_CHECK_KEY(&info[i], PMIX_MONITOR_ID) && info[i].value.type == PMIX_STRING &&
            std::strcmp(info[i].value.data.string, "hl-beat") == 0) {
            std::lock_guard lock(g_report_mu);  // counted, not entered: this is the handler
            ++g_seen["heartbeat monitor alert"];
        }
    }
    // PMIX_SUCCESS: the next handler runs too (two are registered).
    call_void([&] { cbfunc(PMIX_SUCCESS, nullptr, 0, handler_done, nullptr, cbdata); });
}

void handler_registered(pmix_status_t status, size_t, void* cbdata) {
    Entered e("event registration callback");
    auto* w = static_cast<Waiter*>(cbdata);
    w->status = status;
    w->done = true;
}

// ---- the job -------------------------------------------------------------------------------

constexpr char kNspace[] = "hostlock";
std::string g_client;

pmix_status_t register_job(int n) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::string ranks;
    for (int r = 0; r < n; ++r) ranks += (r ? "," : "") + std::to_string(r);
    char* nmap = nullptr;
    char* pmap = nullptr;
    if (PMIx_generate_regex(host, &nmap) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ranks.c_str(), &pmap) != PMIX_SUCCESS) {
        return PMIX_ERROR;
    }
    pmix_info_t info[3];
    const uint32_t size = static_cast<uint32_t>(n);
    PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, pmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[2], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    std::free(nmap);
    std::free(pmap);
    Waiter w;
    const pmix_status_t rc =
        call([&] { return PMIx_server_register_nspace(kNspace, n, info, 3, op_cb, &w); });
    for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
    if (rc != PMIX_SUCCESS) return rc;
    return wait_op("register_nspace's callback", w);
}

pid_t start_client(pmix_rank_t rank, const char* mode) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, kNspace, rank);
    Waiter w;
    pmix_status_t rc = call(
        [&] { return PMIx_server_register_client(&p, getuid(), getgid(), nullptr, op_cb, &w); });
    if (rc == PMIX_SUCCESS) rc = wait_op("register_client's callback", w);
    // setup_fork extends a malloc'd, NULL-terminated array.
    std::vector<char*> kept;
    for (char** e = environ; *e != nullptr; ++e) {
        if (std::strncmp(*e, "PMIX_", 5) != 0 || std::strncmp(*e, "PMIX_CPP_", 9) == 0) {
            kept.push_back(strdup(*e));
        }
    }
    kept.push_back(nullptr);
    auto** env = static_cast<char**>(std::malloc(kept.size() * sizeof(char*)));
    std::memcpy(env, kept.data(), kept.size() * sizeof(char*));
    if (rc == PMIX_SUCCESS) rc = call([&] { return PMIx_server_setup_fork(&p, &env); });
    if (rc != PMIX_SUCCESS) {
        violation("registering client " + std::to_string(rank) + ": " + PMIx_Error_string(rc));
        return -1;
    }
    const pid_t pid = fork();
    if (pid == 0) {
        char* argv[] = {g_client.data(), const_cast<char*>(mode), nullptr};
        execve(argv[0], argv, env);
        _exit(127);
    }
    for (char** e = env; *e != nullptr; ++e) std::free(*e);
    std::free(env);
    return pid;
}

// Waits for every client (bounded); kills what is left. True when all exited with status 0.
bool reap(std::vector<pid_t>& pids, int seconds) {
    bool ok = true;
    const auto deadline = Clock::now() + std::chrono::seconds(seconds);
    for (pid_t& pid : pids) {
        int status = 0;
        while (pid > 0) {
            const pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid) {
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                    violation("client pid " + std::to_string(pid) + " ended with status " +
                              std::to_string(status));
                    ok = false;
                }
                pid = 0;
            } else if (Clock::now() > deadline) {
                violation("client pid " + std::to_string(pid) + " still running: killed");
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                pid = 0;
                ok = false;
            } else {
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
    }
    return ok;
}

pmix_server_module_t make_module() {
    pmix_server_module_t m;
    std::memset(&m, 0, sizeof m);
    m.client_connected = up_client_connected;
    m.client_finalized = up_client_finalized;
    m.abort = up_abort;
    m.fence_nb = up_fence_nb;
    m.direct_modex = up_direct_modex;
    m.publish = up_publish;
    m.lookup = up_lookup;
    m.unpublish = up_unpublish;
    m.spawn = up_spawn;
    m.connect = up_connect;
    m.disconnect = up_disconnect;
    m.notify_event = up_notify_event;
    m.query = up_query;
    m.log = up_log;
    m.job_control = up_job_control;
    m.tool_connected = up_tool_connected;
    m.get_credential = up_get_credential;
    m.validate_credential = up_validate_credential;
    m.monitor = up_monitor;
    return m;
}

std::string g_tmpdir;

pmix_status_t init_server(pmix_server_module_t* module) {
    pmix_info_t info[2];
    const bool yes = true;
    PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, g_tmpdir.c_str(), PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    const pmix_status_t rc = call([&] { return PMIx_server_init(module, info, 2); });
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return rc;
}

pid_t start_tool() {
    const pid_t pid = fork();
    if (pid == 0) {
        std::string me = std::to_string(getppid());
        char mode[] = "tool";
        char* argv[] = {g_client.data(), mode, g_tmpdir.data(), me.data(), nullptr};
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

// ---- the scenarios -------------------------------------------------------------------------

void app_setup_cb(pmix_status_t status, pmix_info_t[], size_t, void* cbdata,
                  pmix_op_cbfunc_t release, void* release_cbdata) {
    Entered e("setup_application's callback");
    if (release != nullptr) call_void([&] { release(PMIX_SUCCESS, release_cbdata); });
    auto* w = static_cast<Waiter*>(cbdata);
    w->status = status;
    w->done = true;
}

void dmodex_cb(pmix_status_t status, char*, size_t, void* cbdata) {
    Entered e("dmodex_request's callback");
    auto* w = static_cast<Waiter*>(cbdata);
    w->status = status;
    w->done = true;
}

// A call with a callback: its status, or the callback's when it accepted the request.
template <class F>
pmix_status_t op(const char* what, Waiter& w, F&& f) {
    const pmix_status_t rc = call(std::forward<F>(f));
    return rc == PMIX_SUCCESS ? wait_op(what, w) : rc;
}

constexpr pmix_status_t kCode = -7001;  // the event hostlock_client notifies

void register_handlers() {
    pmix_status_t code = kCode;
    for (int i = 0; i < 2; ++i) {
        Waiter w;
        expect_status("register event handler",
                      op("event registration", w,
                         [&] {
                             return PMIx_Register_event_handler(&code, 1, nullptr, 0, event_handler,
                                                                handler_registered, &w);
                         }),
                      PMIX_SUCCESS);
    }
}

void setup_calls() {
    Waiter app;
    expect_status(
        "setup_application",
        op("setup_application", app,
           [&] { return PMIx_server_setup_application(kNspace, nullptr, 0, app_setup_cb, &app); }),
        PMIX_SUCCESS);
    Waiter local;
    expect_status(
        "setup_local_support",
        op("setup_local_support", local,
           [&] { return PMIx_server_setup_local_support(kNspace, nullptr, 0, op_cb, &local); }),
        PMIX_SUCCESS);
}

void get_nb_cb(pmix_status_t, pmix_value_t*, void* cbdata) {
    Entered e("get_nb's callback");
    static_cast<Waiter*>(cbdata)->done = true;
}

// PMIx_Notify_event without a callback while the library's thread waits for the host's lock
// (in the callback of a PMIx_Get_nb made under that lock): accepted at once, not awaited.
void notify_while_the_loop_waits() {
    Waiter got;
    const int handled = seen("event handler");
    long long ms = 0;
    const pmix_status_t rc = call([&] {
        const pmix_status_t g = PMIx_Get_nb(nullptr, PMIX_JOB_SIZE, nullptr, 0, get_nb_cb, &got);
        if (g != PMIX_SUCCESS) return g;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // its callback is waiting
        const auto t0 = Clock::now();
        const pmix_status_t r =
            PMIx_Notify_event(kCode, nullptr, PMIX_RANGE_PROC_LOCAL, nullptr, 0, nullptr, nullptr);
        ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
        return r;
    });
    std::printf("hostlock: PMIx_Notify_event (no callback) under the lock took %lld ms\n", ms);
    expect_status("PMIx_Notify_event while the loop waits for the lock", rc, PMIX_SUCCESS);
    if (ms > 2000) violation("PMIx_Notify_event waited " + std::to_string(ms) + " ms");
    wait_for("get_nb's callback", [&] { return got.done.load(); });
    wait_for("both event handlers", [&] { return seen("event handler") >= handled + 2; });
}

void after_clients(int n) {
    notify_while_the_loop_waits();
    pmix_proc_t p0;
    PMIX_LOAD_PROCID(&p0, kNspace, 0);
    Waiter dm;
    expect_status(
        "dmodex_request",
        op("dmodex_request", dm, [&] { return PMIx_server_dmodex_request(&p0, dmodex_cb, &dm); }),
        PMIX_SUCCESS);
    const int handled = seen("event handler");
    Waiter nw;
    expect_status("PMIx_Notify_event from the host",
                  op("notify", nw,
                     [&] {
                         return PMIx_Notify_event(kCode, nullptr, PMIX_RANGE_PROC_LOCAL, nullptr, 0,
                                                  op_cb, &nw);
                     }),
                  PMIX_SUCCESS);
    wait_for("both event handlers", [&] { return seen("event handler") >= handled + 2; });
    for (int r = 0; r < n; ++r) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, kNspace, r);
        Waiter w;
        call_void([&] { PMIx_server_deregister_client(&p, op_cb, &w); });
        expect_status("deregister_client", wait_op("deregister_client", w), PMIX_SUCCESS);
    }
    Waiter dn;
    call_void([&] { PMIx_server_deregister_nspace(kNspace, op_cb, &dn); });
    expect_status("deregister_nspace", wait_op("deregister_nspace", dn), PMIX_SUCCESS);
    // A void call's refusal comes through its callback, never inside the call.
    Waiter bad;
    call_void([&] { PMIx_server_deregister_nspace(nullptr, op_cb, &bad); });
    expect_status("deregister_nspace(NULL)", wait_op("deregister_nspace(NULL)", bad),
                  PMIX_ERR_BAD_PARAM);
}

void expect_every_upcall() {
    for (const char* name : {"client_connected",
                             "client_finalized",
                             "abort",
                             "fence_nb",
                             "fence_nb (subset)",
                             "direct_modex",
                             "publish",
                             "lookup",
                             "unpublish",
                             "spawn",
                             "connect",
                             "disconnect",
                             "notify_event",
                             "query",
                             "log",
                             "job_control",
                             "get_credential",
                             "validate_credential",
                             "monitor",
                             "heartbeat monitor alert",
                             "tool_connected",
                             "release_fn",
                             "event handler",
                             "event handler's own callback",
                             "op callback",
                             "setup_application's callback",
                             "dmodex_request's callback",
                             "get_nb's callback",
                             "event registration callback"}) {
        const int times = seen(name);
        std::printf("hostlock: %-30s %d\n", name, times);
        if (times == 0) violation(std::string("never entered: ") + name);
    }
}

int run_all(int n) {
    pmix_server_module_t module = make_module();
    if (pmix_status_t rc = init_server(&module); rc != PMIX_SUCCESS) {
        violation(std::string("PMIx_server_init: ") + PMIx_Error_string(rc));
        return 1;
    }
    register_handlers();
    setup_calls();
    expect_status("register_nspace", register_job(n), PMIX_SUCCESS);
    std::vector<pid_t> pids;
    for (int r = 0; r < n; ++r) pids.push_back(start_client(static_cast<pmix_rank_t>(r), "all"));
    expect_status("clients", reap(pids, 60) ? PMIX_SUCCESS : PMIX_ERROR, PMIX_SUCCESS);
    std::vector<pid_t> tool{start_tool()};
    expect_status("tool", reap(tool, 30) ? PMIX_SUCCESS : PMIX_ERROR, PMIX_SUCCESS);
    after_clients(n);
    expect_status("PMIx_server_finalize", call([] { return PMIx_server_finalize(); }),
                  PMIX_SUCCESS);
    // Not running any more: the refusal still comes later, from a thread of the library.
    pmix_proc_t p0;
    PMIX_LOAD_PROCID(&p0, kNspace, 0);
    Waiter late;
    call_void([&] { PMIx_server_deregister_client(&p0, op_cb, &late); });
    expect_status("deregister_client after finalize", wait_op("deregister_client", late),
                  PMIX_ERR_INIT);
    expect_every_upcall();
    return 0;
}

// Names in `dir` starting with `prefix`.
std::vector<std::string> entries(const std::string& dir, const std::string& prefix) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            const std::string name = e->d_name;
            if (name == "." || name == "..") continue;
            if (name.compare(0, prefix.size(), prefix) == 0) out.push_back(name);
        }
        closedir(d);
    }
    return out;
}

// release_late: the host answers the fence from its own thread, holding its lock, and goes on
// to PMIx_server_finalize without letting go of it: our release of its buffer waits for that
// lock on the server's thread, which finalize cannot stop; it returns after its limit anyway.
int run_stuck(bool release_late) {
    g_stuck = true;
    const std::string prefix = "hostlock-" + std::to_string(getpid());
    setenv("PMIX_CPP_GDS_PREFIX", ("/" + prefix).c_str(), 1);
    pmix_server_module_t module = make_module();
    if (pmix_status_t rc = init_server(&module); rc != PMIX_SUCCESS) {
        violation(std::string("PMIx_server_init: ") + PMIx_Error_string(rc));
        return 1;
    }
    expect_status("register_nspace", register_job(2), PMIX_SUCCESS);
    std::vector<pid_t> pids;
    for (pmix_rank_t r = 0; r < 2; ++r) pids.push_back(start_client(r, "finalize-stuck"));
    wait_for("the fence to reach the host", [] { return seen("fence_nb") > 0; });
    const std::size_t segments = entries("/dev/shm", prefix).size();
    const auto t0 = Clock::now();
    const pmix_status_t rc = call([&] {
        if (release_late) {
            char* data = g_stuck_contribs.empty() ? nullptr : g_stuck_contribs.front();
            if (data != nullptr) g_stuck_contribs.erase(g_stuck_contribs.begin());
            g_held_fence.cbfunc(PMIX_SUCCESS, data, g_held_fence.ndata, g_held_fence.cbdata,
                                release_malloced, data);
        }
        return PMIx_server_finalize();
    });
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
    expect_status("PMIx_server_finalize with a fence stuck in the host", rc,
                  release_late ? PMIX_ERR_TIMEOUT : PMIX_SUCCESS);
    std::printf("hostlock: finalize took %lld ms; %zu segment(s) in /dev/shm before it\n",
                static_cast<long long>(ms), segments);
    if (ms > 15000) violation("PMIx_server_finalize took " + std::to_string(ms) + " ms");
    if (segments == 0) violation("no segment of the store found before finalize (prefix?)");
    for (const auto& name : entries("/dev/shm", prefix)) violation("left in /dev/shm: " + name);
    for (const auto& name : entries(g_tmpdir, "")) violation("left in the tmpdir: " + name);
    if (release_late) {  // the lock is free now: the release comes
        wait_for("the late release_fn", [] { return seen("release_fn") > 0; });
    }
    expect_status("clients", reap(pids, 20) ? PMIX_SUCCESS : PMIX_ERROR, PMIX_SUCCESS);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: hostlock_host CLIENT [N | --stuck]\n");
        return 2;
    }
    g_client = argv[1];
    const bool stuck = argc > 2 && std::strcmp(argv[2], "--stuck") == 0;
    const bool release_late = argc > 2 && std::strcmp(argv[2], "--stuck-release") == 0;
    const int n = argc > 2 && !stuck && !release_late ? std::atoi(argv[2]) : 3;
    signal(SIGALRM, [](int) {
        static const char msg[] = "hostlock: TIMEOUT (watchdog): something hangs\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(3);
    });
    alarm(100);
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&g_lock, &attr);
    // Every fence through the host's fence_nb, none on the library's own fence board.
    setenv("PMIX_CPP_LOCAL_FENCE", "server", 1);
    const char* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/hostlock.XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) return 2;
    g_tmpdir = templ;
    const int rc = stuck || release_late ? run_stuck(release_late) : run_all(n);
    rmdir(g_tmpdir.c_str());
    for (char* d : g_stuck_contribs) std::free(d);
    std::lock_guard lock(g_report_mu);
    std::printf("hostlock: %zu violation(s)\n", g_violations.size());
    return rc == 0 && g_violations.empty() ? 0 : 1;
}
