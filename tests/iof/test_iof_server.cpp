// IO forwarding through the public API with real processes: this test is the host (its own
// iof_pull upcall), delivers output with PMIx_server_IOF_deliver, and runs iof_puller as a client
// that pulls it. Covers the cache held until someone registers, live delivery, byte-exact binary
// data, deregistration (flushed, then nothing more), formatting at the receiver (tags, timestamps,
// XML, rank), buffering by size, both cache-overflow policies, and a host without iof_pull.
#include <pmix_server.h>

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#ifndef IOF_PULLER
#error "IOF_PULLER: path of iof_puller"
#endif

namespace {

// What the host's iof_pull upcall saw.
struct PullLog {
    std::mutex mu;
    int pulls = 0;
    int stops = 0;
    bool copy = false;
    pmix_iof_channel_t channels = PMIX_FWD_NO_CHANNELS;
} g_log;

pmix_status_t host_iof_pull(const pmix_proc_t[], size_t, const pmix_info_t dirs[], size_t ndirs,
                            pmix_iof_channel_t channels, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(g_log.mu);
        bool stop = false;
        for (size_t i = 0; i < ndirs; ++i) {
            if (PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_STOP)) stop = PMIX_INFO_TRUE(&dirs[i]);
            if (PMIX_CHECK_KEY(&dirs[i], PMIX_IOF_COPY)) g_log.copy = PMIX_INFO_TRUE(&dirs[i]);
        }
        (stop ? g_log.stops : g_log.pulls)++;
        g_log.channels = channels;
    }
    cbfunc(PMIX_SUCCESS, cbdata);  // inline, as a lock-holding host may: the library posts it
    return PMIX_SUCCESS;
}

const char* kJob = "iof.job";    // the source (no process: the host delivers its output)
const char* kTool = "iof.tool";  // the puller's namespace

class IofServerTest : public ::testing::Test {
public:
    void start(std::vector<pmix_info_t> extra = {}, bool with_pull = true) {
        std::string tmpl = "/tmp/pmix-iof.XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
        extra.emplace_back();
        PMIX_INFO_LOAD(&extra.back(), PMIX_SERVER_TMPDIR, dir_.c_str(), PMIX_STRING);
        extra.emplace_back();
        PMIX_INFO_LOAD(&extra.back(), PMIX_SYSTEM_TMPDIR, dir_.c_str(), PMIX_STRING);
        pmix_server_module_t module;
        std::memset(&module, 0, sizeof module);
        if (with_pull) module.iof_pull = host_iof_pull;
        ASSERT_EQ(PMIx_server_init(&module, extra.data(), extra.size()), PMIX_SUCCESS);
        for (auto& i : extra) PMIX_INFO_DESTRUCT(&i);
        running_ = true;
        char host[HOST_NAME_MAX + 1] = {};
        ::gethostname(host, sizeof host - 1);
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, host, PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, "0", PMIX_STRING);
        ASSERT_EQ(PMIx_server_register_nspace(kTool, 1, info, 2, nullptr, nullptr), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        std::lock_guard lock(g_log.mu);
        g_log.pulls = g_log.stops = 0;
        g_log.copy = false;
    }
    void TearDown() override {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        for (int fd : {out_, err_, in_})
            if (fd >= 0) ::close(fd);
        if (running_) {
            EXPECT_EQ(PMIx_server_finalize(), PMIX_SUCCESS);
        }
        std::error_code ec;
        if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
    }

