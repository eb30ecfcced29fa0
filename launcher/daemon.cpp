// pmixd: the per-node daemon of a multi-node pmixrun. It is the single-node host (the Launcher of
// host.cpp/job.cpp) for the ranks of its node, plus DaemonRemote, which talks to the head over
// stdin/stdout (channel.h) and to the other daemons over libfabric (node_net.h).
//
//   pmixd --node-name NAME --node-index I [--fabric-node ADDR]
//
// 1. opens its fabric endpoint and sends the head its address (MessageKind::address);
// 2. receives the job (JobMessage): namespace, size, every node's name, rank count and address,
//    the program, the -x environment; connects the fabric and serves the job like pmixrun does;
// 3. reports connects, finalizes, exits, output chunks, failures and its final status
//    (connected, finalized, exited, output, failed, done); obeys kill, timeout, node_lost,
//    event, signal and quit (channel.h lists every kind and its fields).
// If the head goes away (EOF on stdin) the daemon kills its ranks and exits.
#include "channel.h"
#include "debug_nodes.h"
#include "directory.h"
#include "launcher.h"
#include "node_net.h"
#include "remote_connect.h"
#include "remote_spawn.h"

#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

[[noreturn]] void die(const std::string& why) {
    std::fprintf(stderr, "pmixd: %s\n", why.c_str());
    std::exit(1);
}

// Output read from the ranks but not yet taken by the head: above this the ranks' pipes are not
// read (the ranks block in write), so pmixd's memory stays bounded however slow the head is.
constexpr size_t kOutputQueued = 1u << 20;

class DaemonRemote final : public Remote {
public:
    DaemonRemote(Launcher& launcher, Channel& channel, NodeNet& net)
        : launcher_(launcher), channel_(channel), net_(net) {}

    pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                        size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                        void* cbdata) override {
        return net_.fence(procs, nprocs, info, ninfo, data, ndata, cbfunc, cbdata);
    }
    pmix_status_t direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc,
                               void* cbdata) override {
        return net_.direct_modex(proc, cbfunc, cbdata);
    }
    pmix_status_t group(pmix_group_operation_t op, const std::string& grp,
                        const std::vector<pmix_proc_t>& members, bool wants_id, int timeout_seconds,
                        const std::string& endpoints, GroupDone done) override {
        return net_.group(op, grp, members, wants_id, timeout_seconds, endpoints, std::move(done));
    }
    void notify(pmix_status_t code, const pmix_proc_t& source, pmix_data_range_t range,
                const pmix_info_t* info, size_t ninfo) override {
        std::string packed;
        if (pack_infos(info, ninfo, packed) != PMIX_SUCCESS)
            packed.clear();  // the event, without its info
        channel_.send(MessageKind::event,
                      {std::to_string(code), source.nspace, std::to_string(source.rank),
                       std::to_string(range), packed});
    }
    void failed(int code, const std::string& why) override {
        channel_.send(MessageKind::failed, {std::to_string(code), why});
    }
    void output(const Proc& process, int stream, const char* bytes, size_t length,
                bool end) override {
        channel_.send(MessageKind::output,
                      {process.nspace, std::to_string(process.rank), std::to_string(stream),
                       std::string(bytes, length), end ? "1" : "0"});
    }
    bool output_blocked() const override { return channel_.queued() >= kOutputQueued; }
    void stdin_taken(uint64_t bytes) override {
        channel_.send(MessageKind::stdin_taken, {std::to_string(bytes)});
    }
    int control_out_fd() const override {
        return !head_gone_ && channel_.queued() > 0 ? channel_.out_fd() : -1;
    }
    void connected(const Proc& process) override {
        channel_.send(MessageKind::connected,
                      {std::to_string(process.rank), std::to_string(process.pid)});
    }
    void finalized(pmix_rank_t rank) override {
        channel_.send(MessageKind::finalized, {std::to_string(rank)});
    }
    void exited(const Proc& process) override {
        channel_.send(MessageKind::exited,
                      {std::to_string(process.rank), std::to_string(process.pid),
                       std::to_string(process.exit_code), process.nspace});
    }
    void aborted(const pmix_proc_t& proc, int status) override {
        channel_.send(MessageKind::aborted,
                      {proc.nspace, std::to_string(proc.rank), std::to_string(status)});
    }
    void add_upcalls(pmix_server_module_t& module) override {
        fill_remote_directory(module);
        fill_remote_connect(module);
    }
    void spawn(const pmix_proc_t& parent, const AppSpec& app, pmix_spawn_cbfunc_t cbfunc,
               void* cbdata) override {
        request_spawn(head_channel(), parent, app, cbfunc, cbdata);
    }
    int control_fd() const override { return head_gone_ ? -1 : channel_.in_fd(); }
    Channel* head_channel() override { return head_gone_ ? nullptr : &channel_; }
    void tick() override { net_.tick(); }
    void job_done(int code) override { channel_.send(MessageKind::done, {std::to_string(code)}); }
    void signal_others(const std::vector<pmix_proc_t>& targets, int sig) override {
        std::vector<std::string> fields{std::to_string(sig)};
        for (const pmix_proc_t& target : targets) {
            fields.emplace_back(target.nspace);
            fields.push_back(std::to_string(target.rank));
        }
        channel_.send(MessageKind::signal, fields);
    }

    void on_control() override {
        std::vector<Message> messages;
        const bool alive = channel_.flush_some() && channel_.receive(messages);
        for (const Message& message : messages) handle(message);
        if (!alive) {  // the head is gone: nobody is left to report to
            head_gone_ = true;
            fail_directory_requests(PMIX_ERR_LOST_CONNECTION);
            fail_spawn_requests(PMIX_ERR_LOST_CONNECTION);
            fail_connect_requests(PMIX_ERR_LOST_CONNECTION);
            kill_now(1);
            launcher_.quit = true;
        }
    }

