// pmixrun's and pmixd's command lines (launcher/options.h): every flag, its spellings, what ends
// the options, and a clear error for each malformed one.
#include "options.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace pmix::launcher {
namespace {

// argv as getopt wants it (mutable strings), kept alive for the parse.
struct Argv {
    std::vector<std::string> words;
    std::vector<char*> pointers;
    Argv(std::initializer_list<const char*> list) : words(list.begin(), list.end()) {
        for (std::string& word : words) pointers.push_back(word.data());
        pointers.push_back(nullptr);
    }
    int argc() const { return static_cast<int>(words.size()); }
    char** argv() { return pointers.data(); }
};

ParseOutcome parse(Argv args, Options& options, std::string& error) {
    return parse_options(args.argc(), args.argv(), options, error);
}

std::string error_of(Argv args) {
    Options options;
    std::string error;
    EXPECT_EQ(parse(std::move(args), options, error), ParseOutcome::usage_error);
    return error;
}

TEST(Options, DefaultsWithOnlyAProgram) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "hostname"}, options, error), ParseOutcome::run) << error;
    EXPECT_EQ(options.nprocs, 1);
    EXPECT_FALSE(options.nprocs_given);
    EXPECT_EQ(options.argv, std::vector<std::string>{"hostname"});
    EXPECT_TRUE(options.env.empty());
    EXPECT_EQ(options.timeout_s, 0);
    EXPECT_FALSE(options.report);
    EXPECT_FALSE(options.remote_tools);
    EXPECT_TRUE(options.hosts.empty());
    EXPECT_TRUE(options.hostfile.empty());
    EXPECT_EQ(options.launch_agent, "ssh");
}

TEST(Options, AppContextsSeparatedByColons) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "-n", "2", "a", "x", ":", "-n", "3", "b", ":", "c", "y", "z"},
                    options, error),
              ParseOutcome::run)
        << error;
    ASSERT_EQ(options.apps.size(), 3u);
    EXPECT_EQ(options.apps[0].argv, (std::vector<std::string>{"a", "x"}));
    EXPECT_EQ(options.apps[1].argv, std::vector<std::string>{"b"});
    EXPECT_EQ(options.apps[2].argv, (std::vector<std::string>{"c", "y", "z"}));
    EXPECT_EQ(options.apps[0].nprocs, 2);
    EXPECT_EQ(options.apps[1].nprocs, 3);
    EXPECT_EQ(options.apps[2].nprocs, 1);
    EXPECT_EQ(options.nprocs, 6);
    EXPECT_EQ(options.argv, (std::vector<std::string>{"a", "x"}));
    EXPECT_EQ(options.app_of(0), 0u);
    EXPECT_EQ(options.app_of(1), 0u);
    EXPECT_EQ(options.app_of(2), 1u);
    EXPECT_EQ(options.app_of(4), 1u);
    EXPECT_EQ(options.app_of(5), 2u);
    EXPECT_EQ(options.app_first_rank(1), 2u);
    EXPECT_EQ(options.app_first_rank(2), 5u);
}

TEST(Options, OneAppContextWithoutColon) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "-n", "4", "prog"}, options, error), ParseOutcome::run) << error;
    ASSERT_EQ(options.apps.size(), 1u);
    EXPECT_EQ(options.apps[0].nprocs, 4);
    EXPECT_EQ(options.app_of(3), 0u);
}

TEST(Options, BadAppContexts) {
    EXPECT_EQ(error_of({"pmixrun", "a", ":"}), "no program given around ':'");
    EXPECT_EQ(error_of({"pmixrun", "a", ":", "-n", "0", "b"}), "bad process count after ':'");
    EXPECT_EQ(error_of({"pmixrun", "a", ":", "-n"}), "bad process count after ':'");
    EXPECT_EQ(error_of({"pmixrun", "--host", "h:2", "a", ":", "b"}),
              "several app contexts (':') run on one node only");
    EXPECT_EQ(error_of({"pmixrun", "-n", "4000", "a", ":", "-n", "100", "b"}),
              "more than 4096 processes");
}

