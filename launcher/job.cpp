// The job: what pmixrun registers with the server, the fork/exec of every rank, and the event loop
// that forwards output, reaps children and enforces the failure and timeout rules.
#include "fork_agent.h"
#include "launcher.h"
#include "output.h"
#include "spawner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <algorithm>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace pmix::launcher {
namespace {

constexpr auto kExitGrace = std::chrono::milliseconds(1000);  // survivors may exit on their own
constexpr auto kTermGrace = std::chrono::milliseconds(3000);  // SIGTERM -> SIGKILL

int g_sigpipe[2] = {-1, -1};

void on_signal(int sig) {
    const int saved_errno = errno;
    const unsigned char byte = static_cast<unsigned char>(sig);
    [[maybe_unused]] const ssize_t written = ::write(g_sigpipe[1], &byte, 1);
    errno = saved_errno;
}

// One PMIX_PROC_DATA entry, the rank first as Open MPI's hosts do, built in `slot` itself: the
// darray is attached without a copy, and `slot` owns it from then on (PMIX_INFO_FREE releases it).
pmix_status_t load_proc_data(pmix_info_t& slot, const Layout& layout, pmix_rank_t rank,
                             const Options* apps) {
    const size_t node = layout.node_of(rank);
    const uint16_t local_rank = static_cast<uint16_t>(rank - layout.first_rank[node]);
    const uint32_t app_number = apps != nullptr ? static_cast<uint32_t>(apps->app_of(rank)) : 0;
    const pmix_rank_t app_rank = apps != nullptr ? rank - apps->app_first_rank(app_number) : rank;
    const uint32_t node_id = static_cast<uint32_t>(node);
    const struct {
        const char* key;
        const void* value;
        pmix_data_type_t type;
    } fields[] = {{PMIX_RANK, &rank, PMIX_PROC_RANK},
                  {PMIX_GLOBAL_RANK, &rank, PMIX_PROC_RANK},
                  {PMIX_APP_RANK, &app_rank, PMIX_PROC_RANK},
                  {PMIX_LOCAL_RANK, &local_rank, PMIX_UINT16},
                  {PMIX_NODE_RANK, &local_rank, PMIX_UINT16},
                  {PMIX_APPNUM, &app_number, PMIX_UINT32},
                  {PMIX_NODEID, &node_id, PMIX_UINT32},
                  {PMIX_HOSTNAME, layout.nodes[node].name.c_str(), PMIX_STRING}};
    pmix_data_array_t* darray = nullptr;
    PMIX_DATA_ARRAY_CREATE(darray, std::size(fields), PMIX_INFO);
    if (darray == nullptr) return PMIX_ERR_NOMEM;
    PMIX_LOAD_KEY(slot.key, PMIX_PROC_DATA);
    slot.value.type = PMIX_DATA_ARRAY;
    slot.value.data.darray = darray;
    auto* entries = static_cast<pmix_info_t*>(darray->array);
    if (entries == nullptr) return PMIX_ERR_NOMEM;
    for (size_t i = 0; i < std::size(fields); ++i) {
        const pmix_status_t rc =
            PMIx_Info_load(&entries[i], fields[i].key, fields[i].value, fields[i].type);
        if (rc != PMIX_SUCCESS) return rc;
    }
    return PMIX_SUCCESS;
}

pmix_status_t wait_op(pmix_status_t rc, Waiter& waiter) {
    if (rc == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS) return rc;
    return waiter.wait();
}

void set_nonblock(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

namespace {

std::string join_words(const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
    return out;
}

// The main job's app contexts (MPMD); a spawned job is one app of `job_size` processes.
std::vector<AppContext> apps_of(const Launcher& owner, const std::string& nspace,
                                uint32_t job_size) {
    if (nspace == owner.nspace && !owner.options.apps.empty()) return owner.options.apps;
    AppContext one;
    one.nprocs = static_cast<int>(job_size);
    if (nspace == owner.nspace) one.argv = owner.options.argv;
    return {one};
}

// One PMIX_NODE_INFO_ARRAY per node of the layout and one PMIX_APP_INFO_ARRAY per app context,
// with the keys OpenPMIx's reference launcher (prte) registers there: clients read them with
// PMIx_Get(PMIX_NODE_INFO / PMIX_APP_INFO + PMIX_NODEID / PMIX_HOSTNAME / PMIX_APPNUM).
// The main job's apps also carry their process set (PMIX_PSET_NAME, PMIX_PSET_MEMBERS), as prte
// registers an app's --pset.
void add_node_and_app_arrays(InfoList& info, const Layout& layout,
                             const std::vector<AppContext>& apps,
                             const std::vector<ProcessSetDef>& psets) {
    for (size_t n = 0; n < layout.nodes.size(); ++n) {
        InfoList node;
        const uint32_t node_id = static_cast<uint32_t>(n), size = layout.rank_count[n];
        const pmix_rank_t leader = layout.first_rank[n];
        node.add(PMIX_HOSTNAME, layout.nodes[n].name);
        node.add(PMIX_NODEID, &node_id, PMIX_UINT32);
        node.add(PMIX_LOCAL_SIZE, &size, PMIX_UINT32);
        node.add(PMIX_NODE_SIZE, &size, PMIX_UINT32);
        node.add(PMIX_LOCALLDR, &leader, PMIX_PROC_RANK);
        node.add(PMIX_LOCAL_PEERS, rank_list(leader, size));
        if (node.convert() == PMIX_SUCCESS) {
            info.add(PMIX_NODE_INFO_ARRAY, &node.array(), PMIX_DATA_ARRAY);
        }
    }
    pmix_rank_t leader = 0;
    for (size_t a = 0; a < apps.size(); ++a) {
        InfoList app;
        const uint32_t appnum = static_cast<uint32_t>(a);
        const uint32_t size = static_cast<uint32_t>(apps[a].nprocs);
        app.add(PMIX_APPNUM, &appnum, PMIX_UINT32);
        app.add(PMIX_APP_SIZE, &size, PMIX_UINT32);
        app.add(PMIX_APPLDR, &leader, PMIX_PROC_RANK);
        if (!apps[a].argv.empty()) app.add(PMIX_APP_ARGV, join_words(apps[a].argv));
        if (a < psets.size()) {
            pmix_data_array_t members{PMIX_PROC, psets[a].members.size(),
                                      const_cast<pmix_proc_t*>(psets[a].members.data())};
            app.add(PMIX_PSET_NAME, psets[a].name);
            app.add(PMIX_PSET_MEMBERS, &members, PMIX_DATA_ARRAY);
        }
        if (app.convert() == PMIX_SUCCESS) {
            info.add(PMIX_APP_INFO_ARRAY, &app.array(), PMIX_DATA_ARRAY);
        }
        leader += size;
    }
}

// The job-level information a real RM passes (what Open MPI 4.1 reads at MPI_Init), built with
// PMIx_Info_list_*.
pmix_status_t add_job_info(InfoList& info, const std::string& nspace, uint32_t job_size,
                           const Layout& layout, const pmix_proc_t* parent, const Launcher& owner) {
    const GeneratedMaps maps(layout);
    const uint32_t zero = 0;
    const uint32_t local_size = layout.rank_count[layout.here];
    const uint32_t node_count = static_cast<uint32_t>(layout.nodes.size());
    const uint32_t node_id = static_cast<uint32_t>(layout.here);
    const pmix_rank_t local_leader = layout.first_rank[layout.here];
    info.add(PMIX_JOBID, nspace);
    info.add(PMIX_JOB_SIZE, &job_size, PMIX_UINT32);
    info.add(PMIX_UNIV_SIZE, &job_size, PMIX_UINT32);
    info.add(PMIX_MAX_PROCS, &job_size, PMIX_UINT32);
    info.add(PMIX_LOCAL_SIZE, &local_size, PMIX_UINT32);
    info.add(PMIX_NODE_SIZE, &local_size, PMIX_UINT32);
    info.add(PMIX_NUM_NODES, &node_count, PMIX_UINT32);
    const std::vector<AppContext> apps = apps_of(owner, nspace, job_size);
    const uint32_t napps = static_cast<uint32_t>(apps.size());
    info.add(PMIX_JOB_NUM_APPS, &napps, PMIX_UINT32);
    if (napps == 1) info.add(PMIX_APPNUM, &zero, PMIX_UINT32);  // else each rank's own
    info.add(PMIX_NPROC_OFFSET, &zero, PMIX_UINT32);
    info.add(PMIX_NODEID, &node_id, PMIX_UINT32);
    info.add(PMIX_HOSTNAME, layout.nodes[layout.here].name);
    info.add(PMIX_NODE_MAP, maps.node_map, PMIX_STRING);
    info.add(PMIX_PROC_MAP, maps.proc_map, PMIX_STRING);
    info.add(PMIX_LOCAL_PEERS, rank_list(local_leader, local_size));
    info.add(PMIX_LOCALLDR, &local_leader, PMIX_PROC_RANK);
    if (parent != nullptr) {
        const bool yes = true;
        info.add(PMIX_PARENT_ID, parent, PMIX_PROC);
        info.add(PMIX_SPAWNED, &yes, PMIX_BOOL);
    }
    add_node_and_app_arrays(
        info, layout, apps,
        nspace == owner.nspace ? app_psets(owner) : std::vector<ProcessSetDef>{});
    if (owner.other_user) {  // the server lets this user and group reach the job (as Slurm does)
        const uint32_t uid = owner.job_uid, gid = owner.job_gid;
        info.add(PMIX_USERID, &uid, PMIX_UINT32);
        info.add(PMIX_GRPID, &gid, PMIX_UINT32);
    }
    return info.convert();
}

// What register_nspace passes: the job-level entries, then one PMIX_PROC_DATA per rank built
// straight into its final slot. Building the per-rank entries through the list copied each one
// three times (convert, add to the job list, convert again). pmixrun's "register job + clients"
// phase at -n 1024 (release, 10 alternating runs on a shared 2-core host): 15.1 ms fastest,
// 23.7 ms median through the list; 10.6 ms fastest, 11.9 ms median built in place.
class Registration {
public:
    Registration() = default;
    ~Registration() { PMIX_INFO_FREE(info_, size_); }
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    pmix_status_t build(const std::string& nspace, uint32_t job_size, const Layout& layout,
                        const pmix_proc_t* parent, const Launcher& owner,
                        const SharedInfos& directives);
    pmix_info_t* info() const { return info_; }
    size_t size() const { return size_; }

private:
    pmix_info_t* info_ = nullptr;
    size_t size_ = 0;
};

pmix_status_t Registration::build(const std::string& nspace, uint32_t job_size,
                                  const Layout& layout, const pmix_proc_t* parent,
                                  const Launcher& owner, const SharedInfos& directives) {
    InfoList job;
    if (const pmix_status_t rc = add_job_info(job, nspace, job_size, layout, parent, owner);
        rc != PMIX_SUCCESS)
        return rc;
    const size_t job_entries = job.size() + directives.size();
    PMIX_INFO_CREATE(info_, job_entries + job_size);
    if (info_ == nullptr) return PMIX_ERR_NOMEM;
    size_ = job_entries + job_size;
    for (size_t i = 0; i < job.size(); ++i) {
        if (const pmix_status_t rc = PMIx_Info_xfer(&info_[i], &job.info()[i]); rc != PMIX_SUCCESS)
            return rc;
    }
    for (size_t i = 0; i < directives.size(); ++i) {
        pmix_info_t& slot = info_[job.size() + i];
        if (const pmix_status_t rc = PMIx_Info_xfer(&slot, &directives[i]->info);
            rc != PMIX_SUCCESS)
            return rc;
    }
    for (pmix_rank_t rank = 0; rank < job_size; ++rank) {
        if (const pmix_status_t rc =
                load_proc_data(info_[job_entries + rank], layout, rank,
                               nspace == owner.nspace ? &owner.options : nullptr);
            rc != PMIX_SUCCESS)
            return rc;
    }
    return PMIX_SUCCESS;
}

// Operations issued together and waited for once: their callbacks count down.
class Countdown {
public:
    // Before each call: a callback is expected...
    void expect() {
        std::lock_guard lock(mutex_);
        ++outstanding_;
    }
    // ...unless the call returned anything but PMIX_SUCCESS: then none comes.
    void returned(pmix_status_t rc) {
        if (rc == PMIX_SUCCESS) return;
        std::lock_guard lock(mutex_);
        if (rc != PMIX_OPERATION_SUCCEEDED) note(rc);
        if (--outstanding_ == 0) condition_.notify_all();
    }
    static void op_cb(pmix_status_t status, void* cbdata) {
        auto* self = static_cast<Countdown*>(cbdata);
        std::lock_guard lock(self->mutex_);
        if (status != PMIX_SUCCESS && status != PMIX_OPERATION_SUCCEEDED) self->note(status);
        if (--self->outstanding_ == 0) self->condition_.notify_all();
    }
    pmix_status_t wait_for(std::chrono::seconds limit) {
        std::unique_lock lock(mutex_);
        if (!condition_.wait_for(lock, limit, [&] { return outstanding_ == 0; }))
            return PMIX_ERR_TIMEOUT;
        return first_error_;
    }

private:
    void note(pmix_status_t rc) {
        if (first_error_ == PMIX_SUCCESS) first_error_ = rc;
    }
    std::mutex mutex_;
    std::condition_variable condition_;
    size_t outstanding_ = 0;
    pmix_status_t first_error_ = PMIX_SUCCESS;
};

// register_client for ranks [first, first + count) of `nspace`, all issued before waiting: one
// wait instead of one round trip to the server's thread per rank (under load each round trip
// waits for that thread to be scheduled: -n 4096 spent seconds here).
pmix_status_t register_clients(const Launcher& launcher, const std::string& nspace, uint32_t first,
                               uint32_t count) {
    // Leaked if the library never calls back, so that a late callback finds it.
    auto* countdown = new Countdown;
    for (uint32_t rank = first; rank < first + count; ++rank) {
        pmix_proc_t client;
        PMIX_PROC_LOAD(&client, nspace.c_str(), static_cast<pmix_rank_t>(rank));
        countdown->expect();
        countdown->returned(PMIx_server_register_client(&client, launcher.job_uid, launcher.job_gid,
                                                        nullptr, Countdown::op_cb, countdown));
    }
    const pmix_status_t rc = countdown->wait_for(std::chrono::seconds(60));
    if (rc != PMIX_ERR_TIMEOUT) delete countdown;
    return rc;
}

// Registers namespace `nspace` of `nprocs` processes on this node (clients first, as Open MPI
// does; the library must accept either order). `parent`: the process that spawned it, if any.
pmix_status_t register_nspace(Launcher& launcher, const std::string& nspace, size_t nprocs,
                              const pmix_proc_t* parent, const SharedInfos& directives) {
    // The main job spans the layout's nodes; a spawned job runs on this node only, unless the
    // head placed it across the nodes (remote_spawn.cpp).
    Layout layout;
    if (nspace == launcher.nspace) {
        layout = launcher.layout;
    } else if (auto placed = launcher.job_layouts.find(nspace);
               placed != launcher.job_layouts.end()) {
        layout = placed->second;
    } else {
        layout.nodes = {{launcher.hostname, static_cast<int>(nprocs)}};
        layout.map(static_cast<uint32_t>(nprocs));
    }
    Registration info;
    if (const pmix_status_t rc =
            info.build(nspace, static_cast<uint32_t>(nprocs), layout, parent, launcher, directives);
        rc != PMIX_SUCCESS)
        return rc;
    const uint32_t first = layout.first_rank[layout.here];
    const uint32_t local_size = layout.rank_count[layout.here];
    if (const pmix_status_t rc = register_clients(launcher, nspace, first, local_size);
        rc != PMIX_SUCCESS)
        return rc;
    Waiter waiter;
    return wait_op(PMIx_server_register_nspace(nspace.c_str(), static_cast<int>(local_size),
                                               info.info(), info.size(), Waiter::op_cb, &waiter),
                   waiter);
}

void setup_signals() {
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGCHLD, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
}

void close_pair(int fds[2]) {
    const int saved = errno;  // the caller reports why the pair was not enough
    ::close(fds[0]);
    ::close(fds[1]);
    errno = saved;
}

// A process whose program could not be executed (or, with --user, not run as the job's user)
// ends there with the status its child would have had (127, 126): the job fails with that status
// and a message naming the program, as when the child reported it itself after a fork.
void start_failed(Launcher& launcher, Proc& process, const SpawnSpec& spec,
                  const SpawnResult& result) {
    const int code = result.failed == SpawnResult::Failed::user ? 126 : 127;
    const std::string why = result.message(spec);
    if (result.failed == SpawnResult::Failed::start) {
        std::fprintf(stderr, "pmixrun: rank %s: %s\n", proc_tag(process).c_str(), why.c_str());
        return;  // the caller gives up on the job (status 1), as for the other local failures
    }
    process.exited = true;
    process.exit_code = code;
    process.counted = true;
    if (launcher.remote != nullptr) launcher.remote->exited(process);
    ++launcher.exited_count;
    if (launcher.options.dvm) {  // pmixd of a DVM: that job fails, not the launcher
        dvm_fail_job(process.nspace, "rank " + proc_tag(process) + ": " + why);
        return;
    }
    launcher.fail(code, "rank " + proc_tag(process) + ": " + why + "; killing the job");
}

// The spawn of one process: its stdin, output pipes, process group and signals; under pmixd it
// dies with pmixd; with --user it runs as the job's user (spawner.h says how each is done).
SpawnSpec spawn_spec(const Launcher& launcher, char* const* argv, char* const* env, int in, int out,
                     int err) {
    SpawnSpec spec;
    spec.argv = argv;
    spec.envp = env;
    spec.stdin_fd = in;
    spec.stdout_fd = out;
    spec.stderr_fd = err;
    spec.die_with_parent = launcher.remote != nullptr;
    spec.default_signals = {SIGCHLD, SIGINT, SIGTERM};
    spec.switch_user = launcher.other_user;
    spec.uid = launcher.job_uid;
    spec.gid = launcher.job_gid;
    return spec;
}

}  // namespace

// setup_fork + spawn of one process with its output on two pipes. Nothing here depends on the
// job's size: the cost per process is the same at -n 2 and -n 4096.
// `argv` is what is executed (an exec agent's words first, if any: start_as.cpp); `program` the
// app's own argv[0], for the proc tables; `wdir` where it starts (nullptr: here). Without
// `client_env` `base_env` is used as is (a fork/exec agent, which is no client: fork_agent.h).
bool start_proc(Launcher& launcher, Proc& process, std::vector<char*>& argv, char** base_env,
                const char* program, const char* wdir, bool client_env) {
    char** env = nullptr;
    const auto setup_start = Clock::now();
    const bool have_env = process_environment(process, base_env, client_env, env);
    if (process.job == 0) launcher.times.setup_fork += Clock::now() - setup_start;
    if (!have_env) return false;
    // The child's stdout and stderr: [0] read end (ours), [1] write end (its 1 and 2 after dup2).
    // Close-on-exec from the start, so that no other child inherits them.
    int out[2], err[2];
    const bool piped =
        ::pipe2(out, O_CLOEXEC) == 0 && (::pipe2(err, O_CLOEXEC) == 0 || (close_pair(out), false));
    if (!piped) {
        std::fprintf(stderr, "pmixrun: cannot make the output pipes of rank %s: %s\n",
                     proc_tag(process).c_str(), std::strerror(errno));
        PMIX_ARGV_FREE(env);
        return false;
    }
    const int in = child_stdin(launcher, process);  // -1: inherited
    SpawnSpec spec = spawn_spec(launcher, argv.data(), env, in, out[1], err[1]);
    spec.cwd = wdir;
    spec.stop_on_exec = debug_stops_on_exec(process);  // PMIX_DEBUG_STOP_ON_EXEC (debug.cpp)
    process.forked = Clock::now();
    const SpawnResult started = spawn_process(spec);
    if (process.job == 0) launcher.times.fork += Clock::now() - process.forked;
    if (in >= 0) ::close(in);
    ::close(out[1]);
    ::close(err[1]);
    if (started.pid < 0) {
        ::close(out[0]);
        ::close(err[0]);
        start_failed(launcher, process, spec, started);
        PMIX_ARGV_FREE(env);
        return false;
    }
    PMIX_ARGV_FREE(env);
    process.pid = started.pid;
    launcher.by_pid[started.pid] = &process;
    process.executable = program;
    process.out.fd = out[0];
    process.err.fd = err[0];
    set_nonblock(out[0]);
    set_nonblock(err[0]);
    return true;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (std::string& text : strings) out.push_back(text.data());
    out.push_back(nullptr);
    return out;
}

std::string proc_tag(const Proc& process) {
    return process.job == 0 ? std::to_string(process.rank)
                            : std::to_string(process.job) + "." + std::to_string(process.rank);
}

namespace {

// The variables "--unset-env PREFIX*" names: every one of this node's environment and of -x that
// starts with PREFIX (prterun: "unsets all current environmental variables starting with"); a
// plain name is itself.
std::vector<std::string> unset_targets(const std::string& name, const Options& options) {
    if (name.empty() || name.back() != '*') return {name};
    const std::string prefix = name.substr(0, name.size() - 1);
    std::vector<std::string> names;
    auto consider = [&](const std::string& entry) {
        const std::string var = entry.substr(0, entry.find('='));
        if (var.compare(0, prefix.size(), prefix) == 0 &&
            std::find(names.begin(), names.end(), var) == names.end())
            names.push_back(var);
    };
    for (char** entry = environ; *entry != nullptr; ++entry) consider(*entry);
    for (const std::string& passed : options.env) consider(passed);
    return names;
}

// pmixrun's --set-env / --unset-env / --prepend-env / --append-env as the Standard's directives,
// in command-line order, registered with the job: the library checks them there and setup_fork
// applies them one after another (job info first, as for a spawned job).
SharedInfos command_line_directives(const Options& options) {
    SharedInfos out;
    auto add = [&out](const char* key, const void* data, pmix_data_type_t type) {
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, key, data, type);
        out.push_back(std::make_shared<const OwnedInfo>(info));
        PMIX_INFO_DESTRUCT(&info);
    };
    for (const EnvDirective& d : options.env_directives) {
        if (d.kind == EnvDirective::Kind::unset) {
            for (const std::string& var : unset_targets(d.name, options))
                add(PMIX_UNSET_ENVAR, var.c_str(), PMIX_STRING);
            continue;
        }
        pmix_envar_t envar{const_cast<char*>(d.name.c_str()), const_cast<char*>(d.value.c_str()),
                           d.separator};
        add(d.kind == EnvDirective::Kind::set       ? PMIX_SET_ENVAR
            : d.kind == EnvDirective::Kind::prepend ? PMIX_PREPEND_ENVAR
                                                    : PMIX_APPEND_ENVAR,
            &envar, PMIX_ENVAR);
    }
    return out;
}

}  // namespace

pmix_status_t register_job(Launcher& launcher) {
    lifecycle_watch(launcher, launcher.nspace, static_cast<size_t>(launcher.options.nprocs),
                    launcher.main_requester ? &*launcher.main_requester : nullptr,
                    launcher.main_lifecycle);
    const StopRequest stops = stop_main_request(launcher.options);  // --stop-* (debug.cpp)
    debug_watch_job(launcher, launcher.nspace, nullptr, stops);
    SharedInfos directives = command_line_directives(launcher.options);
    stop_add_job_info(stops, directives);
    return register_nspace(launcher, launcher.nspace, static_cast<size_t>(launcher.options.nprocs),
                           nullptr, directives);
}

// The processes a failed start left unstarted count as ended (status 1, the failure's), so
// that the loop ends once the started ones have. Before this, a start that failed for want of
// descriptors (ulimit -n 32, 16 ranks) left pmixrun waiting for them until killed.
void give_up_unstarted(Launcher& launcher) {
    for (Proc& process : launcher.procs) {
        if (process.pid > 0 || process.exited) continue;
        process.exited = true;
        process.exit_code = 1;
        lifecycle_proc_ended(launcher, process, 1 << 8);  // as waitpid reports exit(1)
        if (launcher.remote != nullptr) launcher.remote->exited(process);
        ++launcher.exited_count;
    }
}

pmix_status_t spawn_job(Launcher& launcher, const pmix_proc_t& parent, const AppSpec& app,
                        std::string* nspace) {
    if (launcher.failing) return PMIX_ERR_JOB_TERMINATED;
    if (app.argv.empty() || app.nprocs == 0) return PMIX_ERR_BAD_PARAM;
    for (const ProcessSetDef& set : launcher.psets)
        if (set.name == app.pset) return PMIX_ERR_EXISTS;  // sets are never redefined
    const unsigned job = launcher.next_job++;
    const std::string job_nspace = launcher.nspace + "." + std::to_string(job);
    const pmix_status_t rc = start_job_part(launcher, parent, app, job_nspace, job, nullptr);
    if (rc == PMIX_SUCCESS) *nspace = job_nspace;
    return rc;
}

pmix_status_t start_job_part(Launcher& launcher, const pmix_proc_t& parent, const AppSpec& app,
                             const std::string& job_nspace, unsigned job, const Layout* placed) {
    if (launcher.failing) return PMIX_ERR_JOB_TERMINATED;
    std::string why;  // checked before anything is registered
    if (const auto rc = start_as_usable(app, launcher.child_env, why); rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun: spawned job %s: %s\n", job_nspace.c_str(), why.c_str());
        return rc;
    }
    const size_t first = launcher.procs.size();
    const pmix_rank_t first_rank = placed != nullptr ? placed->first_rank[placed->here] : 0;
    const size_t count = placed != nullptr ? placed->rank_count[placed->here] : app.nprocs;
    if (placed != nullptr) launcher.job_layouts[job_nspace] = *placed;
    for (size_t rank = first_rank; rank < first_rank + count; ++rank) {
        Proc& process = launcher.procs.emplace_back();
        process.rank = static_cast<pmix_rank_t>(rank);
        process.nspace = job_nspace;
        process.job = job;
    }
    if (pmix_status_t rc =
            register_nspace(launcher, job_nspace, app.nprocs, &parent, app.directives);
        rc != PMIX_SUCCESS) {
        launcher.procs.resize(first);
        return rc;
    }
    launcher.spawned_nspaces.push_back(job_nspace);
    // Across nodes the head follows the job's lifecycle (every node's part).
    if (placed == nullptr)
        lifecycle_watch(launcher, job_nspace, app.nprocs, &parent, app.lifecycle);
    debug_watch_job(launcher, job_nspace, &parent, app.stops);
    define_spawned_pset(launcher, job_nspace, app);
    if (app.stdin_rank != Options::kStdinNone)  // PMIX_FWD_STDIN: pipes fed by pushes
        launcher.spawned_stdin[job_nspace].named = app.stdin_rank;
    std::vector<std::string> env = launcher.child_env;
    for (const std::string& added : app.env) {
        const std::string prefix = added.substr(0, added.find('=') + 1);
        std::erase_if(env, [&](const std::string& entry) {
            return entry.compare(0, prefix.size(), prefix) == 0;
        });
        env.push_back(added);
    }
    std::vector<char*> envp = c_strings(env);
    std::vector<Proc*> started;
    for (size_t i = first; i < launcher.procs.size(); ++i) started.push_back(&launcher.procs[i]);
    if (!start_procs(
            launcher, job_nspace, started, [&](const Proc&) { return app.argv; }, app.start_as,
            envp.data())) {
        launcher.fail(
            1, "could not start every process of spawned job " + job_nspace + "; killing the job");
        give_up_unstarted(launcher);  // the loop ends once the started ones have
        return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    }
    lifecycle_started(launcher, job_nspace);
    debug_started(launcher, job_nspace);
    return PMIX_SUCCESS;
}

bool spawn_all(Launcher& launcher, char** base_env) {
    if (::pipe2(g_sigpipe, O_CLOEXEC | O_NONBLOCK) != 0) return false;
    setup_signals();
    const StartAs& how = launcher.options.start_as;  // --wdir, --fork-agent, --exec-agent
    if (std::string why; !wdir_usable(how.wdir, why)) {
        std::fprintf(stderr, "pmixrun: --wdir: %s\n", why.c_str());
        give_up_unstarted(launcher);
        return false;
    }
    // One per app context (MPMD): the app's own argv.
    std::vector<std::vector<std::string>> programs;
    for (const AppContext& app : launcher.options.apps) programs.push_back(app.argv);
    if (programs.empty()) programs.push_back(launcher.options.argv);
    auto argv_of = [&](const Proc& process) {
        const size_t app = process.job == 0 ? launcher.options.app_of(process.rank) : 0;
        return programs[app < programs.size() ? app : 0];
    };
    std::vector<Proc*> started;
    for (Proc& process : launcher.procs) started.push_back(&process);
    if (!start_procs(launcher, launcher.nspace, started, argv_of, how, base_env)) {
        give_up_unstarted(launcher);
        return false;
    }
    lifecycle_started(launcher, launcher.nspace);
    debug_started(launcher, launcher.nspace);
    return true;
}

// A stopped process (on exec, in a pause) holds SIGTERM until it runs again: SIGCONT after it, so
// that it ends now, not at the SIGKILL stage (pmixrun --timeout 1 --stop-on-exec: 4.0 s before).
void kill_all(Launcher& launcher, int sig) {
    for (Proc& process : launcher.procs) {
        if (process.pid <= 0 || process.exited) continue;
        const pid_t target = process.agent_group ? -process.pid : process.pid;
        ::kill(target, sig);
        if (sig == SIGTERM) ::kill(target, SIGCONT);
    }
}

namespace {

// Output handed to PMIx_server_IOF_deliver that the library has not finished with (it copies the
// bytes and queues them for its own thread): above kDeliveryBacklog no more output is read.
constexpr uint64_t kDeliveryBacklog = 4u << 20;
std::atomic<uint64_t> g_delivering{0};

void delivered(pmix_status_t, void* cbdata) {  // on the library's thread
    const uint64_t length = reinterpret_cast<uintptr_t>(cbdata);
    const uint64_t before = g_delivering.fetch_sub(length);
    if (before >= kDeliveryBacklog && before - length < kDeliveryBacklog)
        g_launcher->queue.post([] {});  // wakes the loop, which reads output again
}

// Hands a chunk of a rank's output to the library, which forwards it to the tools that pull it
// (or holds it until one does, under its cache limit).
void deliver_output(const Proc& process, FILE* destination, const char* bytes, size_t length,
                    bool complete = false) {
#ifdef PMIXRUN_NO_IOF_DELIVER
    (void)process, (void)destination, (void)bytes, (void)length, (void)complete;
    return;
#endif
    if (length == 0 && !complete) return;
    pmix_proc_t source;
    PMIX_LOAD_PROCID(&source, process.nspace.c_str(), process.rank);
    pmix_byte_object_t bo{const_cast<char*>(bytes), length};
    pmix_info_t end;  // the stream ended (EOF): PMIX_IOF_COMPLETE, no bytes
    PMIX_INFO_LOAD(&end, PMIX_IOF_COMPLETE, nullptr, PMIX_BOOL);
    const pmix_iof_channel_t channel =
        destination == stdout ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL;
    g_delivering += length;
    void* counted = reinterpret_cast<void*>(static_cast<uintptr_t>(length));
    const pmix_status_t rc = PMIx_server_IOF_deliver(
        &source, channel, &bo, complete ? &end : nullptr, complete ? 1 : 0, delivered, counted);
    PMIX_INFO_DESTRUCT(&end);
    if (rc != PMIX_SUCCESS) g_delivering -= length;  // no callback comes
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED)
        std::fprintf(stderr, "pmixrun: output of %s not forwarded: %s\n", proc_tag(process).c_str(),
                     PMIx_Error_string(rc));
}

// Prints a chunk of a rank's stream through the printer (output.h), which formats it as the
// output options say: whole lines now (every chunk with --raw-output), a partial last line when
// the rest of it or the end of the stream comes.
void print_output(const Proc& process, pmix_iof_channel_t channel, const char* bytes, size_t length,
                  bool end) {
    static const bool configured = [] {  // at the first output, once the options are final
        output_printer().configure(g_launcher->options.output,
                                   static_cast<std::size_t>(g_launcher->options.nprocs));
        return true;
    }();
    (void)configured;
    const std::string tag = proc_tag(process);
    const OutputSource source{process.nspace, process.rank, tag};
    const OutputChannel printed =
        channel == PMIX_FWD_STDOUT_CHANNEL ? OutputChannel::out : OutputChannel::err;
    if (length > 0) output_printer().print(source, printed, std::string_view(bytes, length));
    if (end) output_printer().end(source, printed);
    output_printer().flush();
}

// What one readable pipe gets per loop turn, so that a rank writing without pause cannot keep
// the loop from its other work (upcalls, signals, the other ranks).
constexpr size_t kReadsPerTurn = 16;  // of 64 KiB

// Reads what a rank's pipe has: pmixd sends each chunk to the head as read (and stops while the
// channel is full: the rank then blocks in write); pmixrun delivers and prints it.
void forward_output(Stream& stream, Proc& process, FILE* destination) {
    const pmix_iof_channel_t channel =
        destination == stdout ? PMIX_FWD_STDOUT_CHANNEL : PMIX_FWD_STDERR_CHANNEL;
    Remote* remote = g_launcher->remote;
    char chunk[65536];
    for (size_t reads = 0; reads < kReadsPerTurn; ++reads) {
        if ((remote != nullptr && remote->output_blocked()) || output_backlogged()) return;
        const ssize_t bytes_read = ::read(stream.fd, chunk, sizeof chunk);
        if (bytes_read < 0 && errno == EINTR) continue;
        if (bytes_read < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        const bool end = bytes_read <= 0;
        const size_t length = end ? 0 : static_cast<size_t>(bytes_read);
        if (end) {
            ::close(stream.fd);
            stream.fd = -1;
        }
        if (remote != nullptr) {
            remote->output(process, destination == stdout ? 1 : 2, chunk, length, end);
        } else {
            take_output(process, channel, chunk, length, end);
        }
        if (end) return;
    }
}

void reap(Launcher& launcher) {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
        const auto found = launcher.by_pid.find(pid);
        if (found == launcher.by_pid.end()) continue;  // not one of the job's processes
        Proc& process = *found->second;
        launcher.by_pid.erase(found);
        launcher.undisturbed.store(false, std::memory_order_release);
        process.exited = true;
        process.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
        process.counted = launcher.kill_stage == 0;
        fea_check_ended(process, status);  // an agent that never connected back fails its rank
        if (launcher.remote != nullptr) launcher.remote->exited(process);
        if (++launcher.exited_count == launcher.procs.size())
            launcher.times.all_exited = Clock::now();
        lifecycle_proc_ended(launcher, process, status);
        if (launcher.options.dvm) {  // a job's failure ends that job, not the launcher
            dvm_proc_ended(launcher, process, status);
            continue;
        }
        if (launcher.failing) continue;
        std::string how = WIFSIGNALED(status)
                              ? "was killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
                                    strsignal(WTERMSIG(status)) + ")"
                              : "exited with status " + std::to_string(WEXITSTATUS(status));
        if (process.exit_code != 0)
            launcher.fail(process.exit_code, "rank " + proc_tag(process) + " (pid " +
                                                 std::to_string(pid) + ") " + how +
                                                 "; killing the job");
        else if (process.connected && !process.finalized)
            launcher.fail(1, "rank " + proc_tag(process) + " (pid " + std::to_string(pid) + ") " +
                                 how + " without calling PMIx_Finalize; killing the job");
    }
}

void handle_signals(Launcher& launcher) {
    unsigned char signals[64];
    ssize_t bytes_read;
    while ((bytes_read = ::read(g_sigpipe[0], signals, sizeof signals)) > 0) {
        for (ssize_t i = 0; i < bytes_read; ++i) {
            if (signals[i] == SIGCHLD) continue;
            launcher.fail(128 + signals[i], std::string("received signal ") +
                                                strsignal(signals[i]) + "; killing the job");
            launcher.fail_at = Clock::now() - kExitGrace;  // no grace: the user asked us to stop
        }
    }
    reap(launcher);
}

void advance_kill(Launcher& launcher, Clock::time_point now) {
    if (launcher.options.timeout_s > 0 && !launcher.timed_out &&
        now - launcher.times.start >= std::chrono::duration<double>(launcher.options.timeout_s)) {
        launcher.timed_out = true;
        std::fprintf(stderr, "pmixrun: timeout after %g s; killing the job\n",
                     launcher.options.timeout_s);
        launcher.failing = true;
        launcher.fail_at = now - kExitGrace;
    }
    if (!launcher.failing) return;
    if (launcher.kill_stage == 0 && now - launcher.fail_at >= kExitGrace) {
        kill_all(launcher, SIGTERM);
        launcher.kill_stage = 1;
    } else if (launcher.kill_stage == 1 && now - launcher.fail_at >= kExitGrace + kTermGrace) {
        kill_all(launcher, SIGKILL);
        launcher.kill_stage = 2;
    }
}

}  // namespace

