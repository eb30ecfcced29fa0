// debug_daemons: debugger daemons and co-spawn under pmixrun (launcher/debug_daemons.cpp), with
// real processes and the public API only.
//   debug_daemons member N [STOPFILE]  a job's rank: waits for STOPFILE (at most 30 s) if given,
//                                      then checks its job is N processes, all local, with local
//                                      and node ranks 0..N-1 (no daemon counted among them)
//   debug_daemons daemon               a debugger daemon: reads PMIX_DEBUG_TARGET, its own job's
//                                      size and local rank, the target's proc table (query) and
//                                      job size and local peers (PMIx_Get through its server),
//                                      picks its target process and prints it; what it expects
//                                      comes in $DBG_EXPECT_* (see check_daemon)
//   debug_daemons tool PID             a tool attached to pmixrun PID, whose main job is 4
//                                      "member 4 STOP" ranks: spawns daemons per node, per proc,
//                                      by default and aimed at one rank, checks the refusals,
//                                      then co-spawns an application with a debugger app and a
//                                      plain co-spawned app
//   debug_daemons self                 a rank of a 2-rank job: rank 0 spawns one daemon per
//                                      process of its own job, started with PMIx_tool_init;
//                                      both ranks then fence and check sizes
//   debug_daemons node-member STOPFILE a rank of a job over several nodes: waits for STOPFILE
//   debug_daemons node-daemon          a debugger daemon of such a job: PMIX_DEBUG_TARGET, its
//                                      own local size ($DBG_EXPECT_LOCAL) and the target's
//                                      processes its own node runs ($DBG_EXPECT_TARGETS, alive)
//   debug_daemons tool-nodes PID       a tool attached to the head of `pmixrun --host a:2,b:2
//                                      ... node-member STOP` (tests/multinode/debug_netns.sh):
//                                      its spawn and debug support, daemons per node (2), per
//                                      process (4), an unknown target;
//                                      a co-spawn of 2 node-members and a daemon per node;
//                                      with DBG_TARGET_NS set, the daemons aim at that job (a
//                                      job of a persistent launcher across nodes)
// Prints "<mode> ok" and exits 0 when every check held; "FAIL: ..." and exits 3 otherwise.
#include <pmix.h>
#include <pmix_tool.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

int g_failures = 0;
pmix_proc_t g_me;

void check(bool ok, const std::string& what) {
    if (ok) return;
    std::printf("FAIL: %s:%u: %s\n", g_me.nspace, g_me.rank, what.c_str());
    std::fflush(stdout);
    ++g_failures;
}

int finish(const char* mode) {
    if (g_failures == 0) std::printf("%s ok\n", mode);
    std::fflush(stdout);
    return g_failures == 0 ? 0 : 3;
}

// A job-level (or, with a rank, process-level) key as a number or string; -1 / "" if absent.
long get_number(const char* nspace, pmix_rank_t rank, const char* key) {
    pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, nspace, rank);
    pmix_value_t* value = nullptr;
    if (PMIx_Get(&who, key, nullptr, 0, &value) != PMIX_SUCCESS || value == nullptr) return -1;
    long out = -1;
    if (value->type == PMIX_UINT32) out = value->data.uint32;
    else if (value->type == PMIX_UINT16) out = value->data.uint16;
    else if (value->type == PMIX_PROC_RANK) out = value->data.rank;
    PMIX_VALUE_RELEASE(value);
    return out;
}

std::string get_string(const char* nspace, pmix_rank_t rank, const char* key) {
    pmix_proc_t who;
    PMIX_LOAD_PROCID(&who, nspace, rank);
    pmix_value_t* value = nullptr;
    if (PMIx_Get(&who, key, nullptr, 0, &value) != PMIX_SUCCESS || value == nullptr) return "";
    std::string out = value->type == PMIX_STRING && value->data.string ? value->data.string : "";
    PMIX_VALUE_RELEASE(value);
    return out;
}

std::string rank_list(long n) {
    std::string out;
    for (long r = 0; r < n; ++r) out += (r == 0 ? "" : ",") + std::to_string(r);
    return out;
}

