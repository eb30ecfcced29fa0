// launcher/start_as.cpp - how a job's processes start (launcher.h): the working directory
// (pmixrun --wdir, pmix_app_t.cwd, PMIX_WDIR) and the Tools chapter's agents (PMIX_FORKEXEC_AGENT,
// PMIX_EXEC_AGENT; pmixrun --fork-agent / --exec-agent).
#include "launcher.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace pmix::launcher {
namespace {

// OpenPMIx 4.2.2 (our header) spells PMIX_FORKEXEC_AGENT "pmix.fe.agnt"; the Standard spells it
// "pmix.frkex.agnt". Both name the same thing.
constexpr char kStandardForkExecAgent[] = "pmix.frkex.agnt";

bool is_fork_agent_key(const pmix_info_t& info) {
    return PMIX_CHECK_KEY(&info, PMIX_FORKEXEC_AGENT) ||
           PMIX_CHECK_KEY(&info, kStandardForkExecAgent);
}

// Across nodes (pmixd, the multi-node head) a spawn's fork/exec agent is not run (fork_agent.h
// serves pmixrun --host's own job there): a spawn that requires one is refused, one that does
// not runs without it.
pmix_status_t fork_agent_across_nodes(const pmix_app_t& app, const pmix_info_t job_info[],
                                      size_t ninfo, StartAs& out) {
    const Launcher* launcher = g_launcher;
    if (out.fork_agent.empty() || launcher == nullptr ||
        (launcher->remote == nullptr && launcher->options.hosts.empty() &&
         launcher->options.hostfile.empty()))
        return PMIX_SUCCESS;
    auto required = [](const pmix_info_t* info, size_t n) {
        for (size_t i = 0; info != nullptr && i < n; ++i)
            if (is_fork_agent_key(info[i]) && PMIX_INFO_IS_REQUIRED(&info[i])) return true;
        return false;
    };
    if (required(job_info, ninfo) || required(app.info, app.ninfo)) return PMIX_ERR_NOT_SUPPORTED;
    std::fprintf(stderr, "pmixrun: PMIX_FORKEXEC_AGENT ignored: not supported across nodes\n");
    out.fork_agent.clear();
    return PMIX_SUCCESS;
}

}  // namespace

bool start_as_key(const pmix_info_t& info) {
    return PMIX_CHECK_KEY(&info, PMIX_WDIR) || PMIX_CHECK_KEY(&info, PMIX_EXEC_AGENT) ||
           is_fork_agent_key(info);
}

pmix_status_t start_as_directive(const pmix_info_t& info, StartAs& out) {
    if (!start_as_key(info)) return PMIX_ERR_NOT_FOUND;
    const pmix_value_t& v = info.value;
    if (v.type != PMIX_STRING || v.data.string == nullptr || *v.data.string == '\0')
        return PMIX_ERR_BAD_PARAM;
    if (PMIX_CHECK_KEY(&info, PMIX_WDIR)) out.wdir = absolute_path(v.data.string);
    else if (PMIX_CHECK_KEY(&info, PMIX_EXEC_AGENT)) out.exec_agent = v.data.string;
    else out.fork_agent = v.data.string;
    return PMIX_SUCCESS;
}

// An app's cwd, then its info's PMIX_WDIR (which wins, as in prte), its agents; what it leaves
// unset comes from the job info, then from the launcher's own options (pmixrun --dvm --wdir ...).
pmix_status_t app_start_as(const pmix_app_t& app, const pmix_info_t job_info[], size_t ninfo,
                           const StartAs& defaults, StartAs& out) {
    StartAs from_job;
    for (size_t i = 0; job_info != nullptr && i < ninfo; ++i)
        if (const pmix_status_t rc = start_as_directive(job_info[i], from_job);
            rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND)
            return rc;
    StartAs own;
    if (app.cwd != nullptr && *app.cwd != '\0') own.wdir = absolute_path(app.cwd);
    for (size_t i = 0; app.info != nullptr && i < app.ninfo; ++i)
        if (const pmix_status_t rc = start_as_directive(app.info[i], own);
            rc != PMIX_SUCCESS && rc != PMIX_ERR_NOT_FOUND)
            return rc;
    auto pick = [](const std::string& a, const std::string& b, const std::string& c) {
        return !a.empty() ? a : !b.empty() ? b : c;
    };
    out.wdir = pick(own.wdir, from_job.wdir, defaults.wdir);
    out.fork_agent = pick(own.fork_agent, from_job.fork_agent, defaults.fork_agent);
    out.exec_agent = pick(own.exec_agent, from_job.exec_agent, defaults.exec_agent);
    return fork_agent_across_nodes(app, job_info, ninfo, out);
}

std::vector<std::string> started_argv(const StartAs& how, const std::vector<std::string>& app) {
    std::vector<std::string> out = split_words(how.exec_agent);
    out.insert(out.end(), app.begin(), app.end());
    return out;
}

bool process_environment(const Proc& process, char** base_env, bool client_env, char**& env) {
    env = nullptr;
    for (char** entry = base_env; *entry != nullptr; ++entry) {
        [[maybe_unused]] pmix_status_t appended;
        PMIX_ARGV_APPEND(appended, env, *entry);
    }
    if (!client_env) return true;
    pmix_proc_t proc;
    PMIX_PROC_LOAD(&proc, process.nspace.c_str(), process.rank);
    const pmix_status_t rc = PMIx_server_setup_fork(&proc, &env);
    if (rc == PMIX_SUCCESS) return true;
    std::fprintf(stderr, "pmixrun: PMIx_server_setup_fork(%s) failed: %s\n",
                 proc_tag(process).c_str(), PMIx_Error_string(rc));
    PMIX_ARGV_FREE(env);
    return false;
}

bool wdir_usable(const std::string& wdir, std::string& why) {
    if (wdir.empty()) return true;
    struct stat st;
    int error = 0;
    if (::stat(wdir.c_str(), &st) != 0) error = errno;
    else if (!S_ISDIR(st.st_mode)) error = ENOTDIR;
    else if (::access(wdir.c_str(), X_OK) != 0) error = errno;
    if (error == 0) return true;
    why = "cannot start in directory '" + wdir + "': " + std::strerror(error);
    return false;
}

std::string first_program(const StartAs& how, const std::vector<std::string>& argv) {
    const std::vector<std::string> words =
        how.fork_agent.empty() ? started_argv(how, argv) : split_words(how.fork_agent);
    return words.empty() ? "" : words[0];
}

const char* path_of(const std::vector<std::string>& env) {
    for (auto entry = env.rbegin(); entry != env.rend(); ++entry)
        if (entry->compare(0, 5, "PATH=") == 0) return entry->c_str() + 5;
    return nullptr;
}

pmix_status_t start_as_usable(const AppSpec& app, const std::vector<std::string>& base_env,
                              std::string& why) {
    if (!wdir_usable(app.start_as.wdir, why)) return PMIX_ERR_JOB_WDIR_NOT_FOUND;
    const std::string program = first_program(app.start_as, app.argv);
    const char* path = path_of(app.env) != nullptr ? path_of(app.env) : path_of(base_env);
    if (program_exists(program, app.start_as.wdir, path)) return PMIX_SUCCESS;
    why = "cannot find program '" + program + "' (not found or not executable)";
    return PMIX_ERR_JOB_EXE_NOT_FOUND;
}

}  // namespace pmix::launcher