TEST(Options, ProcessSetPerAppContext) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "--pset", "ocean", "-n", "2", "a", ":", "--pset", "ice", "-n", "3",
                     "b", ":", "-n", "1", "c"},
                    options, error),
              ParseOutcome::run)
        << error;
    ASSERT_EQ(options.apps.size(), 3u);
    EXPECT_EQ(options.apps[0].pset, "ocean");
    EXPECT_EQ(options.apps[1].pset, "ice");
    EXPECT_EQ(options.apps[1].nprocs, 3);
    EXPECT_EQ(options.apps[1].argv, std::vector<std::string>{"b"});
    EXPECT_TRUE(options.apps[2].pset.empty());  // the launcher names it
    EXPECT_EQ(options.nprocs, 6);
}

TEST(Options, BadProcessSets) {
    EXPECT_EQ(error_of({"pmixrun", "--pset", "", "a"}), "bad --pset name (1..255 characters)");
    EXPECT_EQ(error_of({"pmixrun", "a", ":", "--pset"}), "--pset needs a name");
    EXPECT_EQ(error_of({"pmixrun", "--pset", "x", "a", ":", "--pset", "x", "b"}),
              "--pset x names two app contexts");
    const std::string too_long(256, 'p');
    EXPECT_EQ(error_of({"pmixrun", "a", ":", "--pset", too_long.c_str(), "b"}),
              "bad --pset name (1..255 characters)");
}

TEST(Options, EveryFlag) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "-n", "4", "-x", "A", "-x", "B=2", "--timeout", "2.5", "--report",
                     "--remote-tools", "--host", "a:2,b:2", "--hostfile", "hosts", "--launch-agent",
                     "ip netns exec", "prog", "arg"},
                    options, error),
              ParseOutcome::run)
        << error;
    EXPECT_EQ(options.nprocs, 4);
    EXPECT_TRUE(options.nprocs_given);
    EXPECT_EQ(options.env, (std::vector<std::string>{"A", "B=2"}));
    EXPECT_DOUBLE_EQ(options.timeout_s, 2.5);
    EXPECT_TRUE(options.report);
    EXPECT_TRUE(options.remote_tools);
    EXPECT_EQ(options.hosts, "a:2,b:2");
    EXPECT_EQ(options.hostfile, "hosts");
    EXPECT_EQ(options.launch_agent, "ip netns exec");
    EXPECT_EQ(options.argv, (std::vector<std::string>{"prog", "arg"}));
}

// prterun's environment options, in command-line order; prepend/append take NAME[c] and a value.
TEST(Options, EnvironmentDirectivesKeepTheirOrder) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "--set-env", "FOO=1", "--prepend-env", "FOO[:]", "x",
                     "--append-env", "LD_LIBRARY_PATH[;]", "/opt/lib", "--unset-env", "OMP_*",
                     "-unset-env", "BAR", "--set-env", "EMPTY=", "prog"},
                    options, error),
              ParseOutcome::run)
        << error;
    using K = EnvDirective::Kind;
    EXPECT_EQ(options.env_directives,
              (std::vector<EnvDirective>{{K::set, "FOO", "1", '\0'},
                                         {K::prepend, "FOO", "x", ':'},
                                         {K::append, "LD_LIBRARY_PATH", "/opt/lib", ';'},
                                         {K::unset, "OMP_*", "", '\0'},
                                         {K::unset, "BAR", "", '\0'},
                                         {K::set, "EMPTY", "", '\0'}}));
    EXPECT_EQ(options.argv, std::vector<std::string>{"prog"});
}

TEST(Options, BadEnvironmentDirectives) {
    EXPECT_NE(error_of({"pmixrun", "--set-env", "FOO", "p"}).find("NAME=value"), std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--set-env", "=1", "p"}).find("bad --set-env"),
              std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--unset-env", "A=B", "p"}).find("bad --unset-env"),
              std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--unset-env", "*", "p"}).find("bad"), std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--unset-env", "A*B", "p"}).find("bad"), std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--prepend-env", "PATH", "/x", "p"}).find("PATH[:]"),
              std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--append-env", "[:]", "/x", "p"}).find("bad"),
              std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--append-env", "PATH[:]"}).find("needs a value"),
              std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--prepend-env"}).find("needs a value"), std::string::npos);
}

