// tests/tools/tool_host.cpp - a minimal host for the tool tests: a PMIx server with tool
// support whose tool_connected hook admits tools of its own user only, naming them
// "<server nspace>.tool.<n>" unless they name themselves. It registers one job ("<nspace>.job",
// 2 processes) so there is something to ask about, says READY, serves until its stdin closes,
// then finalizes and says DONE. Every admission or refusal is printed (TOOL ... / REFUSED ...)
// so tests can check what the host was told.
//
// Options: --tmpdir D  --systmp D  --nspace NS  --nsdir D  --system  --session  --scheduler
//          --no-tool-support  --no-hook  --launcher-file F  --delay SECONDS  --remote
//          --register-attributes
#include <pmix_server.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::atomic<int> g_tools{0};
std::string g_nspace, g_nsdir;

const pmix_info_t* find(const pmix_info_t* info, size_t n, const char* key) {
    for (size_t i = 0; i < n; ++i) {
        if (std::strncmp(info[i].key, key, PMIX_MAX_KEYLEN) == 0) return &info[i];
    }
    return nullptr;
}

void tool_connected(pmix_info_t* info, size_t ninfo, pmix_tool_connection_cbfunc_t cbfunc,
                    void* cbdata) {
    const pmix_info_t* uid = find(info, ninfo, PMIX_USERID);
    const pmix_info_t* pid = find(info, ninfo, PMIX_PROC_PID);
    const pmix_info_t* ns = find(info, ninfo, PMIX_TOOL_NSPACE);
    const pmix_info_t* rank = find(info, ninfo, PMIX_TOOL_RANK);
    pmix_proc_t proc;
    PMIX_PROC_CONSTRUCT(&proc);
    if (uid == nullptr || uid->value.type != PMIX_UINT32 || uid->value.data.uint32 != geteuid()) {
        std::printf("REFUSED uid=%u\n", uid != nullptr ? uid->value.data.uint32 : 99999u);
        std::fflush(stdout);
        cbfunc(PMIX_ERR_NO_PERMISSIONS, nullptr, cbdata);
        return;
    }
    if (ns != nullptr && ns->value.type == PMIX_STRING) {
        PMIX_LOAD_PROCID(&proc, ns->value.data.string, rank != nullptr ? rank->value.data.rank : 0);
    } else {
        std::string assigned = g_nspace + ".tool." + std::to_string(++g_tools);
        PMIX_LOAD_PROCID(&proc, assigned.c_str(), 0);
    }
    std::printf("TOOL %s:%u pid=%d uid=%u\n", proc.nspace, proc.rank,
                pid != nullptr ? static_cast<int>(pid->value.data.pid) : -1,
                uid->value.data.uint32);
    std::fflush(stdout);
    cbfunc(PMIX_SUCCESS, &proc, cbdata);
}

// Registers the job and its two (never started) processes, as a host does before forking.
void register_job() {
    const std::string job = g_nspace + ".job";
    std::vector<pmix_info_t> info(3);
    uint32_t size = 2;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_LOCAL_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_LOCAL_PEERS, "0,1", PMIX_STRING);
    if (!g_nsdir.empty()) {  // a host that names the job's directory and cleans it itself
        info.resize(5);
        PMIX_INFO_LOAD(&info[3], PMIX_NSDIR, g_nsdir.c_str(), PMIX_STRING);
        bool yes = true;
        PMIX_INFO_LOAD(&info[4], PMIX_TDIR_RMCLEAN, &yes, PMIX_BOOL);
    }
    pmix_status_t rc =
        PMIx_server_register_nspace(job.c_str(), 2, info.data(), info.size(), nullptr, nullptr);
    if (rc != PMIX_SUCCESS) std::printf("REGISTER FAILED %d\n", rc);
    for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
    for (pmix_rank_t r = 0; r < 2; ++r) {
        pmix_proc_t proc;
        PMIX_LOAD_PROCID(&proc, job.c_str(), r);
        rc = PMIx_server_register_client(&proc, geteuid(), getegid(), nullptr, nullptr, nullptr);
        if (rc != PMIX_SUCCESS) std::printf("REGISTER CLIENT FAILED %d\n", rc);
    }
}

