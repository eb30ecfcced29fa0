// iof_tool: attaches to a running pmixrun (--pid), pulls the stdout and stderr of every rank of
// its job with PMIX_IOF_TAG_OUTPUT and PMIX_IOF_TIMESTAMP_OUTPUT, writes what arrives to its own
// stdout until it has `lines` lines, deregisters, prints "DEREGISTERED", listens one second more
// (whatever still arrives is printed after that marker) and finalizes.
//   iof_tool --pid PID --lines N [--redirect]   (PMIX_IOF_REDIRECT: pmixrun stops printing)
// Exit 0; 2 on a failed call; 3 when the lines did not come within 20 s.
#include <pmix_tool.h>

#include "tool_common.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace {

std::atomic<long> lines{0};
std::mutex out_mu;

void on_output(size_t, pmix_iof_channel_t, pmix_proc_t*, pmix_byte_object_t* bo, pmix_info_t*,
               size_t) {
    std::lock_guard lock(out_mu);
    std::fwrite(bo->bytes, 1, bo->size, stdout);
    std::fflush(stdout);
    for (size_t i = 0; i < bo->size; ++i)
        if (bo->bytes[i] == '\n') ++lines;
}

}  // namespace

int main(int argc, char** argv) {
    pid_t pid = 0;
    long want = 10;
    bool redirect = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--redirect") == 0) redirect = true;
        if (i + 1 >= argc) continue;
        if (std::strcmp(argv[i], "--pid") == 0) pid = static_cast<pid_t>(std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--lines") == 0) want = std::atol(argv[i + 1]);
    }
    pmix_info_t info[2];
    size_t ninfo = 0;
    PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    if (const char* t = std::getenv("TMPDIR"); t != nullptr)
        PMIX_INFO_LOAD(&info[ninfo++], PMIX_SERVER_TMPDIR, t, PMIX_STRING);
    pmix_proc_t me;
    pmix_status_t rc = PMIx_tool_init(&me, info, ninfo);
    for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_DESTRUCT(&info[i]);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "tool_init: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    // pmixrun answers tools before it registers its job: ask until the job is there (10 s).
    std::string ns = iof_test::wait_job_nspace();
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, ns.c_str(), PMIX_RANK_WILDCARD);
    pmix_info_t dirs[3];
    PMIX_INFO_LOAD(&dirs[0], PMIX_IOF_TAG_OUTPUT, nullptr, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[1], PMIX_IOF_TIMESTAMP_OUTPUT, nullptr, PMIX_BOOL);
    PMIX_INFO_LOAD(&dirs[2], PMIX_IOF_REDIRECT, nullptr, PMIX_BOOL);
    const pmix_status_t id = PMIx_IOF_pull(&job, 1, dirs, redirect ? 3 : 2,
                                           PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                                           on_output, nullptr, nullptr);
    if (id < 0) {
        std::fprintf(stderr, "pull from %s: %s\n", ns.c_str(), PMIx_Error_string(id));
        PMIx_tool_finalize();
        return 2;
    }
    std::fprintf(stderr, "iof_tool: pulling %s (handler %d)\n", ns.c_str(), id);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (lines < want && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    const bool enough = lines >= want;
    rc = PMIx_IOF_deregister(static_cast<size_t>(id), nullptr, 0, nullptr, nullptr);
    {
        std::lock_guard lock(out_mu);
        std::printf("DEREGISTERED\n");
        std::fflush(stdout);
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
    PMIx_tool_finalize();
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "deregister: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    return enough ? 0 : 3;
}
