// launcher/fork_agent.cpp - see fork_agent.h. The spawn description goes to the agent through the
// server (registered data of the agent's debugger job, read with PMIx_Get), so that an agent
// needs only pmix_tool.h; the Standard names no keys for it, the two exact lists are ours.
#include "fork_agent.h"

#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <set>

namespace pmix::launcher {
namespace {

struct AgentJob {
    std::string app_nspace;
    std::vector<pmix_rank_t> ranks;  // this node's agents: each has its application rank's rank
};

// Written on the loop, read on the server's thread (tool_connected) too.
std::mutex g_mutex;
std::map<std::string, AgentJob> g_jobs;  // by the agents' namespace
std::vector<std::string> g_order;        // the agents' namespaces in start order
// Application process (nspace, rank) -> its agent (nspace, rank).
std::map<std::pair<std::string, pmix_rank_t>, std::pair<std::string, pmix_rank_t>> g_agent_of;
std::set<std::pair<std::string, pmix_rank_t>> g_connected;  // agents that connected back

// A waiter a late callback still finds (the library may answer after our bounded wait).
Waiter& late_safe_waiter() {
    static std::deque<Waiter> waiters;
    return waiters.emplace_back();
}

std::string env_value(const std::vector<std::string>& env, const char* name) {
    const std::string prefix = std::string(name) + "=";
    for (const std::string& entry : env)
        if (entry.compare(0, prefix.size(), prefix) == 0) return entry.substr(prefix.size());
    return {};
}

// The URI setup_fork gave the application process: the server's listener, which admits tools too.
std::string server_uri(const std::vector<std::string>& env) {
    for (const char* name : {"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3",
                             "PMIX_SERVER_URI2", "PMIX_SERVER_URI21", "PMIX_SERVER_URI"})
        if (std::string uri = env_value(env, name); !uri.empty()) return uri;
    return {};
}

// The application process's environment: `base_env` plus PMIx_server_setup_fork's for it.
bool app_environment(const Proc& process, char** base_env, std::vector<std::string>& out) {
    char** env = nullptr;
    if (!process_environment(process, base_env, true, env)) return false;
    for (char** entry = env; entry != nullptr && *entry != nullptr; ++entry)
        out.emplace_back(*entry);
    PMIX_ARGV_FREE(env);
    return true;
}

void add_strings(InfoList& list, const char* key, std::vector<std::string>& words) {
    std::vector<char*> pointers;
    for (std::string& word : words) pointers.push_back(word.data());
    pmix_data_array_t array{PMIX_STRING, pointers.size(), pointers.data()};
    list.add(key, &array, PMIX_DATA_ARRAY);
}

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& word : words) out += (out.empty() ? "" : " ") + word;
    return out;
}

// One agent's spawn description: its PMIX_PROC_DATA (PMIX_RANK first, as the Standard asks).
void add_description(InfoList& job, pmix_rank_t agent_rank, const pmix_proc_t& target,
                     std::vector<std::string>& argv, std::vector<std::string>& env,
                     const std::string& wdir) {
    InfoList rank;
    rank.add(PMIX_RANK, &agent_rank, PMIX_PROC_RANK);
    rank.add(PMIX_DEBUG_TARGET, &target, PMIX_PROC);
    rank.add(PMIX_APP_ARGV, joined(argv));
    add_strings(rank, kForkAgentArgv, argv);
    add_strings(rank, kForkAgentEnv, env);
    if (!wdir.empty()) rank.add(PMIX_WDIR, wdir);
    if (rank.convert() == PMIX_SUCCESS) job.add(PMIX_PROC_DATA, &rank.array(), PMIX_DATA_ARRAY);
}

struct Described {
    std::vector<std::string> argv, env;
};

