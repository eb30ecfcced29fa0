// The debugger stops across nodes (debug_nodes.h has the rules).
#include "debug_nodes.h"

#include <cstdio>
#include <cstdlib>

namespace pmix::launcher {

namespace {

// (nspace, rank) pairs: debug_release's fields.
std::vector<pmix_proc_t> targets_of(const std::vector<std::string>& fields) {
    std::vector<pmix_proc_t> targets;
    for (size_t i = 0; i + 1 < fields.size(); i += 2) {
        pmix_proc_t& target = targets.emplace_back();
        PMIX_LOAD_PROCID(
            &target, fields[i].c_str(),
            static_cast<pmix_rank_t>(std::strtoul(fields[i + 1].c_str(), nullptr, 10)));
    }
    return targets;
}

std::vector<std::string> fields_of(const std::vector<pmix_proc_t>& targets) {
    std::vector<std::string> fields;
    for (const pmix_proc_t& target : targets) {
        fields.emplace_back(target.nspace);
        fields.push_back(std::to_string(target.rank));
    }
    return fields;
}

}  // namespace

std::string debug_stop_letters(const Options& options) {
    std::string letters;
    if (options.stop_in_init) letters += 'i';
    if (options.stop_on_exec) letters += 'e';
    if (options.stop_in_app) letters += 'a';
    return letters;
}

void head_debug_setup(Launcher& view, const std::string& nspace,
                      std::function<void(const std::vector<std::string>&)> send_all) {
    const StopRequest stops = stop_main_request(view.options);
    if (!stops.any()) return;
    debug_watch_job(view, nspace, nullptr, stops);
    head_debug_forward(std::move(send_all));
    debug_watch_events();  // the tools' PMIX_DEBUGGER_RELEASE (debug.cpp)
}

void head_debug_forward(std::function<void(const std::vector<std::string>&)> send_all) {
    debug_set_release_forward(
        [send = std::move(send_all)](const std::vector<pmix_proc_t>& to) { send(fields_of(to)); });
}

void head_debug_hold(Launcher& view, const std::string& nspace, const pmix_proc_t& requester,
                     const StopRequest& stops, const DebugSendAll& send_all) {
    debug_watch_job(view, nspace, &requester, stops);
    if (!debug_forwards_releases())  // pmixrun --host without stops of its own job
        head_debug_forward([send_all](const std::vector<std::string>& fields) {
            send_all(MessageKind::debug_release, fields);
        });
    // A rank's requester is a client of its daemon's server (the DVM's tools are the head's).
    debug_set_event_forward([send_all](pmix_status_t code, const pmix_proc_t* source,
                                       const pmix_info_t* info, size_t ninfo) {
        std::string packed;
        if (pack_infos(info, ninfo, packed) != PMIX_SUCCESS) return;
        // No source: the launcher's own event; the daemon raises it as its own.
        send_all(MessageKind::event, {std::to_string(code), source != nullptr ? source->nspace : "",
                                      std::to_string(source != nullptr ? source->rank : 0),
                                      std::to_string(PMIX_RANGE_CUSTOM), packed});
    });
    debug_watch_events();  // the tools' releases at the head too
}

bool head_debug_report(Launcher& view, const Message& message, size_t nodes) {
    const std::vector<std::string>& f = message.fields;
    if (message.kind == MessageKind::debug_ready && f.size() == 4) {
        pmix_proc_t source;
        PMIX_LOAD_PROCID(&source, f[0].c_str(),
                         static_cast<pmix_rank_t>(std::strtoul(f[1].c_str(), nullptr, 10)));
        // Its pid, for the proc table a debugger reads at the job's READY_FOR_DEBUG (a spawned
        // job's processes report nothing else before they end).
        for (Proc& p : view.procs)
            if (p.nspace == f[0] && p.rank == source.rank && p.pid <= 0)
                p.pid = static_cast<pid_t>(std::strtol(f[3].c_str(), nullptr, 10));
        debug_remote_ready(view, source, f[2]);
        return false;
    }
    if (message.kind == MessageKind::debug_started && f.size() >= 2 && f.size() % 2 == 0) {
        for (size_t i = 2; i + 1 < f.size(); i += 2) {  // pmixrun's job or a DVM's
            const unsigned long rank = std::strtoul(f[i].c_str(), nullptr, 10);
            for (Proc& p : view.procs)
                if (p.nspace == f[0] && p.rank == rank && p.pid <= 0)
                    p.pid = static_cast<pid_t>(std::strtol(f[i + 1].c_str(), nullptr, 10));
        }
        return debug_remote_started(view, f[0], std::strtoul(f[1].c_str(), nullptr, 10), nodes);
    }
    if (message.kind == MessageKind::debug_release && f.size() % 2 == 0) {
        debug_remote_release(view, targets_of(f));  // to every node (release_forward)
        return false;
    }
    std::fprintf(stderr, "pmixrun: malformed %s from a daemon\n", describe(message).c_str());
    return false;
}

void daemon_debug_setup(Launcher& launcher, Channel& head, const std::string& letters) {
    // Always: a job a rank spawns (or a DVM's tool) may ask for stops.
    Options& options = launcher.options;
    options.stop_in_init = letters.find('i') != std::string::npos;
    options.stop_on_exec = letters.find('e') != std::string::npos;
    options.stop_in_app = letters.find('a') != std::string::npos;
    DebugUplink link;
    link.ready = [&head, &launcher](const pmix_proc_t& source, const std::string& breakpoint) {
        pid_t pid = -1;
        for (const Proc& p : launcher.procs)
            if (p.nspace == source.nspace && p.rank == source.rank) pid = p.pid;
        head.send(MessageKind::debug_ready,
                  {source.nspace, std::to_string(source.rank), breakpoint, std::to_string(pid)});
    };
    // With every local process's pid: the head's proc table has them before they connect
    // (a process held on exec connects only once released), which is what a debugger attaches to.
    link.exec_held = [&head, &launcher](const std::string& nspace, size_t held) {
        std::vector<std::string> fields{nspace, std::to_string(held)};
        for (const Proc& p : launcher.procs) {
            if (p.nspace != nspace || p.pid <= 0) continue;
            fields.push_back(std::to_string(p.rank));
            fields.push_back(std::to_string(p.pid));
        }
        head.send(MessageKind::debug_started, fields);
    };
    link.release = [&head](const std::vector<pmix_proc_t>& targets) {
        head.send(MessageKind::debug_release, fields_of(targets));
    };
    debug_set_uplink(std::move(link));
}

void daemon_debug_release(Launcher& launcher, const Message& message) {
    debug_release_here(launcher, targets_of(message.fields));
}

}  // namespace pmix::launcher
