// agents: where and how the launcher starts processes (launcher/start_as.cpp): pmix_app_t.cwd,
// PMIX_WDIR, PMIX_FORKEXEC_AGENT and PMIX_EXEC_AGENT, public API only.
//   agents hello DIR                 PMIx_Init, a fence over its job, then
//   DIR/hello.<nspace>.<rank>
//                                    ("<cwd> <pid> <ppid>"), PMIx_Finalize
//   agents spawner DIR CASE AGENT [tool]   a client (or with "tool" a tool of the system server,
//                                    pmixrun --dvm) that spawns 2 hellos and checks, CASE one of:
//     cwd:     app.cwd = DIR/work: both hellos report DIR/work
//     wdir:    PMIX_WDIR in the job info = DIR/work (app.cwd unset): the same
//     badcwd:  app.cwd = DIR/missing: PMIx_Spawn fails with PMIX_ERR_JOB_WDIR_NOT_FOUND
//     fork:    PMIX_FORKEXEC_AGENT AGENT (examples/fork_agent.c with --record DIR): each agent
//              connected back as a tool of its own namespace, targeted its rank
//              (DIR/fea.<nspace>.<rank>) and is the hello's parent
//     fork-std: the same under the Standard's string for it, "pmix.frkex.agnt"
//     fork-refused: a required PMIX_FORKEXEC_AGENT across nodes: PMIX_ERR_NOT_SUPPORTED
//     exec:    PMIX_EXEC_AGENT "AGENT exec DIR": the agent ran and became the hello (same pid)
//     support: PMIX_QUERY_ATTRIBUTE_SUPPORT (PMIX_HOST_ATTRIBUTES of PMIx_Spawn) and
//              PMIX_QUERY_SPAWN_SUPPORT name PMIX_WDIR and both agents; PMIX_QUERY_DEBUG_SUPPORT
//              both agents
// Prints "agents: <case> ok" and exits 0 when every check held; "FAIL: ..." otherwise.
#include <pmix.h>
#include <pmix_tool.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

bool g_failed = false;
bool g_tool = false;

void check(bool ok, const std::string& what) {
    if (ok) return;
    std::printf("FAIL: %s\n", what.c_str());
    g_failed = true;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The file's contents once it exists and is complete (ends in '\n'); "" after 20 s.
std::string wait_file(const std::string& path) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
        const std::string text = read_file(path);
        if (!text.empty() && text.back() == '\n') return text;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "";
}

int hello(const std::string& dir) {
    pmix_proc_t me;
    pmix_status_t rc = PMIx_Init(&me, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "FAIL: hello: PMIx_Init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, me.nspace, PMIX_RANK_WILDCARD);
    rc = PMIx_Fence(&all, 1, nullptr, 0);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "FAIL: hello: PMIx_Fence: %s\n", PMIx_Error_string(rc));
        PMIx_Finalize(nullptr, 0);
        return 1;
    }
    char cwd[4096] = "";
    if (::getcwd(cwd, sizeof cwd) == nullptr) cwd[0] = '?';
    const std::string path = dir + "/hello." + me.nspace + "." + std::to_string(me.rank);
    {
        std::ofstream out(path + ".tmp");
        out << cwd << " " << ::getpid() << " " << ::getppid() << "\n";
    }
    std::rename((path + ".tmp").c_str(), path.c_str());
    PMIx_Finalize(nullptr, 0);
    return 0;
}

struct HelloReport {
    std::string cwd;
    long pid = 0, ppid = 0;
};

HelloReport hello_report(const std::string& dir, const std::string& nspace, int rank) {
    HelloReport report;
    std::istringstream in(wait_file(dir + "/hello." + nspace + "." + std::to_string(rank)));
    in >> report.cwd >> report.pid >> report.ppid;
    return report;
}

// The test agent's record (tests/tools/agent.sh): "<mode> <nspace> <rank> <pid> <cwd>".
struct AgentReport {
    std::string mode, nspace, rank, cwd;
    long pid = 0;
};

AgentReport agent_report(const std::string& dir, const std::string& nspace, int rank) {
    AgentReport report;
    std::istringstream in(wait_file(dir + "/agent." + nspace + "." + std::to_string(rank)));
    in >> report.mode >> report.nspace >> report.rank >> report.pid >> report.cwd;
    return report;
}