// The job of `g_me` is exactly `n` processes on this node, ranked 0..n-1 there.
void check_own_job(long n) {
    const char* ns = g_me.nspace;
    check(get_number(ns, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE) == n,
          "job size is not " + std::to_string(n));
    check(get_number(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE) == n,
          "local size is not " + std::to_string(n));
    check(get_string(ns, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS) == rank_list(n),
          "local peers are not " + rank_list(n));
    check(get_number(ns, g_me.rank, PMIX_LOCAL_RANK) == static_cast<long>(g_me.rank),
          "local rank is not the rank");
    check(get_number(ns, g_me.rank, PMIX_NODE_RANK) == static_cast<long>(g_me.rank),
          "node rank is not the rank");
}

int run_member(long n, const char* stop) {
    if (PMIx_Init(&g_me, nullptr, 0) != PMIX_SUCCESS) return 2;
    for (int i = 0; stop != nullptr && i < 3000 && access(stop, F_OK) != 0; ++i) usleep(10000);
    check_own_job(n);
    PMIx_Finalize(nullptr, 0);
    return finish("member");
}

// The proc table of `nspace` from the launcher (PMIX_QUERY_PROC_TABLE, PMIX_NSPACE qualifier).
std::vector<pmix_proc_info_t> proc_table(const char* nspace) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    char* keys[] = {const_cast<char*>(PMIX_QUERY_PROC_TABLE), nullptr};
    query.keys = keys;
    pmix_info_t qualifier;
    PMIX_INFO_LOAD(&qualifier, PMIX_NSPACE, nspace, PMIX_STRING);
    query.qualifiers = &qualifier;
    query.nqual = 1;
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Query_info(&query, 1, &results, &nresults);
    PMIX_INFO_DESTRUCT(&qualifier);
    std::vector<pmix_proc_info_t> rows;
    if (rc == PMIX_SUCCESS && nresults == 1 && results[0].value.type == PMIX_DATA_ARRAY) {
        const pmix_data_array_t* array = results[0].value.data.darray;
        auto* table = static_cast<pmix_proc_info_t*>(array->array);
        for (size_t i = 0; i < array->size; ++i) {
            pmix_proc_info_t row = table[i];
            row.hostname = row.executable_name = nullptr;  // only ids, pids and states kept
            rows.push_back(row);
        }
    }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    return rows;
}

long env_number(const char* name) {
    const char* text = std::getenv(name);
    return text != nullptr ? std::atol(text) : -1;
}

