// pmixrun: the reference host. Uses only the public PMIx headers and libpmix, so the same sources
// build against our library (pmixrun) and Debian's OpenPMIx (pmixrun-openpmix). On one node the
// Launcher below is the whole host; across nodes (--host/--hostfile) pmixrun is the head
// (head.cpp) and each node runs a daemon, pmixd, which is this same Launcher for its node's ranks
// plus a Remote (daemon.cpp) that carries fences, direct modex, events and failures to the others.
#pragma once

#include <pmix.h>
#include <pmix_server.h>

#include "hosts.h"
#include "options.h"

#include <poll.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace pmix::launcher {

using Clock = std::chrono::steady_clock;

struct Proc;
struct AppSpec;
class Channel;

// What a node daemon adds to the single-node host (daemon.cpp; nullptr in pmixrun itself).
// fence/direct_modex are called on the PMIx server's thread, the rest on the launcher's loop.

class Remote {
public:
    virtual ~Remote() = default;
    virtual pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                                void* cbdata) = 0;
    virtual pmix_status_t direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc,
                                       void* cbdata) = 0;
    // A local client's event for processes beyond this node: the head hands it to the others.
    virtual void notify(pmix_status_t code, const pmix_proc_t& source, pmix_data_range_t range,
                        const pmix_info_t* info, size_t ninfo) = 0;
    virtual void failed(int code, const std::string& why) = 0;  // a local failure, for the head
    // A chunk of a local rank's output as read from its pipe (stream 1 stdout, 2 stderr), or its
    // EOF (`end`, no bytes): the head delivers and prints it as its own ranks' (take_output).
    virtual void output(const Proc& process, int stream, const char* bytes, size_t length,
                        bool end) = 0;
    // True while the channel to the head holds so much that no more output should be read.
    virtual bool output_blocked() const = 0;
    // How many bytes of the job's stdin every local target has taken (stdin_forward.cpp).
    virtual void stdin_taken(uint64_t bytes) = 0;
    virtual int control_out_fd() const = 0;  // -1, or polled for POLLOUT: on_control() then
    virtual void connected(const Proc& process) = 0;  // main-job ranks only: rank, pid for the head
    virtual void finalized(pmix_rank_t rank) = 0;
    virtual void exited(const Proc& process) = 0;  // with its exit code
    // A local process called PMIx_Abort(status): the head's JOB_END reports it (pmixd only).
    virtual void aborted(const pmix_proc_t&, int) {}
    virtual int control_fd() const = 0;  // polled by run_loop; on_control() when readable
    virtual void on_control() = 0;
    virtual void tick() = 0;              // every loop turn (deadlines)
    virtual void job_done(int code) = 0;  // every local process has ended
    // PMIx_Job_control's kill/terminate/signal: the other nodes apply it to their own ranks.
    virtual void signal_others(const std::vector<pmix_proc_t>& targets, int sig) = 0;
    // The group upcall's collective over the daemons of the members' nodes (node_net.h); `done`
    // runs on the fabric's thread with the context id every daemon agreed (0 if none was asked)
    // and every node's `endpoints` (the library's PMIX_GROUP_ENDPT_DATA blobs) concatenated.
    using GroupDone =
        std::function<void(pmix_status_t, size_t context_id, const std::string& endpoints)>;
    virtual pmix_status_t group(pmix_group_operation_t op, const std::string& grp,
                                const std::vector<pmix_proc_t>& members, bool wants_id,
                                int timeout_seconds, const std::string& endpoints,
                                GroupDone done) = 0;
    // The channel to the head, for requests the head answers (directory.h); loop thread only.
    virtual Channel* head_channel() { return nullptr; }
    // The upcalls a daemon serves through the head (publish/lookup), set in the module.
    virtual void add_upcalls(pmix_server_module_t&) {}
    // PMIx_Spawn of a local client, on the loop: the head places the job across the nodes and
    // `cbfunc` gets its namespace (remote_spawn.h).
    virtual void spawn(const pmix_proc_t& parent, const AppSpec& app, pmix_spawn_cbfunc_t cbfunc,
                       void* cbdata) = 0;
};

// Work handed from the server's thread to the launcher's own loop (an eventfd wakes the loop).
class WorkQueue {
public:
    WorkQueue();
    ~WorkQueue();
    void post(std::function<void()> work);
    int fd() const { return fd_; }
    void drain();  // runs everything queued so far, on the calling (main) thread
private:
    int fd_ = -1;
    std::mutex mutex_;
    std::deque<std::function<void()>> items_;
};