bool output_backlogged() { return g_delivering.load() >= kDeliveryBacklog; }

void take_output(Proc& process, pmix_iof_channel_t channel, const char* bytes, size_t length,
                 bool end) {
    FILE* destination = channel == PMIX_FWD_STDOUT_CHANNEL ? stdout : stderr;
    // Printed before it is delivered: the terminal's line latency then does not include the
    // library's copy (measured with bench/iof, 500 lines: median 55 us delivering first, 28 us
    // printing first, 21 us without delivery).
    if (!redirected(*g_launcher, process, channel) || end)
        print_output(process, channel, bytes,
                     redirected(*g_launcher, process, channel) ? 0 : length, end);
    deliver_output(process, destination, bytes, length);
    if (end) deliver_output(process, destination, nullptr, 0, true);
}

void run_loop(Launcher& launcher) {
    // pmixd: how many processes there were when it last told the head all had ended (a job the
    // head spawns later adds some: their end is reported again).
    size_t reported = SIZE_MAX;
    for (;;) {
        std::vector<pollfd> fds;  // signal pipe, work queue, head's channel (in, out), pipes
        std::vector<std::pair<Stream*, Proc*>> owners;
        fds.push_back({g_sigpipe[0], POLLIN, 0});
        fds.push_back({launcher.queue.fd(), POLLIN, 0});
        Remote* remote = launcher.remote;
        fds.push_back({remote != nullptr ? remote->control_fd() : -1, POLLIN, 0});  // -1: ignored
        fds.push_back({remote != nullptr ? remote->control_out_fd() : -1, POLLOUT, 0});
        // pmixd: while the channel to the head is full the ranks' pipes are not read (they block).
        const bool read_output =
            (remote == nullptr || !remote->output_blocked()) && !output_backlogged();
        for (Proc& process : launcher.procs) {
            for (Stream* stream : {&process.out, &process.err}) {
                if (stream->fd < 0) continue;
                if (!read_output) {
                    owners.emplace_back(stream, &process);  // keeps the loop going, not polled
                    fds.push_back({-1, POLLIN, 0});
                    continue;
                }
                fds.push_back({stream->fd, POLLIN, 0});
                owners.emplace_back(stream, &process);
            }
        }
        const std::size_t stdin_at = fds.size();
        stdin_poll_fds(launcher, fds);
        const bool all_ended = owners.empty() && launcher.exited_count == launcher.procs.size();
        if (launcher.options.dvm) {
            if (all_ended && dvm_finished(launcher)) break;
        } else if (all_ended) {
            if (launcher.remote == nullptr) break;
            if (reported != launcher.procs.size())
                launcher.remote->job_done(launcher.final_exit_code());
            reported = launcher.procs.size();
            if (launcher.quit) break;  // pmixd stays until the head says the whole job is over
        }
        const int tick_ms = 100;  // coarse tick for the timeout and kill stages
        const int rc = ::poll(fds.data(), fds.size(), tick_ms);
        if (rc < 0 && errno != EINTR) break;
        if (fds[1].revents != 0) launcher.queue.drain();
        if (fds[2].revents != 0 || fds[3].revents != 0) launcher.remote->on_control();
        if (launcher.remote != nullptr) launcher.remote->tick();
        for (size_t i = 0; i < owners.size(); ++i) {
            if (fds[i + 4].revents == 0) continue;
            auto [stream, process] = owners[i];
            forward_output(*stream, *process, stream == &process->out ? stdout : stderr);
        }
        stdin_service(launcher, &fds[stdin_at]);
        handle_signals(launcher);
        advance_kill(launcher, Clock::now());
        if (launcher.options.dvm) dvm_tick(launcher);  // may drop ended jobs' Procs
    }
    stdin_close(launcher);
    launcher.queue.drain();
    fail_pending_lookups(PMIX_ERR_TIMEOUT);
}

