// pmixd's side of PMIx_Spawn across nodes (remote_spawn.h): the request goes to the head, the
// head's spawn_part starts this node's ranks of the new job, its spawn_reply answers the
// requester. Loop thread only.
#include "remote_spawn.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace pmix::launcher {
namespace {

struct SpawnWait {
    pmix_spawn_cbfunc_t cbfunc = nullptr;
    void* cbdata = nullptr;
};
std::map<uint64_t, SpawnWait> g_spawns;
uint64_t g_next_spawn = 1;

void answer(const SpawnWait& wait, pmix_status_t status, const std::string& nspace) {
    pmix_nspace_t spawned;  // the callback takes a (non-const) pmix_nspace_t
    PMIX_LOAD_NSPACE(spawned, status == PMIX_SUCCESS ? nspace.c_str() : nullptr);
    wait.cbfunc(status, spawned, wait.cbdata);
}

uint64_t count_of(const std::string& text, uint64_t limit, bool& ok) {
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    ok = ok && !text.empty() && *end == '\0' && value <= limit;
    return value;
}

}  // namespace

std::vector<std::string> encode_app(const AppSpec& app) {
    std::vector<pmix_info_t> directives;
    for (const auto& owned : app.directives) directives.push_back(owned->info);
    std::string packed;
    if (pack_infos(directives.data(), directives.size(), packed) != PMIX_SUCCESS) packed.clear();
    std::vector<std::string> fields{std::to_string(app.nprocs), app.pset, packed};
    const StartAs& how = app.start_as;
    fields.insert(fields.end(), {how.wdir, how.fork_agent, how.exec_agent});
    fields.push_back(std::to_string(app.argv.size()));
    fields.insert(fields.end(), app.argv.begin(), app.argv.end());
    fields.insert(fields.end(), app.env.begin(), app.env.end());
    return fields;
}

bool decode_app(const std::vector<std::string>& fields, size_t at, AppSpec& app) {
    if (fields.size() < at + 7) return false;
    bool ok = true;
    app.nprocs = count_of(fields[at], 4096, ok);
    app.pset = fields[at + 1];
    app.start_as = {fields[at + 3], fields[at + 4], fields[at + 5]};
    const uint64_t argc = count_of(fields[at + 6], fields.size() - at - 7, ok);
    if (!ok || app.nprocs == 0 || argc == 0) return false;
    pmix_info_t* info = nullptr;
    size_t ninfo = 0;
    if (unpack_infos(fields[at + 2], &info, &ninfo) != PMIX_SUCCESS) return false;
    for (size_t i = 0; i < ninfo; ++i) {
        app.directives.push_back(std::make_shared<OwnedInfo>(info[i]));
        // A tool's stops of a job of the persistent launcher travel in its job info (debug.cpp).
        stop_directive(info[i], app.stops);
    }
    if (info != nullptr) PMIX_INFO_FREE(info, ninfo);
    const auto first_arg = fields.begin() + static_cast<long>(at + 7);
    app.argv.assign(first_arg, first_arg + static_cast<long>(argc));
    app.env.assign(first_arg + static_cast<long>(argc), fields.end());
    return true;
}

void request_spawn(Channel* head, const pmix_proc_t& parent, const AppSpec& app,
                   pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
    // What the head cannot do across nodes is refused, not dropped: the requester's own
    // lifecycle events (the head raises them for tools only) and a stdin fed by pushes.
    if (app.lifecycle.any() || app.stdin_rank != Options::kStdinNone) {
        answer({cbfunc, cbdata}, PMIX_ERR_NOT_SUPPORTED, "");
        return;
    }
    // Every node defines the same sets (the main job's apps, every spawned job): a name in use
    // here is in use everywhere, and sets are never redefined.
    for (const ProcessSetDef& set : g_launcher->psets) {
        if (!app.pset.empty() && set.name == app.pset) {
            answer({cbfunc, cbdata}, PMIX_ERR_EXISTS, "");
            return;
        }
    }
    const uint64_t id = g_next_spawn++;
    std::vector<std::string> fields{std::to_string(id), parent.nspace, std::to_string(parent.rank)};
    const std::vector<std::string> app_fields = encode_app(app);
    fields.insert(fields.end(), app_fields.begin(), app_fields.end());
    if (head == nullptr || !head->send(MessageKind::spawn, fields)) {
        answer({cbfunc, cbdata}, PMIX_ERR_LOST_CONNECTION, "");
        return;
    }
    g_spawns[id] = {cbfunc, cbdata};
}