TEST(Options, ProcessCountSpellings) {
    for (const char* spelling : {"-n", "--np", "-np"}) {
        Options options;
        std::string error;
        ASSERT_EQ(parse({"pmixrun", spelling, "7", "true"}, options, error), ParseOutcome::run)
            << spelling << ": " << error;
        EXPECT_EQ(options.nprocs, 7) << spelling;
    }
    Options attached;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "-n16", "true"}, attached, error), ParseOutcome::run) << error;
    EXPECT_EQ(attached.nprocs, 16);
    Options with_equals;
    ASSERT_EQ(parse({"pmixrun", "--np=3", "true"}, with_equals, error), ParseOutcome::run) << error;
    EXPECT_EQ(with_equals.nprocs, 3);
}

TEST(Options, OptionsEndAtTheProgramOrAtDoubleDash) {
    Options options;
    std::string error;
    ASSERT_EQ(
        parse({"pmixrun", "-n", "2", "prog", "-n", "5", "--report", "--bogus"}, options, error),
        ParseOutcome::run)
        << error;
    EXPECT_EQ(options.nprocs, 2);
    EXPECT_FALSE(options.report);
    EXPECT_EQ(options.argv, (std::vector<std::string>{"prog", "-n", "5", "--report", "--bogus"}));

    Options dashed;
    ASSERT_EQ(parse({"pmixrun", "--report", "--", "-prog", "x"}, dashed, error), ParseOutcome::run)
        << error;
    EXPECT_TRUE(dashed.report);
    EXPECT_EQ(dashed.argv, (std::vector<std::string>{"-prog", "x"}));
}

TEST(Options, Help) {
    for (const char* spelling : {"-h", "--help"}) {
        Options options;
        std::string error;
        EXPECT_EQ(parse({"pmixrun", spelling}, options, error), ParseOutcome::help) << spelling;
        EXPECT_EQ(parse({"pmixrun", "-n", "2", spelling, "prog"}, options, error),
                  ParseOutcome::help)
            << spelling;
    }
}

TEST(Options, ParsingTwiceStartsAfresh) {
    Options first, second;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "-n", "3", "a"}, first, error), ParseOutcome::run);
    ASSERT_EQ(parse({"pmixrun", "--report", "b"}, second, error), ParseOutcome::run);
    EXPECT_EQ(second.nprocs, 1);
    EXPECT_TRUE(second.report);
    EXPECT_EQ(second.argv, std::vector<std::string>{"b"});
}