// $DBG_EXPECT_DAEMONS: this job's size; $DBG_EXPECT_TARGETS: how many processes the target names;
// $DBG_EXPECT_NS: the target's namespace ("" in a co-spawn: any other than ours);
// $DBG_EXPECT_RANK: its rank (-1: the wildcard); $DBG_ALIVE=1: every target must be running.
int run_daemon() {
    // $DBG_TOOL_INIT=1: PMIx_tool_init, as prte's example daemon starts (the server's env names
    // the process, so it connects as the client it was registered as).
    const bool as_tool = env_number("DBG_TOOL_INIT") == 1;
    if ((as_tool ? PMIx_tool_init(&g_me, nullptr, 0) : PMIx_Init(&g_me, nullptr, 0)) !=
        PMIX_SUCCESS)
        return 2;
    pmix_proc_t me_all;
    PMIX_LOAD_PROCID(&me_all, g_me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t* value = nullptr;
    pmix_status_t rc = PMIx_Get(&me_all, PMIX_DEBUG_TARGET, nullptr, 0, &value);
    check(rc == PMIX_SUCCESS && value != nullptr && value->type == PMIX_PROC,
          std::string("PMIX_DEBUG_TARGET: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS || value == nullptr || value->type != PMIX_PROC) return finish("daemon");
    const pmix_proc_t target = *value->data.proc;
    PMIX_VALUE_RELEASE(value);
    const char* want_ns = std::getenv("DBG_EXPECT_NS");
    const long want_rank = env_number("DBG_EXPECT_RANK");
    if (want_ns != nullptr && *want_ns != '\0')
        check(std::strcmp(target.nspace, want_ns) == 0, std::string("target ") + target.nspace);
    check(std::strcmp(target.nspace, g_me.nspace) != 0, "the target is our own namespace");
    check(target.rank == (want_rank < 0 ? PMIX_RANK_WILDCARD : static_cast<pmix_rank_t>(want_rank)),
          "target rank " + std::to_string(target.rank));
    check_own_job(env_number("DBG_EXPECT_DAEMONS"));
    // The target as its server knows it: job size and local peers (another namespace's info).
    const long target_size = get_number(target.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    const std::string peers = get_string(target.nspace, PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
    check(target_size > 0 && peers == rank_list(target_size),
          "target's job size " + std::to_string(target_size) + ", local peers '" + peers + "'");
    std::vector<pmix_proc_info_t> mine;  // the target's processes, in rank order
    for (const pmix_proc_info_t& row : proc_table(target.nspace))
        if (target.rank == PMIX_RANK_WILDCARD || row.proc.rank == target.rank) mine.push_back(row);
    check(static_cast<long>(mine.size()) == env_number("DBG_EXPECT_TARGETS"),
          "proc table names " + std::to_string(mine.size()) + " targets");
    if (env_number("DBG_ALIVE") == 1)
        for (const pmix_proc_info_t& row : mine)
            check(row.pid > 0 && kill(row.pid, 0) == 0, "target pid " + std::to_string(row.pid));
    // Our own target: our local rank against theirs (the Standard's self-determination).
    const long local = get_number(g_me.nspace, g_me.rank, PMIX_LOCAL_RANK);
    const long daemons = env_number("DBG_EXPECT_DAEMONS");
    if (!mine.empty() && local >= 0 && daemons > 0) {
        const size_t per = static_cast<size_t>(daemons) >= mine.size()
                               ? static_cast<size_t>(daemons) / mine.size()
                               : 1;
        const pmix_proc_info_t& pick =
            mine[std::min(mine.size() - 1, static_cast<size_t>(local) / per)];
        std::printf("daemon %s:%u of %ld: target %s:%d, %zu in the table; mine rank %u pid %d\n",
                    g_me.nspace, g_me.rank, daemons, target.nspace, static_cast<int>(target.rank),
                    mine.size(), pick.proc.rank, static_cast<int>(pick.pid));
    }
    if (as_tool) PMIx_tool_finalize();
    else PMIx_Finalize(nullptr, 0);
    return finish("daemon");
}

// --- the spawning side (tool or rank) ---

std::mutex g_mu;
std::condition_variable g_cv;
std::map<std::string, pmix_status_t> g_ended;  // JOB_END by namespace: PMIX_JOB_TERM_STATUS

void on_job_end(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
                pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    std::string nspace;
    pmix_status_t status = PMIX_ERR_UNKNOWN_DATA_TYPE;
    bool returned = false;  // PMIX_EVENT_RETURN_OBJECT: the registration's object, handed back
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_RETURN_OBJECT))
            returned = info[i].value.type == PMIX_POINTER && info[i].value.data.ptr == &g_ended;
        if (PMIX_CHECK_KEY(&info[i], PMIX_NSPACE) && info[i].value.type == PMIX_STRING)
            nspace = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], PMIX_JOB_TERM_STATUS) && info[i].value.type == PMIX_STATUS)
            status = info[i].value.data.status;
    }
    check(returned, "JOB_END of " + nspace + " without the handler's PMIX_EVENT_RETURN_OBJECT");
    {
        std::lock_guard lock(g_mu);
        g_ended[nspace] = status;
    }
    g_cv.notify_all();
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

void check_ended_well(const std::string& nspace) {
    std::unique_lock lock(g_mu);
    const bool ended =
        g_cv.wait_for(lock, std::chrono::seconds(15), [&] { return g_ended.count(nspace) != 0; });
    check(ended, "no JOB_END for " + nspace);
    if (ended)
        check(g_ended[nspace] == PMIX_SUCCESS,
              nspace + " ended with " + PMIx_Error_string(g_ended[nspace]));
}