// An info array built with PMIx_Info_list_* (public API, in both libraries): add() keeps the first
// error; the list and the converted array are released with the object.
class InfoList {
public:
    InfoList();
    ~InfoList();
    InfoList(const InfoList&) = delete;
    InfoList& operator=(const InfoList&) = delete;
    void add(const char* key, const void* value, pmix_data_type_t type);
    void add(const char* key, const std::string& value) { add(key, value.c_str(), PMIX_STRING); }
    // Everything added, as one PMIX_INFO array owned by this object; the first error otherwise.
    pmix_status_t convert();
    pmix_info_t* info() const { return static_cast<pmix_info_t*>(array_.array); }
    size_t size() const { return array_.size; }
    const pmix_data_array_t& array() const { return array_; }

private:
    void* list_ = nullptr;
    pmix_data_array_t array_{};
    pmix_status_t status_ = PMIX_SUCCESS;
};

// Blocks the main thread until a server callback reports (used only during setup and teardown).
class Waiter {
public:
    void done(pmix_status_t status);
    pmix_status_t wait();
    pmix_status_t wait_for(std::chrono::milliseconds limit);  // PMIX_ERR_TIMEOUT if no callback
    static void op_cb(pmix_status_t status, void* cbdata);

private:
    std::mutex mutex_;
    std::condition_variable condition_;
    bool done_ = false;
    pmix_status_t status_ = PMIX_SUCCESS;
};

struct Stream {
    int fd = -1;  // the partial last line waits in the printer (output.h)
};

struct Proc {
    pmix_rank_t rank = 0;
    std::string nspace;
    unsigned job = 0;  // 0: the job pmixrun started; k > 0: the k-th job spawned by PMIx_Spawn
    pid_t pid = -1;
    std::string executable;  // argv[0] as started (proc tables)
    std::string host;        // its node, where that is not this one (the multi-node head's table)
    size_t node = 0;         // that node's index in the layout (the multi-node head's table)
    Stream out, err;         // its stdout and stderr pipes
    bool connected = false, finalized = false, exited = false;
    int exit_code = 0;     // 128+sig for signals
    bool counted = false;  // exited on its own, before pmixrun started killing
    // Started by a fork/exec agent (start_as.cpp): signals go to its process group, which holds
    // the app the agent started (else a --timeout waited for the app to end by itself).
    bool agent_group = false;
    pid_t app_pid = -1;  // the app that agent started, once it connected (proc tables show it)
    Clock::time_point forked, connected_at;
};

struct Published {
    pmix_proc_t owner;
    pmix_value_t value;  // owned copy
    bool first_read = false;
};

struct PendingLookup {
    pmix_proc_t requester;
    std::vector<std::string> keys;
    pmix_lookup_cbfunc_t cbfunc;
    void* cbdata;
};

// A copy of one pmix_info_t, destructed with the object.
struct OwnedInfo {
    explicit OwnedInfo(const pmix_info_t& source);
    ~OwnedInfo();
    OwnedInfo(const OwnedInfo&) = delete;
    OwnedInfo& operator=(const OwnedInfo&) = delete;
    pmix_info_t info;
};
using SharedInfos = std::vector<std::shared_ptr<const OwnedInfo>>;

// The lifecycle events a PMIx_Spawn requester asked for in its job info (lifecycle.cpp).
struct LifecycleRequest {
    bool job_events = false;   // PMIX_NOTIFY_JOB_EVENTS: JOB_START, LAUNCH_COMPLETE, JOB_END
    bool completion = false;   // PMIX_NOTIFY_COMPLETION: JOB_END
    bool proc_ended = false;   // PMIX_NOTIFY_PROC_TERMINATION: PROC_TERMINATED for every process
    bool proc_failed = false;  // PMIX_NOTIFY_PROC_ABNORMAL_TERMINATION: for those that fail
    bool any() const { return job_events || completion || proc_ended || proc_failed; }
};

// One job's lifecycle as its events report it (lifecycle.cpp; the loop thread only).
struct JobLifecycle {
    size_t nprocs = 0, ended = 0;
    bool has_requester = false;  // a spawned job: events go to its requester if it asked
    pmix_proc_t requester{};
    LifecycleRequest request;
    bool failed = false;  // the first failed process, for JOB_END
    pmix_rank_t failed_rank = 0;
    int failed_exit_code = 0;
    pmix_status_t reason = PMIX_SUCCESS;  // PMIX_ERR_JOB_* of that failure
    std::vector<pmix_rank_t> aborted;     // ranks that called PMIx_Abort
    // JOB_START / LAUNCH_COMPLETE raised: once per job, whichever report comes first (the
    // multi-node head hears a job held on exec started from its debug_started reports and again
    // once every node answered its spawn part).
    bool start_raised = false;
    // Debugger-daemon jobs aimed at this one (debug_daemons.cpp): they get its events too when
    // they go to the requester alone (custom range), as prte's example daemon waits for JOB_END.
    std::vector<std::string> debugger_jobs;
};

