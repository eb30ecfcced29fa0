// fwd_stdin: rank 0 of a pmixrun job spawns jobs of STDIN_COUNT (which reads its stdin to EOF and
// prints "rank R bytes N fnv H") and pushes input to them with PMIx_IOF_push:
//   job 1: 2 ranks, PMIX_FWD_STDIN = (pmix_rank_t) 0: a push to its rank 1 is refused; 3 MiB and
//          some bytes go to rank 0 (the first push to the job's wildcard rank, then a 2 MiB one,
//          more than pmixrun holds, so that it answers only once rank 0 took enough), then
//          PMIX_IOF_COMPLETE; a push after that gets PMIX_ERR_IOF_COMPLETE.
//   job 2: 2 ranks, no PMIX_FWD_STDIN: pushes to a rank and to the wildcard are refused; a spawn
//          whose PMIX_FWD_STDIN names rank 2 of 2 is refused (PMIX_ERR_BAD_PARAM).
//   job 3: 1 rank, PMIX_FWD_STDIN = true (OpenPMIx's bool, rank 0): bytes and COMPLETE in one.
//   job 4: 2 ranks, PMIX_FWD_STDIN = PMIX_RANK_WILDCARD: both read the same bytes.
// Prints "fwd_stdin: job J rank R bytes N fnv H" for what each rank must report (fwd_stdin.sh
// compares them with the ranks' own lines) and exits 0 when every call answered as it must.
//   fwd_stdin STDIN_COUNT
#include <pmix.h>
#include <pmix_tool.h>  // PMIx_IOF_push (clients may call it too)

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int g_failures = 0;

void check(const char* what, pmix_status_t got, pmix_status_t want) {
    if (got == want) return;
    std::fprintf(stderr, "fwd_stdin: %s: %s (want %s)\n", what, PMIx_Error_string(got),
                 PMIx_Error_string(want));
    ++g_failures;
}

uint64_t fnv(const std::string& bytes) {
    uint64_t hash = 1469598103934665603ULL;
    for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    return hash;
}

void expect(int job, int rank, const std::string& bytes) {
    std::printf("fwd_stdin: job %d rank %d bytes %zu fnv %016" PRIx64 "\n", job, rank, bytes.size(),
                fnv(bytes));
}

// Spawns `nprocs` of `prog`; `fwd` (if any) is the job info's PMIX_FWD_STDIN.
pmix_status_t spawn(const char* prog, int nprocs, const void* fwd, pmix_data_type_t type,
                    char* nspace) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = strdup(prog);
    app.argv = static_cast<char**>(calloc(2, sizeof(char*)));
    app.argv[0] = strdup(prog);
    app.maxprocs = nprocs;
    pmix_info_t info;
    if (fwd != nullptr) PMIX_INFO_LOAD(&info, PMIX_FWD_STDIN, fwd, type);
    const pmix_status_t rc =
        PMIx_Spawn(fwd != nullptr ? &info : nullptr, fwd != nullptr ? 1 : 0, &app, 1, nspace);
    if (fwd != nullptr) PMIX_INFO_DESTRUCT(&info);
    PMIX_APP_DESTRUCT(&app);
    return rc;
}

// One blocking push of `bytes` (none: nullptr) to `nspace`:`rank`, with PMIX_IOF_COMPLETE if
// `complete`.
pmix_status_t push(const char* nspace, pmix_rank_t rank, const std::string* bytes,
                   bool complete = false) {
    pmix_proc_t target;
    PMIX_PROC_LOAD(&target, nspace, rank);
    pmix_byte_object_t bo{bytes != nullptr ? const_cast<char*>(bytes->data()) : nullptr,
                          bytes != nullptr ? bytes->size() : 0};
    pmix_info_t done;
    PMIX_INFO_LOAD(&done, PMIX_IOF_COMPLETE, nullptr, PMIX_BOOL);
    const pmix_status_t rc =
        PMIx_IOF_push(&target, 1, bytes != nullptr ? &bo : nullptr, complete ? &done : nullptr,
                      complete ? 1 : 0, nullptr, nullptr);
    PMIX_INFO_DESTRUCT(&done);
    return rc;
}