struct Spawn {
    std::vector<pmix_info_t> job;
    std::vector<pmix_app_t> apps;
    ~Spawn() {
        for (pmix_info_t& i : job) PMIX_INFO_DESTRUCT(&i);
        for (pmix_app_t& a : apps) PMIX_APP_DESTRUCT(&a);
    }
    pmix_app_t& app(const char* self, std::vector<std::string> args, int maxprocs,
                    std::vector<std::string> env) {
        pmix_app_t& a = apps.emplace_back();
        PMIX_APP_CONSTRUCT(&a);
        a.cmd = strdup(self);
        args.insert(args.begin(), self);
        a.argv = static_cast<char**>(calloc(args.size() + 1, sizeof(char*)));
        for (size_t i = 0; i < args.size(); ++i) a.argv[i] = strdup(args[i].c_str());
        a.env = static_cast<char**>(calloc(env.size() + 1, sizeof(char*)));
        for (size_t i = 0; i < env.size(); ++i) a.env[i] = strdup(env[i].c_str());
        a.maxprocs = maxprocs;
        return a;
    }
    pmix_status_t run(std::string& nspace) {
        char ns[PMIX_MAX_NSLEN + 1] = {};
        const pmix_status_t rc = PMIx_Spawn(job.empty() ? nullptr : job.data(), job.size(),
                                            apps.data(), apps.size(), ns);
        nspace = ns;
        return rc;
    }
};

pmix_info_t info_of(const char* key, const void* value, pmix_data_type_t type) {
    pmix_info_t i;
    PMIX_INFO_LOAD(&i, key, value, type);
    return i;
}

const bool kYes = true;

// Debugger daemons aimed at `target`: per proc / per node counts (0: not given); expects
// `daemons` of them over `targets` processes; returns the spawn's status.
pmix_status_t spawn_daemons(const char* self, const pmix_proc_t& target, uint16_t per_proc,
                            uint16_t per_node, long daemons, long targets, bool tool_init = false) {
    Spawn spawn;
    spawn.job.push_back(info_of(PMIX_DEBUGGER_DAEMONS, &kYes, PMIX_BOOL));
    spawn.job.push_back(info_of(PMIX_DEBUG_TARGET, &target, PMIX_PROC));
    spawn.job.push_back(info_of(PMIX_NOTIFY_COMPLETION, &kYes, PMIX_BOOL));
    if (per_proc > 0)
        spawn.job.push_back(info_of(PMIX_DEBUG_DAEMONS_PER_PROC, &per_proc, PMIX_UINT16));
    if (per_node > 0)
        spawn.job.push_back(info_of(PMIX_DEBUG_DAEMONS_PER_NODE, &per_node, PMIX_UINT16));
    const long rank = target.rank == PMIX_RANK_WILDCARD ? -1 : static_cast<long>(target.rank);
    spawn.app(
        self, {"daemon"}, 0,
        {"DBG_EXPECT_DAEMONS=" + std::to_string(daemons),
         "DBG_EXPECT_TARGETS=" + std::to_string(targets),
         std::string("DBG_EXPECT_NS=") + target.nspace, "DBG_EXPECT_RANK=" + std::to_string(rank),
         "DBG_ALIVE=1", std::string("DBG_TOOL_INIT=") + (tool_init ? "1" : "0")});
    std::string nspace;
    const pmix_status_t rc = spawn.run(nspace);
    if (rc != PMIX_SUCCESS) return rc;
    check(proc_table(nspace.c_str()).size() == static_cast<size_t>(daemons),
          "daemon job " + nspace + " is not " + std::to_string(daemons) + " processes");
    check_ended_well(nspace);
    return rc;
}

void register_job_end() {
    pmix_status_t code = PMIX_EVENT_JOB_END;
    pmix_info_t object;
    PMIX_INFO_LOAD(&object, PMIX_EVENT_RETURN_OBJECT, &g_ended, PMIX_POINTER);
    const pmix_status_t rc =
        PMIx_Register_event_handler(&code, 1, &object, 1, on_job_end, nullptr, nullptr);
    PMIX_INFO_DESTRUCT(&object);
    check(rc >= 0, std::string("register JOB_END: ") + PMIx_Error_string(rc));
}

std::string query_string(const char* key) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    char* keys[] = {const_cast<char*>(key), nullptr};
    query.keys = keys;
    pmix_info_t* results = nullptr;
    size_t n = 0;
    std::string out;
    if (PMIx_Query_info(&query, 1, &results, &n) == PMIX_SUCCESS && n == 1 &&
        results[0].value.type == PMIX_STRING && results[0].value.data.string != nullptr)
        out = results[0].value.data.string;
    if (results != nullptr) PMIX_INFO_FREE(results, n);
    return out;
}