void take_spawn_reply(const Message& message) {
    const std::vector<std::string>& f = message.fields;
    auto found =
        f.size() == 3 ? g_spawns.find(std::strtoull(f[0].c_str(), nullptr, 10)) : g_spawns.end();
    if (found == g_spawns.end()) {
        std::fprintf(stderr, "pmixd: a spawn reply for no request of ours\n");
        return;
    }
    const SpawnWait wait = found->second;
    g_spawns.erase(found);
    answer(wait, static_cast<pmix_status_t>(std::atoi(f[1].c_str())), f[2]);
}

void fail_spawn_requests(pmix_status_t status) {
    while (!g_spawns.empty()) answer(g_spawns.extract(g_spawns.begin()).mapped(), status, "");
}

// nspace, job, parent nspace, parent rank, K, K counts, app fields.
void take_spawn_part(Launcher& launcher, Channel& head, const Message& message,
                     const std::function<void(const std::string&, const Layout&)>& add_layout) {
    const std::vector<std::string>& f = message.fields;
    bool ok = f.size() > 5;
    const size_t nodes = ok ? count_of(f[4], launcher.layout.nodes.size(), ok) : 0;
    ok = ok && nodes == launcher.layout.nodes.size();
    Layout layout;
    layout.nodes = launcher.layout.nodes;
    layout.here = launcher.layout.here;
    uint32_t next = 0;
    for (size_t node = 0; ok && node < nodes && 5 + node < f.size(); ++node) {
        const uint32_t count = static_cast<uint32_t>(count_of(f[5 + node], 4096, ok));
        layout.first_rank.push_back(next);
        layout.rank_count.push_back(count);
        next += count;
    }
    AppSpec app;
    ok = ok && layout.rank_count.size() == nodes && decode_app(f, 5 + nodes, app) &&
         next == app.nprocs;
    pmix_status_t rc = PMIX_ERR_BAD_PARAM;
    if (ok) {
        const unsigned job = static_cast<unsigned>(std::strtoul(f[1].c_str(), nullptr, 10));
        launcher.next_job = std::max(launcher.next_job, job + 1);
        pmix_proc_t parent;
        PMIX_LOAD_PROCID(&parent, f[2].c_str(),
                         static_cast<pmix_rank_t>(std::strtoul(f[3].c_str(), nullptr, 10)));
        add_layout(f[0], layout);
        rc = start_job_part(launcher, parent, app, f[0], job, &layout);
    } else {
        std::fprintf(stderr, "pmixd: malformed spawn part from the head\n");
    }
    std::vector<std::string> started{f.empty() ? "" : f[0], std::to_string(rc)};
    for (const Proc& p : launcher.procs)  // the pids, for the head's proc table
        if (rc == PMIX_SUCCESS && p.nspace == started[0] && p.pid > 0) {
            started.push_back(std::to_string(p.rank));
            started.push_back(std::to_string(p.pid));
        }
    head.send(MessageKind::spawn_started, started);
    // The head counts this node busy again once it sent the part; a part refused before any
    // process started (PMIX_ERR_JOB_WDIR_NOT_FOUND) leaves nothing to wait for, so a node whose
    // processes had all ended says so again (else the head waited for it until killed).
    if (rc != PMIX_SUCCESS && !launcher.failing && launcher.remote != nullptr &&
        launcher.exited_count == launcher.procs.size())
        launcher.remote->job_done(launcher.final_exit_code());
}

}  // namespace pmix::launcher