// The debugger directives of a PMIx_Spawn's job info (debug.cpp): PMIX_DEBUG_STOP_IN_INIT,
// PMIX_DEBUG_STOP_ON_EXEC, PMIX_DEBUG_STOP_IN_APP as given (bool, rank, or procs / ranks).
struct StopRequest {
    std::shared_ptr<const OwnedInfo> in_init, on_exec, in_app;
    bool any() const { return in_init || on_exec || in_app; }
};

// What PMIx_Spawn asked for (one application).
struct AppSpec {
    std::vector<std::string> argv;  // argv[0] is the command
    std::vector<std::string> env;   // added to (and overriding) pmixrun's child environment
    size_t nprocs = 1;
    // The environment directives (PMIX_SET_ENVAR ...) of the job info, then of the app's info:
    // registered with the job in that order, for setup_fork to apply (job first, app trumps job);
    // a debugger-daemon job's PMIX_DEBUG_TARGET too (debug_daemons.cpp).
    SharedInfos directives;
    std::string pset;  // PMIX_PSET_NAME of the app info ("": "<nspace>.app0"), as prte takes it
    // PMIX_FWD_STDIN of the job info: the rank whose stdin is a pipe fed by tools' and the
    // requester's PMIx_IOF_push (Options::kStdinAll: every rank; kStdinNone: /dev/null for all).
    long stdin_rank = Options::kStdinNone;
    LifecycleRequest lifecycle;  // PMIX_NOTIFY_* of the job info
    StopRequest stops;           // PMIX_DEBUG_STOP_* of the job info (debug.cpp)
    StartAs start_as;            // cwd / PMIX_WDIR and the agents (start_as.cpp)
    // The application's channels its requester asked forwarded to itself (PMIX_FWD_STDOUT /
    // _STDERR / _STDDIAG of the job info): a tool's are not printed (forward_only, host.cpp).
    pmix_iof_channel_t forwarded = PMIX_FWD_NO_CHANNELS;
};

// A process set this launcher defined (PMIx_server_define_process_set): one per app context.
struct ProcessSetDef {
    std::string name;
    std::vector<pmix_proc_t> members;
};

// The job's stdin on its way to this node's processes that --stdin names (stdin_forward.cpp): the
// bytes not yet taken by every target, and each target's position in the stream.
struct StdinForward {
    struct Target {
        int fd = -1;  // the write end of its stdin pipe; -1 once closed
        pmix_rank_t rank = 0;
        uint64_t taken = 0;  // bytes of the stream written to it
    };
    std::vector<Target> targets;
    std::string pending;  // bytes [base, base + size) of the stream
    uint64_t base = 0;
    bool eof = false;           // the stream ended (or every target left): nothing more is added
    bool targets_gone = false;  // eof because every target left before the stream ended
    bool own_stdin = false;     // pmixrun on one node: the stream is our stdin (pmixd: the head's)
    uint64_t reported = 0;      // pmixd: the progress last sent to the head (stdin_taken)
    // Tools' PMIx_IOF_push calls answered once less than kStdinHeld waits (back-pressure on the
    // tool: its push completes when there is room).
    std::vector<std::pair<pmix_op_cbfunc_t, void*>> pushes_waiting;
    // A spawned job's: the ranks its PMIX_FWD_STDIN named (AppSpec::stdin_rank). The main job's
    // targets are those of --stdin (options.stdin_rank).
    long named = Options::kStdinNone;
};
// The stream is read (or, at the head, sent on) only while less than this waits.
constexpr uint64_t kStdinHeld = 1u << 20;

// A tool's PMIx_IOF_pull with PMIX_IOF_REDIRECT: pmixrun stops printing these procs' channels
// until that tool deregisters (host.cpp).
struct Redirect {
    std::vector<pmix_proc_t> procs;
    pmix_iof_channel_t channels = PMIX_FWD_NO_CHANNELS;
};

