// Command-line parsing for pmixrun and pmixd (options.h).
#include "options.h"

#include <getopt.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string_view>

namespace pmix::launcher {
namespace {

constexpr int kMaxProcs = 4096;

// getopt values of the long options that have no one-letter form.
enum LongOnly : int {
    kTimeout = 256,
    kReport,
    kRemoteTools,
    kHost,
    kHostfile,
    kLaunchAgent,
    kNodeName,
    kNodeIndex,
    kFabricNode,
    kDaemonDvm,
    kUser,
    kSetEnv,
    kUnsetEnv,
    kPrependEnv,
    kAppendEnv,
    kPset,
    kTagOutput,
    kTimestampOutput,
    kXmlOutput,
    kRawOutput,
    kMergeStderr,
    kOutputFilename,
    kOutput,
    kStdin,
    kDvm,
    kDvmStop,
    kReportUri,
    kDvmUri,
    kDvmPid,
    kStopInInit,
    kStopOnExec,
    kStopInApp,
    kWdir,
    kForkAgent,
    kExecAgent,
};

// "+": options end at the first argument that is not one (the program's own options follow it);
// ":": a missing value is reported as ':' so the message can name the option.
constexpr char kShortOptions[] = "+:hn:x:";
constexpr option kLongOptions[] = {
    {"np", required_argument, nullptr, 'n'},
    {"help", no_argument, nullptr, 'h'},
    {"timeout", required_argument, nullptr, kTimeout},
    {"report", no_argument, nullptr, kReport},
    {"remote-tools", no_argument, nullptr, kRemoteTools},
    {"host", required_argument, nullptr, kHost},
    {"hostfile", required_argument, nullptr, kHostfile},
    {"launch-agent", required_argument, nullptr, kLaunchAgent},
    {"user", required_argument, nullptr, kUser},
    {"set-env", required_argument, nullptr, kSetEnv},
    {"unset-env", required_argument, nullptr, kUnsetEnv},
    {"prepend-env", required_argument, nullptr, kPrependEnv},
    {"append-env", required_argument, nullptr, kAppendEnv},
    {"pset", required_argument, nullptr, kPset},
    {"tag-output", no_argument, nullptr, kTagOutput},
    {"timestamp-output", no_argument, nullptr, kTimestampOutput},
    {"xml", no_argument, nullptr, kXmlOutput},
    {"raw-output", no_argument, nullptr, kRawOutput},
    {"merge-stderr-to-stdout", no_argument, nullptr, kMergeStderr},
    {"output-filename", required_argument, nullptr, kOutputFilename},
    {"output", required_argument, nullptr, kOutput},
    {"stdin", required_argument, nullptr, kStdin},
    {"dvm", no_argument, nullptr, kDvm},
    {"dvm-stop", no_argument, nullptr, kDvmStop},
    {"report-uri", required_argument, nullptr, kReportUri},
    {"uri", required_argument, nullptr, kDvmUri},
    {"pid", required_argument, nullptr, kDvmPid},
    {"stop-in-init", no_argument, nullptr, kStopInInit},
    {"stop-on-exec", no_argument, nullptr, kStopOnExec},
    {"stop-in-app", no_argument, nullptr, kStopInApp},
    {"wdir", required_argument, nullptr, kWdir},
    {"wd", required_argument, nullptr, kWdir},
    {"fork-agent", required_argument, nullptr, kForkAgent},
    {"exec-agent", required_argument, nullptr, kExecAgent},
    {nullptr, 0, nullptr, 0},
};

bool parse_process_count(const char* text, int& out) {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (end == text || *end != '\0' || value < 1 || value > kMaxProcs) return false;
    out = static_cast<int>(value);
    return true;
}

bool parse_seconds(const char* text, double& out) {
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(value > 0) || value > 1e7) return false;
    out = value;
    return true;
}

bool valid_pset(const std::string& name) { return !name.empty() && name.size() <= 255; }

// The options an app context after ':' may start with (-n N, --pset NAME, any order); `arg`
// moves past them. False with `error` set on a bad value.
bool app_options(char* const*& arg, char* const* end, AppContext& app, std::string& error) {
    for (;;) {
        const std::string_view next = arg + 1 != end ? std::string_view(arg[1]) : "";
        const bool count = next == "-n" || next == "-np" || next == "--np";
        const bool pset = next == "--pset" || next == "-pset";
        if (!count && !pset) return true;
        if (arg + 2 == end || (count && !parse_process_count(arg[2], app.nprocs))) {
            error = count ? "bad process count after ':'" : "--pset needs a name";
            return false;
        }
        if (pset) app.pset = arg[2];
        if (pset && !valid_pset(app.pset)) {
            error = "bad --pset name (1..255 characters)";
            return false;
        }
        arg += 2;
    }
}

// The program part of the command line: "prog args [: [-n N] [--pset NAME] prog args]...", one
// app context per ':'-separated part (MPMD, as mpirun takes it). The first part's count is -n
// and its set --pset; the job's size becomes the sum.
bool split_apps(char* const* begin, char* const* end, Options& out, std::string& error) {
    out.apps.assign(1, AppContext{{}, out.nprocs, out.first_pset});
    for (char* const* arg = begin; arg != end; ++arg) {
        if (std::string_view(*arg) != ":") {
            out.apps.back().argv.emplace_back(*arg);
            continue;
        }
        if (out.apps.back().argv.empty()) break;
        out.apps.push_back(AppContext{});
        if (!app_options(arg, end, out.apps.back(), error)) return false;
    }
    for (std::size_t a = 0; a < out.apps.size(); ++a) {
        for (std::size_t b = 0; b < a; ++b) {
            if (!out.apps[a].pset.empty() && out.apps[a].pset == out.apps[b].pset) {
                error = "--pset " + out.apps[a].pset + " names two app contexts";
                return false;
            }
        }
    }
    long total = 0;
    for (const AppContext& app : out.apps) {
        if (app.argv.empty()) {
            error = "no program given" + std::string(out.apps.size() > 1 ? " around ':'" : "");
            return false;
        }
        total += app.nprocs;
    }
    if (out.apps.size() > 1 && (!out.hosts.empty() || !out.hostfile.empty())) {
        error = "several app contexts (':') run on one node only";
        return false;
    }
    if (total > kMaxProcs) {
        error = "more than " + std::to_string(kMaxProcs) + " processes";
        return false;
    }
    out.argv = out.apps.front().argv;
    out.nprocs = static_cast<int>(total);
    return true;
}

// A variable name as the environment directives take it: not empty, no '=' (the Standard's
// directives refuse both too; pmixrun says so before it starts anything).
bool good_env_name(std::string_view name) {
    return !name.empty() && name.find('=') == std::string_view::npos;
}

// --set-env NAME=value / --unset-env NAME[*]; false with `error` set.
bool parse_set_or_unset(int option_value, std::string_view text, const std::string& spelled,
                        Options& out, std::string& error) {
    EnvDirective d;
    if (option_value == kSetEnv) {
        const size_t equals = text.find('=');
        d.kind = EnvDirective::Kind::set;
        d.name = text.substr(0, equals == std::string_view::npos ? 0 : equals);
        if (equals != std::string_view::npos) d.value = text.substr(equals + 1);
    } else {
        d.kind = EnvDirective::Kind::unset;
        d.name = text;
        const size_t star = d.name.find('*');
        if (star != std::string::npos && star + 1 != d.name.size()) d.name.clear();
    }
    if (!good_env_name(d.name) || d.name == "*") {
        error = "bad " + spelled + " argument '" + std::string(text) + "' (" +
                (option_value == kSetEnv ? "NAME=value" : "NAME or PREFIX*") + ")";
        return false;
    }
    out.env_directives.push_back(std::move(d));
    return true;
}

// --prepend-env / --append-env NAME[c] value: the separator c in brackets after the name, the
// value in the next argument (prterun's spelling); false with `error` set.
bool parse_edit(int option_value, std::string_view target, const char* value,
                const std::string& spelled, Options& out, std::string& error) {
    const size_t n = target.size();
    if (n < 4 || target[n - 1] != ']' || target[n - 3] != '[' || target[n - 2] == '\0' ||
        !good_env_name(target.substr(0, n - 3))) {
        error = "bad " + spelled + " argument '" + std::string(target) +
                "' (NAME[c]: the separator c in brackets, e.g. PATH[:])";
        return false;
    }
    if (value == nullptr) {
        error = spelled + " " + std::string(target) + " needs a value after it";
        return false;
    }
    EnvDirective d;
    d.kind = option_value == kPrependEnv ? EnvDirective::Kind::prepend : EnvDirective::Kind::append;
    d.name = target.substr(0, n - 3);
    d.separator = target[n - 2];
    d.value = value;
    out.env_directives.push_back(std::move(d));
    return true;
}

// What a missing value of `option_value` is reported as.
std::string missing_value(int option_value, const std::string& spelled) {
    switch (option_value) {
        case 'n':
            return spelled + " needs a number";
        case 'x':
            return spelled + " needs VAR or VAR=value";
        case kTimeout:
            return spelled + " needs a number of seconds";
        default:
            return spelled + " needs a value";
    }
}

}  // namespace