void check_support() {
    const std::string spawn = query_string(PMIX_QUERY_SPAWN_SUPPORT);
    const std::string debug = query_string(PMIX_QUERY_DEBUG_SUPPORT);
    for (const char* key : {PMIX_COSPAWN_APP, PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_TARGET,
                            PMIX_DEBUG_DAEMONS_PER_PROC, PMIX_DEBUG_DAEMONS_PER_NODE})
        check(spawn.find(key) != std::string::npos, std::string("spawn support lacks ") + key);
    for (const char* key : {PMIX_DEBUGGER_DAEMONS, PMIX_DEBUG_TARGET})
        check(debug.find(key) != std::string::npos, std::string("debug support lacks ") + key);
}

// The requests pmixrun must refuse, with the Standard's errors, before starting anything.
void check_refusals(const char* self, const char* main_ns) {
    pmix_proc_t nowhere, no_rank, all;
    PMIX_LOAD_PROCID(&nowhere, "no-such-job", PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&no_rank, main_ns, 99);
    PMIX_LOAD_PROCID(&all, main_ns, PMIX_RANK_WILDCARD);
    pmix_status_t rc = spawn_daemons(self, nowhere, 0, 1, 1, 1);
    check(rc == PMIX_ERR_NOT_FOUND, std::string("unknown target: ") + PMIx_Error_string(rc));
    rc = spawn_daemons(self, no_rank, 1, 0, 1, 1);
    check(rc == PMIX_ERR_NOT_FOUND, std::string("unknown target rank: ") + PMIx_Error_string(rc));
    rc = spawn_daemons(self, all, 1, 1, 1, 1);
    check(rc == PMIX_ERR_BAD_PARAM, std::string("both counts: ") + PMIx_Error_string(rc));
    Spawn zero;  // a count of 0
    const uint16_t none = 0;
    zero.job.push_back(info_of(PMIX_DEBUG_DAEMONS_PER_NODE, &none, PMIX_UINT16));
    zero.app(self, {"daemon"}, 0, {});
    std::string ns;
    rc = zero.run(ns);
    check(rc == PMIX_ERR_BAD_PARAM, std::string("a count of 0: ") + PMIx_Error_string(rc));
    Spawn untargeted;  // a count without a target
    const uint16_t one = 1;
    untargeted.job.push_back(info_of(PMIX_DEBUG_DAEMONS_PER_PROC, &one, PMIX_UINT16));
    untargeted.app(self, {"daemon"}, 0, {});
    rc = untargeted.run(ns);
    check(rc == PMIX_ERR_BAD_PARAM,
          std::string("a count without target: ") + PMIx_Error_string(rc));
}

