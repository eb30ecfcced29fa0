// tests/unit/core/exec/test_log.cpp - levelled logging (exec/log.h): which lines are written
// for each level, where they go, and how PMIX_CPP_LOG / PMIX_CPP_LOG_FILE are read.
#include "exec/log.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using pmix::exec::LogLevel;

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A temporary file that receives the lines; stderr is restored afterwards.
class LogToFile : public ::testing::Test {
protected:
    void SetUp() override {
        char templ[] = "/tmp/pmix-log-test.XXXXXX";
        fd_ = ::mkstemp(templ);
        ASSERT_GE(fd_, 0);
        path_ = templ;
    }
    void TearDown() override {
        pmix::exec::set_log_output(LogLevel::error, -1);
        ::close(fd_);
        ::unlink(path_.c_str());
    }
    void write_one_of_each() {
        pmix::exec::log_error("t", "an error");
        pmix::exec::log_warn("t", "a warning");
        pmix::exec::log_info("t", "some information");
        pmix::exec::log_debug("t", "a trace");
    }
    int fd_ = -1;
    std::string path_;
};

TEST(LogLevels, ParsesTheFiveNamesInAnyCase) {
    EXPECT_EQ(pmix::exec::parse_log_level("none"), LogLevel::none);
    EXPECT_EQ(pmix::exec::parse_log_level("error"), LogLevel::error);
    EXPECT_EQ(pmix::exec::parse_log_level("WARN"), LogLevel::warn);
    EXPECT_EQ(pmix::exec::parse_log_level("Info"), LogLevel::info);
    EXPECT_EQ(pmix::exec::parse_log_level("debug"), LogLevel::debug);
    EXPECT_FALSE(pmix::exec::parse_log_level("verbose").has_value());
    EXPECT_FALSE(pmix::exec::parse_log_level("").has_value());
    EXPECT_FALSE(pmix::exec::parse_log_level("errors").has_value());
    EXPECT_FALSE(pmix::exec::parse_log_level("3").has_value());
}

TEST_F(LogToFile, WritesNothingBelowTheChosenLevel) {
    const struct {
        LogLevel level;
        const char* expected;
    } cases[] = {
        {LogLevel::none, ""},
        {LogLevel::error, "an error\n"},
        {LogLevel::warn, "an error\na warning\n"},
        {LogLevel::info, "an error\na warning\nsome information\n"},
        {LogLevel::debug, "an error\na warning\nsome information\na trace\n"},
    };
    for (const auto& c : cases) {
        ASSERT_EQ(::ftruncate(fd_, 0), 0);
        ASSERT_EQ(::lseek(fd_, 0, SEEK_SET), 0);
        pmix::exec::set_log_output(c.level, fd_);
        write_one_of_each();
        // Strip the "pmix[<pid>] t: " prefix of each line to compare the messages.
        std::string got;
        std::istringstream lines(read_all(path_));
        for (std::string line; std::getline(lines, line);) {
            const auto colon = line.find(" t: ");
            ASSERT_NE(colon, std::string::npos) << line;
            EXPECT_EQ(line.rfind("pmix[" + std::to_string(::getpid()) + "]", 0), 0u) << line;
            got += line.substr(colon + 4) + "\n";
        }
        EXPECT_EQ(got, c.expected) << "level " << static_cast<int>(c.level);
        EXPECT_EQ(pmix::exec::log_enabled(LogLevel::debug), c.level == LogLevel::debug);
        EXPECT_FALSE(pmix::exec::log_enabled(LogLevel::none));
    }
}

TEST_F(LogToFile, AThrowingCallbackIsAnError) {
    pmix::exec::set_log_output(LogLevel::error, fd_);
    pmix::exec::invoke_guarded("test callback", [] { throw std::runtime_error("boom"); });
    EXPECT_NE(read_all(path_).find("test callback threw: boom"), std::string::npos);
    ASSERT_EQ(::ftruncate(fd_, 0), 0);
    pmix::exec::set_log_output(LogLevel::none, fd_);
    pmix::exec::invoke_guarded("test callback", [] { throw std::runtime_error("boom"); });
    EXPECT_EQ(read_all(path_), "");
}

// The environment is read once per process, at the first line, so each case runs in a fresh
// process: this binary again, with PMIX_LOG_TEST_CHILD set, which writes one line of each level
// and exits before any test runs (with stderr closed: a line sent there would be lost).
const bool g_child_wrote = [] {
    if (std::getenv("PMIX_LOG_TEST_CHILD") == nullptr) return false;
    pmix::exec::log_error("env", "e");
    pmix::exec::log_warn("env", "w");
    pmix::exec::log_info("env", "i");
    pmix::exec::log_debug("env", "d");
    ::_exit(0);
}();

std::string run_child(const char* level, const std::string& file) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        if (level != nullptr) {
            ::setenv("PMIX_CPP_LOG", level, 1);
        } else {
            ::unsetenv("PMIX_CPP_LOG");
        }
        ::setenv("PMIX_CPP_LOG_FILE", file.c_str(), 1);
        ::setenv("PMIX_LOG_TEST_CHILD", "1", 1);
        ::close(STDERR_FILENO);
        ::execl("/proc/self/exe", "test_exec", static_cast<char*>(nullptr));
        ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    return read_all(file);
}

int count_lines(const std::string& text) {
    int n = 0;
    for (char c : text) n += c == '\n';
    return n;
}

TEST(LogEnvironment, LevelAndFileComeFromTheEnvironment) {
    const std::string file = "/tmp/pmix-log-env-test." + std::to_string(::getpid());
    ::unlink(file.c_str());
    // Unset: errors only.
    std::string text = run_child(nullptr, file);
    EXPECT_EQ(count_lines(text), 1) << text;
    EXPECT_NE(text.find("env: e"), std::string::npos);
    ::unlink(file.c_str());
    text = run_child("info", file);
    EXPECT_EQ(count_lines(text), 3) << text;
    EXPECT_EQ(text.find("env: d"), std::string::npos);
    ::unlink(file.c_str());
    text = run_child("none", file);
    EXPECT_EQ(text, "");
    ::unlink(file.c_str());
    text = run_child("DEBUG", file);
    EXPECT_EQ(count_lines(text), 4) << text;
    ::unlink(file.c_str());
    // A level we do not understand: said once, then errors only.
    text = run_child("loud", file);
    EXPECT_EQ(count_lines(text), 2) << text;
    EXPECT_NE(text.find("PMIX_CPP_LOG must be"), std::string::npos) << text;
    EXPECT_EQ(text.find("env: w"), std::string::npos) << text;
    ::unlink(file.c_str());
}

}  // namespace
