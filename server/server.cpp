// server/server.cpp - lifecycle (init/finalize, session directory) and registration calls.
#include "server/api.h"
#include "server/board.h"
#include "server/publish.h"
#include "server/setup_app.h"
#include "server/stale.h"
#include "server/state.h"
#include "server/tools.h"
#include "wire/rendezvous.h"

#include "base/env_names.h"
#include "data/attr_support.h"
#include "data/directives.h"
#include "data/envar.h"
#include "data/value.h"
#include "exec/completion.h"
#include "exec/log.h"
#include "wire/proto/message.h"
#include "wire/unix_socket.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <thread>

namespace pmix::server {

namespace {

std::mutex g_mutex;
std::shared_ptr<State> g_state;  // guarded by g_mutex

constexpr auto kSyncTimeout = std::chrono::seconds(30);

using data::find_info;

std::string this_host() {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) != 0) {
        return "localhost";
    }
    return buf;
}

// Runs `work` on the loop thread and returns its status (inline when already there, e.g. from
// inside a host upcall).
template <class F>
pmix_status_t run_sync(State& st, F&& work) {
    if (st.ex->on_loop_thread()) {
        return work(st);
    }
    exec::Completion<pmix_status_t> done;
    State* s = &st;
    if (!st.ex->post([s, done, w = std::forward<F>(work)]() mutable { done.complete(w(*s)); })) {
        return PMIX_ERR_INIT;
    }
    auto r = done.wait(kSyncTimeout);
    return r.status == PMIX_SUCCESS ? *r.value : r.status;
}

// Runs `work` on the loop thread; the outcome goes to cbfunc (from that thread) when given,
// else the call waits for it.
template <class F>
pmix_status_t run_op(State& st, F&& work, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (cbfunc == nullptr) {
        return run_sync(st, std::forward<F>(work));
    }
    State* s = &st;
    const bool posted = st.ex->post(
        [s, cbfunc, cbdata, w = std::forward<F>(work)]() mutable { cbfunc(w(*s), cbdata); });
    return posted ? PMIX_SUCCESS : PMIX_ERR_INIT;
}

