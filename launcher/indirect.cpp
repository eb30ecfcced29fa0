// launcher/indirect.cpp - pmixrun as the intermediate launcher (IL) of an indirect launch.
//
// The initiator (a tool started with PMIX_LAUNCHER, so that it has a server side) starts
// pmixrun itself with, in pmixrun's environment:
//   PMIX_LAUNCHER_RNDZ_URI   the initiator's server URI: pmixrun calls back to it;
//   PMIX_LAUNCHER_RNDZ_FILE  a rendezvous file: when it exists pmixrun calls back to the server
//                            it names; when it does not, pmixrun's server writes its own there
//                            (the initiator then finds pmixrun by that file);
//   PMIX_KEEPALIVE_PIPE      the read end of a pipe the initiator keeps open: when it closes
//                            (the initiator exited or died) pmixrun ends the job and exits 129;
//   PMIX_SERVER_NAMESPACE    optional (OpenPMIx's server reads it too): our server's namespace,
//                            the name the initiator gave the launcher it started.
// All four are removed from the environment at once: the job's processes never see them.
//
// Calling back (as OpenPMIx's PMIx_server_init does for prte): once pmixrun's server runs (tool
// support on, so the initiator can attach to it), pmixrun attaches to the initiator's server as a
// tool named with our server's namespace, rank 0, raises PMIX_LAUNCHER_READY to the initiator
// alone (PMIX_RANGE_CUSTOM, PMIX_EVENT_NON_DEFAULT), and waits, inside its own tool init and
// before registering the job, for PMIX_DEBUGGER_RELEASE. The release may come over that link or
// through pmixrun's own server (the initiator attached to it, PMIx_tool_set_server on the
// READY event's source, and notified with PMIX_EVENT_CUSTOM_RANGE naming us). While waiting,
// pmixrun serves its tools (the work queue is drained) and gives up when the keepalive pipe
// closes, the link to the initiator is lost, on SIGINT/SIGTERM and at --timeout.
//
// PMIX_LAUNCH_DIRECTIVES (a data array of infos: registered by the initiator with our namespace,
// which pmixrun reads with PMIx_Get once attached, and then those of the release event) apply to
// the job pmixrun then starts: PMIX_NOTIFY_JOB_EVENTS / _COMPLETION / _PROC_TERMINATION /
// _ABNORMAL_TERMINATION send that job's lifecycle events to the releaser alone (lifecycle.cpp);
// PMIX_SET_ENVAR, PMIX_UNSET_ENVAR, PMIX_PREPEND_ENVAR and PMIX_APPEND_ENVAR join the command
// line's environment options, after them. Any other directive: refused when required (the job does
// not start, exit 1), named on stderr as ignored otherwise. The link is closed once released; the
// initiator's identity stays readable as PMIX_PARENT_ID of our server's process.
#include "indirect.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <pmix_tool.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace pmix::launcher {

namespace {

struct Settings {
    std::string uri;           // PMIX_LAUNCHER_RNDZ_URI
    std::string connect_file;  // PMIX_LAUNCHER_RNDZ_FILE that exists
    std::string write_file;    // PMIX_LAUNCHER_RNDZ_FILE that does not
    std::string server_nspace;
    int keepalive = -1;
    bool calls_back() const { return !uri.empty() || !connect_file.empty(); }
};
Settings g_settings;

// What the release handler saw (it runs on a library thread).
struct Release {
    std::mutex mutex;
    bool released = false;
    pmix_proc_t releaser{};
    SharedInfos directives;
};
Release g_release;
int g_wake = -1;  // eventfd: the release arrived or a signal came
std::atomic<int> g_signal{0};

std::atomic<bool> g_stop_watch{false};
std::thread g_watcher;

void wake() {
    uint64_t one = 1;
    [[maybe_unused]] const ssize_t written = ::write(g_wake, &one, sizeof one);
}

void on_wait_signal(int sig) {
    g_signal.store(sig);
    wake();
}

void keep_directives(const pmix_info_t* info, size_t ninfo, SharedInfos& out) {
    for (size_t i = 0; i < ninfo; ++i) {
        if (!PMIX_CHECK_KEY(&info[i], PMIX_LAUNCH_DIRECTIVES)) continue;
        const pmix_data_array_t* array = info[i].value.data.darray;
        if (info[i].value.type != PMIX_DATA_ARRAY || array == nullptr || array->type != PMIX_INFO ||
            (array->size > 0 && array->array == nullptr)) {
            std::fprintf(stderr,
                         "pmixrun: PMIX_LAUNCH_DIRECTIVES is not an array of infos; "
                         "ignored\n");
            continue;
        }
        const auto* items = static_cast<const pmix_info_t*>(array->array);
        for (size_t k = 0; k < array->size; ++k)
            out.push_back(std::make_shared<const OwnedInfo>(items[k]));
    }
}

void on_release(size_t, pmix_status_t, const pmix_proc_t* source, pmix_info_t info[], size_t ninfo,
                pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_release.mutex);
        if (!g_release.released) {  // registered twice (host and link): the first one counts
            g_release.released = true;
            if (source != nullptr) g_release.releaser = *source;
            keep_directives(info, ninfo, g_release.directives);
        }
    }
    wake();
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