// The messages the integration case "options" checks, and the rest.
TEST(Options, ClearErrors) {
    EXPECT_EQ(error_of({"pmixrun"}), "no program given");
    EXPECT_EQ(error_of({"pmixrun", "--report"}), "no program given");
    EXPECT_EQ(error_of({"pmixrun", "-n", "0", "true"}), "bad process count '0' (1..4096)");
    EXPECT_EQ(error_of({"pmixrun", "-n", "4097", "true"}), "bad process count '4097' (1..4096)");
    EXPECT_EQ(error_of({"pmixrun", "-n", "2x", "true"}), "bad process count '2x' (1..4096)");
    EXPECT_EQ(error_of({"pmixrun", "-n"}), "-n needs a number");
    EXPECT_EQ(error_of({"pmixrun", "--np"}), "--np needs a number");
    EXPECT_EQ(error_of({"pmixrun", "-np"}), "-np needs a number");
    EXPECT_EQ(error_of({"pmixrun", "-n", "2", "--bogus", "true"}), "unknown option '--bogus'");
    EXPECT_EQ(error_of({"pmixrun", "-z", "true"}), "unknown option '-z'");
    EXPECT_EQ(error_of({"pmixrun", "--timeout", "soon", "true"}), "bad timeout 'soon'");
    EXPECT_EQ(error_of({"pmixrun", "--timeout", "0", "true"}), "bad timeout '0'");
    EXPECT_EQ(error_of({"pmixrun", "--timeout", "-1", "true"}), "bad timeout '-1'");
    EXPECT_EQ(error_of({"pmixrun", "--timeout"}), "--timeout needs a number of seconds");
    EXPECT_EQ(error_of({"pmixrun", "-x"}), "-x needs VAR or VAR=value");
    EXPECT_EQ(error_of({"pmixrun", "-x", "=v", "true"}), "bad -x argument '=v'");
    EXPECT_EQ(error_of({"pmixrun", "-x", "", "true"}), "bad -x argument ''");
    EXPECT_EQ(error_of({"pmixrun", "-x", "true"}), "no program given");  // "true" is -x's value
    EXPECT_EQ(error_of({"pmixrun", "--host"}), "--host needs a value");
    EXPECT_EQ(error_of({"pmixrun", "--host", "", "true"}), "--host needs a value");
    EXPECT_EQ(error_of({"pmixrun", "--hostfile", "", "true"}), "--hostfile needs a value");
    EXPECT_EQ(error_of({"pmixrun", "--launch-agent", "", "true"}), "--launch-agent needs a value");
    EXPECT_EQ(error_of({"pmixrun", "--report=1", "true"}), "option '--report' takes no value");
}

// --host is a prefix of --hostfile: the exact name wins, whichever is given.
TEST(Options, HostAndHostfileAreDistinct) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "--hostfile", "f", "--host", "a", "true"}, options, error),
              ParseOutcome::run)
        << error;
    EXPECT_EQ(options.hostfile, "f");
    EXPECT_EQ(options.hosts, "a");
}

bool parse_daemon(Argv args, DaemonOptions& options, std::string& error) {
    return parse_daemon_options(args.argc(), args.argv(), options, error);
}

TEST(DaemonOptions, AsTheHeadStartsIt) {
    DaemonOptions options;
    std::string error;
    ASSERT_TRUE(parse_daemon({"pmixd", "--node-name", "n1", "--node-index", "3"}, options, error))
        << error;
    EXPECT_EQ(options.node_name, "n1");
    EXPECT_EQ(options.node_index, 3u);
    EXPECT_TRUE(options.fabric_node.empty());
    ASSERT_TRUE(parse_daemon(
        {"pmixd", "--fabric-node", "10.0.0.2", "--node-index", "0", "--node-name", "n0"}, options,
        error))
        << error;
    EXPECT_EQ(options.fabric_node, "10.0.0.2");
    EXPECT_EQ(options.node_index, 0u);
    EXPECT_FALSE(options.dvm);
    DaemonOptions dvm;  // a node of a persistent launcher (launcher/dvm_head.h)
    ASSERT_TRUE(
        parse_daemon({"pmixd", "--node-name", "n0", "--node-index", "0", "--dvm"}, dvm, error))
        << error;
    EXPECT_TRUE(dvm.dvm);
}

TEST(DaemonOptions, ClearErrors) {
    const std::string usage =
        "usage: pmixd --node-name NAME --node-index I [--fabric-node ADDR] [--dvm] (started by "
        "pmixrun)";
    auto error_of_daemon = [](Argv args) {
        DaemonOptions options;
        std::string error;
        EXPECT_FALSE(parse_daemon(std::move(args), options, error));
        return error;
    };
    EXPECT_EQ(error_of_daemon({"pmixd"}), usage);
    EXPECT_EQ(error_of_daemon({"pmixd", "--node-name", "n"}), usage);
    EXPECT_EQ(error_of_daemon({"pmixd", "--node-index", "1"}), usage);
    EXPECT_EQ(error_of_daemon({"pmixd", "--node-name", "n", "--node-index", "x"}),
              "bad node index 'x'");
    EXPECT_EQ(error_of_daemon({"pmixd", "--node-name", "n", "--node-index", "-1"}),
              "bad node index '-1'");
    EXPECT_EQ(error_of_daemon({"pmixd", "--node-name", "n", "--node-index"}),
              "--node-index needs a value");
    EXPECT_EQ(error_of_daemon({"pmixd", "--bogus", "1"}), "unknown option '--bogus'");
    EXPECT_EQ(error_of_daemon({"pmixd", "--node-name", "n", "--node-index", "1", "extra"}),
              "unexpected argument 'extra'");
}