// A socket path must fit sun_path (107 bytes); hosts such as Open MPI nest their session
// directories deep enough to exceed it (seen in CI: a 130-byte path). Clients find the
// socket through PMIX_SERVER_URI, so it may live elsewhere: a private directory under /tmp,
// removed with the session directory.
pmix_status_t make_short_socket_dir(State& st) {
    std::string templ = "/tmp/pmix-cpp." + std::to_string(getpid()) + ".XXXXXX";
    if (mkdtemp(templ.data()) == nullptr) {
        slog(exec::LogLevel::info,
             "cannot create a socket directory under /tmp: " + std::string(std::strerror(errno)));
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    st.socket_dir = templ;
    st.socket_path = templ + "/server.sock";
    return PMIX_SUCCESS;
}

pmix_status_t make_session_dir(State& st, const pmix_info_t* info, size_t ninfo) {
    const std::string base =
        wire::pick_tmpdir(data::string_of(info, ninfo, PMIX_SERVER_TMPDIR), env::kServerTmpdir);
    // Hosts pass directories they expect us to create; only the missing levels are made, and
    // only those are removed at finalize (when nothing else was put in them meanwhile).
    wire::make_dirs(base, &st.created_tmpdirs);
    st.tmpdir = base;
    st.session_dir = base + "/pmix-cpp." + st.hostname + "." + std::to_string(getpid());
    if (mkdir(st.session_dir.c_str(), 0700) != 0) {
        slog(exec::LogLevel::info,
             "cannot create session directory " + st.session_dir + ": " + std::strerror(errno));
        st.session_dir.clear();
        return PMIX_ERR_FILE_OPEN_FAILURE;
    }
    st.socket_path = st.session_dir + "/server.sock";
    if (st.socket_path.size() > wire::max_socket_path()) {
        return make_short_socket_dir(st);
    }
    return PMIX_SUCCESS;
}

void set_identity(State& st, const pmix_info_t* info, size_t ninfo) {
    // A host that names its nodes itself (simulated nodes share one kernel host name) says which
    // one this server is; the node map is matched against it.
    if (const char* host = data::string_of(info, ninfo, PMIX_HOSTNAME); host && *host) {
        st.hostname = host;
    }
    if (const char* ns = data::string_of(info, ninfo, PMIX_SERVER_NSPACE); ns != nullptr) {
        st.nspace = ns;
    } else {
        st.nspace = "pmix-cpp-server-" + st.hostname + "-" + std::to_string(getpid());
    }
    if (st.nspace.size() > PMIX_MAX_NSLEN) {
        st.nspace.resize(PMIX_MAX_NSLEN);
    }
    st.rank = 0;
    if (const pmix_info_t* r = find_info(info, ninfo, PMIX_SERVER_RANK); r != nullptr) {
        if (r->value.type == PMIX_PROC_RANK) st.rank = r->value.data.rank;
        else if (r->value.type == PMIX_UINT32) st.rank = r->value.data.uint32;
        else if (r->value.type == PMIX_INT)
            st.rank = static_cast<pmix_rank_t>(r->value.data.integer);
    }
}

void remove_session_dir(const State& st) {
    std::error_code ec;
    if (!st.session_dir.empty()) {
        std::filesystem::remove_all(st.session_dir, ec);
    }
    if (!st.socket_dir.empty()) {
        std::filesystem::remove_all(st.socket_dir, ec);
    }
    for (auto it = st.created_tmpdirs.rbegin(); it != st.created_tmpdirs.rend(); ++it) {
        ::rmdir(it->c_str());
    }
}

// Clients may PMIx_Get their session directories (OpenPMIx's "Session Directories"). The
// host's values win; where it gave none, the server's own: its tmpdir (PMIX_SERVER_TMPDIR, and
// PMIX_TMPDIR, which hosts usually equate with it) and the system tmpdir. PMIX_NSDIR and
// PMIX_PROCDIR exist only when the host gives them: the library creates no directory for clients.
std::string system_tmpdir(const State& st) {
    return st.tools.system_tmpdir.empty() ? wire::pick_tmpdir(nullptr, env::kSystemTmpdir)
                                          : st.tools.system_tmpdir;
}

void add_session_directories(Registration& reg, const State& st) {
    const std::string system = system_tmpdir(st);
    for (const auto& [key, dir] :
         {std::pair<const char*, std::string>{PMIX_SERVER_TMPDIR, st.tmpdir},
          {PMIX_TMPDIR, st.tmpdir},
          {PMIX_SYSTEM_TMPDIR, system}}) {
        if (dir.empty() || reg.job.count(key) != 0) continue;
        pmix_value_t v;
        v.type = PMIX_STRING;
        v.data.string = const_cast<char*>(dir.c_str());
        reg.job.emplace(key, Value(v));
    }
}

pmix_status_t open_listener(State& st) {
    State* s = &st;
    auto r = wire::Listener::open(*st.ex, st.socket_path,
                                  [s](const std::shared_ptr<wire::Connection>& c,
                                      const wire::Peer& p) { return s->accept(c, p); });
    if (!r.ok()) {
        slog(exec::LogLevel::info, "cannot listen on " + st.socket_path + ": " + r.error);
        return r.status;
    }
    st.listener = std::move(r.value);
    return PMIX_SUCCESS;
}

// How long finalize waits for the server's thread to come back from the host: a host may hold,
// while it calls PMIx_server_finalize, the lock an upcall or a release function of ours waits
// for (Slurm's plugin holds one lock across its calls into the library and its upcalls).
constexpr auto kFinalizeLimit = std::chrono::seconds(10);

// Our shared-memory objects, by name ("<prefix>[-fb]-<pid>-<n>", gds/backing_shm.cpp), for when
// the objects that own them cannot be destroyed.
void unlink_own_segments() {
    const std::string stem = shm_prefix().substr(1);
    const std::string pid = "-" + std::to_string(getpid()) + "-";
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
        const std::string name = e.path().filename().string();
        if (name.rfind(stem, 0) == 0 && name.find(pid, stem.size()) != std::string::npos) {
            ::shm_unlink(("/" + name).c_str());
        }
    }
}