// The example fork/exec agent's record (examples/fork_agent.c --record): "<agent nspace> <agent
// rank> <agent pid> <target nspace> <target rank> <app pid>": a tool of its own namespace that
// started the rank as its child.
void check_fork_agent(const std::string& dir, const std::string& nspace, int rank,
                      const HelloReport& hello) {
    std::istringstream in(wait_file(dir + "/fea." + nspace + "." + std::to_string(rank)));
    std::string agent_nspace, target_nspace;
    long agent_rank = -1, agent_pid = 0, target_rank = -1, app_pid = 0;
    in >> agent_nspace >> agent_rank >> agent_pid >> target_nspace >> target_rank >> app_pid;
    const std::string who = "fork agent of rank " + std::to_string(rank);
    check(!agent_nspace.empty() && agent_nspace != nspace,
          who + " is in namespace '" + agent_nspace + "', not one of its own");
    check(target_nspace == nspace && target_rank == rank,
          who + " targeted " + target_nspace + ":" + std::to_string(target_rank));
    check(hello.ppid == agent_pid && hello.pid == app_pid,
          who + " (" + std::to_string(agent_pid) + ") did not start the hello (" +
              std::to_string(hello.pid) + ", parent " + std::to_string(hello.ppid) + ")");
}

// PMIx_Spawn of 2 hellos; `cwd` into app.cwd, `job_info` as given. The status, `nspace` set.
pmix_status_t spawn_hellos(const std::string& self, const std::string& dir, const char* cwd,
                           std::vector<pmix_info_t>& job_info, std::string& nspace) {
    pmix_app_t app;
    PMIX_APP_CONSTRUCT(&app);
    app.cmd = ::strdup(self.c_str());
    const char* args[] = {self.c_str(), "hello", dir.c_str()};
    for (const char* arg : args) {
        [[maybe_unused]] pmix_status_t appended;
        PMIX_ARGV_APPEND(appended, app.argv, arg);
    }
    if (cwd != nullptr) app.cwd = ::strdup(cwd);
    app.maxprocs = 2;
    pmix_nspace_t spawned = "";
    const pmix_status_t rc =
        PMIx_Spawn(job_info.empty() ? nullptr : job_info.data(), job_info.size(), &app, 1, spawned);
    nspace = spawned;
    PMIX_APP_DESTRUCT(&app);
    for (pmix_info_t& info : job_info) PMIX_INFO_DESTRUCT(&info);
    return rc;
}

std::string query_string(const char* key) {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    [[maybe_unused]] pmix_status_t appended;
    PMIX_ARGV_APPEND(appended, query.keys, key);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Query_info(&query, 1, &results, &nresults);
    check(rc == PMIX_SUCCESS, std::string("query ") + key + ": " + PMIx_Error_string(rc));
    std::string answer;
    if (rc == PMIX_SUCCESS && nresults == 1 && results[0].value.type == PMIX_STRING)
        answer = results[0].value.data.string;
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return answer;
}

// The names PMIX_QUERY_ATTRIBUTE_SUPPORT gives for PMIx_Spawn at the host level, comma-separated.
std::string host_spawn_attributes() {
    pmix_query_t query;
    PMIX_QUERY_CONSTRUCT(&query);
    [[maybe_unused]] pmix_status_t appended;
    PMIX_ARGV_APPEND(appended, query.keys, PMIX_QUERY_ATTRIBUTE_SUPPORT);
    PMIX_QUERY_QUALIFIERS_CREATE(&query, 1);
    PMIX_INFO_LOAD(&query.qualifiers[0], PMIX_HOST_ATTRIBUTES, "PMIx_Spawn", PMIX_STRING);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Query_info(&query, 1, &results, &nresults);
    check(rc == PMIX_SUCCESS, std::string("attribute support: ") + PMIx_Error_string(rc));
    std::string names;
    for (size_t i = 0; rc == PMIX_SUCCESS && i < nresults; ++i) {
        if (results[i].value.type != PMIX_DATA_ARRAY) continue;
        const pmix_data_array_t* functions = results[i].value.data.darray;
        const auto* fns = static_cast<const pmix_info_t*>(functions->array);
        for (size_t f = 0; functions->type == PMIX_INFO && f < functions->size; ++f) {
            if (!PMIX_CHECK_KEY(&fns[f], "PMIx_Spawn") || fns[f].value.type != PMIX_DATA_ARRAY)
                continue;
            const pmix_data_array_t* attrs = fns[f].value.data.darray;
            const auto* regattrs = static_cast<const pmix_regattr_t*>(attrs->array);
            for (size_t a = 0; attrs->type == PMIX_REGATTR && a < attrs->size; ++a)
                names += std::string(regattrs[a].name != nullptr ? regattrs[a].name : "") + ",";
        }
    }
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    PMIX_QUERY_DESTRUCT(&query);
    return names;
}