// The application job's size: pmixrun's own job, a job the head placed across nodes, or a job
// on this node alone (all of `procs`).
uint32_t app_job_size(const Launcher& launcher, const std::string& app_nspace, size_t local) {
    if (app_nspace == launcher.nspace) return static_cast<uint32_t>(launcher.options.nprocs);
    if (const auto placed = launcher.job_layouts.find(app_nspace);
        placed != launcher.job_layouts.end()) {
        uint32_t size = 0;
        for (const uint32_t count : placed->second.rank_count) size += count;
        return size;
    }
    return static_cast<uint32_t>(local);
}

// Registers the agents' debugger job: no local client (the agents are tools), the application
// namespace as its PMIX_DEBUG_TARGET, one description per agent of this node. Agent rank r
// stands for application rank r, so that every node names its agents alike without asking.
pmix_status_t register_agents(const Launcher& launcher, const std::string& agents,
                              const std::string& app_nspace, const std::vector<Proc*>& procs,
                              std::vector<Described>& described, const std::string& wdir) {
    InfoList job;
    const uint32_t size = app_job_size(launcher, app_nspace, procs.size());
    const uint32_t nodes = static_cast<uint32_t>(launcher.layout.nodes.size());
    pmix_proc_t target;
    PMIX_LOAD_PROCID(&target, app_nspace.c_str(), PMIX_RANK_WILDCARD);
    job.add(PMIX_JOBID, agents);
    job.add(PMIX_JOB_SIZE, &size, PMIX_UINT32);
    job.add(PMIX_NUM_NODES, &nodes, PMIX_UINT32);
    job.add(PMIX_HOSTNAME, launcher.hostname);
    job.add(PMIX_DEBUG_TARGET, &target, PMIX_PROC);
    for (size_t i = 0; i < procs.size(); ++i) {
        PMIX_LOAD_PROCID(&target, app_nspace.c_str(), procs[i]->rank);
        add_description(job, procs[i]->rank, target, described[i].argv, described[i].env, wdir);
    }
    if (const pmix_status_t rc = job.convert(); rc != PMIX_SUCCESS) return rc;
    Waiter& waiter = late_safe_waiter();
    const pmix_status_t rc = PMIx_server_register_nspace(agents.c_str(), 0, job.info(), job.size(),
                                                         Waiter::op_cb, &waiter);
    if (rc == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;
    return rc != PMIX_SUCCESS ? rc : waiter.wait_for(std::chrono::seconds(30));
}

void remember(const std::string& agents, const std::string& app_nspace,
              const std::vector<Proc*>& procs) {
    std::lock_guard lock(g_mutex);
    AgentJob& job = g_jobs[agents];
    job.app_nspace = app_nspace;
    for (const Proc* process : procs) {
        job.ranks.push_back(process->rank);
        g_agent_of[{app_nspace, process->rank}] = {agents, process->rank};
    }
    g_order.push_back(agents);
}

bool start_agents(Launcher& launcher, const std::string& nspace, const std::vector<Proc*>& procs,
                  const std::function<std::vector<std::string>(const Proc&)>& argv_of,
                  const StartAs& how, char** base_env) {
    std::vector<Described> described(procs.size());
    for (size_t i = 0; i < procs.size(); ++i) {
        described[i].argv = started_argv(how, argv_of(*procs[i]));
        if (!app_environment(*procs[i], base_env, described[i].env)) return false;
    }
    const std::string uri = described.empty() ? "" : server_uri(described[0].env);
    const std::string agents = nspace + ".fea";
    if (const pmix_status_t rc =
            register_agents(launcher, agents, nspace, procs, described, how.wdir);
        rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun: cannot register the fork/exec agents' job %s: %s\n",
                     agents.c_str(), PMIx_Error_string(rc));
        return false;
    }
    remember(agents, nspace, procs);
    std::vector<std::string> words = split_words(how.fork_agent);
    std::vector<char*> argv = c_strings(words);
    const char* wdir = how.wdir.empty() ? nullptr : how.wdir.c_str();
    for (size_t i = 0; i < procs.size(); ++i) {
        std::vector<std::string> env;
        for (char** entry = base_env; *entry != nullptr; ++entry) env.emplace_back(*entry);
        env.push_back("PMIX_FEA_SERVER_URI=" + uri);
        env.push_back("PMIX_FEA_NSPACE=" + agents);
        env.push_back("PMIX_FEA_RANK=" + std::to_string(procs[i]->rank));
        std::vector<char*> envp = c_strings(env);
        procs[i]->agent_group = true;  // signals reach the app the agent started too
        if (!start_proc(launcher, *procs[i], argv, envp.data(), described[i].argv[0].c_str(), wdir,
                        false))
            return false;
    }
    return true;
}

}  // namespace

