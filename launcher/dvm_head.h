// launcher/dvm_head.h - the persistent launcher across nodes: pmixrun --dvm --host/--hostfile.
//
// The head (head.cpp) starts one pmixd per node through the launch agent, as for a job, but
// with --dvm and an empty main job ("pmix-dvm.<pid>", no ranks). Its own server is the DVM's
// (dvm.cpp: the system server's rendezvous file, the ready line, job control that stops it), and
// DvmHead is that server's Remote: a tool's PMIx_Spawn is placed by HeadSpawner exactly as a
// rank's spawn across nodes (equal blocks over the nodes, remote_spawn.h), with the head itself as
// the requester's node (kHeadNode); the requester's PMIX_NOTIFY_* lifecycle events are honoured,
// since the head raises every job's events and the tool is attached there. A tool's job control
// and events reach every node (MessageKind::signal, event).
//
// Each pmixd is a DVM of its own for its node's processes (dvm.cpp with node_daemon): a failing
// job ends alone there, its kills relayed to the other nodes. A job is finished once every
// process reported its exit and the end of both streams: the head retires it (its view) and
// tells every daemon (MessageKind::retire), which drops it once its own processes are reaped and
// read. Stop (a terminate aimed at the DVM, pmix-dvm --stop, SIGINT/SIGTERM, or a daemon lost):
// `quit` to every daemon, which ends its jobs at once (SIGTERM, SIGKILL 3 s later), reports their
// exits, removes what its server made and exits; then the head finalizes its own server.
#pragma once

#include "channel.h"
#include "launcher.h"
#include "remote_spawn.h"

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace pmix::launcher {

// The requester's node of a spawn the head makes for a tool of its own server.
constexpr size_t kHeadNode = SIZE_MAX;
// The head reads no pipes: a remote rank's Stream.fd says only whether its end was reported.
constexpr int kStreamEnded = -2;

class DvmHead final : public Remote {
public:
    using SendAll = std::function<void(MessageKind, const std::vector<std::string>&)>;
    DvmHead(Launcher& view, HeadSpawner& spawner, SendAll send_all)
        : view_(view), spawner_(spawner), send_all_(std::move(send_all)) {}

    // A tool's spawn (host.cpp's upcall, on the loop): placed across the nodes.
    void spawn(const pmix_proc_t& parent, const AppSpec& app, pmix_spawn_cbfunc_t cbfunc,
               void* cbdata) override;
    // A tool's job control and events: every node applies them to its own processes.
    void signal_others(const std::vector<pmix_proc_t>& targets, int sig) override;
    void notify(pmix_status_t code, const pmix_proc_t& source, pmix_data_range_t range,
                const pmix_info_t* info, size_t ninfo) override;
    // The answer to a kHeadNode spawn (spawn_reply's fields: id, status, nspace).
    void take_reply(const std::vector<std::string>& fields);
    // Every job whose processes all ended, with both streams, is retired here and on each node.
    void retire_finished();
    void fail_requests(pmix_status_t status);  // spawns still unanswered at the stop
    // A job the head's debugger spawn placed (head_debug_spawn.h): retired as the others.
    void adopt(const std::string& nspace) { answered_.insert(nspace); }
    // Launcher::spawn_placement, on the server's thread: a tool's PMIX_HOST (a host list as
    // --host takes it) or PMIX_HOSTFILE, of the app's info, else of the job info, places the
    // job in equal blocks over those of the DVM's nodes (in the DVM's node order) instead of all;
    // a node the DVM does not have: PMIX_ERR_BAD_PARAM. Kept by cbdata until spawn() runs.
    pmix_status_t placement(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t* app,
                            void* cbdata);

    // The head has no clients: what only a node daemon does is refused or nothing.
    pmix_status_t fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t, char*, size_t,
                        pmix_modex_cbfunc_t, void*) override {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_status_t direct_modex(const pmix_proc_t*, pmix_modex_cbfunc_t, void*) override {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    pmix_status_t group(pmix_group_operation_t, const std::string&, const std::vector<pmix_proc_t>&,
                        bool, int, const std::string&, GroupDone) override {
        return PMIX_ERR_NOT_SUPPORTED;
    }
    void failed(int, const std::string&) override {}
    void output(const Proc&, int, const char*, size_t, bool) override {}
    bool output_blocked() const override { return false; }
    void stdin_taken(uint64_t) override {}
    int control_out_fd() const override { return -1; }
    void connected(const Proc&) override {}
    void finalized(pmix_rank_t) override {}
    void exited(const Proc&) override {}
    int control_fd() const override { return -1; }
    void on_control() override {}
    void tick() override {}
    void job_done(int) override {}

private:
    struct Wait {
        pmix_spawn_cbfunc_t cbfunc = nullptr;
        void* cbdata = nullptr;
    };
    Launcher& view_;
    HeadSpawner& spawner_;
    SendAll send_all_;
    uint64_t next_id_ = 1;
    std::map<uint64_t, Wait> waits_;
    std::set<std::string> answered_;            // placed jobs whose requester has its answer
    std::map<std::string, std::string> psets_;  // PMIX_PSET_NAME of the live jobs, by nspace
    std::mutex placed_mu_;
    // Every spawn's placement (empty: every node), replaced by the next spawn with that cbdata.
    std::map<void*, std::vector<uint32_t>> placed_;
};

}  // namespace pmix::launcher