// Finalize when the server's thread does not come back from a call into the host: the thread
// and everything it may still touch (the state) stay behind for good; what others can see goes
// (segments, session and socket directories, the directories init created).
pmix_status_t abandon(std::shared_ptr<State> st) {
    slog(exec::LogLevel::error,
         "PMIx_server_finalize: the server's thread is still inside a call to the host after " +
             std::to_string(kFinalizeLimit.count()) +
             " s (an upcall or a release function that does not return; does the host hold a "
             "lock it takes there?); it is left behind, the session directory and shared "
             "memory are removed");
    static auto* abandoned = new std::vector<std::shared_ptr<State>>();
    abandoned->push_back(st);
    unlink_own_segments();
    {
        std::lock_guard lock(st->unfinished_mu);
        remove_client_segments(st->unfinished);
    }
    remove_session_dir(*st);
    data::clear_host_attributes();
    return PMIX_ERR_TIMEOUT;
}

}  // namespace

std::shared_ptr<State> current() {
    std::lock_guard lock(g_mutex);
    return g_state;
}

bool initialized() { return current() != nullptr; }

pmix_status_t init(const pmix_server_module_t* module, const pmix_info_t* info, size_t ninfo) {
    std::lock_guard lock(g_mutex);
    if (g_state != nullptr) {
        return PMIX_SUCCESS;  // OpenPMIx counts server inits; a second one is harmless
    }
    auto st = std::make_shared<State>();
    if (module != nullptr) {
        st->module = *module;
    }
    st->hostname = this_host();
    set_identity(*st, info, ninfo);
    if (pmix_status_t rc = st->credentials.use_key(info, ninfo); rc != PMIX_SUCCESS) return rc;
    if (pmix_status_t rc = configure_iof(st->iof, info, ninfo); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (pmix_status_t rc = note_server_user(*st, info, ninfo); rc != PMIX_SUCCESS) {
        return rc;
    }
    if (pmix_status_t rc = make_session_dir(*st, info, ninfo); rc != PMIX_SUCCESS) {
        return rc;
    }
    remove_stale_leftovers(*st, wire::pick_tmpdir(data::string_of(info, ninfo, PMIX_SYSTEM_TMPDIR),
                                                  env::kSystemTmpdir));
    st->store = make_client_store();
    st->reader = st->store->make_reader();
    if (st->reader == nullptr) {
        remove_session_dir(*st);
        return PMIX_ERR_NOMEM;  // the store's own directory could not be mapped
    }
    st->ex = std::make_unique<exec::Executor>("pmix-server");
    if (pmix_status_t rc = st->ex->start(); rc != PMIX_SUCCESS) {
        remove_session_dir(*st);
        return rc;
    }
    pmix_status_t listening = open_listener(*st);
    if (listening == PMIX_SUCCESS) {
        listening = apply_socket_mode(*st, info, ninfo);
        if (listening != PMIX_SUCCESS) st->listener->close();
    }
    if (listening != PMIX_SUCCESS) {
        st->ex->stop();
        st->listener.reset();
        remove_session_dir(*st);
        return listening;
    }
    // On the loop thread: the listener is open, and its accept path reads what this sets
    // (ThreadSanitizer saw tools.enabled written here while a tool's Hello was being accepted).
    if (pmix_status_t rc =
            run_sync(*st, [info, ninfo](State& s) { return start_tool_support(s, info, ninfo); });
        rc != PMIX_SUCCESS) {
        st->listener->close();
        st->ex->stop();
        st->listener.reset();
        st->tools.tcp.reset();
        remove_session_dir(*st);
        return rc;
    }
    g_state = std::move(st);
    return PMIX_SUCCESS;
}

pmix_status_t finalize() {
    std::shared_ptr<State> st;
    {
        std::lock_guard lock(g_mutex);
        st = std::move(g_state);
    }
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    if (st->ex->on_loop_thread()) {
        // Cannot join our own thread: keep the state alive and refuse.
        std::lock_guard lock(g_mutex);
        g_state = std::move(st);
        return PMIX_ERR_WOULD_BLOCK;
    }
    State* s = st.get();
    stop_tool_support(*st);  // no tool finds us from now on
    st->ex->post([s] {
        s->finalizing = true;
        if (s->listener) {
            s->listener->close();
        }
        close_group_sockets(*s);
        s->shutdown_connections();
    });
    if (st->ex->stop_within(kFinalizeLimit) == PMIX_ERR_TIMEOUT) {
        return abandon(std::move(st));
    }
    // The loop is gone: drop connections (they refer to the executor) before the executor.
    st->listener.reset();
    drop_group_sockets(*st);
    st->tools.tcp.reset();
    // Clients that never finalized (killed with their job just before): their own modex
    // segments (gds/proc_segment.h) go with the server that named them.
    std::map<pid_t, uid_t> unfinished;
    for (const auto& [key, c] : st->clients) {
        if (!c.finalized && c.pid > 0) unfinished.emplace(c.pid, c.uid);
    }
    {
        std::lock_guard lock(st->unfinished_mu);
        unfinished.insert(st->unfinished.begin(), st->unfinished.end());
    }
    remove_client_segments(unfinished);
    st->clients.clear();
    st->fences.clear();
    st->reader.reset();
    st->store.reset();  // unlinks every shared-memory segment; mapped clients keep their copy
    {
        std::lock_guard lock(st->boards.mu);
        st->boards.by_namespace.clear();
    }
    remove_session_dir(*st);
    data::clear_host_attributes();  // the host's registrations end with its server
    return PMIX_SUCCESS;
}

// ---- registration ----------------------------------------------------------------------------

pmix_status_t register_nspace(const char* nspace, int nlocalprocs, const pmix_info_t* info,
                              size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    if (strnlen(nspace, PMIX_MAX_NSLEN + 1) > PMIX_MAX_NSLEN || (ninfo > 0 && info == nullptr)) {
        return PMIX_ERR_BAD_PARAM;
    }
    // Parse now, on the caller's thread: the caller's info is only valid during this call. The
    // loop writes the parsed registration into the store and drops it.
    auto reg = std::make_shared<Registration>();
    reg->name = nspace;
    reg->nlocalprocs = nlocalprocs;
    reg->hostname = st->hostname;
    if (pmix_status_t rc = parse_registration(*reg, info, ninfo); rc != PMIX_SUCCESS) {
        return rc;
    }
    // The job's environment directives, for setup_fork (app_env.h); a bad one fails the
    // registration with the reason logged.
    EnvarDirectives directives;
    std::string why;
    if (pmix_status_t rc = data::read_envar_directives(info, ninfo, directives, why);
        rc != PMIX_SUCCESS) {
        slog(exec::LogLevel::info, "register_nspace(" + reg->name + "): " + why);
        return rc;
    }
    AppDirectives app_directives;
    if (pmix_status_t rc = read_app_directives(info, ninfo, app_directives, why);
        rc != PMIX_SUCCESS) {
        slog(exec::LogLevel::info, "register_nspace(" + reg->name + "), app array: " + why);
        return rc;
    }
    add_session_directories(*reg, *st);
    st->resources.add_to(*reg);  // PMIx_server_register_resources' keys, for this job too
    create_board(*st, *reg);
    if (pmix_status_t rc = grant_from_registration(*st, *reg); rc != PMIX_SUCCESS) {
        return rc;
    }
    {
        std::lock_guard lock(st->app_env.mu);
        st->app_env.registered[reg->name] = std::move(directives);
        if (app_directives.empty()) {
            st->app_env.by_app.erase(reg->name);
        } else {
            st->app_env.by_app[reg->name] = std::move(app_directives);
        }
    }
    auto work = [reg](State& s) {
        Namespace& dst = s.namespaces.touch(reg->name);
        dst.nlocalprocs = reg->nlocalprocs;
        dst.registered = true;
        dst.local_ranks.insert(reg->local_ranks.begin(), reg->local_ranks.end());
        dst.ranks = rank_runs(*reg);
        // A failure (a full /dev/shm: PMIX_ERR_OUT_OF_RESOURCE) is logged and is the host's:
        // its clients could not read their job's data.
        if (pmix_status_t rc = publish_registration(*s.store, *reg); rc != PMIX_SUCCESS) {
            return rc;
        }
        share_store(s, reg->name);  // a job of another user reads it too
        return PMIX_SUCCESS;
    };
    return run_op(*st, std::move(work), cbfunc, cbdata);
}

// A client whose record goes: the server stops reading its own modex segment (a memfd, gone
// with its last mapping); shared-memory objects named after an unfinished client's pid go.
static void forget_client_segment(State& s, const ProcKey& key, Client& c) {
    if (!c.finalized && c.pid > 0) remove_client_segments(c.pid, c.uid);
    c.own_segment = false;
    s.own_segments.forget(key);  // unmaps it: its memory goes when the last peer lets go
}

pmix_status_t deregister_nspace(const char* nspace, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    std::string name(nspace, strnlen(nspace, PMIX_MAX_NSLEN));
    auto work = [name](State& s) {
        s.namespaces.erase(name);
        s.local_support.erase(name);
        s.app_env.drop_namespace(name);
        s.iof.drop_namespace(name);
        s.modex_log.forget_namespace(name);
        s.modex_held.forget_namespace(name);
        s.reader->detach(name);  // else the server would keep the unlinked segments mapped
        s.store->delete_namespace(name);
        drop_board(s, name);
        forget_grant(s, name);
        for (auto it = s.clients.begin(); it != s.clients.end();) {
            if (it->first.first == name) {
                if (it->second.conn) it->second.conn->close("namespace deregistered");
                forget_client_segment(s, it->first, it->second);
                it = s.clients.erase(it);
            } else {
                ++it;
            }
        }
        return PMIX_SUCCESS;
    };
    return run_op(*st, std::move(work), cbfunc, cbdata);
}

pmix_status_t register_client(const pmix_proc_t& proc, uid_t uid, gid_t gid, void* server_object,
                              pmix_op_cbfunc_t cbfunc, void* cbdata) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    Client c;
    c.proc = proc;
    c.uid = uid;
    c.gid = gid;
    c.server_object = server_object;
    grant_from_client(*st, std::string(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN)), uid,
                      gid);
    auto work = [c](State& s) {
        ProcKey key{std::string(c.proc.nspace, strnlen(c.proc.nspace, PMIX_MAX_NSLEN)),
                    c.proc.rank};
        Namespace& ns = s.namespaces.touch(key.first);
        ns.local_ranks.insert(c.proc.rank);
        s.clients[key] = c;
        share_store(s, key.first);  // when its namespace came first and named no user
        return PMIX_SUCCESS;
    };
    return run_op(*st, std::move(work), cbfunc, cbdata);
}