struct Launcher {
    Options options;
    std::string nspace, hostname;
    Layout layout;
    Remote* remote = nullptr;  // set in pmixd only
    // Who the job's processes run as (--user; else pmixrun's own euid/egid).
    uid_t job_uid = 0;
    gid_t job_gid = 0;
    bool other_user = false;  // --user: processes drop to job_uid/job_gid before exec
    bool quit = false;        // pmixd: the head said the job is over
    std::string launch_blob;  // setup_application's result (pmixd: from the head)
    // PMIX_CRYPTO_KEY for PMIx_server_init: pmixd's from the head, the same on every node, so
    // that the library's credentials are valid across the job's nodes. Empty: one node, the
    // library's own random key.
    std::string credential_key;
    // Every process: the first options.nprocs are the main job; spawned jobs follow. A deque, so
    // that references survive a spawn appending while the event loop holds them.
    std::deque<Proc> procs;
    std::unordered_map<pid_t, Proc*> by_pid;   // the started ones: reaping is O(1) per process
    std::vector<std::string> child_env;        // environment every child starts from
    std::vector<std::string> spawned_nspaces;  // in spawn order
    // pmixd: the jobs the head spawned across the nodes, by namespace (every node's rank range).
    std::map<std::string, Layout> job_layouts;
    std::vector<ProcessSetDef> psets;  // the main job's app contexts' sets (psets.cpp)
    double time_limit_s = 0;  // pmixd: the head's --timeout (the head enforces it), for queries
    unsigned next_job = 1;
    WorkQueue queue;
    StdinForward stdin_fwd;
    // The spawned jobs that asked for PMIX_FWD_STDIN, by namespace: fed only by pushes.
    std::map<std::string, StdinForward> spawned_stdin;
    std::map<std::string, JobLifecycle> lifecycles;  // by namespace (lifecycle.cpp)
    std::vector<Redirect> redirects;                 // loop thread only
    std::map<std::string, Published> published;      // PMIx_Publish's keys
    std::vector<PendingLookup> pending_lookups;      // PMIX_WAIT lookups of keys not published yet
    // An indirect launch (indirect.cpp): run once the server is up, before the job is
    // registered; false: the job must not start (fail() has said why).
    std::function<bool(Launcher&)> before_job;
    // The multi-node DVM's head (dvm_head.h): reads a tool spawn's PMIX_HOST / PMIX_HOSTFILE on
    // the server's thread, before the spawn is queued; an error refuses the spawn.
    // `app`: the one app (null: several, which spawn refuses there).
    std::function<pmix_status_t(const pmix_info_t[], size_t, const pmix_app_t* app, void* cbdata)>
        spawn_placement;
    // The same head's spawn of debugger daemons and co-spawned apps (head_debug_spawn.h), on the
    // server's thread; PMIX_ERR_NOT_FOUND: not such a spawn, placed as any other.
    std::function<pmix_status_t(const pmix_proc_t*, const pmix_info_t[], size_t, const pmix_app_t[],
                                size_t, pmix_spawn_cbfunc_t, void*)>
        debugger_spawn;
    // The main job's lifecycle events go to this requester when it asked (indirect.cpp: the
    // initiator's PMIX_LAUNCH_DIRECTIVES); else as for any main job (lifecycle.cpp).
    std::optional<pmix_proc_t> main_requester;
    LifecycleRequest main_lifecycle;
    // Failure handling: the first failure decides the exit code; survivors get a grace to exit,
    // then SIGTERM, then SIGKILL.
    bool failing = false, timed_out = false;
    int fail_code = 0;
    int kill_stage = 0;  // 0 none, 1 SIGTERM sent, 2 SIGKILL sent
    Clock::time_point fail_at;
    size_t connected_count = 0, finalized_count = 0, exited_count = 0;
    // True until the first process exits or the job starts failing; read on the PMIx server's
    // thread (fence_nb's fast path), written on the loop.
    std::atomic<bool> undisturbed{true};
    struct Times {
        Clock::time_point start, server_init, registered, forked, all_connected, all_finalized,
            all_exited, done;
        bool have_connected = false, have_finalized = false;
        Clock::duration setup_fork{}, fork{};  // summed over ranks, inside "fork/exec all"
    } times;

    void fail(int code, const std::string& why);
    int final_exit_code() const;
    // The main job's ranks on this node: first_local_rank() .. + local_main_ranks() - 1.
    size_t local_main_ranks() const { return layout.rank_count[layout.here]; }
    pmix_rank_t first_local_rank() const { return layout.first_rank[layout.here]; }
};

extern Launcher* g_launcher;

// host.cpp
void fill_module(pmix_server_module_t& module);
// query.cpp: the host's query callback (namespaces, job status, proc tables, sizes) and tool
// admission (tools of this user only, named "<nspace>.tool.<n>" unless they name themselves).
pmix_status_t host_query(pmix_proc_t* requester, pmix_query_t* queries, size_t nqueries,
                         pmix_info_cbfunc_t cbfunc, void* cbdata);
void host_tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                         void* cbdata);
// alloc.cpp: the host's allocate callback (PMIx_Allocation_request from the host list).
pmix_status_t allocate_fn(const pmix_proc_t* requester, pmix_alloc_directive_t directive,
                          const pmix_info_t data[], size_t ndata, pmix_info_cbfunc_t cbfunc,
                          void* cbdata);
