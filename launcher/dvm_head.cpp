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
    if (!app.pset.empty()) psets_[nspace] = app.pset;
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
