// launcher/dvm_stop.cpp - pmixrun --dvm-stop (pmix-dvm --stop): stops a persistent launcher
// (dvm.cpp) as PRRTE's pterm stops its DVM, with the public tool API only: PMIx_tool_init
// towards it (--uri URI: PMIX_SERVER_URI; --pid PID: PMIX_SERVER_PIDINFO; else the system
// server, PMIX_CONNECT_TO_SYSTEM), PMIx_Job_control(PMIX_JOB_CTRL_TERMINATE) aimed at the
// server's own namespace, then a wait (at most kGoneWait) until the connection drops, so that
// when this returns 0 the DVM has ended its jobs and removed its files.
#include "launcher.h"

#include <pmix_tool.h>

#include <atomic>
#include <cstdio>
#include <thread>

namespace pmix::launcher {
namespace {

constexpr auto kGoneWait = std::chrono::seconds(15);  // the DVM's 3 s SIGTERM grace and teardown

std::atomic<bool> g_server_gone{false};

void on_lost(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t*, size_t, pmix_info_t*, size_t,
             pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    g_server_gone = true;
    if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

pmix_status_t connect_tool(const Options& options) {
    InfoList info;
    const bool yes = true;
    const pid_t pid = static_cast<pid_t>(options.dvm_pid);
    if (!options.dvm_uri.empty()) info.add(PMIX_SERVER_URI, options.dvm_uri);
    else if (pid > 0) info.add(PMIX_SERVER_PIDINFO, &pid, PMIX_PID);
    else info.add(PMIX_CONNECT_TO_SYSTEM, &yes, PMIX_BOOL);
    if (const pmix_status_t rc = info.convert(); rc != PMIX_SUCCESS) return rc;
    pmix_proc_t me;
    return PMIx_tool_init(&me, info.info(), info.size());
}

// The server this tool is attached to, as a target naming its whole namespace.
pmix_status_t server_target(pmix_proc_t& target) {
    pmix_proc_t* servers = nullptr;
    size_t nservers = 0;
    const pmix_status_t rc = PMIx_tool_get_servers(&servers, &nservers);
    if (rc != PMIX_SUCCESS) return rc;
    if (nservers == 0 || servers == nullptr) return PMIX_ERR_UNREACH;
    PMIX_LOAD_PROCID(&target, servers[0].nspace, PMIX_RANK_WILDCARD);
    PMIX_PROC_FREE(servers, nservers);
    return PMIX_SUCCESS;
}

pmix_status_t terminate(const pmix_proc_t& target) {
    pmix_status_t lost = PMIX_ERR_LOST_CONNECTION;
    const pmix_status_t registered =
        PMIx_Register_event_handler(&lost, 1, nullptr, 0, on_lost, nullptr, nullptr);
    if (registered < 0) return registered;
    pmix_info_t directive;
    PMIX_INFO_LOAD(&directive, PMIX_JOB_CTRL_TERMINATE, nullptr, PMIX_BOOL);
    pmix_info_t* results = nullptr;
    size_t nresults = 0;
    const pmix_status_t rc = PMIx_Job_control(&target, 1, &directive, 1, &results, &nresults);
    PMIX_INFO_DESTRUCT(&directive);
    if (results != nullptr) PMIX_INFO_FREE(results, nresults);
    return rc;
}

}  // namespace

int run_dvm_stop(const Options& options) {
    if (const pmix_status_t rc = connect_tool(options); rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun --dvm-stop: no persistent launcher reached: %s\n",
                     PMIx_Error_string(rc));
        return 1;
    }
    pmix_proc_t target;
    pmix_status_t rc = server_target(target);
    if (rc == PMIX_SUCCESS) rc = terminate(target);
    if (rc != PMIX_SUCCESS) {
        std::fprintf(stderr, "pmixrun --dvm-stop: terminate refused: %s\n", PMIx_Error_string(rc));
        PMIx_tool_finalize();
        return 1;
    }
    const auto until = Clock::now() + kGoneWait;
    while (!g_server_gone && Clock::now() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    const bool gone = g_server_gone.load();
    PMIx_tool_finalize();
    if (!gone) {
        std::fprintf(stderr, "pmixrun --dvm-stop: %s accepted the request but is still there\n",
                     target.nspace);
        return 1;
    }
    return 0;
}

}  // namespace pmix::launcher
