// The head's side of PMIx_Spawn across nodes (remote_spawn.h): placement, the parts sent to the
// daemons, the requester's answer, and the new jobs' processes in the head's view for tools.
#include "remote_spawn.h"

#include "debug_nodes.h"

#include <cstdlib>
#include <utility>

namespace pmix::launcher {
namespace {

constexpr size_t kAppFieldsAt = 3;  // spawn: id, parent nspace, parent rank, app fields

// Ranks in blocks of equal size over the nodes, the first ones taking one more when the count
// does not divide: a 2-rank job on 2 nodes has one rank on each, whatever the slots.
std::vector<uint32_t> place(size_t nprocs, size_t nodes) {
    std::vector<uint32_t> counts(nodes, static_cast<uint32_t>(nprocs / nodes));
    for (size_t node = 0; node < nprocs % nodes; ++node) ++counts[node];
    return counts;
}

}  // namespace

bool HeadSpawner::take(size_t node, const Message& message) {
    if (message.kind == MessageKind::spawn) request(node, message);
    else if (message.kind == MessageKind::spawn_started) started(node, message);
    else return false;
    return true;
}

void HeadSpawner::request(size_t node, const Message& message) {
    std::vector<uint32_t> placed = std::exchange(next_counts_, {});  // this request's only
    const std::vector<std::string>& f = message.fields;
    const size_t nodes = view_.layout.nodes.size();
    char* end = nullptr;
    const unsigned long nprocs =
        f.size() > kAppFieldsAt ? std::strtoul(f[kAppFieldsAt].c_str(), &end, 10) : 0;
    if (nprocs == 0 || nprocs > 4096 || end == nullptr || *end != '\0' || nodes == 0) {
        send_(node, MessageKind::spawn_reply,
              {f.empty() ? "0" : f[0], std::to_string(PMIX_ERR_BAD_PARAM), ""});
        return;
    }
    if (view_.failing) {
        send_(node, MessageKind::spawn_reply, {f[0], std::to_string(PMIX_ERR_JOB_TERMINATED), ""});
        return;
    }
    pmix_proc_t parent;
    PMIX_LOAD_PROCID(&parent, f[1].c_str(),
                     static_cast<pmix_rank_t>(std::strtoul(f[2].c_str(), nullptr, 10)));
    const std::vector<uint32_t> counts = placed.empty() ? place(nprocs, nodes) : placed;
    Pending& pending = launch(parent, counts, {f.begin() + kAppFieldsAt, f.end()});
    pending.requester_node = node;
    pending.id = f[0];
    // Its debugger stops (in its job info): every node holds its part, the head reports.
    if (AppSpec app; decode_app(f, kAppFieldsAt, app) && app.stops.any()) hold(parent, app.stops);
}

void HeadSpawner::spawn_here(const pmix_proc_t& parent, const AppSpec& app,
                             const std::vector<uint32_t>& counts, Done done) {
    if (view_.failing || counts.size() != view_.layout.nodes.size()) {
        done(view_.failing ? PMIX_ERR_JOB_TERMINATED : PMIX_ERR_BAD_PARAM, "");
        return;
    }
    AppSpec placed = app;
    placed.nprocs = 0;
    for (uint32_t count : counts) placed.nprocs += count;
    launch(parent, counts, encode_app(placed), app.lifecycle).done = std::move(done);
    forward_only(view_, parent, view_.spawned_nspaces.back(), app.forwarded);  // not printed
    if (app.stops.any()) hold(parent, app.stops);  // its stops went in its job info
}

void HeadSpawner::hold(const pmix_proc_t& requester, const StopRequest& stops) {
    const size_t nodes = view_.layout.nodes.size();
    head_debug_hold(view_, view_.spawned_nspaces.back(), requester, stops,
                    [this, nodes](MessageKind kind, const std::vector<std::string>& fields) {
                        for (size_t n = 0; n < nodes; ++n) send_(n, kind, fields);
                    });
}

HeadSpawner::Pending& HeadSpawner::launch(const pmix_proc_t& parent,
                                          const std::vector<uint32_t>& counts,
                                          const std::vector<std::string>& app_fields,
                                          const LifecycleRequest& lifecycle) {
    const size_t nodes = counts.size();
    const unsigned job = next_job_++;
    const std::string nspace = view_.nspace + "." + std::to_string(job);
    std::vector<std::string> part{nspace, std::to_string(job), parent.nspace,
                                  std::to_string(parent.rank), std::to_string(nodes)};
    for (uint32_t count : counts) part.push_back(std::to_string(count));
    part.insert(part.end(), app_fields.begin(), app_fields.end());
    Pending& pending = pending_[nspace];
    pending.waiting = nodes;
    pending.reported.assign(nodes, false);
    pending.counts = counts;
    // The head's view for tools: every rank with its node; the job's events are raised here.
    // The app fields (encode_app): nprocs, pset, directives, wdir, 2 agents, argc, argv[0], ...
    const std::string program = app_fields.size() > 7 ? app_fields[7] : "";
    size_t nprocs = 0;
    for (uint32_t count : counts) nprocs += count;
    pmix_rank_t rank = 0;
    for (size_t n = 0; n < nodes; ++n) {
        for (uint32_t i = 0; i < counts[n]; ++i) {
            Proc& process = view_.procs.emplace_back();
            process.rank = rank++;
            process.nspace = nspace;
            process.job = job;
            process.executable = program;
            process.host = view_.layout.nodes[n].name;
            process.node = n;
        }
    }
    view_.spawned_nspaces.push_back(nspace);
    lifecycle_watch(view_, nspace, nprocs, &parent, lifecycle);
    for (size_t n = 0; n < nodes; ++n) send_(n, MessageKind::spawn_part, part);
    return pending;
}

void HeadSpawner::started(size_t node, const Message& message) {
    const std::vector<std::string>& f = message.fields;
    auto found = f.size() >= 2 && f.size() % 2 == 0 ? pending_.find(f[0]) : pending_.end();
    if (found == pending_.end() || node >= found->second.reported.size() ||
        found->second.reported[node])
        return;
    Pending& pending = found->second;
    pending.reported[node] = true;
    // The node's (rank, pid) pairs: the proc table a debugger reads before the processes end.
    for (size_t i = 2; i + 1 < f.size(); i += 2)
        for (Proc& p : view_.procs)
            if (p.nspace == f[0] && p.rank == std::strtoul(f[i].c_str(), nullptr, 10) && p.pid <= 0)
                p.pid = static_cast<pid_t>(std::strtol(f[i + 1].c_str(), nullptr, 10));
    const auto status = static_cast<pmix_status_t>(std::atoi(f[1].c_str()));
    if (status != PMIX_SUCCESS && pending.status == PMIX_SUCCESS) pending.status = status;
    if (--pending.waiting == 0) finish(f[0], pending);
}

void HeadSpawner::finish(const std::string& nspace, Pending& pending) {
    if (pending.status == PMIX_SUCCESS) lifecycle_started(view_, nspace);
    Done done = std::move(pending.done);
    const pmix_status_t status = pending.status;
    if (!done)
        send_(pending.requester_node, MessageKind::spawn_reply,
              {pending.id, std::to_string(status), nspace});
    pending_.erase(nspace);
    if (done) done(status, nspace);
}

void HeadSpawner::node_lost(size_t node) {
    for (auto it = pending_.begin(); it != pending_.end();) {
        Pending& pending = it->second;
        const std::string nspace = (it++)->first;
        if (node < pending.reported.size() && !pending.reported[node]) {
            pending.reported[node] = true;
            pending.status = PMIX_ERR_LOST_CONNECTION;
            if (--pending.waiting == 0) finish(nspace, pending);
        }
    }
}

bool HeadSpawner::awaiting(size_t node) const {
    for (const auto& [nspace, pending] : pending_)
        if (node < pending.reported.size() && !pending.reported[node] && pending.counts[node] > 0)
            return true;
    return false;
}

bool HeadSpawner::exited(const Message& message) {
    const std::vector<std::string>& f = message.fields;
    if (f.size() < 4 || f[3] == view_.nspace) return false;
    const auto rank = static_cast<pmix_rank_t>(std::strtoul(f[0].c_str(), nullptr, 10));
    for (Proc& process : view_.procs) {
        if (process.nspace != f[3] || process.rank != rank || process.exited) continue;
        process.pid = static_cast<pid_t>(std::atol(f[1].c_str()));
        process.exited = true;
        process.exit_code = std::atoi(f[2].c_str());
        // The daemons encode a signal as 128+sig (job.cpp); the lifecycle wants a wait status.
        const int code = process.exit_code;
        lifecycle_proc_ended(view_, process,
                             code > 128 && code < 128 + 65 ? code - 128 : (code & 0xff) << 8);
        break;
    }
    return true;
}

}  // namespace pmix::launcher
