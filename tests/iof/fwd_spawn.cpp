// fwd_spawn: rank 0 of a pmixrun job spawns 2 copies of itself with PMIx_Spawn's PMIX_FWD_STDOUT
// and/or PMIX_FWD_STDERR, and counts the children's lines its library writes to its own stdout
// and stderr (the default IOF handler: no PMIx_IOF_pull). Its fds 1 and 2 are pipes it reads
// itself, so it knows what arrived; it passes everything on to the real stdout/stderr.
//   fwd_spawn stdout|stderr|both|none   (parent)
//   fwd_spawn child                      (the spawned ranks: 3 lines on stdout, 3 on stderr,
//                                         then a fence with the parent, then exit)
//   fwd_spawn tool PID                   (a tool attached to pmixrun PID spawns 2 "plain"
//                                         children with no PMIX_FWD_*: a tool gets every
//                                         channel it does not name, so all 12 lines)
//   fwd_spawn plain                      (no PMIx: the 6 lines, then exit)
// The parent waits (at most 20 s) until every forwarded line it asked for came, then 0.5 s more
// for lines it must not get, and prints "fwd_spawn: mode=M out=N err=N". Exit 0 when the counts
// are those of the mode, 1 otherwise, 2 on a failed call.
#include <pmix.h>
#include <pmix_tool.h>

#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

constexpr int kChildren = 2;
constexpr int kLinesPerChannel = 3;

int fail(const char* what, pmix_status_t rc) {
    std::fprintf(stderr, "fwd_spawn: %s failed: %s\n", what, PMIx_Error_string(rc));
    PMIx_Finalize(nullptr, 0);
    return 2;
}

// Fence over the parent's rank 0 and every child: the children have written their output.
pmix_status_t fence_with(const char* parent_ns, const char* child_ns) {
    pmix_proc_t procs[2];
    PMIX_PROC_LOAD(&procs[0], parent_ns, 0);
    PMIX_PROC_LOAD(&procs[1], child_ns, PMIX_RANK_WILDCARD);
    return PMIx_Fence(procs, 2, nullptr, 0);
}

void print_lines(unsigned rank) {
    for (int i = 0; i < kLinesPerChannel; ++i) {
        std::printf("fwd-child stdout rank %u line %d\n", rank, i);
        std::fprintf(stderr, "fwd-child stderr rank %u line %d\n", rank, i);
    }
    std::fflush(stdout);
}

int run_child(const pmix_proc_t& me) {
    print_lines(me.rank);
    pmix_value_t* val = nullptr;
    pmix_status_t rc = PMIx_Get(nullptr, PMIX_PARENT_ID, nullptr, 0, &val);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Get (PMIX_PARENT_ID)", rc);
    char parent_ns[PMIX_MAX_NSLEN + 1];
    std::snprintf(parent_ns, sizeof parent_ns, "%s", val->data.proc->nspace);
    PMIX_VALUE_RELEASE(val);
    if ((rc = fence_with(parent_ns, me.nspace)) != PMIX_SUCCESS) return fail("PMIx_Fence", rc);
    PMIx_Finalize(nullptr, 0);
    return 0;
}

// Reads one of our redirected fds: counts the children's lines on it, passes all on to `real`.
struct Capture {
    int read_fd = -1;
    int real_fd = -1;
    std::atomic<int> lines{0};
    std::atomic<bool> stop{false};
    std::string partial;

    void run() {
        char buf[4096];
        while (!stop) {
            pollfd p{read_fd, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) continue;
            const ssize_t n = ::read(read_fd, buf, sizeof buf);
            if (n <= 0) return;
            if (::write(real_fd, buf, static_cast<size_t>(n)) < 0) {
                // the real stream is gone: counting is all that matters
            }
            partial.append(buf, static_cast<size_t>(n));
            for (size_t nl; (nl = partial.find('\n')) != std::string::npos;) {
                if (partial.compare(0, 10, "fwd-child ") == 0) ++lines;
                partial.erase(0, nl + 1);
            }
        }
    }
};

// Makes `fd` a pipe read by `cap` (the original stays in cap.real_fd).
bool capture(int fd, Capture& cap) {
    int p[2];
    if (::pipe(p) != 0) return false;
    cap.real_fd = ::dup(fd);
    cap.read_fd = p[0];
    ::dup2(p[1], fd);
    ::close(p[1]);
    return cap.real_fd >= 0;
}