bool released() {
    std::lock_guard lock(g_release.mutex);
    return g_release.released;
}

pmix_status_t register_release_handler() {
    pmix_status_t code = PMIX_DEBUGGER_RELEASE;
    const pmix_status_t rc =
        PMIx_Register_event_handler(&code, 1, nullptr, 0, on_release, nullptr, nullptr);
    return rc < 0 ? rc : PMIX_SUCCESS;  // blocking: the handler's reference, or an error
}

// PMIx_tool_init to the initiator's server, named as our server; its identity in `parent`.
pmix_status_t attach_to_initiator(pmix_proc_t& parent) {
    InfoList info;
    if (!g_settings.uri.empty()) info.add(PMIX_SERVER_URI, g_settings.uri);
    else info.add(PMIX_TOOL_ATTACHMENT_FILE, g_settings.connect_file);
    info.add(PMIX_TOOL_NSPACE, g_settings.server_nspace);
    const pmix_rank_t rank = 0;
    info.add(PMIX_TOOL_RANK, &rank, PMIX_PROC_RANK);
    // The initiator started us and listens already; a few retries cover a slow start.
    const uint32_t retries = 5, delay_s = 1;
    info.add(PMIX_CONNECT_MAX_RETRIES, &retries, PMIX_UINT32);
    info.add(PMIX_CONNECT_RETRY_DELAY, &delay_s, PMIX_UINT32);
    if (const pmix_status_t rc = info.convert(); rc != PMIX_SUCCESS) return rc;
    pmix_proc_t me;
    if (const pmix_status_t rc = PMIx_tool_init(&me, info.info(), info.size()); rc != PMIX_SUCCESS)
        return rc;
    pmix_proc_t* servers = nullptr;
    size_t nservers = 0;
    pmix_status_t rc = PMIx_tool_get_servers(&servers, &nservers);
    if (rc == PMIX_SUCCESS && nservers == 0) rc = PMIX_ERR_UNREACH;
    if (rc == PMIX_SUCCESS) parent = servers[0];
    std::free(servers);
    if (rc != PMIX_SUCCESS) PMIx_tool_finalize();
    return rc;
}

// The directives the initiator registered with our namespace when it started us through its own
// PMIx_Spawn (its library's self-spawn); those of the release come after them.
void fetch_directives() {
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, g_settings.server_nspace.c_str(), PMIX_RANK_WILDCARD);
    InfoList qualifiers;
    const bool yes = true;
    const int timeout_s = 2;
    qualifiers.add(PMIX_OPTIONAL, &yes, PMIX_BOOL);
    qualifiers.add(PMIX_TIMEOUT, &timeout_s, PMIX_INT);
    if (qualifiers.convert() != PMIX_SUCCESS) return;
    pmix_value_t* value = nullptr;
    if (PMIx_Get(&job, PMIX_LAUNCH_DIRECTIVES, qualifiers.info(), qualifiers.size(), &value) !=
            PMIX_SUCCESS ||
        value == nullptr)
        return;
    pmix_info_t found;
    PMIX_INFO_CONSTRUCT(&found);
    PMIX_LOAD_KEY(found.key, PMIX_LAUNCH_DIRECTIVES);
    found.value = *value;  // borrowed: keep_directives copies what it keeps
    {
        std::lock_guard lock(g_release.mutex);
        keep_directives(&found, 1, g_release.directives);
    }
    PMIX_VALUE_RELEASE(value);
}

