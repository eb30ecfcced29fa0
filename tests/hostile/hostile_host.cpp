// tests/hostile/hostile_host.cpp - the server the hostile-peer tests attack: a PMIx server (public
// API of libpmix) with tool support and a TCP listener for remote tools, no host fence (one node:
// fences complete in the server or on the fence board); it admits every tool. It registers three
// namespaces of clients of this user, all on this node:
//   hostile.fence  4 processes  (real libpmix clients meeting on the fence board; one scribbles)
//   hostile.raw    1024         (raw wire clients, one rank per connection)
//   hostile.after  1            (a real client started after the abuse)
// and writes, for each process of hostile.fence and hostile.after and for rank 0 of hostile.raw,
// the variables PMIx_server_setup_fork adds into <dir>/env.<nspace>.<rank> (one per line). Then it
// prints "READY pid=<pid> nspace=hostile.host" and serves until its stdin closes.
//
// Usage: hostile_host --tmpdir DIR
#include <pmix_server.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace {

int g_tools = 0;  // the host's upcalls run on the server's thread, one at a time

// Admits every tool (the listener has checked its credentials or its TCP secret), naming each
// hostile.tool.<n>.
void tool_connected(pmix_info_t*, size_t, pmix_tool_connection_cbfunc_t cbfunc, void* cbdata) {
    const std::string name = "hostile.tool." + std::to_string(++g_tools);
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, name.c_str(), 0);
    cbfunc(PMIX_SUCCESS, &proc, cbdata);
}

void load_string(pmix_info_t* info, const char* key, const std::string& value) {
    PMIX_INFO_LOAD(info, key, value.c_str(), PMIX_STRING);
}

// A one-node job of `n` processes of this user (node map and proc map, as a launcher gives them).
bool register_job(const char* ns, int n) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    std::string ranks;
    for (int r = 0; r < n; ++r) ranks += (r ? "," : "") + std::to_string(r);
    char* nmap = nullptr;
    char* pmap = nullptr;
    if (PMIx_generate_regex(host, &nmap) != PMIX_SUCCESS ||
        PMIx_generate_ppn(ranks.c_str(), &pmap) != PMIX_SUCCESS) {
        return false;
    }
    pmix_info_t info[2];
    PMIX_INFO_LOAD(&info[0], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[1], PMIX_PROC_MAP, pmap, PMIX_STRING);
    std::free(nmap);
    std::free(pmap);
    bool ok = true;
    for (int r = 0; r < n; ++r) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, ns, static_cast<pmix_rank_t>(r));
        ok = ok && PMIx_server_register_client(&p, geteuid(), getegid(), nullptr, nullptr,
                                               nullptr) == PMIX_SUCCESS;
    }
    ok = ok && PMIx_server_register_nspace(ns, n, info, 2, nullptr, nullptr) == PMIX_SUCCESS;
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    return ok;
}

// <dir>/env.<ns>.<rank>: what setup_fork adds to an empty environment.
bool write_env(const std::string& dir, const char* ns, pmix_rank_t rank) {
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, ns, rank);
    char** env = nullptr;
    if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS) return false;
    std::ofstream out(dir + "/env." + ns + "." + std::to_string(rank));
    for (char** e = env; e != nullptr && *e != nullptr; ++e) out << *e << '\n';
    PMIX_ARGV_FREE(env);
    return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 || std::strcmp(argv[1], "--tmpdir") != 0) {
        std::fprintf(stderr, "usage: hostile_host --tmpdir DIR\n");
        return 2;
    }
    const std::string dir = argv[2];
    pmix_info_t info[5];
    load_string(&info[0], PMIX_SERVER_TMPDIR, dir);
    load_string(&info[1], PMIX_SYSTEM_TMPDIR, dir);
    load_string(&info[2], PMIX_SERVER_NSPACE, "hostile.host");
    bool yes = true;
    PMIX_INFO_LOAD(&info[3], PMIX_SERVER_TOOL_SUPPORT, &yes, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[4], PMIX_SERVER_REMOTE_CONNECTIONS, &yes, PMIX_BOOL);
    pmix_server_module_t module;
    std::memset(&module, 0, sizeof module);
    module.tool_connected = tool_connected;
    pmix_status_t rc = PMIx_server_init(&module, info, 5);
    for (auto& i : info) PMIX_INFO_DESTRUCT(&i);
    if (rc != PMIX_SUCCESS) {
        std::printf("INIT FAILED %d\n", rc);
        return 1;
    }
    bool ok = register_job("hostile.fence", 4) && register_job("hostile.raw", 1024) &&
              register_job("hostile.after", 1);
    for (pmix_rank_t r = 0; r < 4; ++r) ok = ok && write_env(dir, "hostile.fence", r);
    ok = ok && write_env(dir, "hostile.raw", 0) && write_env(dir, "hostile.after", 0);
    if (!ok) {
        std::printf("INIT FAILED registration\n");
        PMIx_server_finalize();
        return 1;
    }
    std::printf("READY pid=%d nspace=hostile.host\n", getpid());
    std::fflush(stdout);
    char buf[64];
    while (read(0, buf, sizeof buf) > 0) {
    }
    rc = PMIx_server_finalize();
    std::printf("DONE %d\n", rc);
    return rc == PMIX_SUCCESS ? 0 : 1;
}