namespace {
pmix_status_t deregister_nspace_bounded(const char* nspace, Waiter& waiter) {
    PMIx_server_deregister_nspace(nspace, Waiter::op_cb, &waiter);
    return waiter.wait_for(std::chrono::seconds(5));
}
}  // namespace

void deregister_job(Launcher& launcher) {
    for (Proc& process : launcher.procs) {
        pmix_proc_t proc;
        PMIX_PROC_LOAD(&proc, process.nspace.c_str(), process.rank);
        PMIx_server_deregister_client(&proc, nullptr, nullptr);
    }
    // Static: if the library never calls back, a late callback must still find a live object.
    static std::deque<Waiter> waiters;
    for (const std::string& nspace : launcher.spawned_nspaces)
        (void)deregister_nspace_bounded(nspace.c_str(), waiters.emplace_back());
    (void)deregister_nspace_bounded(launcher.nspace.c_str(), waiters.emplace_back());
    fea_forget("");  // the fork/exec agents' debugger jobs
    for (Proc& process : launcher.procs) {
        if (process.out.fd >= 0) ::close(process.out.fd);
        if (process.err.fd >= 0) ::close(process.err.fd);
    }
    if (g_sigpipe[0] >= 0) {
        ::close(g_sigpipe[0]);
        ::close(g_sigpipe[1]);
    }
}

}  // namespace pmix::launcher