bool link_alive() {
    pmix_proc_t* servers = nullptr;
    size_t nservers = 0;
    const pmix_status_t rc = PMIx_tool_get_servers(&servers, &nservers);
    std::free(servers);
    return rc == PMIX_SUCCESS && nservers > 0;
}

pmix_status_t notify_ready(const pmix_proc_t& parent) {
    InfoList info;
    info.add(PMIX_EVENT_CUSTOM_RANGE, &parent, PMIX_PROC);
    const bool yes = true;
    info.add(PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
    if (const pmix_status_t rc = info.convert(); rc != PMIX_SUCCESS) return rc;
    pmix_proc_t me;
    PMIX_LOAD_PROCID(&me, g_settings.server_nspace.c_str(), 0);
    Waiter waiter;
    const pmix_status_t rc = PMIx_Notify_event(PMIX_LAUNCHER_READY, &me, PMIX_RANGE_CUSTOM,
                                               info.info(), info.size(), Waiter::op_cb, &waiter);
    if (rc != PMIX_SUCCESS) return rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc;
    return waiter.wait_for(std::chrono::seconds(10));
}

// True when the keepalive pipe reached its end (the initiator closed it or died); bytes written
// to it are read and ignored.
bool keepalive_closed(int fd, short revents) {
    if (revents == 0) return false;
    char bytes[64];
    const ssize_t got = ::read(fd, bytes, sizeof bytes);
    return got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN);
}

// Why the wait ended: "" when released, else what to print.
std::string wait_for_release(Launcher& launcher) {
    for (;;) {
        pollfd fds[3] = {{g_wake, POLLIN, 0},
                         {launcher.queue.fd(), POLLIN, 0},
                         {g_settings.keepalive, POLLIN, 0}};  // -1: ignored
        const int rc = ::poll(fds, 3, 200);
        if (rc < 0 && errno != EINTR) return std::string("poll failed: ") + std::strerror(errno);
        if (fds[0].revents != 0) {
            uint64_t count;
            [[maybe_unused]] const ssize_t got = ::read(g_wake, &count, sizeof count);
        }
        if (fds[1].revents != 0) launcher.queue.drain();  // tools attaching, pulling, ...
        if (released()) return {};
        if (const int sig = g_signal.load(); sig != 0) {
            launcher.fail(128 + sig, std::string("received signal ") + strsignal(sig) +
                                         " while waiting for the initiator's release");
            return "signal";
        }
        if (g_settings.keepalive >= 0 && keepalive_closed(g_settings.keepalive, fds[2].revents)) {
            launcher.fail(129, "the initiator's keepalive pipe closed before the release");
            return "keepalive";
        }
        if (!link_alive()) {
            launcher.fail(129, "lost the connection to the initiator before the release");
            return "lost";
        }
        if (launcher.options.timeout_s > 0 &&
            Clock::now() - launcher.times.start >=
                std::chrono::duration<double>(launcher.options.timeout_s)) {
            launcher.timed_out = true;
            launcher.fail(124, "timeout while waiting for the initiator's release");
            return "timeout";
        }
    }
}