// A relative path as an absolute one (Open MPI's mpirun: "a relative path value will be converted
// to an absolute path"), so that what the files are named does not depend on a later chdir.
std::string absolute_path(const std::string& path) {
    if (path.empty() || path[0] == '/') return path;
    char cwd[4096];
    if (::getcwd(cwd, sizeof cwd) == nullptr) return path;
    return std::string(cwd) + "/" + path;
}

std::vector<std::string> split_words(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string word; in >> word;) out.push_back(word);
    return out;
}

namespace {

std::string lowered(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

// "PATH[:nocopy]" (Open MPI's and prterun's qualifier, any case) into the path and the flag.
std::string take_nocopy(const std::string& value, OutputOptions& out) {
    const auto colon = value.rfind(':');
    if (colon != std::string::npos && lowered(value.substr(colon + 1)) == "nocopy") {
        out.nocopy = true;
        return value.substr(0, colon);
    }
    return value;
}

// One item of prterun's "--output LIST": a name or enough of its start to tell it from the
// others (case-insensitive), "dir=" / "file=" with a path; false with `error` set.
bool apply_output_item(const std::string& item, OutputOptions& out, std::string& error) {
    static constexpr std::string_view kNames[] = {
        "tag", "tag-fullname", "timestamp", "xml", "merge-stderr-to-stdout", "raw", "dir", "file"};
    const auto eq = item.find('=');
    const std::string name = lowered(item.substr(0, eq));
    std::string_view match;
    int matches = 0;
    for (std::string_view known : kNames) {
        if (known == name) {
            match = known;
            matches = 1;
            break;
        }
        if (!name.empty() && known.substr(0, name.size()) == name) match = known, ++matches;
    }
    const bool wants_value = match == "dir" || match == "file";
    if (matches != 1 || wants_value != (eq != std::string::npos) ||
        (wants_value && eq + 1 == item.size())) {
        error = "bad --output item '" + item +
                "' (tag, tag-fullname, timestamp, xml, merge-stderr-to-stdout, raw, "
                "dir=DIR[:nocopy], file=FILE[:nocopy])";
        return false;
    }
    if (match == "tag") out.tag = true;
    if (match == "tag-fullname") out.tag_fullname = true;
    if (match == "timestamp") out.timestamp = true;
    if (match == "xml") out.xml = true;
    if (match == "merge-stderr-to-stdout") out.merge = true;
    if (match == "raw") out.raw = true;
    if (wants_value) {
        (match == "dir" ? out.directory : out.file) =
            absolute_path(take_nocopy(item.substr(eq + 1), out));
    }
    return true;
}

// pmixrun's output options (Open MPI 4.1's mpirun names, prterun's --output); false with `error`.
bool apply_output_option(int option_value, const char* value, OutputOptions& out,
                         std::string& error) {
    switch (option_value) {
        case kTagOutput:
            out.tag = true;
            return true;
        case kTimestampOutput:
            out.timestamp = true;
            return true;
        case kXmlOutput:
            out.xml = true;
            return true;
        case kRawOutput:
            out.raw = true;
            return true;
        case kMergeStderr:
            out.merge = true;
            return true;
        case kOutputFilename:
            out.directory = absolute_path(take_nocopy(value, out));
            if (out.directory.empty()) error = "--output-filename needs a directory";
            return !out.directory.empty();
        default: {  // kOutput
            const std::string list = value;
            for (std::size_t at = 0; at <= list.size();) {
                const auto comma = std::min(list.find(',', at), list.size());
                if (!apply_output_item(list.substr(at, comma - at), out, error)) return false;
                at = comma + 1;
            }
            return true;
        }
    }
}

// --dvm, --dvm-stop and their --report-uri, --uri, --pid; false with `error` set.
bool apply_dvm_option(int option_value, const char* value, const std::string& spelled, Options& out,
                      std::string& error) {
    if (option_value == kDvm || option_value == kDvmStop) {
        (option_value == kDvm ? out.dvm : out.dvm_stop) = true;
        return true;
    }
    if (value[0] == '\0') {
        error = spelled + " needs a value";
        return false;
    }
    if (option_value == kDvmPid) {
        char* end = nullptr;
        out.dvm_pid = std::strtol(value, &end, 10);
        if (*end != '\0' || out.dvm_pid <= 0 || out.dvm_pid > 0x7fffffff) {
            error = "bad --pid '" + std::string(value) + "'";
            return false;
        }
        return true;
    }
    (option_value == kReportUri ? out.report_uri : out.dvm_uri) = value;
    return true;
}

// A persistent launcher takes no program, and its options only with --dvm / --dvm-stop.
ParseOutcome check_dvm(int optind_now, int argc, const Options& out, std::string& error) {
    if (out.dvm && out.dvm_stop) error = "--dvm and --dvm-stop exclude each other";
    else if (!out.dvm_stop && (!out.dvm_uri.empty() || out.dvm_pid != 0))
        error = "--uri and --pid go with --dvm-stop";
    else if (!out.dvm && !out.report_uri.empty()) error = "--report-uri goes with --dvm";
    else if ((out.dvm || out.dvm_stop) && optind_now < argc)
        error = std::string(out.dvm ? "--dvm" : "--dvm-stop") +
                " takes no program (tools start jobs with PMIx_Spawn)";
    else if (out.dvm && (out.nprocs_given || !out.user.empty() || out.timeout_s > 0))
        error = "--dvm runs without -n, --user or --timeout";
    return error.empty() ? ParseOutcome::run : ParseOutcome::usage_error;
}

// Applies one option and its value (`value` is null for flags); false with `error` set.
bool apply_option(int option_value, const char* value, const std::string& spelled, Options& out,
                  std::string& error) {
    switch (option_value) {
        case 'n':
            if (!parse_process_count(value, out.nprocs)) {
                error = "bad process count '" + std::string(value) + "' (1..4096)";
                return false;
            }
            out.nprocs_given = true;
            return true;
        case 'x':
            if (value[0] == '\0' || value[0] == '=') {
                error = "bad -x argument '" + std::string(value) + "'";
                return false;
            }
            out.env.emplace_back(value);
            return true;
        case kSetEnv:
        case kUnsetEnv:
            return parse_set_or_unset(option_value, value, spelled, out, error);
        case kTimeout:
            if (!parse_seconds(value, out.timeout_s)) {
                error = "bad timeout '" + std::string(value) + "'";
                return false;
            }
            return true;
        case kReport:
            out.report = true;
            return true;
        case kPset:
            out.first_pset = value;
            if (!valid_pset(out.first_pset)) {
                error = "bad --pset name (1..255 characters)";
                return false;
            }
            return true;
        case kRemoteTools:
            out.remote_tools = true;
            return true;
        case kStopInInit:
        case kStopOnExec:
        case kStopInApp:
            (option_value == kStopInInit   ? out.stop_in_init
             : option_value == kStopOnExec ? out.stop_on_exec
                                           : out.stop_in_app) = true;
            return true;
        case kStdin:
            if (!parse_stdin_target(value, out.stdin_rank)) {
                error = "bad --stdin target '" + std::string(value) + "' (a rank, all or none)";
                return false;
            }
            return true;
        case kWdir:
        case kForkAgent:
        case kExecAgent:
            if (value[0] == '\0') {
                error = missing_value(option_value, spelled);
                return false;
            }
            (option_value == kWdir        ? out.start_as.wdir
             : option_value == kForkAgent ? out.start_as.fork_agent
                                          : out.start_as.exec_agent) =
                option_value == kWdir ? absolute_path(value) : std::string(value);
            return true;
        case kHost:
        case kHostfile:
        case kLaunchAgent:
        case kUser:
            if (value[0] == '\0') {
                error = missing_value(option_value, spelled);
                return false;
            }
            (option_value == kHost       ? out.hosts
             : option_value == kHostfile ? out.hostfile
             : option_value == kUser     ? out.user
                                         : out.launch_agent) = value;
            return true;
        case kTagOutput:
        case kTimestampOutput:
        case kXmlOutput:
        case kRawOutput:
        case kMergeStderr:
        case kOutputFilename:
        case kOutput:
            return apply_output_option(option_value, value, out.output, error);
        case kDvm:
        case kDvmStop:
        case kReportUri:
        case kDvmUri:
        case kDvmPid:
            return apply_dvm_option(option_value, value, spelled, out, error);
        default:
            error = "unknown option '" + spelled + "'";
            return false;
    }
}

bool takes_value(const option* options, int option_value) {
    for (const option* known = options; known->name != nullptr; ++known)
        if (known->val == option_value) return known->has_arg != no_argument;
    return false;
}

}  // namespace

void print_usage(std::FILE* stream) {
    std::fprintf(
        stream,
        "usage: pmixrun [-n N] [--host LIST | --hostfile FILE] [--launch-agent CMD] "
        "[-x VAR[=value]]... [--set-env|--unset-env|--prepend-env|--append-env ...]... "
        "[--timeout SECONDS] [--report] [--remote-tools] [--user NAME] "
        "[--pset NAME] [--stdin RANK|all|none] [--stop-in-init|--stop-on-exec|--stop-in-app] "
        "[--wdir DIR] [--fork-agent CMD] [--exec-agent CMD] "
        "[output options] [--] program [args...] "
        "[: [-n N] [--pset NAME] program [args...]]...\n"
        "       pmixrun --dvm [--host H,.. | --hostfile F] [--launch-agent CMD] [--report-uri "
        "FILE]\n"
        "                     [--remote-tools] [output options]\n"
        "       pmixrun --dvm-stop [--uri URI | --pid PID]\n"
        "  -n, --np N        number of processes (1..4096)\n"
        "  -x VAR[=value]    pass VAR to the processes (its value here, or the one given)\n"
        "  --set-env N=V     set N to V in the processes' environment\n"
        "  --unset-env N     unset N (N ending in '*': every variable starting with it)\n"
        "  --prepend-env N[c] V  put V in front of N's value, separated by c\n"
        "  --append-env N[c] V   put V after N's value, separated by c\n"
        "                    (these four apply in command-line order, after -x)\n"
        "  --timeout S       kill the job after S seconds and exit with 124\n"
        "  --report          print a startup/wireup timing report to stderr at the end\n"
        "  --remote-tools    also let tools of other hosts in over TCP (they need the\n"
        "                    secret in this server's rendezvous file: pmix-ps --file F)\n"
        "  --user NAME       run the processes as that user and its group (root, one node)\n"
        "  --pset NAME       name the process set of this app context (also after ':');\n"
        "                    default <nspace>.app<N>\n"
        "  --stdin T         pmixrun's stdin goes to rank T (default 0), to every rank of\n"
        "                    the job (all) or to none; the others read /dev/null\n"
        "  --raw-output      print the ranks' output bytes as they come (no [rank] tag)\n"
        "  --stop-in-init    every rank waits in PMIx_Init for a debugger's\n"
        "                    PMIX_DEBUGGER_RELEASE (on every node with --host)\n"
        "  --stop-on-exec    every rank starts stopped at its first instruction (SIGSTOP)\n"
        "                    until PMIX_DEBUGGER_RELEASE or SIGCONT\n"
        "  --stop-in-app     PMIX_DEBUG_STOP_IN_APP in the job's info: the application\n"
        "                    stops itself where it chooses\n"
        "  --wdir DIR        the processes start in DIR (also -wdir, --wd); a relative\n"
        "                    program is found there\n"
        "  --fork-agent CMD  start CMD (split at blanks) in place of each process; it\n"
        "                    connects back as a tool, reads what to start and starts\n"
        "                    it (PMIX_FORKEXEC_AGENT; examples/fork_agent.c)\n"
        "  --exec-agent CMD  start CMD with the program's command line after it, in\n"
        "                    the program's environment; CMD execs it (PMIX_EXEC_AGENT;\n"
        "                    what a fork agent starts when both are given)\n"
        "  --host a:2,b:2    run across these nodes (name:slots; -n defaults to all slots)\n"
        "  --hostfile FILE   the same from a file (\"name slots=N\" or \"name:N\" per line)\n"
        "  --launch-agent C  how to start a node daemon: C NODE pmixd ... (default: ssh)\n"
        "output (default: every line as \"[rank] line\"; any format option prints as a PMIx\n"
        "tool's PMIx_IOF_pull would, e.g. \"[nspace,rank]<stdout>: line\"):\n"
        "  --tag-output      \"[nspace,rank]<stdout>: \" before each line\n"
        "  --timestamp-output  \"[date]<stdout>: \" before each line (with --tag-output:\n"
        "                    \"[date][nspace,rank]<stdout>: \")\n"
        "  --xml             each line as <stdout rank=\"R\">escaped text</stdout>\n"
        "  --raw-output      the bytes as they come: no tag, not split into lines\n"
        "  --merge-stderr-to-stdout  the ranks' stderr goes to stdout (and its files)\n"
        "  --output-filename DIR[:nocopy]  also into DIR/<nspace>/rank.<r>/stdout|stderr\n"
        "                    (:nocopy: not on the terminal)\n"
        "  --output LIST     prterun's form: tag, tag-fullname, timestamp, xml, raw,\n"
        "                    merge-stderr-to-stdout, dir=DIR[:nocopy], file=F[:nocopy]\n"
        "                    (F.<nspace>.<rank>.out|.err), comma-separated\n"
        "persistent launcher (pmix-dvm is pmixrun --dvm):\n"
        "  --dvm             serve tools' PMIx_Spawn with no job of its own, as the system\n"
        "                    server, until stopped (PMIx_Job_control terminate, --dvm-stop);\n"
        "                    with --host/--hostfile one pmixd per node, jobs across them\n"
        "  --report-uri F    write its URI to file F ('-' stdout, '+' stderr)\n"
        "  --dvm-stop        stop a running one (--uri URI | --pid PID; default: the\n"
        "                    system server); pmix-dvm --stop is the same\n"
        "  -h, --help        this text\n");
}

// getopt_long_only, so that mpirun's single-dash spelling "-np 4" is the long option np; a lone
// letter stays a short option (-n, -x, -h).
ParseOutcome parse_options(int argc, char* const argv[], Options& out, std::string& error) {
    optind = 0;  // glibc: 0 starts a fresh scan (parse_options may run more than once)
    opterr = 0;
    for (;;) {
        const int element = optind == 0 ? 1 : optind;  // the argument this option is written in
        const int option_value = getopt_long_only(argc, argv, kShortOptions, kLongOptions, nullptr);
        if (option_value == -1) break;
        const std::string spelled = element < argc ? argv[element] : "";
        if (option_value == 'h') return ParseOutcome::help;
        if (option_value == ':') {
            error = missing_value(optopt, spelled);
            return ParseOutcome::usage_error;
        }
        if (option_value == '?') {
            // glibc sets optopt to a known long option's value when it was given a value it
            // does not take ("--report=1"); 0 or an unknown letter otherwise.
            const bool known_flag = optopt != 0 && !takes_value(kLongOptions, optopt) &&
                                    spelled.find('=') != std::string::npos;
            error = known_flag
                        ? "option '" + spelled.substr(0, spelled.find('=')) + "' takes no value"
                        : "unknown option '" + spelled + "'";
            return ParseOutcome::usage_error;
        }
        if (option_value == kPrependEnv || option_value == kAppendEnv) {
            // Two arguments: getopt took NAME[c]; the value is the next element (no permuting:
            // "+" mode, so stepping optind past it is safe).
            const char* edit_value = optind < argc ? argv[optind++] : nullptr;
            if (!parse_edit(option_value, optarg, edit_value, spelled, out, error))
                return ParseOutcome::usage_error;
            continue;
        }
        if (!apply_option(option_value, optarg, spelled, out, error))
            return ParseOutcome::usage_error;
    }
    if (out.dvm || out.dvm_stop || !out.report_uri.empty() || !out.dvm_uri.empty() ||
        out.dvm_pid != 0) {
        if (out.dvm) out.stdin_rank = Options::kStdinNone;  // no job of its own to feed
        return check_dvm(optind, argc, out, error);
    }
    if (optind >= argc) {
        error = "no program given";
        return ParseOutcome::usage_error;
    }
    if (!split_apps(argv + optind, argv + argc, out, error)) return ParseOutcome::usage_error;
    // Across nodes without -n the size is known once the hosts are read (run_head checks then).
    const bool size_known = out.nprocs_given || (out.hosts.empty() && out.hostfile.empty());
    if (size_known && out.stdin_rank >= out.nprocs) {
        error = "--stdin " + std::to_string(out.stdin_rank) + ": the job has ranks 0.." +
                std::to_string(out.nprocs - 1);
        return ParseOutcome::usage_error;
    }
    return ParseOutcome::run;
}

std::string stdin_target_text(long stdin_rank) {
    return stdin_rank == Options::kStdinAll    ? "all"
           : stdin_rank == Options::kStdinNone ? "none"
                                               : std::to_string(stdin_rank);
}

bool parse_stdin_target(const std::string& text, long& out) {
    if (text == "all" || text == "none") {
        out = text == "all" ? Options::kStdinAll : Options::kStdinNone;
        return true;
    }
    char* end = nullptr;
    const long rank = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || text[0] == '-' || rank >= kMaxProcs) return false;
    out = rank;
    return true;
}

