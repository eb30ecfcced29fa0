// Command-line parsing for pmixrun. Anything after the program name belongs to the program.
#include "launcher.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

void usage(FILE* f) {
    std::fprintf(
        f,
        "usage: pmixrun [-n N] [--host LIST | --hostfile FILE] [--launch-agent CMD] "
        "[-x VAR[=value]]... [--timeout SECONDS] [--report] [--remote-tools] [--] "
        "program [args...]\n"
        "  -n, --np N        number of processes (1..4096)\n"
        "  -x VAR[=value]    pass VAR to the processes (its value here, or the one given)\n"
        "  --timeout S       kill the job after S seconds and exit with 124\n"
        "  --report          print a startup/wireup timing report to stderr at the end\n"
        "  --remote-tools    also let tools of other hosts in over TCP (they need the\n"
        "                    secret in this server's rendezvous file: pmix-ps --file F)\n"
        "  --host a:2,b:2    run across these nodes (name:slots; -n defaults to all slots)\n"
        "  --hostfile FILE   the same from a file (\"name slots=N\" or \"name:N\" per line)\n"
        "  --launch-agent C  how to start a node daemon: C NODE pmixd ... (default: ssh)\n"
        "  -h, --help        this text\n");
}

bool bad(const char* fmt, const char* arg, int& exit_code) {
    std::fprintf(stderr, "pmixrun: ");
    std::fprintf(stderr, fmt, arg);
    std::fprintf(stderr, "\n");
    usage(stderr);
    exit_code = 2;
    return false;
}

bool parse_int(const char* s, int& out) {
    char* end = nullptr;
    long v = std::strtol(s, &end, 10);
    if (end == s || *end != '\0' || v < 1 || v > 4096) return false;
    out = static_cast<int>(v);
    return true;
}

bool parse_seconds(const char* s, double& out) {
    char* end = nullptr;
    double v = std::strtod(s, &end);
    if (end == s || *end != '\0' || !(v > 0) || v > 1e7) return false;
    out = v;
    return true;
}

}  // namespace

bool parse_options(int argc, char** argv, Options& o, int& exit_code) {
    bool have_n = false;
    int i = 1;
    for (; i < argc; ++i) {
        const char* a = argv[i];
        auto value = [&](const char* name) -> const char* {
            if (i + 1 >= argc) return nullptr;
            (void)name;
            return argv[++i];
        };
        if (std::strcmp(a, "--") == 0) {
            ++i;
            break;
        }
        if (a[0] != '-') break;
        if (std::strcmp(a, "-h") == 0 || std::strcmp(a, "--help") == 0) {
            usage(stdout);
            exit_code = 0;
            return false;
        } else if (std::strcmp(a, "-n") == 0 || std::strcmp(a, "--np") == 0 ||
                   std::strcmp(a, "-np") == 0) {
            const char* v = value(a);
            if (v == nullptr) return bad("%s needs a number", a, exit_code);
            if (!parse_int(v, o.nprocs))
                return bad("bad process count '%s' (1..4096)", v, exit_code);
            have_n = true;
        } else if (std::strcmp(a, "-x") == 0) {
            const char* v = value(a);
            if (v == nullptr) return bad("%s needs VAR or VAR=value", a, exit_code);
            if (v[0] == '\0' || v[0] == '=') return bad("bad -x argument '%s'", v, exit_code);
            o.env.emplace_back(v);
        } else if (std::strcmp(a, "--timeout") == 0) {
            const char* v = value(a);
            if (v == nullptr) return bad("%s needs a number of seconds", a, exit_code);
            if (!parse_seconds(v, o.timeout_s)) return bad("bad timeout '%s'", v, exit_code);
        } else if (std::strcmp(a, "--report") == 0) {
            o.report = true;
        } else if (std::strcmp(a, "--remote-tools") == 0) {
            o.remote_tools = true;
        } else if (std::strcmp(a, "--host") == 0 || std::strcmp(a, "--hostfile") == 0 ||
                   std::strcmp(a, "--launch-agent") == 0) {
            const char* v = value(a);
            if (v == nullptr || v[0] == '\0') return bad("%s needs a value", a, exit_code);
            std::string& dst = a[2] == 'l' ? o.launch_agent : a[6] == 'f' ? o.hostfile : o.hosts;
            dst = v;
        } else {
            return bad("unknown option '%s'", a, exit_code);
        }
    }
    o.have_n = have_n;
    if (!have_n) o.nprocs = 1;
    if (i >= argc) return bad("no program given%s", "", exit_code);
    for (; i < argc; ++i) o.argv.emplace_back(argv[i]);
    return true;
}

}  // namespace pmix::launcher