// Bytes 0..255 in a scrambled order (binary, every value), `size` of them.
std::string pattern(size_t size, uint32_t seed) {
    std::string out(size, '\0');
    for (size_t i = 0; i < size; ++i) {
        seed = seed * 1664525u + 1013904223u;
        out[i] = static_cast<char>(seed >> 24);
    }
    return out;
}

void named_rank_zero(const char* prog) {
    char ns[PMIX_MAX_NSLEN + 1] = {};
    const pmix_rank_t zero = 0;
    pmix_status_t rc = spawn(prog, 2, &zero, PMIX_PROC_RANK, ns);
    check("spawn with PMIX_FWD_STDIN = 0", rc, PMIX_SUCCESS);
    if (rc != PMIX_SUCCESS) return;
    const std::string refused = "not for rank 1\n";
    check("push to a rank FWD_STDIN did not name", push(ns, 1, &refused), PMIX_ERR_NOT_SUPPORTED);
    const std::vector<std::string> chunks = {pattern(5000, 1), pattern(2u << 20, 2),
                                             pattern(1u << 20, 3), pattern(12345, 4)};
    std::string all;
    for (size_t i = 0; i < chunks.size(); ++i) {
        check("push of input", push(ns, i == 0 ? PMIX_RANK_WILDCARD : 0, &chunks[i]), PMIX_SUCCESS);
        all += chunks[i];
    }
    check("PMIX_IOF_COMPLETE", push(ns, 0, nullptr, true), PMIX_SUCCESS);
    check("push after COMPLETE", push(ns, 0, &refused), PMIX_ERR_IOF_COMPLETE);
    expect(1, 0, all);
    expect(1, 1, "");
}

void not_named(const char* prog) {
    char ns[PMIX_MAX_NSLEN + 1] = {};
    const pmix_status_t rc = spawn(prog, 2, nullptr, PMIX_BOOL, ns);
    check("spawn without PMIX_FWD_STDIN", rc, PMIX_SUCCESS);
    if (rc != PMIX_SUCCESS) return;
    const std::string refused = "nobody asked\n";
    check("push to rank 0 without FWD_STDIN", push(ns, 0, &refused), PMIX_ERR_NOT_SUPPORTED);
    check("push to the wildcard without FWD_STDIN", push(ns, PMIX_RANK_WILDCARD, &refused),
          PMIX_ERR_NOT_SUPPORTED);
    expect(2, 0, "");
    expect(2, 1, "");
    const pmix_rank_t beyond = 2;  // the job has ranks 0 and 1: no job is started
    check("spawn with PMIX_FWD_STDIN naming no rank of the job",
          spawn(prog, 2, &beyond, PMIX_PROC_RANK, ns), PMIX_ERR_BAD_PARAM);
}

void bool_and_wildcard(const char* prog) {
    char ns[PMIX_MAX_NSLEN + 1] = {};
    const bool yes = true;
    pmix_status_t rc = spawn(prog, 1, &yes, PMIX_BOOL, ns);
    check("spawn with PMIX_FWD_STDIN = true", rc, PMIX_SUCCESS);
    const std::string hello = "hello\n";
    if (rc == PMIX_SUCCESS) check("push with COMPLETE", push(ns, 0, &hello, true), PMIX_SUCCESS);
    expect(3, 0, hello);
    const pmix_rank_t every = PMIX_RANK_WILDCARD;
    rc = spawn(prog, 2, &every, PMIX_PROC_RANK, ns);
    check("spawn with PMIX_FWD_STDIN = PMIX_RANK_WILDCARD", rc, PMIX_SUCCESS);
    const std::string both = "to every rank\n";
    if (rc == PMIX_SUCCESS)
        check("push to every rank", push(ns, PMIX_RANK_WILDCARD, &both, true), PMIX_SUCCESS);
    expect(4, 0, both);
    expect(4, 1, both);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: fwd_stdin STDIN_COUNT\n");
        return 2;
    }
    pmix_proc_t me;
    if (const pmix_status_t rc = PMIx_Init(&me, nullptr, 0); rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "fwd_stdin: PMIx_Init failed: %s\n", PMIx_Error_string(rc));
        return 2;
    }
    named_rank_zero(argv[1]);
    not_named(argv[1]);
    bool_and_wildcard(argv[1]);
    std::printf("fwd_stdin: %d failed checks\n", g_failures);
    std::fflush(stdout);
    PMIx_Finalize(nullptr, 0);
    return g_failures == 0 ? 0 : 1;
}