// One directive of the release; false (with the launcher failing) for a required one we do not
// act on.
bool apply_directive(Launcher& launcher, const pmix_info_t& info, const pmix_proc_t& releaser) {
    if (lifecycle_directive(info, launcher.main_lifecycle)) {
        launcher.main_requester = releaser;
        return true;
    }
    const bool envar_kind = PMIX_CHECK_KEY(&info, PMIX_SET_ENVAR) ||
                            PMIX_CHECK_KEY(&info, PMIX_PREPEND_ENVAR) ||
                            PMIX_CHECK_KEY(&info, PMIX_APPEND_ENVAR);
    if (envar_kind && info.value.type == PMIX_ENVAR && info.value.data.envar.envar != nullptr) {
        const pmix_envar_t& e = info.value.data.envar;
        EnvDirective d;
        d.kind = PMIX_CHECK_KEY(&info, PMIX_SET_ENVAR)       ? EnvDirective::Kind::set
                 : PMIX_CHECK_KEY(&info, PMIX_PREPEND_ENVAR) ? EnvDirective::Kind::prepend
                                                             : EnvDirective::Kind::append;
        d.name = e.envar;
        d.value = e.value != nullptr ? e.value : "";
        d.separator = e.separator;
        launcher.options.env_directives.push_back(std::move(d));
        return true;
    }
    if (PMIX_CHECK_KEY(&info, PMIX_UNSET_ENVAR) && info.value.type == PMIX_STRING &&
        info.value.data.string != nullptr) {
        launcher.options.env_directives.push_back(
            {EnvDirective::Kind::unset, info.value.data.string, "", '\0'});
        return true;
    }
    // The debugger stops for every process of the job, as pmixrun --stop-in-init ... (debug.cpp).
    bool* stop = PMIX_CHECK_KEY(&info, PMIX_DEBUG_STOP_IN_INIT)   ? &launcher.options.stop_in_init
                 : PMIX_CHECK_KEY(&info, PMIX_DEBUG_STOP_ON_EXEC) ? &launcher.options.stop_on_exec
                 : PMIX_CHECK_KEY(&info, PMIX_DEBUG_STOP_IN_APP)  ? &launcher.options.stop_in_app
                                                                  : nullptr;
    if (stop != nullptr && (info.value.type == PMIX_BOOL || info.value.type == PMIX_UNDEF)) {
        *stop = PMIX_INFO_TRUE(&info);
        return true;
    }
    if (stop != nullptr && info.value.type == PMIX_PROC_RANK &&
        info.value.data.rank == PMIX_RANK_WILDCARD) {  // every rank (PRRTE's indirect example)
        *stop = true;
        return true;
    }
    // PMIX_WDIR and the agents, as pmixrun --wdir / --fork-agent / --exec-agent (start_as.cpp).
    if (start_as_key(info) && start_as_directive(info, launcher.options.start_as) == PMIX_SUCCESS)
        return true;
    if (PMIX_INFO_IS_REQUIRED(&info)) {
        launcher.fail(1, std::string("launch directive ") + info.key +
                             " is required, and pmixrun does not act on it; not starting the "
                             "job");
        return false;
    }
    std::fprintf(stderr, "pmixrun: launch directive %s: not acted on, ignored\n", info.key);
    return true;
}

bool apply_directives(Launcher& launcher) {
    std::lock_guard lock(g_release.mutex);
    for (const auto& owned : g_release.directives)
        if (!apply_directive(launcher, owned->info, g_release.releaser)) return false;
    return true;
}

// After the release: the keepalive pipe's end fails the job at once (no grace, as for SIGTERM:
// its processes get SIGTERM now, SIGKILL 3 s later), from the loop's thread.
void watch_keepalive(Launcher* launcher, int fd) {
    while (!g_stop_watch.load()) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0 || !keepalive_closed(fd, p.revents)) continue;
        launcher->queue.post([launcher] {
            // A job already over is not failed by its initiator leaving: it exits at JOB_END.
            if (launcher->failing || launcher->exited_count == launcher->procs.size()) return;
            launcher->fail(129, "the initiator's keepalive pipe closed; killing the job");
            launcher->fail_at = Clock::now() - std::chrono::seconds(1);  // past the 1 s grace
        });
        return;
    }
}

void start_watcher(Launcher& launcher) {
    if (g_settings.keepalive >= 0)
        g_watcher = std::thread(watch_keepalive, &launcher, g_settings.keepalive);
}

void store_parent(const pmix_proc_t& parent) {
    pmix_proc_t me;
    PMIX_LOAD_PROCID(&me, g_settings.server_nspace.c_str(), 0);
    pmix_value_t value;
    PMIX_VALUE_CONSTRUCT(&value);
    value.type = PMIX_PROC;
    value.data.proc = const_cast<pmix_proc_t*>(&parent);
    if (const pmix_status_t rc = PMIx_Store_internal(&me, PMIX_PARENT_ID, &value);
        rc != PMIX_SUCCESS)
        std::fprintf(stderr, "pmixrun: PMIX_PARENT_ID not stored: %s\n", PMIx_Error_string(rc));
}

