// Process sets through the public server API: a host (no query callback) forks two clients
// (pset_client), defines sets while they run and deletes one; the clients see the events with
// the set's name and members, their own PMIX_PSET_NAMES before and after, and the library's
// answers to the process-set query keys. Bad calls get clear errors.
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
#include <string>
#include <vector>

#ifndef PSET_CLIENT
#error "PSET_CLIENT: path of pset_client"
#endif

namespace {

constexpr const char* kJob = "pset.job";

struct Child {
    pid_t pid = -1;
    int out = -1;
    std::string text;
    bool eof = false;
};

class PsetHost : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/pmix-pset.XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl), nullptr);
        dir_ = tmpl;
        pmix_info_t info;
        PMIX_INFO_LOAD(&info, PMIX_SERVER_TMPDIR, dir_.c_str(), PMIX_STRING);
        pmix_server_module_t module;
        std::memset(&module, 0, sizeof module);
        ASSERT_EQ(PMIx_server_init(&module, &info, 1), PMIX_SUCCESS);
        PMIX_INFO_DESTRUCT(&info);
        char host[HOST_NAME_MAX + 1] = {};
        ::gethostname(host, sizeof host - 1);
        pmix_info_t job[4];
        const uint32_t size = 2, node_id = 0;
        PMIX_INFO_LOAD(&job[0], PMIX_NODE_MAP, host, PMIX_STRING);
        PMIX_INFO_LOAD(&job[1], PMIX_PROC_MAP, "0,1", PMIX_STRING);
        PMIX_INFO_LOAD(&job[2], PMIX_JOB_SIZE, &size, PMIX_UINT32);
        pmix_info_t node[3];  // this node's array, as prte registers one (PMIX_LOCAL_PROCS)
        PMIX_INFO_LOAD(&node[0], PMIX_HOSTNAME, host, PMIX_STRING);
        PMIX_INFO_LOAD(&node[1], PMIX_NODEID, &node_id, PMIX_UINT32);
        PMIX_INFO_LOAD(&node[2], PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
        pmix_data_array_t node_array{PMIX_INFO, 3, node};
        PMIX_INFO_LOAD(&job[3], PMIX_NODE_INFO_ARRAY, &node_array, PMIX_DATA_ARRAY);
        for (auto& i : node) PMIX_INFO_DESTRUCT(&i);
        for (pmix_rank_t r = 0; r < 2; ++r) {
            pmix_proc_t p;
            PMIX_LOAD_PROCID(&p, kJob, r);
            ASSERT_EQ(
                PMIx_server_register_client(&p, ::getuid(), ::getgid(), nullptr, nullptr, nullptr),
                PMIX_SUCCESS);
        }
        ASSERT_EQ(PMIx_server_register_nspace(kJob, 2, job, 4, nullptr, nullptr), PMIX_SUCCESS);
        for (auto& i : job) PMIX_INFO_DESTRUCT(&i);
    }
    void TearDown() override {
        for (Child& c : children_) {
            if (c.pid > 0) {
                ::kill(c.pid, SIGKILL);
                ::waitpid(c.pid, nullptr, 0);
            }
            if (c.out >= 0) ::close(c.out);
        }
        PMIx_server_finalize();
        std::filesystem::remove_all(dir_);
    }
    void start(pmix_rank_t rank) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, kJob, rank);
        char** env = nullptr;
        ASSERT_EQ(PMIx_server_setup_fork(&p, &env), PMIX_SUCCESS);
        int out[2];
        ASSERT_EQ(::pipe(out), 0);
        Child& c = children_.emplace_back();
        c.pid = ::fork();
        if (c.pid == 0) {
            ::dup2(out[1], 1);
            char* argv[] = {const_cast<char*>(PSET_CLIENT), nullptr};
            ::execve(argv[0], argv, env);
            ::_exit(127);
        }
        PMIX_ARGV_FREE(env);
        ::close(out[1]);
        c.out = out[0];
    }
    // Reads the children's output until each printed `line` (or EOF); false on the deadline.
    bool wait_line(const std::string& line) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        auto all_have = [&] {
            for (const Child& c : children_)
                if (!c.eof && c.text.find(line + "\n") == std::string::npos) return false;
            return true;
        };
        while (!all_have()) {
            if (std::chrono::steady_clock::now() >= deadline) return false;
            for (Child& c : children_) {
                pollfd pfd{c.out, POLLIN, 0};
                if (c.eof || ::poll(&pfd, 1, 50) <= 0) continue;
                char buf[4096];
                const ssize_t n = ::read(c.out, buf, sizeof buf);
                if (n <= 0) c.eof = true;
                else c.text.append(buf, static_cast<size_t>(n));
            }
        }
        return true;
    }
    std::string dir_;
    std::vector<Child> children_;
};

TEST_F(PsetHost, DefineAndDeleteReachClientsWithTheirMembership) {
    start(0);
    start(1);
    ASSERT_TRUE(wait_line("ready"));
    pmix_proc_t both[2], second[1];
    PMIX_LOAD_PROCID(&both[0], kJob, 0);
    PMIX_LOAD_PROCID(&both[1], kJob, 1);
    PMIX_LOAD_PROCID(&second[0], kJob, 1);
    EXPECT_EQ(PMIx_server_define_process_set(both, 2, "blue"), PMIX_OPERATION_SUCCEEDED);
    EXPECT_EQ(PMIx_server_define_process_set(second, 1, "solo"), PMIX_OPERATION_SUCCEEDED);
    // Bad calls: clear errors, no event.
    EXPECT_EQ(PMIx_server_define_process_set(both, 2, "blue"), PMIX_ERR_EXISTS);
    EXPECT_EQ(PMIx_server_define_process_set(both, 2, nullptr), PMIX_ERR_BAD_PARAM);
    EXPECT_EQ(PMIx_server_define_process_set(nullptr, 2, "x"), PMIX_ERR_BAD_PARAM);
    const std::string too_long(PMIX_MAX_NSLEN + 1, 'n');
    EXPECT_EQ(PMIx_server_define_process_set(both, 2, too_long.c_str()), PMIX_ERR_BAD_PARAM);
    char nosuch[] = "nosuch";
    EXPECT_EQ(PMIx_server_delete_process_set(nosuch), PMIX_ERR_NOT_FOUND);
    ASSERT_TRUE(wait_line("defined-seen"));
    char blue[] = "blue";
    EXPECT_EQ(PMIx_server_delete_process_set(blue), PMIX_OPERATION_SUCCEEDED);
    ASSERT_TRUE(wait_line("done"));
    const std::string common = "ready\ndefine blue 0,1\ndefine solo 1\n";
    const std::string query =
        "query SUCCESS 2 blue,solo 0,1\nlocal-procs SUCCESS 0,1 NOT-FOUND\ndefined-seen\n"
        "delete blue\n";
    EXPECT_EQ(children_[0].text,
              common + "names blue\n" + query + "names-after (none)\ndefault-handler 0\ndone\n");
    EXPECT_EQ(children_[1].text,
              common + "names blue,solo\n" + query + "names-after solo\ndefault-handler 0\ndone\n");
    for (Child& c : children_) {
        int status = 0;
        ASSERT_EQ(::waitpid(c.pid, &status, 0), c.pid);
        c.pid = -1;
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
}

TEST(PsetHostNoServer, CallsBeforeInitAreRefused) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, kJob, 0);
    char name[] = "x";
    EXPECT_EQ(PMIx_server_define_process_set(&p, 1, "x"), PMIX_ERR_INIT);
    EXPECT_EQ(PMIx_server_delete_process_set(name), PMIX_ERR_INIT);
}

}  // namespace