    // Runs iof_puller as rank 0 of kTool with `args`.
    void run_puller(std::vector<std::string> args) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, kTool, 0);
        ASSERT_EQ(
            PMIx_server_register_client(&p, ::getuid(), ::getgid(), nullptr, nullptr, nullptr),
            PMIX_SUCCESS);
        char** env = nullptr;
        ASSERT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
        args.insert(args.begin(), IOF_PULLER);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        int out[2], err[2], in[2];
        ASSERT_EQ(::pipe(out), 0);
        ASSERT_EQ(::pipe(err), 0);
        ASSERT_EQ(::pipe(in), 0);
        pid_ = ::fork();
        if (pid_ == 0) {
            ::dup2(in[0], 0);
            ::dup2(out[1], 1);
            ::dup2(err[1], 2);
            for (int fd : {out[0], out[1], err[0], err[1], in[0], in[1]}) ::close(fd);
            ::execve(argv[0], argv.data(), env);
            ::_exit(127);
        }
        PMIX_ARGV_FREE(env);
        ::close(out[1]);
        ::close(err[1]);
        ::close(in[0]);
        out_ = out[0];
        err_ = err[0];
        in_ = in[1];
    }
    // Reads the puller's stderr until a line starting with `what` (true) or 20 s / EOF.
    bool wait_for(const std::string& what) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (std::chrono::steady_clock::now() < deadline) {
            for (auto nl = errtext_.find('\n', scanned_); nl != std::string::npos;
                 nl = errtext_.find('\n', scanned_)) {
                const std::string line = errtext_.substr(scanned_, nl - scanned_);
                scanned_ = nl + 1;
                if (line.rfind(what, 0) == 0) return true;
            }
            pollfd pfd{err_, POLLIN, 0};
            if (::poll(&pfd, 1, 100) <= 0) continue;
            char buf[512];
            const ssize_t n = ::read(err_, buf, sizeof buf);
            if (n <= 0) return false;
            errtext_.append(buf, static_cast<size_t>(n));
        }
        return false;
    }
    // The puller's whole stdout and its exit status (-1 if it had to be killed after 20 s).
    std::pair<std::string, int> finish() {
        if (in_ >= 0) ::close(in_);
        in_ = -1;
        std::string text;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        char buf[4096];
        while (std::chrono::steady_clock::now() < deadline) {
            pollfd pfd{out_, POLLIN, 0};
            if (::poll(&pfd, 1, 100) <= 0) continue;
            const ssize_t n = ::read(out_, buf, sizeof buf);
            if (n <= 0) break;
            text.append(buf, static_cast<size_t>(n));
        }
        int status = 0;
        while (::waitpid(pid_, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() >= deadline) return {text, -1};
            ::usleep(5000);
        }
        pid_ = -1;
        wait_for("\x01");  // collect the rest of stderr for diagnostics
        return {text, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
    }
    static pmix_status_t deliver(const std::string& bytes, pmix_rank_t rank = 0,
                                 pmix_iof_channel_t channel = PMIX_FWD_STDOUT_CHANNEL) {
        pmix_proc_t src;
        PMIX_LOAD_PROCID(&src, kJob, rank);
        pmix_byte_object_t bo{const_cast<char*>(bytes.data()), bytes.size()};
        return PMIx_server_IOF_deliver(&src, channel, &bo, nullptr, 0, nullptr, nullptr);
    }

    std::string dir_;
    bool running_ = false;
    std::string errtext_;
    pid_t pid_ = -1;
    int out_ = -1, err_ = -1, in_ = -1;
    std::size_t scanned_ = 0;
};
using IofServer = IofServerTest;

std::string binary_block() {
    std::string b;
    for (int round = 0; round < 4; ++round)
        for (int c = 0; c < 256; ++c) b.push_back(static_cast<char>(c));
    return b;
}

// Output delivered before anyone registers is held and handed to the first puller; live output
// follows byte for byte; after deregistration nothing more arrives (it is cached again).
TEST_F(IofServer, CachedThenLiveThenDeregistered) {
    start();
    const std::string early = "early line\n";
    ASSERT_EQ(deliver(early), PMIX_OPERATION_SUCCEEDED);
    const std::string bin = binary_block();
    run_puller({kJob, "*", std::to_string(early.size() + bin.size()), "cb", "copy"});
    ASSERT_TRUE(wait_for("ready")) << errtext_;
    ASSERT_EQ(deliver(bin), PMIX_OPERATION_SUCCEEDED);
    ASSERT_TRUE(wait_for("deregistered")) << errtext_;
    ASSERT_EQ(deliver("late\n"), PMIX_OPERATION_SUCCEEDED);
    auto [out, status] = finish();
    EXPECT_EQ(status, 0) << errtext_;
    EXPECT_EQ(out, early + bin);
    std::lock_guard lock(g_log.mu);
    EXPECT_EQ(g_log.pulls, 1);
    EXPECT_EQ(g_log.stops, 1);
    EXPECT_TRUE(g_log.copy);  // the directives reach the host
    EXPECT_EQ(g_log.channels, PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL);
}