// PMIx_Register_attributes as a host would: two functions, then the checks a host can trip over
// (a repeat, a NULL function); every status is printed for the tests.
void register_attributes() {
    char t[] = "PMIX_TIMEOUT", n[] = "PMIX_ALLOC_NUM_NODES", u[] = "pmix.not.a.known.attribute";
    char* alloc[] = {t, n, nullptr};
    char* query[] = {t, u, nullptr};
    char allocate[] = "allocate", q[] = "query";
    const pmix_status_t a = PMIx_Register_attributes(allocate, alloc);
    const pmix_status_t b = PMIx_Register_attributes(q, query);
    const pmix_status_t again = PMIx_Register_attributes(allocate, query);
    const pmix_status_t none = PMIx_Register_attributes(nullptr, alloc);
    std::printf("REGATTR %d %d repeat=%d null=%d\n", a, b, again, none);
}

void add_flag(std::vector<pmix_info_t>& info, const char* key) {
    info.emplace_back();
    bool yes = true;
    PMIX_INFO_LOAD(&info.back(), key, &yes, PMIX_BOOL);
}

void add_string(std::vector<pmix_info_t>& info, const char* key, const char* value) {
    info.emplace_back();
    PMIX_INFO_LOAD(&info.back(), key, value, PMIX_STRING);
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<pmix_info_t> info;
    bool tool_support = true, hook = true, attrs = false;
    g_nspace = "host-" + std::to_string(getpid());
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* next = i + 1 < argc ? argv[i + 1] : "";
        if (a == "--tmpdir") {
            add_string(info, PMIX_SERVER_TMPDIR, next);
            ++i;
        } else if (a == "--systmp") {
            add_string(info, PMIX_SYSTEM_TMPDIR, next);
            ++i;
        } else if (a == "--nspace") {
            g_nspace = next;
            ++i;
        } else if (a == "--nsdir") {
            g_nsdir = next;
            ++i;
        } else if (a == "--launcher-file") {
            add_string(info, PMIX_LAUNCHER_RENDEZVOUS_FILE, next);
            ++i;
        } else if (a == "--delay") {
            sleep(static_cast<unsigned>(std::atoi(next)));
            ++i;
        } else if (a == "--system") add_flag(info, PMIX_SERVER_SYSTEM_SUPPORT);
        else if (a == "--session") add_flag(info, PMIX_SERVER_SESSION_SUPPORT);
        else if (a == "--scheduler") add_flag(info, PMIX_SERVER_SCHEDULER);
        else if (a == "--remote") add_flag(info, PMIX_SERVER_REMOTE_CONNECTIONS);
        else if (a == "--register-attributes") attrs = true;
        else if (a == "--no-tool-support") tool_support = false;
        else if (a == "--no-hook") hook = false;
        else {
            std::fprintf(stderr, "tool_host: unknown option %s\n", a.c_str());
            return 2;
        }
    }
    if (tool_support) add_flag(info, PMIX_SERVER_TOOL_SUPPORT);
    add_string(info, PMIX_SERVER_NSPACE, g_nspace.c_str());
    pmix_server_module_t module;
    std::memset(&module, 0, sizeof(module));
    if (hook) module.tool_connected = tool_connected;
    pmix_status_t rc = PMIx_server_init(&module, info.data(), info.size());
    for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
    if (rc != PMIX_SUCCESS) {
        std::printf("INIT FAILED %d\n", rc);
        return 1;
    }
    register_job();
    if (attrs) register_attributes();
    std::printf("READY pid=%d nspace=%s\n", getpid(), g_nspace.c_str());
    std::fflush(stdout);
    char buf[64];
    while (read(0, buf, sizeof(buf)) > 0) {
    }
    rc = PMIx_server_finalize();
    std::printf("DONE %d\n", rc);
    return rc == PMIX_SUCCESS ? 0 : 1;
}
