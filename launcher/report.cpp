// --report: when each startup phase finished, measured from pmixrun's start, plus the spread of
// the per-rank fork->connect latency. Phases the job never reached are shown as "-".
#include "launcher.h"

#include <algorithm>
#include <cstdio>

namespace pmix::launcher {
namespace {

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void row(const char* name, const Clock::time_point& start, const Clock::time_point& at,
         Clock::time_point& prev, bool reached) {
    if (!reached) {
        std::fprintf(stderr, "  %-28s %12s %12s\n", name, "-", "-");
        return;
    }
    std::fprintf(stderr, "  %-28s %12.3f %12.3f\n", name, ms(at - start), ms(at - prev));
    prev = at;
}

}  // namespace

void print_report(const Launcher& L) {
    const auto& t = L.t;
    Clock::time_point zero{};
    std::fprintf(stderr, "pmixrun report: %zu process(es), library \"%s\", exit %d\n",
                 L.procs.size(), PMIx_Get_version(), L.final_exit_code());
    std::fprintf(stderr, "  %-28s %12s %12s\n", "phase", "at (ms)", "took (ms)");
    Clock::time_point prev = t.start;
    row("server init", t.start, t.server_init, prev, t.server_init != zero);
    row("register job + clients", t.start, t.registered, prev, t.registered != zero);
    row("fork/exec all", t.start, t.forked, prev, t.forked != zero);
    std::fprintf(stderr, "    of which PMIx_server_setup_fork %.3f ms, fork() %.3f ms (sums)\n",
                 ms(t.setup_fork), ms(t.fork));
    row("all clients connected", t.start, t.all_connected, prev, t.have_connected);
    row("all clients finalized", t.start, t.all_finalized, prev, t.have_finalized);
    row("all processes exited", t.start, t.all_exited, prev, t.all_exited != zero);
    row("teardown", t.start, t.done, prev, t.done != zero);
    std::vector<double> lat;
    for (const Proc& p : L.procs)
        if (p.connected) lat.push_back(ms(p.connected_at - p.forked));
    if (!lat.empty()) {
        std::sort(lat.begin(), lat.end());
        std::fprintf(
            stderr, "  fork->connect per rank (ms): min %.3f  median %.3f  max %.3f  (%zu ranks)\n",
            lat.front(), lat[lat.size() / 2], lat.back(), lat.size());
    }
    const size_t main_job = static_cast<size_t>(L.opt.nprocs);  // spawned jobs are not counted
    std::fprintf(stderr, "  connected %zu/%zu, finalized %zu/%zu\n", L.nconnected, main_job,
                 L.nfinalized, main_job);
}

}  // namespace pmix::launcher