pmix_status_t deregister_client(const pmix_proc_t& proc, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    ProcKey key{std::string(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN)), proc.rank};
    auto work = [key](State& s) {
        auto it = s.clients.find(key);
        if (it == s.clients.end()) {
            return PMIX_ERR_NOT_FOUND;
        }
        auto conn = std::move(it->second.conn);
        forget_client_segment(s, key, it->second);
        s.clients.erase(it);
        s.answer_commit_waits(key);
        if (conn) {
            conn->close("client deregistered");
        }
        return PMIX_SUCCESS;
    };
    return run_op(*st, std::move(work), cbfunc, cbdata);
}

pmix_status_t setup_fork(const pmix_proc_t& proc, char*** env) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    const std::string ns(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN));
    const std::string socket = socket_for(*st, ns);  // its group's own, for another user's job
    const std::string uri = st->nspace + "." + std::to_string(st->rank) + ";unix:" + socket;
    // The host's directives and the plugins' variables first: the library's own follow, so that
    // none of them can be unset or changed (app_env.h).
    if (env == nullptr) return PMIX_ERR_BAD_PARAM;
    if (pmix_status_t rc = apply_app_environment(st->app_env, ns, proc.rank, env);
        rc != PMIX_SUCCESS) {
        return rc;
    }
    const std::pair<const char*, std::string> vars[] = {
        {env::kNamespace, ns},
        {env::kRank, std::to_string(proc.rank)},
        {env::kServerUri, uri},
        {env::kServerSocket, socket},
        {env::kServerTmpdir, st->tmpdir},  // where our tool rendezvous files are, as OpenPMIx
        {env::kSystemTmpdir, system_tmpdir(*st)},
        {env::kSecurityMode, "native"},
        {env::kHostname, st->hostname},
        {env::kVersion, "4.2.2"},
    };
    for (const auto& [name, value] : vars) {
        if (pmix_status_t rc = set_env(name, value, env); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    for (const char* name : env::kServerUriVersions) {
        if (pmix_status_t rc = set_env(name, uri, env); rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    // Where the client meets its peers for whole-namespace fences (board.h).
    if (const std::string board = board_name(*st, ns); !board.empty()) {
        if (pmix_status_t rc = set_env(env::kFenceBoard, board, env); rc != PMIX_SUCCESS) return rc;
    }
    // Where the client finds the shared store (empty for the heap store: nothing to map).
    if (const std::string locator = st->store->locator(); !locator.empty()) {
        return set_env(env::kGdsLocator, locator, env);
    }
    return PMIX_SUCCESS;
}

pmix_status_t setup_application(const char* nspace, const pmix_info_t* info, size_t ninfo,
                                pmix_setup_application_cbfunc_t cbfunc, void* cbdata) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    if (nspace == nullptr || (ninfo > 0 && info == nullptr)) {
        return PMIX_ERR_BAD_PARAM;
    }
    // Every fabric plugin's contribution, collected now: the caller's info is only valid during
    // this call. The host ships the result opaquely to every node's setup_local_support.
    std::vector<pmix_info_t> results;
    std::string why;
    if (pmix_status_t rc = collect_application_setup(nspace, info, ninfo, results, why);
        rc != PMIX_SUCCESS) {
        for (auto& i : results) data::info_destruct(&i);
        slog(exec::LogLevel::info, "setup_application(" + std::string(nspace) + "): " + why);
        return rc;
    }
    if (cbfunc == nullptr) {  // nobody to hand it to
        for (auto& i : results) data::info_destruct(&i);
        return PMIX_SUCCESS;
    }
    const size_t n = results.size();
    pmix_info_t* copy =
        n > 0 ? static_cast<pmix_info_t*>(std::calloc(n, sizeof(pmix_info_t))) : nullptr;
    if (n > 0 && copy == nullptr) {
        for (auto& i : results) data::info_destruct(&i);
        return PMIX_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; ++i) {
        std::memcpy(&copy[i], &results[i], sizeof(pmix_info_t));  // moves ownership
    }
    // The host hands the array back through the release callback when it is done with it.
    struct Held {
        pmix_info_t* info;
        size_t n;
    };
    auto* held = new Held{copy, n};
    const bool posted = st->ex->post([cbfunc, cbdata, held] {
        cbfunc(
            PMIX_SUCCESS, held->info, held->n, cbdata,
            [](pmix_status_t, void* p) {
                auto* h = static_cast<Held*>(p);
                data::free_infos(h->info, h->n);
                delete h;
            },
            held);
    });
    if (!posted) {
        data::free_infos(copy, n);
        delete held;
        return PMIX_ERR_INIT;
    }
    return PMIX_SUCCESS;
}

pmix_status_t setup_local_support(const char* nspace, const pmix_info_t* info, size_t ninfo,
                                  pmix_op_cbfunc_t cbfunc, void* cbdata) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    if (nspace == nullptr || (ninfo > 0 && info == nullptr)) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::vector<std::pair<std::string, Value>> kept;
    for (size_t i = 0; i < ninfo; ++i) {
        kept.emplace_back(std::string(info[i].key, strnlen(info[i].key, PMIX_MAX_KEYLEN)),
                          Value(info[i].value));
    }
    std::string name(nspace, strnlen(nspace, PMIX_MAX_NSLEN));
    auto work = [name, kept = std::move(kept)](State& s) mutable {
        const pmix_status_t rc = install_local_support(s, name, kept);
        s.local_support[name] = std::move(kept);
        return rc;
    };
    return run_op(*st, std::move(work), cbfunc, cbdata);
}

}  // namespace pmix::server