// groups.cpp: the host's group upcall (construct/destruct, context ids) and the group queries
// (PMIX_QUERY_NUM_GROUPS, _GROUP_NAMES, _GROUP_MEMBERSHIP); false when `key` is not one of them or
// names no group this launcher knows. Both on the launcher's loop (the upcall posts).
pmix_status_t host_group(pmix_group_operation_t op, char grp[], const pmix_proc_t procs[],
                         size_t nprocs, const pmix_info_t directives[], size_t ndirs,
                         pmix_info_cbfunc_t cbfunc, void* cbdata);
bool answer_group_query(const char* key, const pmix_query_t& query, pmix_info_t& out);
// Sends `sig` to this node's processes among `targets` (all of them when empty).
void signal_local(Launcher& launcher, const std::vector<pmix_proc_t>& targets, int sig);
void fail_pending_lookups(pmix_status_t status);
void clear_published();

// psets.cpp: every app context of the main job is a process set, named by --pset or
// "<nspace>.app<N>"; its members are the app's ranks.
std::string app_pset_name(const Launcher& launcher, size_t app);
std::vector<ProcessSetDef> app_psets(const Launcher& launcher);
// Defines them with PMIx_server_define_process_set (after the job is registered) and keeps them in
// launcher.psets for queries.
void define_app_psets(Launcher& launcher);
// A spawned job's one app context is a set too: PMIX_PSET_NAME of its app info, else
// "<nspace>.app0"; defined before its processes start.
void define_spawned_pset(Launcher& launcher, const std::string& nspace, const AppSpec& app);

// job.cpp
pmix_status_t register_job(Launcher& launcher);
// Registers and starts a job for PMIx_Spawn; *nspace receives its namespace.
pmix_status_t spawn_job(Launcher& launcher, const pmix_proc_t& parent, const AppSpec& app,
                        std::string* nspace);
// pmixd: this node's part of job `job_nspace` (the `job`-th spawned here) that the head placed
// across the nodes as `placed` (its `here` is this node); null: the whole job on this node.
pmix_status_t start_job_part(Launcher& launcher, const pmix_proc_t& parent, const AppSpec& app,
                             const std::string& job_nspace, unsigned job, const Layout* placed);
// "[rank]" for the main job, "[job.rank]" for spawned ones (output tags and messages).
std::string proc_tag(const Proc& process);
bool spawn_all(Launcher& launcher, char** base_env);
void run_loop(Launcher& launcher);
void deregister_job(Launcher& launcher);
void kill_all(Launcher& launcher, int sig);
// A job just registered (loop thread, before any of its output is read): when its requester is a
// tool (no job of this launcher) that asked `channels` forwarded to itself, those channels are
// delivered, not printed, as if the tool had pulled them with PMIX_IOF_REDIRECT (host.cpp).
void forward_only(Launcher& launcher, const pmix_proc_t& requester, const std::string& nspace,
                  pmix_iof_channel_t channels);
// True while a tool took `channel` of `process` with PMIX_IOF_REDIRECT (host.cpp).
bool redirected(const Launcher& launcher, const Proc& process, pmix_iof_channel_t channel);
// stdin_forward.cpp: whether --stdin names `process`; the fd a process gets as its stdin (a pipe
// fed from the job's stdin or, a spawned job's, from pushes; or /dev/null); the pollfds the loop
// adds (our stdin, then one per target of every forward) and their service; stdin_close at the
// end of the job.
bool stdin_target(long stdin_rank, const Proc& process);
// The forward feeding `process`'s stdin (nullptr: it reads /dev/null).
StdinForward* stdin_forward_of(Launcher& launcher, const Proc& process);
int child_stdin(Launcher& launcher, const Proc& process);
void stdin_poll_fds(Launcher& launcher, std::vector<pollfd>& fds);
void stdin_service(Launcher& launcher, const pollfd* fds);
void stdin_close(Launcher& launcher);
// Bytes of the stream the slowest open target has not taken yet.
uint64_t stdin_held(const StdinForward& f);
// More of the stream (pmixd: from the head; a tool's PMIx_IOF_push); `end`: EOF after them.
void stdin_append(StdinForward& f, const char* bytes, size_t length, bool end);
// Answers the waiting pushes once less than kStdinHeld waits (every one with `all`).
void stdin_release_pushes(StdinForward& f, bool all);
// job.cpp: a chunk of `process`'s output (channel PMIX_FWD_STDOUT/STDERR_CHANNEL) as read from
// its pipe, or its EOF (`end`): handed to PMIx_server_IOF_deliver, then printed line by line
// with its tag (a partial line waits for the rest or for EOF), unless a tool redirected it. The
// multi-node head calls it for remote ranks' chunks as pmixrun does for its own.
void take_output(Proc& process, pmix_iof_channel_t channel, const char* bytes, size_t length,
                 bool end);