bool start_procs(Launcher& launcher, const std::string& nspace, const std::vector<Proc*>& procs,
                 const std::function<std::vector<std::string>(const Proc&)>& argv_of,
                 const StartAs& how, char** base_env) {
    if (!how.fork_agent.empty())
        return start_agents(launcher, nspace, procs, argv_of, how, base_env);
    const char* wdir = how.wdir.empty() ? nullptr : how.wdir.c_str();
    for (Proc* process : procs) {
        const std::vector<std::string> app = argv_of(*process);
        std::vector<std::string> words = started_argv(how, app);
        std::vector<char*> argv = c_strings(words);
        if (!start_proc(launcher, *process, argv, base_env, app[0].c_str(), wdir)) return false;
    }
    return true;
}

void fea_tool_connected(const pmix_proc_t& tool) {
    std::lock_guard lock(g_mutex);
    const std::string nspace(tool.nspace, strnlen(tool.nspace, PMIX_MAX_NSLEN));
    if (g_jobs.count(nspace) != 0) g_connected.insert({nspace, tool.rank});
}

void fea_check_ended(Proc& process, int& wait_status) {
    std::lock_guard lock(g_mutex);
    const auto agent = g_agent_of.find({process.nspace, process.rank});
    if (agent == g_agent_of.end() || g_connected.count(agent->second) != 0) return;
    std::fprintf(stderr,
                 "pmixrun: rank %s: its fork/exec agent (%s rank %u, pid %d) ended (%s %d) "
                 "without connecting back as a tool; the application process never started\n",
                 proc_tag(process).c_str(), agent->second.first.c_str(), agent->second.second,
                 static_cast<int>(process.pid), WIFSIGNALED(wait_status) ? "signal" : "status",
                 WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : WEXITSTATUS(wait_status));
    if (process.exit_code == 0) {
        process.exit_code = 1;
        wait_status = 1 << 8;  // as waitpid reports exit(1)
    }
}

void fea_app_connected(Proc& process) {
    const std::string pid = std::to_string(process.pid);
    std::ifstream children("/proc/" + pid + "/task/" + pid + "/children");
    long child = 0;
    if (children >> child && child > 0) process.app_pid = static_cast<pid_t>(child);
}

std::vector<std::string> fea_nspaces() {
    std::lock_guard lock(g_mutex);
    return g_order;
}

void fea_forget(const std::string& nspace) {
    std::vector<std::string> gone;
    {
        std::lock_guard lock(g_mutex);
        for (const auto& [agents, job] : g_jobs)
            if (nspace.empty() || job.app_nspace == nspace) gone.push_back(agents);
        for (const std::string& agents : gone) {
            const AgentJob& job = g_jobs[agents];
            for (const pmix_rank_t rank : job.ranks) {
                g_agent_of.erase({job.app_nspace, rank});
                g_connected.erase({agents, rank});
            }
            g_jobs.erase(agents);
            std::erase(g_order, agents);
        }
    }
    for (const std::string& agents : gone) {
        Waiter& waiter = late_safe_waiter();
        PMIx_server_deregister_nspace(agents.c_str(), Waiter::op_cb, &waiter);
        (void)waiter.wait_for(std::chrono::seconds(5));
    }
}

}  // namespace pmix::launcher