namespace pmix::server {

pmix_status_t identity(pmix_proc_t* me) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    std::memset(me, 0, sizeof *me);
    std::strncpy(me->nspace, st->nspace.c_str(), PMIX_MAX_NSLEN);
    me->rank = st->rank;
    return PMIX_SUCCESS;
}

pmix_status_t post(exec::UniqueFunction<void()> task) {
    auto st = current();
    if (st == nullptr || !task) {
        return PMIX_ERR_INIT;
    }
    return st->ex->post(std::move(task)) ? PMIX_SUCCESS : PMIX_ERR_INIT;
}

void call_host_later(exec::UniqueFunction<void()> task) {
    // Shared: a refused post destroys what it was given, and the fallback still needs it.
    auto shared = std::make_shared<exec::UniqueFunction<void()>>(std::move(task));
    if (auto st = current(); st != nullptr && st->ex->post([shared] { (*shared)(); })) {
        return;
    }
    std::thread([shared] { exec::invoke_guarded("host callback", [&] { (*shared)(); }); }).detach();
}

pmix_status_t notify_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t range,
                           const pmix_info_t* info, size_t ninfo, pmix_op_cbfunc_t cbfunc,
                           void* cbdata) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    if (info == nullptr && ninfo > 0) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_proc_t src{};
    if (source != nullptr) {
        src = *source;
    } else {
        std::strncpy(src.nspace, st->nspace.c_str(), PMIX_MAX_NSLEN);
        src.rank = st->rank;
    }
    auto copy = std::make_shared<data::InfoArray>();
    if (pmix_status_t rc = copy->assign_copy(info, ninfo); rc != PMIX_SUCCESS) return rc;
    auto work = [code, src, range, copy](State& s) {
        Event ev;
        ev.code = code;
        ev.source = src;
        ev.range = range;
        ev.info = copy->data();
        ev.ninfo = copy->size();
        group_event_elsewhere(s, code, src, ev.info, ev.ninfo);
        if (range == PMIX_RANGE_PROC_LOCAL) {
            deliver_to_host(s, code, src, ev.info, ev.ninfo);  // this process only: the host
        } else {
            s.deliver_event(ev);
        }
        return PMIX_SUCCESS;
    };
    if (cbfunc == nullptr) {
        // Accepted, not awaited (as OpenPMIx): a host that holds its lock across this call
        // while an upcall on the loop waits for that lock would otherwise wait here.
        State* s = st.get();
        return st->ex->post([s, w = std::move(work)]() mutable { w(*s); }) ? PMIX_SUCCESS
                                                                           : PMIX_ERR_INIT;
    }
    return run_op(*st, std::move(work), cbfunc, cbdata);
}