std::size_t Options::app_of(std::uint32_t rank) const {
    std::uint32_t first = 0;
    for (std::size_t a = 0; a < apps.size(); ++a) {
        first += static_cast<std::uint32_t>(apps[a].nprocs);
        if (rank < first) return a;
    }
    return 0;
}

std::uint32_t Options::app_first_rank(std::size_t app) const {
    std::uint32_t first = 0;
    for (std::size_t a = 0; a < app && a < apps.size(); ++a) {
        first += static_cast<std::uint32_t>(apps[a].nprocs);
    }
    return first;
}

bool parse_daemon_options(int argc, char* const argv[], DaemonOptions& out, std::string& error) {
    static constexpr option kDaemonOptions[] = {
        {"node-name", required_argument, nullptr, kNodeName},
        {"node-index", required_argument, nullptr, kNodeIndex},
        {"fabric-node", required_argument, nullptr, kFabricNode},
        {"dvm", no_argument, nullptr, kDaemonDvm},
        {nullptr, 0, nullptr, 0},
    };
    const std::string usage =
        "usage: pmixd --node-name NAME --node-index I [--fabric-node ADDR] [--dvm] (started by "
        "pmixrun)";
    optind = 0;
    opterr = 0;
    bool index_given = false;
    for (;;) {
        const int element = optind == 0 ? 1 : optind;
        const int option_value = getopt_long(argc, argv, "+:", kDaemonOptions, nullptr);
        if (option_value == -1) break;
        const std::string spelled = element < argc ? argv[element] : "";
        if (option_value == kNodeName) {
            out.node_name = optarg;
        } else if (option_value == kFabricNode) {
            out.fabric_node = optarg;
        } else if (option_value == kDaemonDvm) {
            out.dvm = true;
        } else if (option_value == kNodeIndex) {
            char* end = nullptr;
            const unsigned long index = std::strtoul(optarg, &end, 10);
            if (end == optarg || *end != '\0' || optarg[0] == '-' || index >= (1ul << 20)) {
                error = "bad node index '" + std::string(optarg) + "'";
                return false;
            }
            out.node_index = index;
            index_given = true;
        } else if (option_value == ':') {
            error = spelled + " needs a value";
            return false;
        } else {
            error = "unknown option '" + spelled + "'";
            return false;
        }
    }
    if (optind < argc) {
        error = "unexpected argument '" + std::string(argv[optind]) + "'";
        return false;
    }
    if (out.node_name.empty() || !index_given) {
        error = usage;
        return false;
    }
    return true;
}

}  // namespace pmix::launcher
