// launcher/options.h - the command lines of pmixrun and pmixd (getopt_long_only), in the
// launcher's parser library: no PMIx header, so the unit tests and both builds of pmixrun link it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace pmix::launcher {

// How the processes of a job start (pmixrun --wdir / --fork-agent / --exec-agent; a spawn's
// app.cwd, PMIX_WDIR, PMIX_FORKEXEC_AGENT, PMIX_EXEC_AGENT): launcher/start_as.cpp.
struct StartAs {
    std::string wdir;  // absolute ("": the launcher's own); a missing one fails the start
    // Commands split at blanks (prte splits its exec agent at spaces), started in place of the
    // app. The exec agent gets the app's argv after its words, in the app's environment; the
    // fork/exec agent gets only its words and connects back as a tool for the rest (the exec
    // agent's words and the app's argv, environment and directory: launcher/fork_agent.h).
    std::string fork_agent, exec_agent;
};

// One application of an MPMD job ("pmixrun -n 2 a : -n 1 b"): its program and process count.
struct AppContext {
    std::vector<std::string> argv;
    int nprocs = 1;
    // --pset NAME (as prterun names it): the process set of this app's processes; empty: the
    // launcher names it "<nspace>.app<N>" (every app context is a process set).
    std::string pset;
};

// One of prterun's environment options, kept in command-line order: registered with the job as
// the Standard's PMIX_SET_ENVAR / PMIX_UNSET_ENVAR / PMIX_PREPEND_ENVAR / PMIX_APPEND_ENVAR, which
// setup_fork applies one after another, so the order is the result ("--set-env FOO=1
// --prepend-env FOO[:] x" leaves FOO=x:1; the other order leaves FOO=1).
struct EnvDirective {
    enum class Kind : char { set = 'S', unset = 'U', prepend = 'P', append = 'A' };
    Kind kind = Kind::set;
    std::string name;  // unset: a name, or a prefix ending in '*' (every variable it starts)
    std::string value;
    char separator = '\0';  // prepend / append only
    bool operator==(const EnvDirective&) const = default;
};

// How pmixrun prints its ranks' output (output.h). With none of the format flags, each line is
// printed as "[rank] line" (pmixrun's own default); with any, exactly as the PMIx library formats
// a PMIx_IOF_pull with the matching directives (OpenPMIx 4.2.2's formats).
struct OutputOptions {
    bool tag = false;           // --tag-output, --output tag: "[<nspace>,<rank>]<stdout>: "
    bool tag_fullname = false;  // --output tag-fullname
    bool timestamp = false;     // --timestamp-output, --output timestamp
    bool xml = false;           // --xml, --output xml
    bool raw = false;           // --raw-output, --output raw: as it comes, not by whole lines
    bool merge = false;         // --merge-stderr-to-stdout, --output merge-stderr-to-stdout
    bool nocopy = false;        // ":nocopy" after a directory or file: nothing on the terminal
    std::string directory;      // --output-filename DIR, --output dir=DIR (absolute)
    std::string file;           // --output file=F (absolute)
    bool formatted() const { return tag || tag_fullname || timestamp || xml || raw; }
    bool operator==(const OutputOptions&) const = default;
};

// What pmixrun was asked to do.
struct Options {
    int nprocs = 1;
    bool nprocs_given = false;     // -n given (else, across nodes: every slot)
    std::vector<std::string> env;  // -x entries: "VAR" (copy ours) or "VAR=value"
    // --set-env NAME=value, --unset-env NAME, --prepend-env NAME[c] value, --append-env ...
    std::vector<EnvDirective> env_directives;
    double timeout_s = 0;  // 0 = none
    bool report = false;
    std::vector<std::string> argv;  // program and its arguments (the first app's)
    // Every app context, in rank order (one unless ':' separates several); nprocs is their sum.
    std::vector<AppContext> apps;
    // The app a rank of the job belongs to, and an app's first rank.
    std::size_t app_of(std::uint32_t rank) const;
    std::uint32_t app_first_rank(std::size_t app) const;
    std::string hosts;     // --host a:2,b:2
    std::string hostfile;  // --hostfile FILE
    // --launch-agent CMD: split at spaces; the node name and the pmixd command line follow.
    std::string launch_agent = "ssh";
    bool remote_tools = false;  // --remote-tools: PMIX_SERVER_REMOTE_CONNECTIONS (TCP, secret)
    // --stop-in-init / --stop-on-exec / --stop-in-app (prterun's): the job's
    // PMIX_DEBUG_STOP_* for every rank (one node; launcher/debug.cpp).
    bool stop_in_init = false, stop_on_exec = false, stop_in_app = false;
    // --user NAME (root only, one node): the job's processes run as that user and its primary
    // group, registered with them (PMIX_USERID / PMIX_GRPID), as Slurm's slurmstepd runs a job.
    std::string user;
    std::string first_pset;  // --pset before the program: the first app context's set
    OutputOptions output;
    StartAs start_as;  // --wdir DIR, --fork-agent CMD, --exec-agent CMD (every app context)
    // --stdin RANK|all|none (prterun's): whose stdin pmixrun's stdin feeds (default rank 0, as
    // mpirun); every other process reads /dev/null.
    static constexpr long kStdinAll = -1, kStdinNone = -2;
    long stdin_rank = 0;
    // --dvm: a persistent launcher with no job of its own, serving tools' PMIx_Spawn until told
    // to stop (dvm.cpp); --dvm-stop: a tool that tells one to stop (dvm_stop.cpp), found by
    // --uri URI or --pid PID, else as the system server. --report-uri FILE|-|+: where the
    // DVM writes its URI (prte's option: '-' stdout, '+' stderr).
    bool dvm = false, dvm_stop = false;
    std::string report_uri, dvm_uri;
    long dvm_pid = 0;
};

// `path` made absolute against the current directory (unchanged if it is already, or "").
std::string absolute_path(const std::string& path);
// `text`'s words (split at blanks): --launch-agent, --fork-agent, --exec-agent.
std::vector<std::string> split_words(const std::string& text);

// "all", "none" or the rank, as the job message and messages carry it; and back (false if bad).
std::string stdin_target_text(long stdin_rank);
bool parse_stdin_target(const std::string& text, long& out);

enum class ParseOutcome {
    run,          // `Options` is complete
    help,         // -h / --help: print the usage to stdout, exit 0
    usage_error,  // `error` says why: print it and the usage to stderr, exit 2
};

// Parses pmixrun's argv. Options end at "--" or at the first argument that is not one (the
// program); everything from there on belongs to the program.
ParseOutcome parse_options(int argc, char* const argv[], Options& out, std::string& error);
void print_usage(std::FILE* stream);

// pmixd --node-name NAME --node-index I [--fabric-node ADDR] (started by pmixrun's head).
struct DaemonOptions {
    std::string node_name;
    std::string fabric_node;  // empty: $PMIX_CPP_FABRIC_NODE or this host's first IPv4 address
    size_t node_index = 0;
    bool dvm = false;  // --dvm: a node of a persistent launcher (launcher/dvm_head.h)
};

// False with `error` set on an unknown option, a missing value or a bad index.
bool parse_daemon_options(int argc, char* const argv[], DaemonOptions& out, std::string& error);

}  // namespace pmix::launcher