void case_support() {
    const std::string host = host_spawn_attributes();
    for (const char* name : {"PMIX_WDIR,", "PMIX_FORKEXEC_AGENT,", "PMIX_EXEC_AGENT,"})
        check(host.find(name) != std::string::npos,
              "host attributes of PMIx_Spawn '" + host + "' lack " + name);
    const std::string spawn = query_string(PMIX_QUERY_SPAWN_SUPPORT);
    for (const char* key : {PMIX_WDIR, PMIX_FORKEXEC_AGENT, PMIX_EXEC_AGENT})
        check(spawn.find(key) != std::string::npos, "spawn support '" + spawn + "' lacks " + key);
    if (g_tool) return;  // a DVM's debug support is checked by debug_stop
    const std::string debug = query_string(PMIX_QUERY_DEBUG_SUPPORT);
    for (const char* key : {PMIX_FORKEXEC_AGENT, PMIX_EXEC_AGENT})
        check(debug.find(key) != std::string::npos, "debug support '" + debug + "' lacks " + key);
}

void case_spawn(const std::string& self, const std::string& dir, const std::string& which,
                const std::string& agent) {
    const std::string work = dir + "/work", missing = dir + "/missing";
    std::vector<pmix_info_t> job_info;
    auto add = [&job_info](const char* key, const std::string& value) {
        pmix_info_t& info = job_info.emplace_back();
        PMIX_INFO_LOAD(&info, key, value.c_str(), PMIX_STRING);
    };
    if (which == "wdir") add(PMIX_WDIR, work);
    if (which == "fork") add(PMIX_FORKEXEC_AGENT, agent);
    if (which == "fork-std") add("pmix.frkex.agnt", agent);  // the Standard's string
    if (which == "exec") add(PMIX_EXEC_AGENT, agent + " exec " + dir);
    if (which == "fork-refused") {  // across nodes: a required fork/exec agent is refused
        add(PMIX_FORKEXEC_AGENT, agent);
        PMIX_INFO_REQUIRED(&job_info.back());
    }
    const char* cwd = which == "cwd" ? work.c_str() : which == "badcwd" ? missing.c_str() : nullptr;
    std::string nspace;
    const pmix_status_t rc = spawn_hellos(self, dir, cwd, job_info, nspace);
    if (which == "fork-refused") {
        check(rc == PMIX_ERR_NOT_SUPPORTED,
              std::string("a required fork/exec agent across nodes: ") + PMIx_Error_string(rc));
        return;
    }
    if (which == "badcwd") {
        check(rc == PMIX_ERR_JOB_WDIR_NOT_FOUND,
              std::string("spawn in a missing directory: ") + PMIx_Error_string(rc));
        return;
    }
    check(rc == PMIX_SUCCESS, std::string("PMIx_Spawn: ") + PMIx_Error_string(rc));
    if (rc != PMIX_SUCCESS) return;
    for (int rank = 0; rank < 2; ++rank) {
        const HelloReport hello = hello_report(dir, nspace, rank);
        check(hello.pid > 0, "rank " + std::to_string(rank) + " of " + nspace + " did not report");
        if (which == "cwd" || which == "wdir")
            check(hello.cwd == work, "rank " + std::to_string(rank) + " ran in " + hello.cwd);
        const std::string mode = which == "fork-std" ? "fork" : which;
        if (mode == "fork") check_fork_agent(dir, nspace, rank, hello);
        if (mode != "exec") continue;
        const AgentReport seen = agent_report(dir, nspace, rank);
        check(seen.mode == mode && seen.nspace == nspace && seen.rank == std::to_string(rank),
              "agent of rank " + std::to_string(rank) + ": '" + seen.mode + " " + seen.nspace +
                  " " + seen.rank + "'");
        check(hello.pid == seen.pid, "the exec agent (" + std::to_string(seen.pid) +
                                         ") did not become the hello (" +
                                         std::to_string(hello.pid) + ")");
    }
}

int spawner(const std::string& self, const std::string& dir, const std::string& which,
            const std::string& agent) {
    pmix_proc_t me;
    pmix_status_t rc;
    if (g_tool) {
        pmix_info_t info;
        const bool yes = true;
        PMIX_INFO_LOAD(&info, PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
        rc = PMIx_tool_init(&me, &info, 1);
        PMIX_INFO_DESTRUCT(&info);
    } else {
        rc = PMIx_Init(&me, nullptr, 0);
    }
    if (rc != PMIX_SUCCESS) {
        std::printf("FAIL: init: %s\n", PMIx_Error_string(rc));
        return 1;
    }
    if (which == "support") case_support();
    else case_spawn(self, dir, which, agent);
    if (g_tool) PMIx_tool_finalize();
    else PMIx_Finalize(nullptr, 0);
    if (g_failed) return 1;
    std::printf("agents: %s ok\n", which.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "hello" && argc == 3) return hello(argv[2]);
    if (mode == "spawner" && (argc == 5 || argc == 6)) {
        g_tool = argc == 6 && std::string(argv[5]) == "tool";
        char self[4096];
        const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) return 1;
        self[n] = '\0';
        return spawner(self, argv[2], argv[3], argv[4]);
    }
    std::fprintf(stderr, "usage: agents hello DIR | agents spawner DIR CASE AGENT [tool]\n");
    return 2;
}
