// pmixd: the per-node daemon of a multi-node pmixrun. It is the single-node host (the Launcher of
// host.cpp/job.cpp) for the ranks of its node, plus DaemonRemote, which talks to the head over
// stdin/stdout (channel.h) and to the other daemons over libfabric (node_net.h).
//
//   pmixd --node-name NAME --node-index I [--fabric-node ADDR]
//
// 1. opens its fabric endpoint and sends the head its address ('A');
// 2. receives the job ('J'): namespace, size, every node's name, rank count and address, the
//    program, the -x environment; connects the fabric and serves the job like pmixrun does;
// 3. reports connects (rank, pid), finalizes, exits (rank, pid, code), output lines, failures
//    and its final status ('C' 'F' 'X' 'O' 'E' 'D'); obeys kill ('K'), timeout ('T'), node lost
//    ('L'), events ('N') and quit ('Q').
// If the head goes away (EOF on stdin) the daemon kills its ranks and exits.
#include "channel.h"
#include "launcher.h"
#include "node_net.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

void die(const std::string& why) {
    std::fprintf(stderr, "pmixd: %s\n", why.c_str());
    std::exit(1);
}

class DaemonRemote final : public Remote {
public:
    DaemonRemote(Launcher& L, Channel& ch, NodeNet& net) : L_(L), ch_(ch), net_(net) {}

    pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                        size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                        void* cbdata) override {
        return net_.fence(procs, nprocs, info, ninfo, data, ndata, cbfunc, cbdata);
    }
    pmix_status_t direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc,
                               void* cbdata) override {
        return net_.direct_modex(proc, cbfunc, cbdata);
    }
    void notify(pmix_status_t code, const pmix_proc_t& source, pmix_data_range_t range,
                const pmix_info_t* info, size_t ninfo) override {
        std::string packed;
        if (pack_infos(info, ninfo, packed) != PMIX_SUCCESS)
            packed.clear();  // the event, without its info
        ch_.send('N', {std::to_string(code), source.nspace, std::to_string(source.rank),
                       std::to_string(range), packed});
    }
    void failed(int code, const std::string& why) override {
        ch_.send('E', {std::to_string(code), why});
    }
    void output(const std::string& tag, int stream, const char* s, size_t n) override {
        ch_.send('O', {tag, std::to_string(stream), std::string(s, n)});
    }
    void connected(const Proc& p) override {
        ch_.send('C', {std::to_string(p.rank), std::to_string(p.pid)});
    }
    void finalized(pmix_rank_t rank) override { ch_.send('F', {std::to_string(rank)}); }
    void exited(const Proc& p) override {
        ch_.send('X', {std::to_string(p.rank), std::to_string(p.pid), std::to_string(p.exit_code)});
    }
    int control_fd() const override { return head_gone_ ? -1 : ch_.in_fd(); }
    void tick() override { net_.tick(); }
    void job_done(int code) override { ch_.send('D', {std::to_string(code)}); }
    void signal_others(const std::vector<pmix_proc_t>& targets, int sig) override {
        std::vector<std::string> f{std::to_string(sig)};
        for (const pmix_proc_t& t : targets) {
            f.emplace_back(t.nspace);
            f.push_back(std::to_string(t.rank));
        }
        ch_.send('S', f);
    }

    void on_control() override {
        std::vector<Message> msgs;
        const bool alive = ch_.receive(msgs);
        for (const Message& m : msgs) handle(m);
        if (!alive) {  // the head is gone: nobody is left to report to
            head_gone_ = true;
            kill_now(1);
            L_.quit = true;
        }
    }

private:
    void kill_now(int code) {
        L_.fail(code, "");
        L_.fail_at = Clock::now() - std::chrono::seconds(1);  // no grace
    }

    void handle(const Message& m) {
        const auto num = [&](size_t i) {
            return i < m.fields.size() ? std::atoll(m.fields[i].c_str()) : 0;
        };
        switch (m.type) {
            case 'K':  // the job is failing: fences in flight end with an error, not by SIGTERM
                L_.fail(static_cast<int>(num(0)), "");
                for (size_t n = 0; n < L_.layout.nodes.size(); ++n)
                    if (n != L_.layout.here) net_.lost(static_cast<uint32_t>(n));
                break;
            case 'T':
                L_.timed_out = true;
                kill_now(124);
                break;
            case 'L':
                net_.lost(static_cast<uint32_t>(num(0)));
                break;
            case 'Q':
                L_.quit = true;
                break;
            case 'N':
                deliver_event(m);
                break;
            case 'S': {  // another node's PMIx_Job_control: sig, then (nspace, rank) pairs
                std::vector<pmix_proc_t> targets;
                for (size_t i = 1; i + 1 < m.fields.size(); i += 2) {
                    pmix_proc_t& t = targets.emplace_back();
                    PMIX_LOAD_PROCID(&t, m.fields[i].c_str(),
                                     static_cast<pmix_rank_t>(std::atoll(m.fields[i + 1].c_str())));
                }
                if (num(0) > 0 && num(0) < 65) signal_local(L_, targets, static_cast<int>(num(0)));
                break;
            }
            default:
                std::fprintf(stderr, "pmixd: unexpected message '%c' from the head\n", m.type);
        }
    }

    // An event raised on another node: hand it to our server for its local clients.
    void deliver_event(const Message& m) {
        if (m.fields.size() < 5) return;
        pmix_proc_t src;
        PMIX_LOAD_PROCID(&src, m.fields[1].c_str(),
                         static_cast<pmix_rank_t>(std::atoll(m.fields[2].c_str())));
        auto* holder = new std::pair<pmix_info_t*, size_t>(nullptr, 0);
        if (unpack_infos(m.fields[4], &holder->first, &holder->second) != PMIX_SUCCESS) {
            std::fprintf(
                stderr,
                "pmixd: an event from another node has undecodable info; delivered without\n");
        }
        auto release = [](pmix_status_t, void* cb) {
            auto* h = static_cast<std::pair<pmix_info_t*, size_t>*>(cb);
            if (h->first != nullptr) PMIX_INFO_FREE(h->first, h->second);
            delete h;
        };
        const pmix_status_t rc =
            PMIx_Notify_event(std::atoi(m.fields[0].c_str()), &src,
                              static_cast<pmix_data_range_t>(std::atoi(m.fields[3].c_str())),
                              holder->first, holder->second, release, holder);
        if (rc != PMIX_SUCCESS) release(rc, holder);
    }

    Launcher& L_;
    Channel& ch_;
    NodeNet& net_;
    bool head_gone_ = false;
};