pmix_status_t store_internal(const pmix_proc_t& proc, const char* key, const pmix_value_t& value) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    if (key == nullptr || strnlen(key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN) {
        return PMIX_ERR_BAD_PARAM;
    }
    const std::string ns(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN));
    if (proc.rank != PMIX_RANK_WILDCARD && proc.rank >= PMIX_RANK_VALID) {
        return PMIX_ERR_BAD_PARAM;  // no store entity: only a process or the job holds values
    }
    if (!data::is_known_type(value.type)) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;  // its copy would be empty: say so, store nothing
    }
    auto work = [ns, rank = proc.rank, k = std::string(key), v = Value(value)](State& s) {
        s.namespaces.touch(ns);
        return publish_value(*s.store, ns, rank, k, v.get());
    };
    return run_sync(*st, std::move(work));
}

pmix_status_t define_process_set(const pmix_proc_t* members, size_t nmembers, const char* name) {
    auto st = current();
    if (st == nullptr) return PMIX_ERR_INIT;
    if (name == nullptr || *name == '\0' || strnlen(name, PMIX_MAX_NSLEN + 1) > PMIX_MAX_NSLEN ||
        (members == nullptr && nmembers > 0)) {
        return PMIX_ERR_BAD_PARAM;
    }
    std::vector<pmix_proc_t> copy(members, members + nmembers);
    return run_sync(*st, [n = std::string(name), copy = std::move(copy)](State& s) mutable {
        return define_set(s, n, std::move(copy));
    });
}

