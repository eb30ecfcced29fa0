// --report: when each startup phase finished, measured from pmixrun's start, plus the spread of
// the per-rank fork->connect latency. Phases the job never reached are shown as "-".
#include "launcher.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

namespace pmix::launcher {
namespace {

double milliseconds(Clock::duration duration) {
    return std::chrono::duration<double, std::milli>(duration).count();
}

void row(const char* name, const Clock::time_point& start, const Clock::time_point& at,
         Clock::time_point& previous, bool reached) {
    if (!reached) {
        std::fprintf(stderr, "  %-28s %12s %12s\n", name, "-", "-");
        return;
    }
    std::fprintf(stderr, "  %-28s %12.3f %12.3f\n", name, milliseconds(at - start),
                 milliseconds(at - previous));
    previous = at;
}

double cpu_seconds(const timeval& user, const timeval& system) {
    return static_cast<double>(user.tv_sec + system.tv_sec) +
           static_cast<double>(user.tv_usec + system.tv_usec) / 1e6;
}

// Where the CPU went: on a small node the processes' own startup (exec, dynamic loading,
// PMIx_Init) competes with the launcher for the same cores.
void print_cpu() {
    rusage self{}, children{};
    ::getrusage(RUSAGE_SELF, &self);
    ::getrusage(RUSAGE_CHILDREN, &children);
    std::fprintf(stderr, "  cpu (s): launcher %.3f, its ended processes %.3f\n",
                 cpu_seconds(self.ru_utime, self.ru_stime),
                 cpu_seconds(children.ru_utime, children.ru_stime));
}

}  // namespace

void print_report(const Launcher& launcher) {
    const auto& times = launcher.times;
    Clock::time_point never{};
    std::fprintf(stderr, "pmixrun report: %zu process(es), library \"%s\", exit %d\n",
                 launcher.procs.size(), PMIx_Get_version(), launcher.final_exit_code());
    std::fprintf(stderr, "  %-28s %12s %12s\n", "phase", "at (ms)", "took (ms)");
    Clock::time_point previous = times.start;
    row("server init", times.start, times.server_init, previous, times.server_init != never);
    row("register job + clients", times.start, times.registered, previous,
        times.registered != never);
    row("fork/exec all", times.start, times.forked, previous, times.forked != never);
    std::fprintf(stderr, "    of which PMIx_server_setup_fork %.3f ms, spawn %.3f ms (sums)\n",
                 milliseconds(times.setup_fork), milliseconds(times.fork));
    row("all clients connected", times.start, times.all_connected, previous, times.have_connected);
    row("all clients finalized", times.start, times.all_finalized, previous, times.have_finalized);
    row("all processes exited", times.start, times.all_exited, previous, times.all_exited != never);
    row("teardown", times.start, times.done, previous, times.done != never);
    std::vector<double> latencies;
    for (const Proc& process : launcher.procs)
        if (process.connected)
            latencies.push_back(milliseconds(process.connected_at - process.forked));
    if (!latencies.empty()) {
        std::sort(latencies.begin(), latencies.end());
        std::fprintf(
            stderr, "  fork->connect per rank (ms): min %.3f  median %.3f  max %.3f  (%zu ranks)\n",
            latencies.front(), latencies[latencies.size() / 2], latencies.back(), latencies.size());
    }
    const size_t main_job =
        static_cast<size_t>(launcher.options.nprocs);  // spawned jobs are not counted
    print_cpu();
    std::fprintf(stderr, "  connected %zu/%zu, finalized %zu/%zu\n", launcher.connected_count,
                 main_job, launcher.finalized_count, main_job);
}

}  // namespace pmix::launcher