// True while the library has so much of take_output's output still to take that no more should
// be read (back-pressure: the ranks then block in write).
bool output_backlogged();
// host.cpp: the iof_pull and push_stdin upcalls (the multi-node head serves them too).
pmix_status_t host_iof_pull(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t dirs[],
                            size_t ndirs, pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc,
                            void* cbdata);
pmix_status_t host_push_stdin(const pmix_proc_t* source, const pmix_proc_t targets[],
                              size_t ntargets, const pmix_info_t directives[], size_t ndirs,
                              const pmix_byte_object_t* bo, pmix_op_cbfunc_t cbfunc, void* cbdata);

// Deregisters, finalizes the server and removes the temporary directory (main.cpp).
int serve_job(Launcher& launcher, const std::vector<std::string>& child_env,
              const std::vector<std::pair<const char*, std::string>>& server_info);
std::vector<std::string> child_env(const Options& options);
// Whether `prog` is found as spawn_process finds it (spawner.h find_program): from `cwd` ("":
// ours), in `path` (nullptr: our PATH) then in `cwd`.
bool program_exists(const std::string& prog, const std::string& cwd = "",
                    const char* path = nullptr);

// app_setup.cpp: "first,first+1,..." (count ranks).
std::string rank_list(uint32_t first, uint32_t count);
// The layout's PMIX_NODE_MAP and PMIX_PROC_MAP from PMIx_generate_regex / PMIx_generate_ppn (the
// plain node names "a,b" / rank lists "0,1;2,3" if the generator fails: the maps need only be
// readable by the same library's parser), freed with the object.
struct GeneratedMaps {
    explicit GeneratedMaps(const Layout& layout);
    ~GeneratedMaps();
    GeneratedMaps(const GeneratedMaps&) = delete;
    GeneratedMaps& operator=(const GeneratedMaps&) = delete;
    char* node_map = nullptr;
    char* proc_map = nullptr;
};

// app_setup.cpp: the fabric plugins' launch blob (packed info array) for a job laid out as
// `layout`;
// `node_addrs`: the nodes' IPv4 addresses in layout order ("" if unknown).
pmix_status_t setup_application(const std::string& nspace, const Layout& layout,
                                const std::string& node_addrs, std::string& packed);
pmix_status_t setup_local_support(const std::string& nspace, const std::string& packed);
// An info array as bytes (count, then the infos; PMIx_Data_pack) and back, for the head <-> daemon
// messages. unpack_infos allocates *info (PMIX_INFO_FREE it); empty bytes are an empty array.
pmix_status_t pack_infos(const pmix_info_t* info, size_t ninfo, std::string& packed);
pmix_status_t unpack_infos(const std::string& packed, pmix_info_t** info, size_t* ninfo);

// lifecycle.cpp: the Standard's job-lifecycle events, raised with PMIx_Notify_event. A job whose
// spawn requester asked (PMIX_NOTIFY_*): to that requester alone (PMIX_RANGE_CUSTOM); any other
// job: PMIX_RANGE_SESSION with PMIX_EVENT_NON_DEFAULT (to handlers that name the code).
// True when `info` is one of the PMIX_NOTIFY_* directives (recorded in `request`).
bool lifecycle_directive(const pmix_info_t& info, LifecycleRequest& request);
// A job registered: `requester` is its spawner (nullptr: the main job).
void lifecycle_watch(Launcher& launcher, const std::string& nspace, size_t nprocs,
                     const pmix_proc_t* requester, const LifecycleRequest& request);
// Every process of the job started: PMIX_EVENT_JOB_START, then PMIX_LAUNCH_COMPLETE (once a job).
void lifecycle_started(Launcher& launcher, const std::string& nspace);
// PMIx_Abort(status) called: the job's failure is the aborter's, with that status as its
// PMIX_EXIT_CODE (as pmixrun's exit status), whichever process the kill that follows ends first.
void lifecycle_aborted(Launcher& launcher, const pmix_proc_t& proc, int status);
// The multi-node head: a daemon's `aborted` report (nspace, rank, status) for the job's JOB_END.
void lifecycle_remote_aborted(Launcher& launcher, const std::vector<std::string>& fields);
// A process was reaped (`wait_status` as waitpid gave it): its events, and JOB_END after the last.
void lifecycle_proc_ended(Launcher& launcher, const Proc& process, int wait_status);
// Waits (at most 2 s) until the library took every notification raised, before teardown.
void lifecycle_flush();