pmix_status_t delete_process_set(const char* name) {
    auto st = current();
    if (st == nullptr) return PMIX_ERR_INIT;
    if (name == nullptr || *name == '\0') return PMIX_ERR_BAD_PARAM;
    return run_sync(*st, [n = std::string(name)](State& s) { return delete_set(s, n); });
}

namespace {

// Every key of a proc as one PMIX_DATA_ARRAY of PMIX_INFO (deep-copied into *out).
pmix_status_t all_keys_value(const InfoList& kv, pmix_value_t* out) {
    pmix_data_array_t arr{PMIX_INFO, kv.size(), const_cast<pmix_info_t*>(kv.data())};
    return data::value_load(out, &arr, PMIX_DATA_ARRAY);
}

}  // namespace

pmix_status_t get_local(const pmix_proc_t& proc, const char* key, pmix_value_t** out) {
    auto st = current();
    if (st == nullptr) {
        return PMIX_ERR_INIT;
    }
    *out = nullptr;
    auto* v = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
    if (v == nullptr) {
        return PMIX_ERR_NOMEM;
    }
    const std::string ns(proc.nspace, strnlen(proc.nspace, PMIX_MAX_NSLEN));
    const bool all = key == nullptr;
    const std::string k = all ? std::string() : std::string(key);
    auto work = [ns, rank = proc.rank, all, k, v](State& s) -> pmix_status_t {
        if (!s.namespaces.contains(ns)) {
            return PMIX_ERR_NOT_FOUND;
        }
        if (all) {
            return all_keys_value(read_all(*s.reader, ns, rank, gds::kAllScopes), v);
        }
        Value found;
        const pmix_status_t rc = read_value(*s.reader, ns, rank, k, found);
        return rc != PMIX_SUCCESS ? rc : data::value_xfer(v, &found.get());
    };
    const pmix_status_t rc = run_sync(*st, std::move(work));
    if (rc != PMIX_SUCCESS) {
        // A timed-out wait may still run the work later: leak-free only if it has run; keep the
        // value rather than free memory the loop may still write (bounded: one value).
        if (rc != PMIX_ERR_TIMEOUT) {
            data::value_destruct(v);
            std::free(v);
        }
        return rc;
    }
    *out = v;
    return PMIX_SUCCESS;
}

}  // namespace pmix::server
