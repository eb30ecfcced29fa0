// pmixrun: start a PMIx server, register one job, fork its ranks, forward their output and turn
// their fates into one exit status; across nodes, start a pmixd per node (head.cpp). The rules are
// in this folder's README.md.
#include "indirect.h"
#include "launcher.h"
#include "output.h"

#include <pwd.h>
#include <unistd.h>

#include <climits>
#include <cstdio>

namespace pmix::launcher {
namespace {

// --user NAME: the job's uid and primary gid; false (with a message) when that cannot be.
bool resolve_user(Launcher& launcher) {
    launcher.job_uid = ::geteuid();
    launcher.job_gid = ::getegid();
    const std::string& name = launcher.options.user;
    if (name.empty()) return true;
    if (!launcher.options.hosts.empty() || !launcher.options.hostfile.empty()) {
        std::fprintf(stderr, "pmixrun: --user works on one node only\n");
        return false;
    }
    const struct passwd* pw = ::getpwnam(name.c_str());
    if (pw == nullptr) {
        std::fprintf(stderr, "pmixrun: --user %s: no such user\n", name.c_str());
        return false;
    }
    if (::geteuid() != 0 && pw->pw_uid != ::geteuid()) {
        std::fprintf(stderr, "pmixrun: --user %s: only root can run a job as another user\n",
                     name.c_str());
        return false;
    }
    launcher.job_uid = pw->pw_uid;
    launcher.job_gid = pw->pw_gid;
    launcher.other_user = true;
    return true;
}

int run(Launcher& launcher) {
    char host[HOST_NAME_MAX + 1] = {};
    ::gethostname(host, sizeof host - 1);
    launcher.hostname = host;
    launcher.nspace = "pmixrun." + std::to_string(::getpid());
    launcher.layout.nodes = {{launcher.hostname, launcher.options.nprocs}};
    launcher.layout.map(static_cast<uint32_t>(launcher.options.nprocs));
    launcher.procs.resize(static_cast<size_t>(launcher.options.nprocs));
    for (size_t rank = 0; rank < launcher.procs.size(); ++rank) {
        launcher.procs[rank].rank = static_cast<pmix_rank_t>(rank);
        launcher.procs[rank].nspace = launcher.nspace;
    }
    return serve_job(launcher, child_env(launcher.options), indirect_server_info());
}

}  // namespace
}  // namespace pmix::launcher

int main(int argc, char** argv) {
    using namespace pmix::launcher;
    Launcher launcher;
    launcher.times.start = Clock::now();
    std::string error;
    std::vector<std::string> words = dvm_command_line(argc, argv);  // pmix-dvm: pmixrun --dvm
    std::vector<char*> args;
    for (std::string& word : words) args.push_back(word.data());
    args.push_back(nullptr);
    switch (parse_options(static_cast<int>(words.size()), args.data(), launcher.options, error)) {
        case ParseOutcome::help:
            print_usage(stdout);
            return 0;
        case ParseOutcome::usage_error:
            std::fprintf(stderr, "pmixrun: %s\n", error.c_str());
            print_usage(stderr);
            return 2;
        case ParseOutcome::run:
            break;
    }
    const Options& options = launcher.options;
    if (!prepare_output(options.output, error)) {
        std::fprintf(stderr, "pmixrun: %s\n", error.c_str());
        return 2;
    }
    if (!resolve_user(launcher)) return 2;
    if (options.dvm_stop) return run_dvm_stop(options);
    if (!indirect_from_env(launcher, error)) {  // before anything reads the environment
        std::fprintf(stderr, "pmixrun: %s\n", error.c_str());
        return 2;
    }
    const bool multinode = !options.hosts.empty() || !options.hostfile.empty();
    if (options.dvm && !multinode) {
        g_launcher = &launcher;
        return run_dvm(launcher);
    }
    if (multinode) {
        const int code = run_head(options);
        indirect_stop();
        return code;
    }
    if (std::string why; !wdir_usable(options.start_as.wdir, why)) {
        std::fprintf(stderr, "pmixrun: --wdir: %s\n", why.c_str());
        return 2;
    }
    for (const AppContext& app : options.apps) {
        // What is executed first (an agent, when given), found as it will be started (spawner.h),
        // with -x PATH=... if given.
        const std::string first = first_program(options.start_as, app.argv);
        if (!program_exists(first, options.start_as.wdir, path_of(options.env))) {
            std::fprintf(stderr,
                         "pmixrun: cannot find program '%s' (not found or not executable)\n",
                         first.c_str());
            return 127;
        }
    }
    g_launcher = &launcher;
    const int code = run(launcher);
    indirect_stop();
    if (options.report) print_report(launcher);
    return code;
}