// debug.cpp: the Tools chapter's debugger stops on one node. PMIX_DEBUG_STOP_IN_INIT / _IN_APP
// go into the job's info (the client stops itself in PMIx_Init; the application raises its own
// PMIX_READY_FOR_DEBUG); PMIX_DEBUG_STOP_ON_EXEC starts the processes stopped at their first
// instruction. Each process's PMIX_READY_FOR_DEBUG is passed on to the job's requester (a
// stop-on-exec job raises one for the whole job once started); PMIX_DEBUGGER_RELEASE continues
// the processes stopped on exec. Loop thread only, but for debug_watch_events.
// True when `info` is one of the PMIX_DEBUG_STOP_* directives (kept in `request`).
bool stop_directive(const pmix_info_t& info, StopRequest& request);
// pmixrun's own job: --stop-in-init / --stop-on-exec / --stop-in-app, for every rank.
StopRequest stop_main_request(const Options& options);
// The directives that go into the job's info, appended to `job_info`.
void stop_add_job_info(const StopRequest& request, SharedInfos& job_info);
// A job about to start: `requester` its spawner (nullptr: pmixrun's own job).
void debug_watch_job(Launcher& launcher, const std::string& nspace, const pmix_proc_t* requester,
                     const StopRequest& request);
// A finished job retired by the persistent launcher (dvm.cpp): its state dropped.
void debug_forget(const std::string& nspace);
// Whether `process` starts stopped on exec (its job asked for its rank).
bool debug_stops_on_exec(const Proc& process);
// Every process of the job started: PMIX_READY_FOR_DEBUG for a stop-on-exec job.
void debug_started(Launcher& launcher, const std::string& nspace);
// Registers pmixrun's own handlers for PMIX_READY_FOR_DEBUG and PMIX_DEBUGGER_RELEASE (after
// PMIx_server_init).
void debug_watch_events();
// Across nodes. pmixd: its processes' PMIX_READY_FOR_DEBUG and its part of a stop-on-exec job
// having started (how many it holds) go to the head (the uplink) instead of to local events; the
// head's PMIX_DEBUGGER_RELEASE arrives as debug_release_here (SIGCONT to those held on exec, the
// release event to those held in init or in the application). The head: every release it hears
// also goes to the daemons (the forward); debug_remote_ready is a daemon's report, passed on to
// the tools as a local one would be; debug_remote_started counts the nodes' start reports of a
// stop-on-exec job and, once `nodes` reported, raises its PMIX_READY_FOR_DEBUG and returns true
// (the caller raises PMIX_LAUNCH_COMPLETE then, not when the released processes connect:
// debug_launch_reported).
struct DebugUplink {
    std::function<void(const pmix_proc_t& source, const std::string& breakpoint)> ready;
    std::function<void(const std::string& nspace, size_t held)> exec_held;
    // A PMIX_DEBUGGER_RELEASE a process of this node raised (a rank that spawned a held job).
    std::function<void(const std::vector<pmix_proc_t>& targets)> release;
};
void debug_set_uplink(DebugUplink link);
void debug_set_release_forward(std::function<void(const std::vector<pmix_proc_t>&)> forward);
bool debug_forwards_releases();  // a release forward is set (the head)
// The multi-node head: the events for a requester on another node (source nullptr: the launcher).
using DebugEventForward = std::function<void(pmix_status_t code, const pmix_proc_t* source,
                                             const pmix_info_t* info, size_t ninfo)>;
void debug_set_event_forward(DebugEventForward forward);
// The head: a daemon's debug_release (a release one of its processes raised), as if heard here.
void debug_remote_release(Launcher& launcher, const std::vector<pmix_proc_t>& targets);
void debug_remote_ready(Launcher& launcher, const pmix_proc_t& source,
                        const std::string& breakpoint);
bool debug_remote_started(Launcher& launcher, const std::string& nspace, size_t held, size_t nodes);
bool debug_launch_reported(const std::string& nspace);
void debug_release_here(Launcher& launcher, const std::vector<pmix_proc_t>& targets);
// PMIX_JOB_CTRL_PAUSE: waits (at most 2 s) until every live process among `targets` is stopped
// ('T' in /proc); PMIX_ERR_TIMEOUT otherwise.
pmix_status_t debug_wait_stopped(Launcher& launcher, const std::vector<pmix_proc_t>& targets);

// Shared readers of upcall info (host.cpp). A "pmix." key is a directive (PMIX_USERID the
// server adds, PMIX_TIMEOUT, ...), never data to publish.
bool is_directive(const char* key);
// PMIX_TIMEOUT (an int, seconds, as OpenPMIx loads it) of `info`; 0 when absent.
int timeout_of(const pmix_info_t* info, size_t ninfo);

