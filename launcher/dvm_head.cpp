// The head's side of the persistent launcher across nodes (dvm_head.h). Loop thread only.
#include "dvm_head.h"

#include <algorithm>
#include <cstdlib>

namespace pmix::launcher {

void DvmHead::spawn(const pmix_proc_t& parent, const AppSpec& app, pmix_spawn_cbfunc_t cbfunc,
                    void* cbdata) {
    auto answer = [&](pmix_status_t status) { cbfunc(status, nullptr, cbdata); };
    // A stdin fed by pushes would need the head to forward them to a node: not across nodes.
    if (app.stdin_rank != Options::kStdinNone) return answer(PMIX_ERR_NOT_SUPPORTED);
    for (const auto& [nspace, name] : psets_)  // every node defines the job's set
        if (!app.pset.empty() && name == app.pset) return answer(PMIX_ERR_EXISTS);
    std::vector<uint32_t> placed;
    {
        std::lock_guard lock(placed_mu_);
        if (auto found = placed_.find(cbdata); found != placed_.end())
            placed = std::move(placed_.extract(found).mapped());
    }
    if (!placed.empty()) spawner_.place_next(std::move(placed));
    const uint64_t id = next_id_++;
    waits_[id] = {cbfunc, cbdata};
    Message request;
    request.kind = MessageKind::spawn;
    request.fields = {std::to_string(id), parent.nspace, std::to_string(parent.rank)};
    const std::vector<std::string> app_fields = encode_app(app);
    request.fields.insert(request.fields.end(), app_fields.begin(), app_fields.end());
    const size_t jobs_before = view_.spawned_nspaces.size();
    spawner_.take(kHeadNode, request);  // a refusal is answered at once (take_reply)
    if (view_.spawned_nspaces.size() == jobs_before) return;
    // Placed: its events go where the requester asked (lifecycle.cpp), the head raising them all.
    const std::string& nspace = view_.spawned_nspaces.back();
    view_.lifecycles[nspace].request = app.lifecycle;
    forward_only(view_, parent, nspace, app.forwarded);  // a tool's forwarded output: not printed
    // Its stops: HeadSpawner::request holds it on every node (debug_nodes.h head_debug_hold).
    if (!app.pset.empty()) psets_[nspace] = app.pset;
}

namespace {

// The nodes PMIX_HOST / PMIX_HOSTFILE of `info` name (the first such key); false: none given.
bool named_hosts(const pmix_info_t* info, size_t ninfo, std::vector<NodeSlot>& hosts,
                 pmix_status_t& rc) {
    for (size_t i = 0; info != nullptr && i < ninfo; ++i) {
        const bool list = PMIX_CHECK_KEY(&info[i], PMIX_HOST);
        if (!list && !PMIX_CHECK_KEY(&info[i], PMIX_HOSTFILE)) continue;
        const pmix_value_t& value = info[i].value;
        std::string error;
        rc = value.type == PMIX_STRING && value.data.string != nullptr &&
                     (list ? parse_host_list(value.data.string, hosts, error)
                           : parse_hostfile(value.data.string, hosts, error))
                 ? PMIX_SUCCESS
                 : PMIX_ERR_BAD_PARAM;
        return true;
    }
    return false;
}

}  // namespace

pmix_status_t DvmHead::placement(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t* app,
                                 void* cbdata) {
    std::vector<NodeSlot> hosts;
    pmix_status_t rc = PMIX_SUCCESS;
    std::vector<uint32_t> counts;
    const bool named = (app != nullptr && named_hosts(app->info, app->ninfo, hosts, rc)) ||
                       named_hosts(job_info, ninfo, hosts, rc);
    if (named && rc == PMIX_SUCCESS && app != nullptr) {
        const std::vector<NodeSlot>& nodes = view_.layout.nodes;  // fixed once the DVM runs
        std::vector<size_t> chosen;
        for (const NodeSlot& host : hosts) {
            const auto at = std::find_if(nodes.begin(), nodes.end(),
                                         [&](const NodeSlot& n) { return n.name == host.name; });
            if (at == nodes.end()) rc = PMIX_ERR_BAD_PARAM;
            else chosen.push_back(static_cast<size_t>(at - nodes.begin()));
        }
        if (hosts.empty()) rc = PMIX_ERR_BAD_PARAM;
        std::sort(chosen.begin(), chosen.end());
        chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
        const size_t nprocs = app->maxprocs > 0 ? static_cast<size_t>(app->maxprocs) : 1;
        counts.assign(nodes.size(), 0);
        for (size_t i = 0; rc == PMIX_SUCCESS && i < chosen.size(); ++i)
            counts[chosen[i]] = static_cast<uint32_t>(nprocs / chosen.size() +
                                                      (i < nprocs % chosen.size() ? 1 : 0));
    }
    std::lock_guard lock(placed_mu_);
    if (rc == PMIX_SUCCESS && !counts.empty()) placed_[cbdata] = std::move(counts);
    else placed_.erase(cbdata);
    return rc;
}

void DvmHead::take_reply(const std::vector<std::string>& fields) {
    auto found = fields.size() == 3 ? waits_.find(std::strtoull(fields[0].c_str(), nullptr, 10))
                                    : waits_.end();
    if (found == waits_.end()) return;
    const Wait wait = found->second;
    waits_.erase(found);
    const auto status = static_cast<pmix_status_t>(std::atoi(fields[1].c_str()));
    if (!fields[2].empty()) answered_.insert(fields[2]);
    pmix_nspace_t spawned;  // the callback takes a (non-const) pmix_nspace_t
    PMIX_LOAD_NSPACE(spawned, status == PMIX_SUCCESS ? fields[2].c_str() : nullptr);
    wait.cbfunc(status, spawned, wait.cbdata);
}

void DvmHead::fail_requests(pmix_status_t status) {
    while (!waits_.empty()) {
        const Wait wait = waits_.extract(waits_.begin()).mapped();
        wait.cbfunc(status, nullptr, wait.cbdata);
    }
}

void DvmHead::retire_finished() {
    std::vector<std::string> finished;
    for (const std::string& nspace : answered_) {
        size_t count = 0;
        bool done = true;
        for (const Proc& process : view_.procs) {
            if (process.nspace != nspace) continue;
            ++count;
            done = done && process.exited && process.out.fd == kStreamEnded &&
                   process.err.fd == kStreamEnded;
        }
        if (done && count > 0) finished.push_back(nspace);
    }
    for (const std::string& nspace : finished) {
        send_all_(MessageKind::retire, {nspace});
        // dvm_retire_job takes its processes out of the exited count the loop keeps on one node.
        view_.exited_count += static_cast<size_t>(
            std::count_if(view_.procs.begin(), view_.procs.end(),
                          [&](const Proc& process) { return process.nspace == nspace; }));
        dvm_retire_job(view_, nspace);
        answered_.erase(nspace);
        psets_.erase(nspace);
    }
}

void DvmHead::signal_others(const std::vector<pmix_proc_t>& targets, int sig) {
    std::vector<std::string> fields{std::to_string(sig)};
    for (const pmix_proc_t& target : targets) {
        fields.emplace_back(target.nspace);
        fields.push_back(std::to_string(target.rank));
    }
    send_all_(MessageKind::signal, fields);
}

void DvmHead::notify(pmix_status_t code, const pmix_proc_t& source, pmix_data_range_t range,
                     const pmix_info_t* info, size_t ninfo) {
    std::string packed;
    if (pack_infos(info, ninfo, packed) != PMIX_SUCCESS) packed.clear();  // without its info
    send_all_(MessageKind::event, {std::to_string(code), source.nspace, std::to_string(source.rank),
                                   std::to_string(range), packed});
}

}  // namespace pmix::launcher
