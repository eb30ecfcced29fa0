// iof_files_tool: attaches to a running pmixrun (--pid), makes one PMIx_IOF_pull with a NULL
// callback (the library writes the output itself) of stdout and stderr of every rank of its job,
// with the directives of --pull, a comma list of:
//   file=PATH  dir=PATH  pattern  fonly  merge  local=false  tag
// It reports "iof_files_tool: nspace <ns>" and "iof_files_tool: pull <id or error name>" on
// stderr, creates the file --ready, waits until the file --until exists (at most 30 s),
// deregisters and finalizes. Exit 0 after a successful pull; 4 when the pull failed (reported).
#include <pmix_tool.h>

#include "tool_common.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

// The directives of a --pull list; strings stay in `store` while the infos are used.
std::vector<pmix_info_t> directives(const std::string& spec) {
    std::vector<pmix_info_t> dirs;
    size_t at = 0;
    while (at <= spec.size() && !spec.empty()) {
        const size_t comma = spec.find(',', at);
        const std::string item = spec.substr(at, comma == std::string::npos ? comma : comma - at);
        pmix_info_t d;
        const bool no = false;
        if (item.rfind("file=", 0) == 0) {
            PMIX_INFO_LOAD(&d, PMIX_IOF_OUTPUT_TO_FILE, item.c_str() + 5, PMIX_STRING);
        } else if (item.rfind("dir=", 0) == 0) {
            PMIX_INFO_LOAD(&d, PMIX_IOF_OUTPUT_TO_DIRECTORY, item.c_str() + 4, PMIX_STRING);
        } else if (item == "pattern") {
            PMIX_INFO_LOAD(&d, PMIX_IOF_FILE_PATTERN, nullptr, PMIX_BOOL);
        } else if (item == "fonly") {
            PMIX_INFO_LOAD(&d, PMIX_IOF_FILE_ONLY, nullptr, PMIX_BOOL);
        } else if (item == "merge") {
            PMIX_INFO_LOAD(&d, PMIX_IOF_MERGE_STDERR_STDOUT, nullptr, PMIX_BOOL);
        } else if (item == "local=false") {
            PMIX_INFO_LOAD(&d, PMIX_IOF_LOCAL_OUTPUT, &no, PMIX_BOOL);
        } else if (item == "tag") {
            PMIX_INFO_LOAD(&d, PMIX_IOF_TAG_OUTPUT, nullptr, PMIX_BOOL);
        } else {
            std::fprintf(stderr, "iof_files_tool: unknown directive %s\n", item.c_str());
            std::exit(2);
        }
        dirs.push_back(d);
        if (comma == std::string::npos) break;
        at = comma + 1;
    }
    return dirs;
}

bool wait_for(const char* path, int seconds) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (::access(path, F_OK) != 0) {
        if (std::chrono::steady_clock::now() > end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    pid_t pid = 0;
    std::string spec, ready = "/dev/null", until = "/";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--pid") == 0) pid = static_cast<pid_t>(std::atoi(argv[i + 1]));
        if (std::strcmp(argv[i], "--pull") == 0) spec = argv[i + 1];
        if (std::strcmp(argv[i], "--ready") == 0) ready = argv[i + 1];
        if (std::strcmp(argv[i], "--until") == 0) until = argv[i + 1];
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
        std::fprintf(stderr, "iof_files_tool: tool_init: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    std::string ns = iof_test::wait_job_nspace();
    std::fprintf(stderr, "iof_files_tool: nspace %s\n", ns.c_str());
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, ns.c_str(), PMIX_RANK_WILDCARD);
    std::vector<pmix_info_t> dirs = directives(spec);
    const pmix_status_t id =
        PMIx_IOF_pull(&job, 1, dirs.data(), dirs.size(),
                      PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL, nullptr, nullptr, nullptr);
    for (pmix_info_t& d : dirs) PMIX_INFO_DESTRUCT(&d);
    std::fprintf(stderr, "iof_files_tool: pull %s\n",
                 id < 0 ? PMIx_Error_string(id) : std::to_string(id).c_str());
    if (FILE* f = std::fopen(ready.c_str(), "w"); f != nullptr) std::fclose(f);
    if (id >= 0) {
        if (!wait_for(until.c_str(), 30))
            std::fprintf(stderr, "iof_files_tool: no %s\n", until.c_str());
        rc = PMIx_IOF_deregister(static_cast<size_t>(id), nullptr, 0, nullptr, nullptr);
        if (rc != PMIX_SUCCESS)
            std::fprintf(stderr, "iof_files_tool: deregister: %s\n", PMIx_Error_string(rc));
    }
    std::fflush(stdout);
    PMIx_tool_finalize();
    return id < 0 ? 4 : (rc == PMIX_SUCCESS ? 0 : 2);
}