TEST(Options, OutputOptions) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "--tag-output", "--timestamp-output", "-xml", "--raw-output",
                     "--merge-stderr-to-stdout", "--output-filename", "/o/d:NOCOPY", "prog"},
                    options, error),
              ParseOutcome::run)
        << error;
    OutputOptions want;
    want.tag = want.timestamp = want.xml = want.raw = want.merge = want.nocopy = true;
    want.directory = "/o/d";
    EXPECT_EQ(options.output, want);
    EXPECT_EQ(options.argv, std::vector<std::string>{"prog"});
    EXPECT_FALSE(Options().output.formatted());
}

TEST(Options, PrterunOutputList) {
    Options options;
    std::string error;
    // Enough of a name to tell it from the others, any case; dir=/file= with :nocopy.
    ASSERT_EQ(parse({"pmixrun", "--output", "TAG-F,time,merge,raw,x,file=/f/out:nocopy", "p"},
                    options, error),
              ParseOutcome::run)
        << error;
    OutputOptions want;
    want.tag_fullname = want.timestamp = want.merge = want.raw = want.xml = want.nocopy = true;
    want.file = "/f/out";
    EXPECT_EQ(options.output, want);
    Options relative;
    ASSERT_EQ(parse({"pmixrun", "--output", "tag,dir=rel", "p"}, relative, error),
              ParseOutcome::run);
    EXPECT_TRUE(relative.output.tag);
    ASSERT_FALSE(relative.output.directory.empty());
    EXPECT_EQ(relative.output.directory.front(), '/');  // made absolute, as mpirun does
    EXPECT_EQ(relative.output.directory.substr(relative.output.directory.size() - 4), "/rel");
    EXPECT_NE(error_of({"pmixrun", "--output", "ta", "p"}).find("bad --output item 'ta'"),
              std::string::npos);  // tag or tag-fullname
    EXPECT_NE(error_of({"pmixrun", "--output", "dir", "p"}).find("'dir'"), std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--output", "tag=1", "p"}).find("'tag=1'"), std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--output", "tag,,xml", "p"}).find("''"), std::string::npos);
    EXPECT_NE(error_of({"pmixrun", "--output-filename"}).find("needs a value"), std::string::npos);
}

// --stdin RANK|all|none (prterun's), default rank 0; --raw-output.
TEST(Options, StdinTargets) {
    Options defaults;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "-n", "3", "prog"}, defaults, error), ParseOutcome::run) << error;
    EXPECT_EQ(defaults.stdin_rank, 0);
    EXPECT_FALSE(defaults.output.raw);
    const std::pair<const char*, long> cases[] = {
        {"all", Options::kStdinAll}, {"none", Options::kStdinNone}, {"2", 2}};
    for (const auto& [text, rank] : cases) {
        Options options;
        ASSERT_EQ(
            parse({"pmixrun", "-n", "3", "--stdin", text, "--raw-output", "prog"}, options, error),
            ParseOutcome::run)
            << text << ": " << error;
        EXPECT_EQ(options.stdin_rank, rank) << text;
        EXPECT_TRUE(options.output.raw);
        EXPECT_EQ(stdin_target_text(options.stdin_rank), text);
    }
    EXPECT_EQ(error_of({"pmixrun", "--stdin", "x", "prog"}),
              "bad --stdin target 'x' (a rank, all or none)");
    EXPECT_EQ(error_of({"pmixrun", "--stdin", "-1", "prog"}),
              "bad --stdin target '-1' (a rank, all or none)");
    EXPECT_EQ(error_of({"pmixrun", "-n", "2", "--stdin", "2", "prog"}),
              "--stdin 2: the job has ranks 0..1");
    Options later;  // across nodes without -n the size is known later (the head checks it)
    EXPECT_EQ(parse({"pmixrun", "--host", "a:2", "--stdin", "3", "prog"}, later, error),
              ParseOutcome::run);
}

