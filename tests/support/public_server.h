// tests/support/public_server.h - scaffolding for tests that act as a host through the public
// server API (pmix_server.h) of libpmix: a fixture that starts the server in a fresh temporary
// directory, and the wait for a PMIx_server_setup_application answer. Header-only; public
// headers and gtest only, so a test of either library (ours or OpenPMIx) can use it.
#pragma once

#include <pmix_server.h>

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace pmix_test {

// What a setup_application callback delivered: its status and a copy of its info. The copies are
// released with the object.
struct AppSetupAnswer {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    pmix_status_t status = PMIX_ERROR;
    std::vector<pmix_info_t> info;

    AppSetupAnswer() = default;
    AppSetupAnswer(const AppSetupAnswer&) = delete;
    AppSetupAnswer& operator=(const AppSetupAnswer&) = delete;
    ~AppSetupAnswer() {
        for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
    }

    // The pmix_setup_application_cbfunc_t; `provided` is the AppSetupAnswer.
    static void deliver(pmix_status_t status, pmix_info_t in[], size_t ninfo, void* provided,
                        pmix_op_cbfunc_t release, void* release_data) {
        auto* a = static_cast<AppSetupAnswer*>(provided);
        std::lock_guard lock(a->mu);
        a->status = status;
        for (size_t i = 0; i < ninfo; ++i) PMIx_Info_xfer(&a->info.emplace_back(), &in[i]);
        if (release != nullptr) release(PMIX_SUCCESS, release_data);
        a->done = true;
        a->cv.notify_all();
    }

    // The callback's status, or PMIX_ERR_TIMEOUT when it did not come within `limit`.
    pmix_status_t wait(std::chrono::seconds limit = std::chrono::seconds(10)) {
        std::unique_lock lock(mu);
        cv.wait_for(lock, limit, [&] { return done; });
        return done ? status : PMIX_ERR_TIMEOUT;
    }
};

// Runs argv[0] (a path) with `env` (a NULL-terminated PMIX_ARGV array, freed here), its stdout
// captured; killed when it runs longer than `limit`. Its output, with "[timed out]" appended when
// it overran; "pipe failed" when no pipe could be made.
inline std::string run_captured(char* const argv[], char** env, std::chrono::seconds limit) {
    int out[2];
    if (::pipe(out) != 0) {
        PMIX_ARGV_FREE(env);
        return "pipe failed";
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::close(out[0]);
        ::execve(argv[0], argv, env);
        ::_exit(127);
    }
    PMIX_ARGV_FREE(env);
    ::close(out[1]);
    std::string text;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    char buf[4096];
    while (std::chrono::steady_clock::now() < deadline) {
        pollfd pfd{out[0], POLLIN, 0};
        if (::poll(&pfd, 1, 200) <= 0) continue;
        const ssize_t n = ::read(out[0], buf, sizeof buf);
        if (n <= 0) break;
        text.append(buf, static_cast<size_t>(n));
    }
    ::close(out[0]);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() >= deadline) {  // still running: give up
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            text += "[timed out]";
            break;
        }
        ::usleep(5000);
    }
    return text;
}

// A server with an empty host module, its tmpdirs in a fresh directory removed afterwards.
class PublicServerTest : public ::testing::Test {
protected:
    // `prefix` names the temporary directory (/tmp/<prefix>.XXXXXX).
    explicit PublicServerTest(std::string prefix) : prefix_(std::move(prefix)) {}

    void SetUp() override {
        std::string tmpl = "/tmp/" + prefix_ + ".XXXXXX";
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
        pmix_info_t info[2];
        PMIX_INFO_LOAD(&info[0], PMIX_SERVER_TMPDIR, dir_.c_str(), PMIX_STRING);
        PMIX_INFO_LOAD(&info[1], PMIX_SYSTEM_TMPDIR, dir_.c_str(), PMIX_STRING);
        pmix_server_module_t module;
        std::memset(&module, 0, sizeof module);
        const pmix_status_t rc = PMIx_server_init(&module, info, 2);
        PMIX_INFO_DESTRUCT(&info[0]);
        PMIX_INFO_DESTRUCT(&info[1]);
        ASSERT_EQ(rc, PMIX_SUCCESS);
        char host[HOST_NAME_MAX + 1] = {};
        ::gethostname(host, sizeof host - 1);
        host_ = host;
    }
    void TearDown() override {
        PMIx_server_finalize();
        std::filesystem::remove_all(dir_);
    }

    std::string prefix_, dir_, host_;
};

}  // namespace pmix_test