struct Args {
    std::string node_name, fabric_node;
    size_t node_index = 0;
};

Args parse_args(int argc, char** argv) {
    Args a;
    bool have_index = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i], v = argv[i + 1];
        if (k == "--node-name") a.node_name = v;
        else if (k == "--node-index") {
            a.node_index = std::strtoul(v.c_str(), nullptr, 10);
            have_index = true;
        } else if (k == "--fabric-node") a.fabric_node = v;
        else die("unknown option '" + k + "'");
    }
    if (a.node_name.empty() || !have_index)
        die("usage: pmixd --node-name NAME --node-index I [--fabric-node ADDR] (started by "
            "pmixrun)");
    return a;
}

// The job message: nspace, nprocs, K, K x (name, count, address), argc, argv..., envc, env...,
// launch blob
bool read_job(const Message& m, const Args& a, Launcher& L, std::vector<std::string>& addrs) {
    const auto& f = m.fields;
    size_t i = 0;
    auto next = [&]() -> const std::string* { return i < f.size() ? &f[i++] : nullptr; };
    const std::string* ns = next();
    const std::string* np = next();
    const std::string* k = next();
    if (m.type != 'J' || ns == nullptr || np == nullptr || k == nullptr) return false;
    L.nspace = *ns;
    L.opt.nprocs = std::atoi(np->c_str());
    const size_t nodes = std::strtoul(k->c_str(), nullptr, 10);
    for (size_t n = 0; n < nodes; ++n) {
        const std::string* name = next();
        const std::string* count = next();
        const std::string* addr = next();
        if (addr == nullptr) return false;
        L.layout.nodes.push_back({*name, std::max(1, std::atoi(count->c_str()))});
        L.layout.first.push_back(0);
        L.layout.count.push_back(static_cast<uint32_t>(std::atoi(count->c_str())));
        addrs.push_back(*addr);
    }
    uint32_t next_rank = 0;
    for (size_t n = 0; n < nodes; ++n) {
        L.layout.first[n] = next_rank;
        next_rank += L.layout.count[n];
    }
    if (a.node_index >= nodes || next_rank != static_cast<uint32_t>(L.opt.nprocs)) return false;
    L.layout.here = a.node_index;
    for (auto* list : {&L.opt.argv, &L.opt.env}) {
        const std::string* cnt = next();
        if (cnt == nullptr) return false;
        for (size_t c = std::strtoul(cnt->c_str(), nullptr, 10); c > 0; --c) {
            const std::string* s = next();
            if (s == nullptr) return false;
            list->push_back(*s);
        }
    }
    const std::string* blob =
        next();  // PMIx_server_setup_application's result, for setup_local_support
    if (blob == nullptr) return false;
    L.launch_blob = *blob;
    return !L.opt.argv.empty();
}

}  // namespace
}  // namespace pmix::launcher

int main(int argc, char** argv) {
    using namespace pmix::launcher;
    const Args args = parse_args(argc, argv);
    // The channel owns stdout; anything else that writes to fd 1 goes to stderr instead.
    const int channel_out = ::dup(1);
    ::dup2(2, 1);
    Channel ch(0, channel_out);
    std::string error;
    std::unique_ptr<NodeNet> net = NodeNet::open(args.fabric_node, error);
    if (!net) die("cannot open the fabric endpoint: " + error);
    if (!ch.send('A', {net->address(), net->provider(), net->node_address()}))
        die("the head is gone");
    Launcher L;
    L.t.start = Clock::now();
    Message job;
    std::vector<std::string> addrs;
    if (!ch.wait_one(job, 120000)) die("no job from the head");
    if (!read_job(job, args, L, addrs)) die("malformed job message from the head");
    if (!net->connect(L.layout, L.nspace, addrs, error)) die("fabric connect failed: " + error);
    L.hostname = args.node_name;
    for (uint32_t r = 0; r < L.local_main(); ++r) {
        Proc& pr = L.procs.emplace_back();
        pr.rank = L.first_local() + r;
        pr.nspace = L.nspace;
    }
    DaemonRemote remote(L, ch, *net);
    L.remote = &remote;
    g_launcher = &L;
    const int code = serve_job(L, child_env(L.opt), {{PMIX_HOSTNAME, args.node_name}});
    net.reset();
    return code;
}
