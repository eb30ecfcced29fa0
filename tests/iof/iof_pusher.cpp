// iof_pusher: attaches to a running pmixrun (--pid) and sends rank 0 (--rank R: rank R) of its
// job input with PMIx_IOF_push: the contents of --file in 64 KiB pushes, then PMIX_IOF_COMPLETE;
// or, with --stdin, PMIX_IOF_PUSH_STDIN (the library forwards our own stdin up to EOF) and then
// waits for the file --until to exist (at most 60 s) before finalizing. Prints "push <status>".
#include <pmix_tool.h>

#include "tool_common.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

int main(int argc, char** argv) {
    pid_t pid = 0;
    std::string file, until;
    bool from_stdin = false;
    pmix_rank_t rank = 0;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--pid") == 0 && i + 1 < argc) pid = std::atoi(argv[++i]);
        else if (std::strcmp(argv[i], "--file") == 0 && i + 1 < argc) file = argv[++i];
        else if (std::strcmp(argv[i], "--until") == 0 && i + 1 < argc) until = argv[++i];
        else if (std::strcmp(argv[i], "--stdin") == 0) from_stdin = true;
        else if (std::strcmp(argv[i], "--rank") == 0 && i + 1 < argc)
            rank = static_cast<pmix_rank_t>(std::atoi(argv[++i]));
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
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, ns.c_str(), rank);
    int failures = 0;
    if (from_stdin) {
        pmix_info_t dir;
        PMIX_INFO_LOAD(&dir, PMIX_IOF_PUSH_STDIN, nullptr, PMIX_BOOL);
        rc = PMIx_IOF_push(&target, 1, nullptr, &dir, 1, nullptr, nullptr);
        PMIX_INFO_DESTRUCT(&dir);
        std::printf("push stdin %s\n", PMIx_Error_string(rc));
        failures += rc != PMIX_OPERATION_SUCCEEDED;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (access(until.c_str(), F_OK) != 0 && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } else {
        std::ifstream in(file, std::ios::binary);
        const std::string data((std::istreambuf_iterator<char>(in)), {});
        for (size_t at = 0; at < data.size(); at += 65536) {
            pmix_byte_object_t bo{const_cast<char*>(data.data() + at),
                                  std::min<size_t>(65536, data.size() - at)};
            rc = PMIx_IOF_push(&target, 1, &bo, nullptr, 0, nullptr, nullptr);
            if (rc != PMIX_SUCCESS) {
                std::printf("push data %s\n", PMIx_Error_string(rc));
                ++failures;
                break;
            }
        }
        pmix_info_t dir;
        PMIX_INFO_LOAD(&dir, PMIX_IOF_COMPLETE, nullptr, PMIX_BOOL);
        rc = PMIx_IOF_push(&target, 1, nullptr, &dir, 1, nullptr, nullptr);
        std::printf("push complete %s\n", PMIx_Error_string(rc));
        failures += rc != PMIX_SUCCESS;
        // Input already ended: a second COMPLETE is refused.
        rc = PMIx_IOF_push(&target, 1, nullptr, &dir, 1, nullptr, nullptr);
        std::printf("push again %s\n", PMIx_Error_string(rc));
        failures += rc != PMIX_ERR_IOF_COMPLETE;
        PMIX_INFO_DESTRUCT(&dir);
    }
    std::fflush(stdout);
    PMIx_tool_finalize();
    return failures == 0 ? 0 : 2;
}