std::vector<std::string> namespaces() {
    std::vector<std::string> out;
    std::string all = query_string(PMIX_QUERY_NAMESPACES);
    for (size_t at = 0; at <= all.size();) {
        const size_t comma = all.find(',', at);
        const std::string item =
            all.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
        if (!item.empty()) out.push_back(item);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return out;
}

// One spawn: an application of 2 "member 2" ranks, a debugger app (PMIX_DEBUGGER_DAEMONS, one per
// application process) and a plain PMIX_COSPAWN_APP app of 1 rank: three jobs, the spawn names
// the application's; the other two are the next namespaces the launcher lists.
void check_cospawn(const char* self) {
    const size_t before = namespaces().size();
    Spawn spawn;
    spawn.job.push_back(info_of(PMIX_NOTIFY_COMPLETION, &kYes, PMIX_BOOL));
    spawn.app(self, {"member", "2"}, 2, {});
    pmix_app_t& debugger =
        spawn.app(self, {"daemon"}, 0,
                  {"DBG_EXPECT_DAEMONS=2", "DBG_EXPECT_TARGETS=2", "DBG_EXPECT_RANK=-1"});
    const uint16_t one = 1;
    PMIX_INFO_CREATE(debugger.info, 2);
    debugger.ninfo = 2;
    PMIX_INFO_LOAD(&debugger.info[0], PMIX_DEBUGGER_DAEMONS, &kYes, PMIX_BOOL);
    PMIX_INFO_LOAD(&debugger.info[1], PMIX_DEBUG_DAEMONS_PER_PROC, &one, PMIX_UINT16);
    pmix_app_t& plain = spawn.app(self, {"member", "1"}, 1, {});
    PMIX_INFO_CREATE(plain.info, 1);
    plain.ninfo = 1;
    PMIX_INFO_LOAD(&plain.info[0], PMIX_COSPAWN_APP, &kYes, PMIX_BOOL);
    std::string application;
    const pmix_status_t rc = spawn.run(application);
    check(rc == PMIX_SUCCESS, std::string("co-spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    const std::vector<std::string> after = namespaces();
    check(after.size() == before + 3,
          "co-spawn made " + std::to_string(after.size() - before) + " namespaces, not 3");
    check(proc_table(application.c_str()).size() == 2, "the application is not 2 processes");
    for (size_t i = before; i < after.size(); ++i) check_ended_well(after[i]);
    if (after.size() == before + 3) {
        check(after[before] == application, "the spawn did not name the application");
        check(proc_table(after[before + 1].c_str()).size() == 2, "not 2 co-spawned daemons");
        check(proc_table(after[before + 2].c_str()).size() == 1, "the co-spawned app is not 1");
    }
}

int run_tool(const char* self, pid_t pid) {
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (const char* t = std::getenv("TMPDIR"); t != nullptr)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TMPDIR, t, PMIX_STRING);
    const pmix_status_t rc = PMIx_tool_init(&g_me, info, ninfo);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        std::printf("FAIL: tool_init: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    register_job_end();
    check_support();
    const std::vector<std::string> before = namespaces();
    check(!before.empty(), "no namespace");
    const std::string main_ns = before.empty() ? "" : before[0];
    pmix_proc_t all, rank2;
    PMIX_LOAD_PROCID(&all, main_ns.c_str(), PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&rank2, main_ns.c_str(), 2);
    auto ok = [](pmix_status_t status, const char* what) {
        check(status == PMIX_SUCCESS, std::string(what) + ": " + PMIx_Error_string(status));
    };
    ok(spawn_daemons(self, all, 0, 1, 1, 4), "one daemon per node");
    ok(spawn_daemons(self, all, 1, 0, 4, 4), "one daemon per process");
    ok(spawn_daemons(self, all, 0, 0, 1, 4), "daemons by default");
    ok(spawn_daemons(self, rank2, 2, 0, 2, 1), "two daemons for rank 2");
    check_refusals(self, main_ns.c_str());
    check(proc_table(main_ns.c_str()).size() == 4, "the target job is not 4 processes any more");
    check_cospawn(self);
    PMIx_tool_finalize();
    return finish("tool");
}

int run_node_member(const char* stop) {
    if (PMIx_Init(&g_me, nullptr, 0) != PMIX_SUCCESS) return 2;
    for (int i = 0; i < 3000 && access(stop, F_OK) != 0; ++i) usleep(10000);
    PMIx_Finalize(nullptr, 0);
    return finish("node-member");
}

int run_node_daemon() {
    if (PMIx_Init(&g_me, nullptr, 0) != PMIX_SUCCESS) return 2;
    pmix_proc_t me_all;
    PMIX_LOAD_PROCID(&me_all, g_me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t* value = nullptr;
    const pmix_status_t rc = PMIx_Get(&me_all, PMIX_DEBUG_TARGET, nullptr, 0, &value);
    check(rc == PMIX_SUCCESS && value != nullptr && value->type == PMIX_PROC,
          std::string("PMIX_DEBUG_TARGET: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS || value == nullptr || value->type != PMIX_PROC)
        return finish("node-daemon");
    const pmix_proc_t target = *value->data.proc;
    PMIX_VALUE_RELEASE(value);
    const char* want_ns = std::getenv("DBG_EXPECT_NS");
    if (want_ns != nullptr && *want_ns != '\0')
        check(std::strcmp(target.nspace, want_ns) == 0, std::string("target ") + target.nspace);
    check(std::strcmp(target.nspace, g_me.nspace) != 0, "the target is our own namespace");
    check(get_number(g_me.nspace, PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE) ==
              env_number("DBG_EXPECT_LOCAL"),
          "local size is not " + std::to_string(env_number("DBG_EXPECT_LOCAL")));
    std::string ranks;
    size_t here = 0;
    for (const pmix_proc_info_t& row : proc_table(target.nspace)) {
        if (target.rank != PMIX_RANK_WILDCARD && row.proc.rank != target.rank) continue;
        check(row.pid > 0 && kill(row.pid, 0) == 0, "target pid " + std::to_string(row.pid));
        ranks += (here++ == 0 ? "" : ",") + std::to_string(row.proc.rank);
    }
    check(static_cast<long>(here) == env_number("DBG_EXPECT_TARGETS"),
          "this node's proc table names " + std::to_string(here) + " targets");
    const std::string host = get_string(g_me.nspace, g_me.rank, PMIX_HOSTNAME);
    std::printf("node-daemon %s:%u on %s: target %s, here ranks %s\n", g_me.nspace, g_me.rank,
                host.c_str(), target.nspace, ranks.c_str());
    if (const char* hold = std::getenv("DBG_HOLD"); hold != nullptr)  // check_node_cospawn
        for (int i = 0; i < 3000 && access(hold, F_OK) != 0; ++i) usleep(10000);
    PMIx_Finalize(nullptr, 0);
    return finish("node-daemon");
}

// Node daemons aimed at `target`: `daemons` in all, `local` per node, each with `targets` of its
// node's target processes.
pmix_status_t spawn_node_daemons(const char* self, const pmix_proc_t& target, uint16_t per_proc,
                                 uint16_t per_node, long daemons, long local, long targets) {
    Spawn spawn;
    spawn.job.push_back(info_of(PMIX_DEBUGGER_DAEMONS, &kYes, PMIX_BOOL));
    spawn.job.push_back(info_of(PMIX_DEBUG_TARGET, &target, PMIX_PROC));
    spawn.job.push_back(info_of(PMIX_NOTIFY_COMPLETION, &kYes, PMIX_BOOL));
    if (per_proc > 0)
        spawn.job.push_back(info_of(PMIX_DEBUG_DAEMONS_PER_PROC, &per_proc, PMIX_UINT16));
    if (per_node > 0)
        spawn.job.push_back(info_of(PMIX_DEBUG_DAEMONS_PER_NODE, &per_node, PMIX_UINT16));
    spawn.app(self, {"node-daemon"}, 0,
              {"DBG_EXPECT_LOCAL=" + std::to_string(local),
               "DBG_EXPECT_TARGETS=" + std::to_string(targets),
               std::string("DBG_EXPECT_NS=") + target.nspace});
    std::string nspace;
    const pmix_status_t rc = spawn.run(nspace);
    if (rc != PMIX_SUCCESS) return rc;
    check(proc_table(nspace.c_str()).size() == static_cast<size_t>(daemons),
          "daemon job " + nspace + " is not " + std::to_string(daemons) + " processes");
    check_ended_well(nspace);
    return rc;
}

// An application of 2 node-members (one per node) co-spawned with a debugger app of one daemon
// per node aimed at it: the spawn names the application; the daemons are the next namespace.
void check_node_cospawn(const char* self, const char* stop) {
    const size_t before = namespaces().size();
    Spawn spawn;
    spawn.app(self, {"node-member", stop}, 2, {});
    // The daemons wait for `hold` before they end: a persistent launcher retires a finished job at
    // once, and the daemons' job must still be listed when its namespace is counted below.
    const std::string hold = std::string(stop) + ".daemons";
    pmix_app_t& debugger =
        spawn.app(self, {"node-daemon"}, 0,
                  {"DBG_EXPECT_LOCAL=1", "DBG_EXPECT_TARGETS=1", "DBG_HOLD=" + hold});
    const uint16_t one = 1;
    PMIX_INFO_CREATE(debugger.info, 2);
    debugger.ninfo = 2;
    PMIX_INFO_LOAD(&debugger.info[0], PMIX_DEBUGGER_DAEMONS, &kYes, PMIX_BOOL);
    PMIX_INFO_LOAD(&debugger.info[1], PMIX_DEBUG_DAEMONS_PER_NODE, &one, PMIX_UINT16);
    std::string application;
    const pmix_status_t rc = spawn.run(application);
    check(rc == PMIX_SUCCESS, std::string("co-spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    const std::vector<std::string> after = namespaces();
    check(after.size() == before + 2,
          "co-spawn made " + std::to_string(after.size() - before) + " namespaces, not 2");
    if (after.size() != before + 2) return;
    check(after[before] == application, "the spawn did not name the application");
    check(proc_table(application.c_str()).size() == 2, "the application is not 2 processes");
    check(proc_table(after[before + 1].c_str()).size() == 2, "not 2 co-spawned daemons");
    if (std::FILE* f = std::fopen(hold.c_str(), "w")) std::fclose(f);
    check_ended_well(after[before + 1]);
}

int run_tool_nodes(const char* self, pid_t pid, const char* stop) {
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (const char* t = std::getenv("TMPDIR"); t != nullptr)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TMPDIR, t, PMIX_STRING);
    const pmix_status_t rc = PMIx_tool_init(&g_me, info, ninfo);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        std::printf("FAIL: tool_init: %s\n", PMIx_Error_string(rc));
        return 3;
    }
    register_job_end();
    check_support();  // the head's PMIX_QUERY_SPAWN_SUPPORT / _DEBUG_SUPPORT name the keys
    const std::vector<std::string> before = namespaces();
    check(!before.empty(), "no namespace");
    const char* named = std::getenv("DBG_TARGET_NS");  // a DVM's job: the DVM has no job of its own
    const std::string main_ns = named != nullptr ? named : before.empty() ? "" : before[0];
    pmix_proc_t all, nowhere;
    PMIX_LOAD_PROCID(&all, main_ns.c_str(), PMIX_RANK_WILDCARD);
    PMIX_LOAD_PROCID(&nowhere, "no-such-job", PMIX_RANK_WILDCARD);
    auto ok = [](pmix_status_t status, const char* what) {
        check(status == PMIX_SUCCESS, std::string(what) + ": " + PMIx_Error_string(status));
    };
    ok(spawn_node_daemons(self, all, 0, 1, 2, 1, 2), "one daemon per node");
    ok(spawn_node_daemons(self, all, 1, 0, 4, 2, 2), "one daemon per process");
    const pmix_status_t unknown = spawn_node_daemons(self, nowhere, 0, 1, 2, 1, 2);
    check(unknown == PMIX_ERR_NOT_FOUND,
          std::string("unknown target: ") + PMIx_Error_string(unknown));
    check_node_cospawn(self, stop);
    PMIx_tool_finalize();
    return finish("tool-nodes");
}

int run_self(const char* self) {
    if (PMIx_Init(&g_me, nullptr, 0) != PMIX_SUCCESS) return 2;
    if (g_me.rank == 0) {
        register_job_end();
        pmix_proc_t mine;
        PMIX_LOAD_PROCID(&mine, g_me.nspace, PMIX_RANK_WILDCARD);
        const pmix_status_t rc = spawn_daemons(self, mine, 1, 0, 2, 2, true);
        check(rc == PMIX_SUCCESS, std::string("daemons for my job: ") + PMIx_Error_string(rc));
    }
    check(PMIx_Fence(nullptr, 0, nullptr, 0) == PMIX_SUCCESS, "fence");
    check_own_job(2);
    PMIx_Finalize(nullptr, 0);
    return finish("self");
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "member" && argc > 2)
        return run_member(std::atol(argv[2]), argc > 3 ? argv[3] : nullptr);
    if (mode == "daemon") return run_daemon();
    if (mode == "tool" && argc > 2)
        return run_tool(argv[0], static_cast<pid_t>(std::atoi(argv[2])));
    if (mode == "self") return run_self(argv[0]);
    if (mode == "node-member" && argc > 2) return run_node_member(argv[2]);
    if (mode == "node-daemon") return run_node_daemon();
    if (mode == "tool-nodes" && argc > 3)
        return run_tool_nodes(argv[0], static_cast<pid_t>(std::atoi(argv[2])), argv[3]);
    std::fprintf(stderr, "usage: debug_daemons member N [STOPFILE] | daemon | tool PID | self\n");
    return 2;
}