private:
    void kill_now(int code) {
        launcher_.fail(code, "");
        launcher_.fail_at = Clock::now() - std::chrono::seconds(1);  // no grace
    }

    void handle(const Message& message) {
        const auto number = [&](size_t field) {
            return field < message.fields.size() ? std::atoll(message.fields[field].c_str()) : 0;
        };
        if (!message.kind) {
            report_unexpected(message);
            return;
        }
        switch (*message.kind) {
            case MessageKind::kill:  // the job is failing: fences in flight end with an error
                launcher_.fail(static_cast<int>(number(0)), "");
                for (size_t node = 0; node < launcher_.layout.nodes.size(); ++node)
                    if (node != launcher_.layout.here) net_.lost(static_cast<uint32_t>(node));
                break;
            case MessageKind::timeout:
                launcher_.timed_out = true;
                kill_now(124);
                break;
            case MessageKind::node_lost:
                net_.lost(static_cast<uint32_t>(number(0)));
                break;
            case MessageKind::quit:
                launcher_.quit = true;
                if (launcher_.options.dvm) kill_now(0);  // the DVM stops: its jobs end now
                break;
            case MessageKind::retire:  // a DVM's job ended on every node
                if (!message.fields.empty()) dvm_order_retire(message.fields[0]);
                break;
            case MessageKind::event:
                deliver_event(message);
                break;
            case MessageKind::signal:
                apply_signal(message);
                break;
            case MessageKind::directory_reply:  // our clients' publish, lookup, unpublish
                take_directory_reply(message);
                break;
            case MessageKind::connect_reply:  // our clients' PMIx_Connect / PMIx_Disconnect
                take_connect_reply(message);
                break;
            case MessageKind::spawn_reply:  // our client's PMIx_Spawn
                take_spawn_reply(message);
                break;
            case MessageKind::spawn_part:  // a spawned job's ranks on this node
                take_spawn_part(launcher_, channel_, message,
                                [this](const std::string& nspace, const Layout& layout) {
                                    net_.add_job(nspace, layout);
                                });
                break;
            case MessageKind::debug_release:  // a tool's PMIX_DEBUGGER_RELEASE (debug_nodes.h)
                daemon_debug_release(launcher_, message);
                break;
            case MessageKind::stdin_data:
                if (message.fields.size() == 2)
                    stdin_append(launcher_.stdin_fwd, message.fields[0].data(),
                                 message.fields[0].size(), message.fields[1] == "1");
                break;
            default:  // a kind only daemons send
                report_unexpected(message);
        }
    }

    static void report_unexpected(const Message& message) {
        std::fprintf(stderr, "pmixd: unexpected message %s from the head\n",
                     describe(message).c_str());
    }

    // Another node's PMIx_Job_control: the signal, then (nspace, rank) pairs of the targets.
    void apply_signal(const Message& message) {
        const std::vector<std::string>& fields = message.fields;
        std::vector<pmix_proc_t> targets;
        for (size_t i = 1; i + 1 < fields.size(); i += 2) {
            pmix_proc_t& target = targets.emplace_back();
            PMIX_LOAD_PROCID(&target, fields[i].c_str(),
                             static_cast<pmix_rank_t>(std::atoll(fields[i + 1].c_str())));
        }
        const long long sig = fields.empty() ? 0 : std::atoll(fields[0].c_str());
        if (sig > 0 && sig < 65) signal_local(launcher_, targets, static_cast<int>(sig));
    }

    // An event raised on another node: hand it to our server for its local clients.
    void deliver_event(const Message& message) {
        const std::vector<std::string>& fields = message.fields;
        if (fields.size() < 5) return;
        pmix_proc_t source;
        PMIX_LOAD_PROCID(&source, fields[1].c_str(),
                         static_cast<pmix_rank_t>(std::atoll(fields[2].c_str())));
        auto* event_info = new std::pair<pmix_info_t*, size_t>(nullptr, 0);
        if (unpack_infos(fields[4], &event_info->first, &event_info->second) != PMIX_SUCCESS) {
            std::fprintf(
                stderr,
                "pmixd: an event from another node has undecodable info; delivered without\n");
        }
        auto release = [](pmix_status_t, void* cbdata) {
            auto* owned = static_cast<std::pair<pmix_info_t*, size_t>*>(cbdata);
            if (owned->first != nullptr) PMIX_INFO_FREE(owned->first, owned->second);
            delete owned;
        };
        // No source nspace: the head's own event (debug_nodes.h), raised as ours.
        const pmix_status_t rc =
            PMIx_Notify_event(std::atoi(fields[0].c_str()), fields[1].empty() ? nullptr : &source,
                              static_cast<pmix_data_range_t>(std::atoi(fields[3].c_str())),
                              event_info->first, event_info->second, release, event_info);
        if (rc != PMIX_SUCCESS) release(rc, event_info);
    }

    Launcher& launcher_;
    Channel& channel_;
    NodeNet& net_;
    bool head_gone_ = false;
};

