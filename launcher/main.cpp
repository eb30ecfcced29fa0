// pmixrun: start a PMIx server, register one job, fork its ranks, forward their output and turn
// their fates into one exit status; across nodes, start a pmixd per node (head.cpp). See
// README.md for the rules.
#include "launcher.h"

#include <unistd.h>

#include <climits>
#include <cstdio>

namespace pmix::launcher {
namespace {

int run(Launcher& L) {
    char host[HOST_NAME_MAX + 1] = {};
    ::gethostname(host, sizeof host - 1);
    L.hostname = host;
    L.nspace = "pmixrun." + std::to_string(::getpid());
    L.layout.nodes = {{L.hostname, L.opt.nprocs}};
    L.layout.map(static_cast<uint32_t>(L.opt.nprocs));
    L.procs.resize(static_cast<size_t>(L.opt.nprocs));
    for (size_t r = 0; r < L.procs.size(); ++r) {
        L.procs[r].rank = static_cast<pmix_rank_t>(r);
        L.procs[r].nspace = L.nspace;
    }
    return serve_job(L, child_env(L.opt), {});
}

}  // namespace
}  // namespace pmix::launcher

int main(int argc, char** argv) {
    using namespace pmix::launcher;
    Launcher L;
    L.t.start = Clock::now();
    int code = 0;
    if (!parse_options(argc, argv, L.opt, code)) return code;
    if (!L.opt.hosts.empty() || !L.opt.hostfile.empty()) return run_head(L.opt);
    if (!program_exists(L.opt.argv[0])) {
        std::fprintf(stderr, "pmixrun: cannot find program '%s' (not found or not executable)\n",
                     L.opt.argv[0].c_str());
        return 127;
    }
    g_launcher = &L;
    code = run(L);
    if (L.opt.report) print_report(L);
    return code;
}