// Calls back, raises LAUNCHER_READY, waits for the release, closes the link; false when the job
// must not start (the launcher is failing and has said why).
bool call_back(Launcher& launcher) {
    g_wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (g_wake < 0) {
        launcher.fail(1, std::string("eventfd: ") + std::strerror(errno));
        return false;
    }
    struct sigaction action {};
    action.sa_handler = on_wait_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    // Through our own server (the initiator attached to it) the release reaches the host's
    // handlers; over the link, the tool's. Both land in this process's one handler registry.
    pmix_status_t rc = register_release_handler();
    pmix_proc_t parent{};
    if (rc == PMIX_SUCCESS) rc = attach_to_initiator(parent);
    bool attached = rc == PMIX_SUCCESS;
    if (rc == PMIX_SUCCESS) rc = register_release_handler();
    if (rc == PMIX_SUCCESS) fetch_directives();
    if (rc == PMIX_SUCCESS) rc = notify_ready(parent);
    std::string why = rc == PMIX_SUCCESS ? wait_for_release(launcher) : "call back";
    if (rc != PMIX_SUCCESS)
        launcher.fail(1, std::string("cannot call back to the initiator at ") +
                             (g_settings.uri.empty() ? g_settings.connect_file : g_settings.uri) +
                             ": " + PMIx_Error_string(rc));
    if (attached) PMIx_tool_finalize();  // the host's own calls are its server's again
    action.sa_handler = SIG_DFL;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
    if (!why.empty()) return false;
    store_parent(parent);
    return apply_directives(launcher);
}

bool before_job(Launcher& launcher) {
    if (g_settings.calls_back() && !call_back(launcher)) return false;
    start_watcher(launcher);
    return true;
}

std::string take_env(const char* name) {
    const char* value = std::getenv(name);
    std::string out = value != nullptr ? value : "";
    ::unsetenv(name);
    return out;
}

bool parse_keepalive(const std::string& text, int& fd, std::string& error) {
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || value < 0 || value > INT_MAX) {
        error = "PMIX_KEEPALIVE_PIPE='" + text + "' is not a descriptor number";
        return false;
    }
    if (::fcntl(static_cast<int>(value), F_SETFD, FD_CLOEXEC) != 0) {
        error = "PMIX_KEEPALIVE_PIPE=" + text + ": not an open descriptor";
        return false;
    }
    fd = static_cast<int>(value);
    return true;
}

}  // namespace

bool indirect_from_env(Launcher& launcher, std::string& error) {
    g_settings.uri = take_env(PMIX_LAUNCHER_RNDZ_URI);
    const std::string file = take_env(PMIX_LAUNCHER_RNDZ_FILE);
    const std::string keepalive = take_env(PMIX_KEEPALIVE_PIPE);
    std::string nspace = take_env("PMIX_SERVER_NAMESPACE");
    if (!file.empty() && g_settings.uri.empty()) {
        if (::access(file.c_str(), F_OK) == 0) g_settings.connect_file = file;
        else g_settings.write_file = file;
    }
    if (!keepalive.empty() && !parse_keepalive(keepalive, g_settings.keepalive, error))
        return false;
    if (nspace.empty() && g_settings.calls_back())
        nspace = "pmixrun-server." + std::to_string(::getpid());
    if (nspace.size() > PMIX_MAX_NSLEN) {
        error = "PMIX_SERVER_NAMESPACE is longer than " + std::to_string(PMIX_MAX_NSLEN);
        return false;
    }
    g_settings.server_nspace = nspace;
    if (g_settings.calls_back() || g_settings.keepalive >= 0) launcher.before_job = before_job;
    return true;
}

std::vector<std::pair<const char*, std::string>> indirect_server_info() {
    std::vector<std::pair<const char*, std::string>> info;
    if (!g_settings.server_nspace.empty())
        info.emplace_back(PMIX_SERVER_NSPACE, g_settings.server_nspace);
    if (!g_settings.write_file.empty())
        info.emplace_back(PMIX_LAUNCHER_RENDEZVOUS_FILE, g_settings.write_file);
    return info;
}

bool indirect_before_head(Launcher& view) {
    if (!g_settings.calls_back() && g_settings.keepalive < 0) return true;
    return before_job(view);
}

void indirect_stop() {
    g_stop_watch.store(true);
    if (g_watcher.joinable()) g_watcher.join();
    if (g_settings.keepalive >= 0) ::close(g_settings.keepalive);
    g_settings.keepalive = -1;
    if (g_wake >= 0) ::close(g_wake);
    g_wake = -1;
}

}  // namespace pmix::launcher