// start_as.cpp: the working directory and the agents a process starts with (options.h StartAs).
// PMIX_WDIR, PMIX_EXEC_AGENT or PMIX_FORKEXEC_AGENT (either spelling of its string)?
bool start_as_key(const pmix_info_t& info);
// One of those into `out` (a relative PMIX_WDIR made absolute here); PMIX_ERR_NOT_FOUND for any
// other key, PMIX_ERR_BAD_PARAM for a value that is not a non-empty string.
pmix_status_t start_as_directive(const pmix_info_t& info, StartAs& out);
// A spawned app's: its own (cwd, then its info), else the job info's, else `defaults`.
pmix_status_t app_start_as(const pmix_app_t& app, const pmix_info_t job_info[], size_t ninfo,
                           const StartAs& defaults, StartAs& out);
// What the app's process executes: the exec agent's words, then the app's argv (a fork/exec
// agent starts that itself: fork_agent.h).
std::vector<std::string> started_argv(const StartAs& how, const std::vector<std::string>& app);
// False, with `why` naming the directory, when `wdir` is set but no directory we can enter.
bool wdir_usable(const std::string& wdir, std::string& why);
// What a process started `how` executes first: its fork/exec agent's first word, else its exec
// agent's, else the app's argv[0].
std::string first_program(const StartAs& how, const std::vector<std::string>& argv);
// The PATH of an environment given as "NAME=value" strings, the last one winning (nullptr: none).
const char* path_of(const std::vector<std::string>& env);
// Whether a job's processes can start: its working directory (PMIX_ERR_JOB_WDIR_NOT_FOUND) and
// its first program, found in its PATH (app.env's, else `base_env`'s, else ours) then in that
// directory (PMIX_ERR_JOB_EXE_NOT_FOUND); `why` names the one missing.
pmix_status_t start_as_usable(const AppSpec& app, const std::vector<std::string>& base_env,
                              std::string& why);
// A process's environment: a copy of `base_env` plus, for a client (not a fork/exec agent,
// fork_agent.h), what PMIx_server_setup_fork adds for it. False, with a message, when setup_fork
// fails. The caller frees `env` with PMIX_ARGV_FREE.
bool process_environment(const Proc& process, char** base_env, bool client_env, char**& env);

// query_keys.cpp: the host level of PMIX_QUERY_ATTRIBUTE_SUPPORT for PMIx_Spawn (where the
// Standard has a tool look for PMIX_DEBUG_STOP_ON_EXEC): PMIX_QUERY_SPAWN_SUPPORT's keys by name.
// Once, after PMIx_server_init.
void register_spawn_attributes(const Launcher& launcher);

// report.cpp
void print_report(const Launcher& launcher);

// head.cpp: pmixrun across nodes (--host / --hostfile).
int run_head(const Options& options);

// dvm.cpp: pmixrun --dvm (pmix-dvm), the persistent launcher on one node: a server with no job
// of its own, the system server tools find, running the jobs they PMIx_Spawn until stopped.
int run_dvm(Launcher& launcher);
// "pmix-dvm ARGS" as pmixrun's command line ("--dvm ARGS", "--stop" as "--dvm-stop"); argv
// unchanged for any other name.
std::vector<std::string> dvm_command_line(int argc, char** argv);
// The loop's hooks (job.cpp), in DVM mode only: a process was reaped (the failure is its job's,
// not the launcher's); every loop turn (retires finished jobs, ends failing ones); true once the
// DVM was told to stop and every process has ended.
void dvm_proc_ended(Launcher& launcher, Proc& process, int wait_status);
void dvm_tick(Launcher& launcher);
bool dvm_finished(const Launcher& launcher);
// The DVM's upcalls over host.cpp's `module`: its job control (stop), abort and spawn (a job's
// failure is its own). `node_daemon`: pmixd of a DVM across nodes (dvm_head.h), which the head
// stops and whose finished jobs wait for the head's dvm_order_retire.
void dvm_module(pmix_server_module_t& module, bool node_daemon);
// The system server: refused beside a live one, PMIx_server_init, the ready line (--report-uri's
// file in `uri_file`); 0, or 1 after saying why (nothing left running then).
int dvm_open_server(Launcher& launcher, std::string& uri_file);
bool dvm_stop_requested();  // a terminate aimed at the DVM arrived
// Job `nspace` fails alone (its processes: 1 s, SIGTERM, SIGKILL 3 s later, on every node).
void dvm_fail_job(const std::string& nspace, const std::string& why);
// A finished job handed back: clients, namespace, set and the launcher's state of it dropped.
void dvm_retire_job(Launcher& launcher, const std::string& nspace);
void dvm_order_retire(const std::string& nspace);  // pmixd: the head retired it everywhere
// dvm_stop.cpp: pmixrun --dvm-stop: a tool that sends PMIx_Job_control(terminate) to a DVM and
// waits until it is gone; the exit status.
int run_dvm_stop(const Options& options);
// connect.cpp: the host's connect / disconnect upcalls (one node: one upcall per operation).
pmix_status_t host_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                           size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);
pmix_status_t host_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata);

}  // namespace pmix::launcher