// Tags and timestamps, written by the library to the puller's own stdout (NULL callback); a
// partial line waits for its end, the last one is flushed at deregistration.
TEST_F(IofServer, TaggedTimestampedToOwnStdout) {
    start();
    run_puller({kJob, "0", "0", "null", "tag", "timestamp"});
    ASSERT_TRUE(wait_for("ready")) << errtext_;
    ASSERT_EQ(deliver("a\nb"), PMIX_OPERATION_SUCCEEDED);
    ASSERT_EQ(deliver("c\nd", 0, PMIX_FWD_STDOUT_CHANNEL), PMIX_OPERATION_SUCCEEDED);
    ASSERT_EQ(deliver("other rank\n", 1), PMIX_OPERATION_SUCCEEDED);  // not pulled
    ::usleep(300000);
    auto [out, status] = finish();
    EXPECT_EQ(status, 0) << errtext_;
    const std::string when = R"(\[\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\])";
    const std::regex expected(when + R"(\[iof\.job,0\]<stdout>: a\n)" + when +
                              R"(\[iof\.job,0\]<stdout>: bc\n)" + when +
                              R"(\[iof\.job,0\]<stdout>: d)");
    EXPECT_TRUE(std::regex_match(out, expected)) << out;
}

TEST_F(IofServer, XmlAndRankFormats) {
    start();
    run_puller({kJob, "0", "0", "null", "xml"});
    ASSERT_TRUE(wait_for("ready")) << errtext_;
    ASSERT_EQ(deliver("x<y&z>\n"), PMIX_OPERATION_SUCCEEDED);
    ASSERT_EQ(deliver("err\n", 0, PMIX_FWD_STDERR_CHANNEL), PMIX_OPERATION_SUCCEEDED);
    ::usleep(300000);
    auto [out, status] = finish();
    EXPECT_EQ(status, 0) << errtext_;
    EXPECT_EQ(out, "<stdout rank=\"0\">x&lt;y&amp;z&gt;&#010;</stdout>\n");  // stderr: to stderr
    EXPECT_NE(errtext_.find("<stderr rank=\"0\">err&#010;</stderr>\n"), std::string::npos)
        << errtext_;
}

TEST_F(IofServer, RankTagThroughCallback) {
    start();
    run_puller({kJob, "*", "24", "cb", "rank"});
    ASSERT_TRUE(wait_for("ready")) << errtext_;
    ASSERT_EQ(deliver("one\n", 3), PMIX_OPERATION_SUCCEEDED);
    ASSERT_EQ(deliver("two\n", 4, PMIX_FWD_STDERR_CHANNEL), PMIX_OPERATION_SUCCEEDED);
    auto [out, status] = finish();
    EXPECT_EQ(status, 0) << errtext_;
    EXPECT_EQ(out, "[3]<stdout>: one\n[4]<stderr>: two\n");
}

// PMIX_IOF_BUFFERING_SIZE: the callback runs once 10 bytes are there; the rest at deregistration.
TEST_F(IofServer, BufferingBySize) {
    start();
    run_puller({kJob, "0", "12", "cb", "bufsize=10"});
    ASSERT_TRUE(wait_for("ready")) << errtext_;
    for (const char* piece : {"abc", "def", "ghi", "jkl"}) {
        ASSERT_EQ(deliver(piece), PMIX_OPERATION_SUCCEEDED);
    }
    auto [out, status] = finish();
    EXPECT_EQ(status, 0) << errtext_;
    EXPECT_EQ(out, "abcdefghijkl");
    EXPECT_NE(errtext_.find("cb 12\n"), std::string::npos) << errtext_;
    EXPECT_EQ(errtext_.find("cb 3\n"), std::string::npos) << errtext_;
}

