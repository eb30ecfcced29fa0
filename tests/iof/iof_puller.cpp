// iof_puller: a client that pulls one source's stdout and stderr and writes what it receives to
// its own stdout (through its callback, or the library's own writing with "null").
//   iof_puller <nspace> <rank|*> <expect-bytes> <cb|null> [tag|timestamp|xml|rank|raw|
//              fullname|bufsize=N|buftime=N|copy|redirect]...
// stderr carries the protocol with the test: "ready" once the pull is registered, "cb <n>" for
// each callback (after "complete" when it carries PMIX_IOF_COMPLETE), "deregistered" after
// PMIx_IOF_deregister; then it listens one second more (the test delivers again: nothing may
// arrive) and exits 0; 2 on a failed call, 3 on a timeout.
#include <pmix.h>
#include <pmix_tool.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<std::size_t> received{0};

void on_output(size_t, pmix_iof_channel_t, pmix_proc_t*, pmix_byte_object_t* bo, pmix_info_t* info,
               size_t ninfo) {
    for (size_t i = 0; i < ninfo; ++i)
        if (PMIX_CHECK_KEY(&info[i], PMIX_IOF_COMPLETE)) std::fprintf(stderr, "complete\n");
    std::size_t done = 0;
    while (done < bo->size) {
        const ssize_t n = ::write(1, bo->bytes + done, bo->size - done);
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    std::fprintf(stderr, "cb %zu\n", bo->size);
    received += bo->size;
}

pmix_info_t flag(const char* key) {
    pmix_info_t i;
    PMIX_INFO_LOAD(&i, key, nullptr, PMIX_BOOL);
    return i;
}

pmix_info_t uint(const char* key, const char* text) {
    pmix_info_t i;
    const uint32_t v = static_cast<uint32_t>(std::strtoul(text, nullptr, 10));
    PMIX_INFO_LOAD(&i, key, &v, PMIX_UINT32);
    return i;
}

std::vector<pmix_info_t> directives(int argc, char** argv) {
    std::vector<pmix_info_t> d;
    for (int i = 5; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "tag") d.push_back(flag(PMIX_IOF_TAG_OUTPUT));
        else if (a == "timestamp") d.push_back(flag(PMIX_IOF_TIMESTAMP_OUTPUT));
        else if (a == "xml") d.push_back(flag(PMIX_IOF_XML_OUTPUT));
        else if (a == "rank") d.push_back(flag(PMIX_IOF_RANK_OUTPUT));
        else if (a == "raw") d.push_back(flag(PMIX_IOF_OUTPUT_RAW));
        else if (a == "fullname") d.push_back(flag(PMIX_IOF_TAG_FULLNAME_OUTPUT));
        else if (a == "copy") d.push_back(flag(PMIX_IOF_COPY));
        else if (a == "redirect") d.push_back(flag(PMIX_IOF_REDIRECT));
        else if (a.rfind("bufsize=", 0) == 0)
            d.push_back(uint(PMIX_IOF_BUFFERING_SIZE, a.c_str() + 8));
        else if (a.rfind("buftime=", 0) == 0)
            d.push_back(uint(PMIX_IOF_BUFFERING_TIME, a.c_str() + 8));
    }
    return d;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: iof_puller nspace rank expect cb|null [directive]...\n");
        return 2;
    }
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 2;
    pmix_proc_t source;
    PMIX_LOAD_PROCID(&source, argv[1],
                     std::strcmp(argv[2], "*") == 0 ? PMIX_RANK_WILDCARD
                                                    : static_cast<pmix_rank_t>(std::atoi(argv[2])));
    const std::size_t expect = std::strtoul(argv[3], nullptr, 10);
    const bool own = std::strcmp(argv[4], "null") == 0;
    std::vector<pmix_info_t> dirs = directives(argc, argv);
    const pmix_status_t id = PMIx_IOF_pull(&source, 1, dirs.data(), dirs.size(),
                                           PMIX_FWD_STDOUT_CHANNEL | PMIX_FWD_STDERR_CHANNEL,
                                           own ? nullptr : on_output, nullptr, nullptr);
    for (auto& d : dirs) PMIX_INFO_DESTRUCT(&d);
    if (id < 0) {
        std::fprintf(stderr, "pull %d\n", id);
        PMIx_Finalize(nullptr, 0);
        return 2;
    }
    std::fprintf(stderr, "ready\n");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    // With "null" the library writes to our stdout: the count is not ours to see; the test
    // tells us to go on by closing our stdin.
    if (own) {
        char c;
        while (::read(0, &c, 1) > 0) {
        }
    } else {
        while (received < expect && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (received < expect) {
            std::fprintf(stderr, "timeout after %zu of %zu bytes\n", received.load(), expect);
            return 3;
        }
    }
    const pmix_status_t rc =
        PMIx_IOF_deregister(static_cast<size_t>(id), nullptr, 0, nullptr, nullptr);
    std::fprintf(stderr, "deregistered %s\n", PMIx_Error_string(rc));
    std::this_thread::sleep_for(std::chrono::seconds(1));
    PMIx_Finalize(nullptr, 0);
    return rc == PMIX_SUCCESS ? 0 : 2;
}