// Takes the job the head sent: the layout (every node's rank count, this node's index) and the
// program; the nodes' fabric addresses go to `addresses`. False if it does not add up.
bool accept_job(const JobMessage& job, const DaemonOptions& args, Launcher& launcher,
                std::vector<std::string>& addresses) {
    launcher.nspace = job.nspace;
    launcher.options.nprocs = static_cast<int>(job.nprocs);
    uint32_t next_rank = 0;
    for (const JobMessage::Node& node : job.nodes) {
        launcher.layout.nodes.push_back({node.name, std::max(1, static_cast<int>(node.ranks))});
        launcher.layout.first_rank.push_back(next_rank);
        launcher.layout.rank_count.push_back(node.ranks);
        addresses.push_back(node.fabric_address);
        next_rank += node.ranks;
    }
    if (args.node_index >= job.nodes.size() || next_rank != job.nprocs) return false;
    launcher.layout.here = args.node_index;
    launcher.options.argv = job.argv;
    launcher.options.env = job.env;
    launcher.options.env_directives = job.env_directives;
    launcher.launch_blob = job.launch_blob;  // for setup_local_support
    launcher.credential_key = job.credential_key;
    launcher.options.first_pset = job.pset;
    launcher.options.stdin_rank = job.stdin_rank;
    launcher.options.start_as = job.start_as;
    launcher.time_limit_s = job.timeout_s;  // the head enforces it; told to tools (queries)
    return true;
}

}  // namespace
}  // namespace pmix::launcher

int main(int argc, char** argv) {
    using namespace pmix::launcher;
    DaemonOptions args;
    std::string error;
    if (!parse_daemon_options(argc, argv, args, error)) die(error);
    // The channel owns stdout; anything else that writes to fd 1 goes to stderr instead.
    // The head gone: writes to the channel fail (EPIPE, the head is then treated as gone) rather
    // than kill us before we kill our ranks.
    ::signal(SIGPIPE, SIG_IGN);
    const int channel_out = ::dup(1);
    ::dup2(2, 1);
    Channel channel(0, channel_out);
    std::unique_ptr<NodeNet> net = NodeNet::open(args.fabric_node, error);
    if (!net) die("cannot open the fabric endpoint: " + error);
    if (!channel.send(MessageKind::address, {net->address(), net->provider(), net->node_address()}))
        die("the head is gone");
    Launcher launcher;
    launcher.times.start = Clock::now();
    Message message;
    std::vector<std::string> addresses;
    if (!channel.wait_one(message, 120000)) die("no job from the head");
    const std::optional<JobMessage> job = decode_job(message);
    if (!job || !accept_job(*job, args, launcher, addresses))
        die("malformed job message from the head");
    if (!net->connect(launcher.layout, launcher.nspace, addresses, error))
        die("fabric connect failed: " + error);
    launcher.hostname = args.node_name;
    launcher.options.dvm = args.dvm;  // no job of its own: the head's tools spawn them
    for (uint32_t i = 0; i < launcher.local_main_ranks(); ++i) {
        Proc& process = launcher.procs.emplace_back();
        process.rank = launcher.first_local_rank() + i;
        process.nspace = launcher.nspace;
    }
    daemon_debug_setup(launcher, channel, job->debug_stops);  // --stop-* (debug_nodes.h)
    DaemonRemote remote(launcher, channel, *net);
    launcher.remote = &remote;
    g_launcher = &launcher;
    const int code =
        serve_job(launcher, child_env(launcher.options), {{PMIX_HOSTNAME, args.node_name}});
    channel.flush(5000);  // what is still queued for the head (it said quit: it may be gone)
    net.reset();
    return code;
}