// A stream's end (an empty chunk with PMIX_IOF_COMPLETE, as pmixrun delivers at EOF) flushes a
// partial last line at once, tagged, and reaches the callback with its info.
TEST_F(IofServer, CompleteFlushesPartialLine) {
    start();
    const std::string want = "[iof.job,0]<stdout>: partial";
    run_puller({kJob, "0", std::to_string(want.size()), "cb", "tag"});
    ASSERT_TRUE(wait_for("ready")) << errtext_;
    ASSERT_EQ(deliver("partial"), PMIX_OPERATION_SUCCEEDED);
    pmix_proc_t src;
    PMIX_LOAD_PROCID(&src, kJob, 0);
    pmix_info_t end;
    PMIX_INFO_LOAD(&end, PMIX_IOF_COMPLETE, nullptr, PMIX_BOOL);
    pmix_byte_object_t none{nullptr, 0};
    ASSERT_EQ(
        PMIx_server_IOF_deliver(&src, PMIX_FWD_STDOUT_CHANNEL, &none, &end, 1, nullptr, nullptr),
        PMIX_OPERATION_SUCCEEDED);
    PMIX_INFO_DESTRUCT(&end);
    auto [out, status] = finish();
    EXPECT_EQ(status, 0) << errtext_;  // got it before deregistering (the puller waits for it)
    EXPECT_EQ(out, want);
    EXPECT_NE(errtext_.find("complete\ncb " + std::to_string(want.size()) + "\n"),
              std::string::npos)
        << errtext_;
}

pmix_info_t cache_size(uint32_t n) {
    pmix_info_t i;
    PMIX_INFO_LOAD(&i, PMIX_IOF_CACHE_SIZE, &n, PMIX_UINT32);
    return i;
}

// Overflows a cache of 8 bytes ("0123456789" then "abc", before anyone registers) and returns
// what the first puller receives.
std::string pulled_after_overflow(IofServerTest& t, std::vector<pmix_info_t> config) {
    config.push_back(cache_size(8));
    t.start(std::move(config));
    EXPECT_EQ(t.deliver("0123456789"), PMIX_OPERATION_SUCCEEDED);
    EXPECT_EQ(t.deliver("abc"), PMIX_OPERATION_SUCCEEDED);
    t.run_puller({kJob, "0", "8", "cb"});
    EXPECT_TRUE(t.wait_for("ready")) << t.errtext_;
    auto [out, status] = t.finish();
    EXPECT_EQ(status, 0) << t.errtext_;
    return out;
}

// The default policy (PMIX_IOF_DROP_NEWEST): the first 8 bytes stay.
TEST_F(IofServer, CacheOverflowDropsNewest) {
    EXPECT_EQ(pulled_after_overflow(*this, {}), "01234567");
}

// PMIX_IOF_DROP_OLDEST: the newest 8 bytes stay.
TEST_F(IofServer, CacheOverflowDropsOldest) {
    pmix_info_t oldest;
    PMIX_INFO_LOAD(&oldest, PMIX_IOF_DROP_OLDEST, nullptr, PMIX_BOOL);
    EXPECT_EQ(pulled_after_overflow(*this, {oldest}), "56789abc");
}

// A host without iof_pull: the pull is refused with PMIX_ERR_NOT_SUPPORTED (as OpenPMIx).
TEST_F(IofServer, HostWithoutIofPull) {
    start({}, false);
    run_puller({kJob, "0", "1", "cb"});
    auto [out, status] = finish();
    EXPECT_EQ(status, 2);
    EXPECT_NE(errtext_.find("pull " + std::to_string(PMIX_ERR_NOT_SUPPORTED) + "\n"),
              std::string::npos)
        << errtext_;
}

TEST_F(IofServer, BadArguments) {
    start();
    pmix_proc_t src;
    PMIX_LOAD_PROCID(&src, kJob, 0);
    pmix_byte_object_t bo{const_cast<char*>("x"), 1};
    EXPECT_EQ(PMIx_server_IOF_deliver(nullptr, PMIX_FWD_STDOUT_CHANNEL, &bo, nullptr, 0, nullptr,
                                      nullptr),
              PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(
        PMIx_server_IOF_deliver(&src, PMIX_FWD_STDIN_CHANNEL, &bo, nullptr, 0, nullptr, nullptr),
        PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_IOF_deliver(&src, PMIX_FWD_STDOUT_CHANNEL, nullptr, nullptr, 0, nullptr,
                                      nullptr),
              PMIX_ERR_BAD_PARAM);
}

}  // namespace