// Our stdout and stderr, each read by a thread of its own until finish() puts them back.
class StdCapture {
public:
    bool start() {
        if (!capture(STDOUT_FILENO, out) || !capture(STDERR_FILENO, err)) return false;
        out_reader = std::thread([this] { out.run(); });
        err_reader = std::thread([this] { err.run(); });
        return true;
    }
    // Until `want_out` / `want_err` children's lines came (at most 20 s).
    void wait_for(int want_out, int want_err) const {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while ((out.lines < want_out || err.lines < want_err) &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    void finish() {
        if (!out_reader.joinable()) return;
        out.stop = err.stop = true;
        out_reader.join();
        err_reader.join();
        ::dup2(out.real_fd, STDOUT_FILENO);
        ::dup2(err.real_fd, STDERR_FILENO);
    }
    ~StdCapture() { finish(); }
    Capture out, err;

private:
    std::thread out_reader, err_reader;
};

pmix_status_t spawn_children(const char* self, const char* as, bool fwd_out, bool fwd_err,
                             char* child_ns) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(self);
    app.argv = static_cast<char**>(calloc(3, sizeof(char*)));
    app.argv[0] = strdup(self);
    app.argv[1] = strdup(as);
    app.maxprocs = kChildren;
    pmix_info_t info[2];
    size_t ninfo = 0;
    const bool yes = true;
    if (fwd_out) PMIX_INFO_LOAD(&info[ninfo++], PMIX_FWD_STDOUT, &yes, PMIX_BOOL);
    if (fwd_err) PMIX_INFO_LOAD(&info[ninfo++], PMIX_FWD_STDERR, &yes, PMIX_BOOL);
    const pmix_status_t rc = PMIx_Spawn(ninfo > 0 ? info : nullptr, ninfo, &app, 1, child_ns);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    PMIX_APP_DESTRUCT(&app);
    return rc;
}

int run_parent(const pmix_proc_t& me, const char* self, const std::string& mode) {
    const bool fwd_out = mode == "stdout" || mode == "both";
    const bool fwd_err = mode == "stderr" || mode == "both";
    StdCapture cap;
    if (!cap.start()) return 2;
    char child_ns[PMIX_MAX_NSLEN + 1] = {};
    pmix_status_t rc = spawn_children(self, "child", fwd_out, fwd_err, child_ns);
    if (rc != PMIX_SUCCESS) return fail("PMIx_Spawn", rc);
    if ((rc = fence_with(me.nspace, child_ns)) != PMIX_SUCCESS) return fail("PMIx_Fence", rc);
    const int want_out = fwd_out ? kChildren * kLinesPerChannel : 0;
    const int want_err = fwd_err ? kChildren * kLinesPerChannel : 0;
    cap.wait_for(want_out, want_err);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));  // what must not come
    cap.finish();
    const int got_out = cap.out.lines, got_err = cap.err.lines;
    std::printf("fwd_spawn: mode=%s out=%d err=%d\n", mode.c_str(), got_out, got_err);
    std::fflush(stdout);
    PMIx_Finalize(nullptr, 0);
    return got_out == want_out && got_err == want_err ? 0 : 1;
}

// A tool spawns without PMIX_FWD_*: its server forwards every output channel to it.
int run_tool(const char* self, pid_t pid) {
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (const char* t = std::getenv("TMPDIR"); t != nullptr)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TMPDIR, t, PMIX_STRING);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, ninfo);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "fwd_spawn: PMIx_tool_init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    StdCapture cap;
    if (!cap.start()) return 2;
    char child_ns[PMIX_MAX_NSLEN + 1] = {};
    rc = spawn_children(self, "plain", false, false, child_ns);
    const int want = kChildren * kLinesPerChannel;
    if (rc == PMIX_SUCCESS) cap.wait_for(want, want);
    cap.finish();
    PMIx_tool_finalize();
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "fwd_spawn: PMIx_Spawn (tool) failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    const int got_out = cap.out.lines, got_err = cap.err.lines;
    std::printf("fwd_spawn: mode=tool out=%d err=%d\n", got_out, got_err);
    return got_out == want && got_err == want ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "plain") == 0) {
        print_lines(0);
        return 0;
    }
    if (argc > 2 && std::strcmp(argv[1], "tool") == 0)
        return run_tool(argv[0], static_cast<pid_t>(std::atoi(argv[2])));
    if (argc < 2) {
        std::fprintf(stderr, "usage: fwd_spawn stdout|stderr|both|none|child|plain|tool PID\n");
        return 2;
    }
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "fwd_spawn: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    const std::string mode = argv[1];
    if (mode == "child") return run_child(me);
    return run_parent(me, argv[0], mode);
}