TEST(Options, PersistentLauncher) {
    Options dvm;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "--dvm", "--report-uri", "-", "--remote-tools"}, dvm, error),
              ParseOutcome::run)
        << error;
    EXPECT_TRUE(dvm.dvm);
    EXPECT_FALSE(dvm.dvm_stop);
    EXPECT_EQ(dvm.report_uri, "-");
    EXPECT_EQ(dvm.stdin_rank, Options::kStdinNone);  // no job of its own to feed
    Options stop;
    ASSERT_EQ(parse({"pmixrun", "--dvm-stop", "--pid", "42"}, stop, error), ParseOutcome::run)
        << error;
    EXPECT_TRUE(stop.dvm_stop);
    EXPECT_EQ(stop.dvm_pid, 42);
    Options by_uri;
    ASSERT_EQ(parse({"pmixrun", "--dvm-stop", "--uri", "ns.0;unix:/s"}, by_uri, error),
              ParseOutcome::run);
    EXPECT_EQ(by_uri.dvm_uri, "ns.0;unix:/s");
    EXPECT_EQ(error_of({"pmixrun", "--dvm", "hello"}),
              "--dvm takes no program (tools start jobs with PMIx_Spawn)");
    EXPECT_EQ(error_of({"pmixrun", "--dvm", "-n", "2"}),
              "--dvm runs without -n, --user or --timeout");
    Options across;  // one pmixd per node (launcher/dvm_head.h)
    ASSERT_EQ(parse({"pmixrun", "--dvm", "--host", "a,b", "--launch-agent", "ip netns exec"},
                    across, error),
              ParseOutcome::run)
        << error;
    EXPECT_TRUE(across.dvm);
    EXPECT_EQ(across.hosts, "a,b");
    EXPECT_EQ(error_of({"pmixrun", "--dvm", "--dvm-stop"}),
              "--dvm and --dvm-stop exclude each other");
    EXPECT_EQ(error_of({"pmixrun", "--pid", "3", "hello"}), "--uri and --pid go with --dvm-stop");
    EXPECT_EQ(error_of({"pmixrun", "--report-uri", "f", "hello"}), "--report-uri goes with --dvm");
    EXPECT_EQ(error_of({"pmixrun", "--dvm-stop", "--pid", "x"}), "bad --pid 'x'");
}

// --wdir (also -wdir and --wd, relative made absolute), --fork-agent and --exec-agent (prterun's
// names): how every process of the job starts.
TEST(Options, WorkingDirectoryAndAgents) {
    Options options;
    std::string error;
    ASSERT_EQ(parse({"pmixrun", "--wdir", "/scratch", "--fork-agent", "fea --opt", "--exec-agent",
                     "ea", "prog"},
                    options, error),
              ParseOutcome::run)
        << error;
    EXPECT_EQ(options.start_as.wdir, "/scratch");
    EXPECT_EQ(options.start_as.fork_agent, "fea --opt");
    EXPECT_EQ(options.start_as.exec_agent, "ea");
    EXPECT_EQ(options.argv, (std::vector<std::string>{"prog"}));
    char here[4096];
    ASSERT_NE(::getcwd(here, sizeof here), nullptr);
    for (const char* spelling : {"-wdir", "--wd"}) {
        Options relative;
        ASSERT_EQ(parse({"pmixrun", spelling, "sub/dir", "prog"}, relative, error),
                  ParseOutcome::run)
            << spelling << ": " << error;
        EXPECT_EQ(relative.start_as.wdir, std::string(here) + "/sub/dir") << spelling;
    }
    EXPECT_EQ(error_of({"pmixrun", "--wdir", "", "prog"}), "--wdir needs a value");
    EXPECT_EQ(error_of({"pmixrun", "--exec-agent"}), "--exec-agent needs a value");
}

}  // namespace
}  // namespace pmix::launcher
