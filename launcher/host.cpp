// The host module: every upcall arrives on the PMIx server's thread. Each one copies what it needs
// and posts the real work to the launcher's loop, which calls the library's cbfunc from there.
#include "fork_agent.h"
#include "launcher.h"
#include "debug_daemons.h"

#include <sys/wait.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

Proc* find_proc(const pmix_proc_t* proc) {
    Launcher& launcher = *g_launcher;
    if (proc == nullptr) return nullptr;
    // The main job: this node's ranks are procs[0 .. local_main_ranks()).
    if (launcher.nspace == proc->nspace) {
        const pmix_rank_t first = launcher.first_local_rank();
        return proc->rank >= first && proc->rank - first < launcher.local_main_ranks()
                   ? &launcher.procs[proc->rank - first]
                   : nullptr;
    }
    for (Proc& process : launcher.procs) {
        if (process.rank == proc->rank && process.nspace == proc->nspace) return &process;
    }
    return nullptr;
}

std::string proc_name(const pmix_proc_t& proc) {
    return std::string(proc.nspace) + ":" + std::to_string(proc.rank);
}

pmix_status_t client_connected(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t cbfunc,
                               void* cbdata) {
    pmix_proc_t client = *proc;
    g_launcher->queue.post([client, cbfunc, cbdata] {
        Launcher& launcher = *g_launcher;
        if (Proc* process = find_proc(&client); process != nullptr && !process->connected) {
            process->connected = true;
            process->connected_at = Clock::now();
            if (process->agent_group) fea_app_connected(*process);  // its pid, for proc tables
            if (launcher.remote != nullptr && process->job == 0)
                launcher.remote->connected(*process);
            if (process->job == 0 && ++launcher.connected_count == launcher.local_main_ranks()) {
                launcher.times.all_connected = process->connected_at;
                launcher.times.have_connected = true;
            }
        }
        if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
    });
    return PMIX_SUCCESS;
}

// The library also calls client_finalized for a client whose connection closed without
// PMIx_Finalize (as OpenPMIx does); by then that process is exiting (the kernel closes its
// descriptors after it set PF_EXITING, 0x4 in /proc/<pid>/stat's flags) or has exited, while a
// real PMIx_Finalize waits in the client for this upcall's answer. waitid(WNOWAIT) alone saw 5 of
// 6 such processes as alive (tests/tools lifecycle.parent): the descriptors close before the
// process becomes a zombie.
bool already_exited(const Proc& process) {
    if (process.exited) return true;
    if (process.pid <= 0) return false;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(process.pid));
    FILE* file = std::fopen(path, "re");
    if (file == nullptr) return true;  // gone
    char line[1024] = {};
    const bool read = std::fgets(line, sizeof line, file) != nullptr;
    std::fclose(file);
    const char* after_name = read ? std::strrchr(line, ')') : nullptr;
    if (after_name == nullptr) return false;
    char state = 0;
    unsigned long flags = 0;  // fields 3 and 9: state, then ppid pgrp session tty tpgid flags
    if (std::sscanf(after_name + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
        return false;
    return state == 'Z' || state == 'X' || (flags & 0x4) != 0;
}

pmix_status_t client_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t cbfunc,
                               void* cbdata) {
    pmix_proc_t client = *proc;
    g_launcher->queue.post([client, cbfunc, cbdata] {
        Launcher& launcher = *g_launcher;
        if (Proc* process = find_proc(&client);
            process != nullptr && !process->finalized && !already_exited(*process)) {
            process->finalized = true;
            if (launcher.remote != nullptr && process->job == 0)
                launcher.remote->finalized(process->rank);
            if (process->job == 0 && ++launcher.finalized_count == launcher.local_main_ranks()) {
                launcher.times.all_finalized = Clock::now();
                launcher.times.have_finalized = true;
            }
        }
        if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
    });
    return PMIX_SUCCESS;
}

pmix_status_t abort_fn(const pmix_proc_t* proc, void*, int status, const char msg[], pmix_proc_t[],
                       size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    pmix_proc_t client = *proc;
    std::string message = msg != nullptr ? msg : "";
    g_launcher->queue.post([client, status, message, cbfunc, cbdata] {
        // The caller stays blocked until this cbfunc runs; release it, then take the job down.
        if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
        lifecycle_aborted(*g_launcher, client, status);
        if (g_launcher->remote != nullptr) g_launcher->remote->aborted(client, status);
        int code = status & 0xff;
        if (code == 0) code = 1;  // an abort is a failure even with status 0
        g_launcher->fail(code, "rank " + std::to_string(client.rank) +
                                   " called PMIx_Abort(status " + std::to_string(status) +
                                   (message.empty() ? "" : ", \"" + message + "\"") +
                                   "); killing the job");
    });
    return PMIX_SUCCESS;
}

void release_blob(void* cbdata) { std::free(cbdata); }

bool any_dead(const pmix_proc_t* procs, size_t nprocs) {
    Launcher& launcher = *g_launcher;
    for (size_t i = 0; i < nprocs; ++i) {
        for (const Proc& process : launcher.procs) {
            if (process.nspace != procs[i].nspace) continue;
            bool hit = procs[i].rank == PMIX_RANK_WILDCARD || procs[i].rank == process.rank;
            if (hit && process.exited && !process.finalized) return true;
        }
    }
    return false;
}

// PMIX_LOCAL_COLLECTIVE_STATUS with an error: a local participant died before the fence went up.
bool lost_local_participant(const pmix_info_t info[], size_t ninfo) {
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strncmp(info[i].key, PMIX_LOCAL_COLLECTIVE_STATUS, PMIX_MAX_KEYLEN) == 0 &&
            info[i].value.type == PMIX_STATUS && info[i].value.data.status != PMIX_SUCCESS) {
            return true;
        }
    }
    return false;
}

// Single node: every participant is local, so the collective is complete as soon as the library
// hands it up; the "concatenation of all nodes' blobs" is just our own blob. The library hands
// over ownership of `data` (a malloc'd buffer, as OpenPMIx and ORTE/PRRTE agree), so it is
// given back as the answer and freed by release_blob once the library has copied it.
// While no process has exited, the answer is given right here on the server's thread (the
// Standard lets the host call cbfunc before returning; both OpenPMIx and our library thread-shift
// it): posting it to the loop and back cost two thread wake-ups per fence, measured at ~25 us
// of a ~90 us PMIx_Fence with one process on 2 vCPUs. Once a process has exited, the loop checks
// whether a participant died without finalizing.
pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                       size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                       void* cbdata) {
    if (lost_local_participant(info, ninfo)) {
        // The library passed the node's contribution up without a participant that died
        // (PMIX_LOCAL_COLLECTIVE_STATUS): this host fails the fence. Here, and on pmixd's node;
        // the job fails for that death, which ends the fence on the other nodes too.
        std::free(data);
        g_launcher->queue.post([cbfunc, cbdata] {
            cbfunc(PMIX_ERR_LOST_CONNECTION, nullptr, 0, cbdata, nullptr, nullptr);
        });
        return PMIX_SUCCESS;
    }
    if (g_launcher->remote != nullptr) {  // pmixd: one collective across the nodes' daemons
        return g_launcher->remote->fence(procs, nprocs, info, ninfo, data, ndata, cbfunc, cbdata);
    }
    if (g_launcher->undisturbed.load(std::memory_order_acquire)) {
        cbfunc(PMIX_SUCCESS, data, ndata, cbdata, release_blob, data);
        return PMIX_SUCCESS;
    }
    std::vector<pmix_proc_t> participants(procs, procs + nprocs);
    g_launcher->queue.post([participants, data, ndata, cbfunc, cbdata] {
        if (any_dead(participants.data(), participants.size())) {
            std::free(data);
            cbfunc(PMIX_ERR_LOST_CONNECTION, nullptr, 0, cbdata, nullptr, nullptr);
            return;
        }
        cbfunc(PMIX_SUCCESS, data, ndata, cbdata, release_blob, data);
    });
    return PMIX_SUCCESS;
}

// One node: the library already has every local process's data, so the host has nothing to add.
// pmixd asks the daemon of the node the process runs on.
pmix_status_t direct_modex(const pmix_proc_t* proc, const pmix_info_t[], size_t,
                           pmix_modex_cbfunc_t cbfunc, void* cbdata) {
    if (g_launcher->remote != nullptr)
        return g_launcher->remote->direct_modex(proc, cbfunc, cbdata);
    return PMIX_ERR_NOT_FOUND;
}

// Answers a lookup if every key is published; returns false to keep waiting.
bool try_lookup(PendingLookup& lookup, bool wait) {
    Launcher& launcher = *g_launcher;
    size_t found = 0;
    for (const std::string& key : lookup.keys) found += launcher.published.count(key);
    if (found < lookup.keys.size() && wait) return false;
    if (found == 0) {
        lookup.cbfunc(PMIX_ERR_NOT_FOUND, nullptr, 0, lookup.cbdata);
        return true;
    }
    pmix_pdata_t* pdata = nullptr;
    PMIX_PDATA_CREATE(pdata, found);
    size_t filled = 0;
    for (const std::string& key : lookup.keys) {
        auto entry = launcher.published.find(key);
        if (entry == launcher.published.end()) continue;
        pdata[filled].proc = entry->second.owner;
        std::snprintf(pdata[filled].key, sizeof(pdata[filled].key), "%s", key.c_str());
        PMIx_Value_xfer(&pdata[filled].value, &entry->second.value);
        ++filled;
        if (entry->second.first_read) {
            PMIx_Value_destruct(&entry->second.value);
            launcher.published.erase(entry);
        }
    }
    lookup.cbfunc(PMIX_SUCCESS, pdata, filled, lookup.cbdata);
    PMIX_PDATA_FREE(pdata, filled);
    return true;
}

void retry_lookups() {
    auto& lookups = g_launcher->pending_lookups;
    for (size_t i = 0; i < lookups.size();) {
        if (try_lookup(lookups[i], true)) lookups.erase(lookups.begin() + static_cast<long>(i));
        else ++i;
    }
}

pmix_status_t publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                      pmix_op_cbfunc_t cbfunc, void* cbdata) {
    pmix_proc_t publisher = *proc;
    bool first_read = false;
    std::vector<std::pair<std::string, pmix_value_t>> items;
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strcmp(info[i].key, PMIX_PERSISTENCE) == 0 && info[i].value.type == PMIX_PERSIST) {
            first_read = info[i].value.data.persist == PMIX_PERSIST_FIRST_READ;
        }
        if (is_directive(info[i].key)) continue;
        pmix_value_t value;
        PMIx_Value_xfer(&value, &info[i].value);
        items.emplace_back(info[i].key, value);
    }
    g_launcher->queue.post([publisher, items, first_read, cbfunc, cbdata]() mutable {
        Launcher& launcher = *g_launcher;
        pmix_status_t status = PMIX_SUCCESS;
        for (auto& [key, value] : items) {
            if (launcher.published.count(key) != 0) {  // first publisher wins; the rest are told
                status = PMIX_ERR_DUPLICATE_KEY;
                PMIx_Value_destruct(&value);
                continue;
            }
            launcher.published[key] = Published{publisher, value, first_read};
        }
        retry_lookups();
        if (cbfunc != nullptr) cbfunc(status, cbdata);
    });
    return PMIX_SUCCESS;
}

pmix_status_t lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[], size_t ninfo,
                     pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
    PendingLookup request{*proc, {}, cbfunc, cbdata};
    for (size_t i = 0; keys != nullptr && keys[i] != nullptr; ++i)
        request.keys.emplace_back(keys[i]);
    bool wait = false;
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strcmp(info[i].key, PMIX_WAIT) == 0) {
            wait = info[i].value.type == PMIX_UNDEF ||
                   (info[i].value.type == PMIX_BOOL && info[i].value.data.flag) ||
                   info[i].value.type == PMIX_INT;  // "wait for N keys" also means wait
        }
    }
    if (request.keys.empty()) return PMIX_ERR_BAD_PARAM;
    g_launcher->queue.post([request, wait]() mutable {
        if (!try_lookup(request, wait)) g_launcher->pending_lookups.push_back(request);
    });
    return PMIX_SUCCESS;
}

pmix_status_t unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t[], size_t,
                        pmix_op_cbfunc_t cbfunc, void* cbdata) {
    pmix_proc_t publisher = *proc;
    std::vector<std::string> keys_copy;
    for (size_t i = 0; keys != nullptr && keys[i] != nullptr; ++i) keys_copy.emplace_back(keys[i]);
    g_launcher->queue.post([publisher, keys_copy, cbfunc, cbdata] {
        auto& published = g_launcher->published;
        pmix_status_t status = PMIX_SUCCESS;
        auto mine = [&](const Published& entry) {
            return std::strcmp(entry.owner.nspace, publisher.nspace) == 0 &&
                   entry.owner.rank == publisher.rank;
        };
        if (keys_copy.empty()) {  // no keys: everything this process published
            for (auto found = published.begin(); found != published.end();) {
                if (mine(found->second)) {
                    PMIx_Value_destruct(&found->second.value);
                    found = published.erase(found);
                } else ++found;
            }
        }
        for (const std::string& key : keys_copy) {
            auto found = published.find(key);
            if (found == published.end() || !mine(found->second)) {
                status = PMIX_ERR_NOT_FOUND;
                continue;
            }
            PMIx_Value_destruct(&found->second.value);
            published.erase(found);
        }
        if (cbfunc != nullptr) cbfunc(status, cbdata);
    });
    return PMIX_SUCCESS;
}

// The environment directives PMIx_Spawn may carry (job and app info), and the flag saying the
// requester harvested its variables into them: pmixrun harvests nothing from a requester, so the
// flag changes nothing here; it is accepted, not refused when required.
bool spawn_envar_key(const pmix_info_t& info) {
    for (const char* key : {PMIX_SET_ENVAR, PMIX_ADD_ENVAR, PMIX_UNSET_ENVAR, PMIX_PREPEND_ENVAR,
                            PMIX_APPEND_ENVAR, PMIX_FIRST_ENVAR})
        if (PMIX_CHECK_KEY(&info, key)) return true;
    return false;
}

// PMIX_FWD_STDIN: the Standard types it pmix_rank_t (the rank, or PMIX_RANK_WILDCARD for all);
// OpenPMIx reads it as a bool meaning rank 0. Either is taken; false: no rank.
pmix_status_t fwd_stdin_rank(const pmix_info_t& info, size_t nprocs, long& rank) {
    const pmix_value_t& v = info.value;
    if (v.type == PMIX_BOOL || v.type == PMIX_UNDEF) {
        rank = PMIX_INFO_TRUE(&info) ? 0 : Options::kStdinNone;
        return PMIX_SUCCESS;
    }
    if (v.type != PMIX_PROC_RANK && v.type != PMIX_UINT32) return PMIX_ERR_BAD_PARAM;
    const uint32_t given = v.type == PMIX_PROC_RANK ? v.data.rank : v.data.uint32;
    if (given == PMIX_RANK_WILDCARD) {
        rank = Options::kStdinAll;
        return PMIX_SUCCESS;
    }
    if (given >= nprocs) return PMIX_ERR_BAD_PARAM;  // no such rank in the job
    rank = static_cast<long>(given);
    return PMIX_SUCCESS;
}

void add_directives(const pmix_info_t* info, size_t ninfo, SharedInfos& out) {
    for (size_t i = 0; info != nullptr && i < ninfo; ++i)
        if (spawn_envar_key(info[i])) out.push_back(std::make_shared<const OwnedInfo>(info[i]));
}

// One app of a PMIx_Spawn: its command, environment, size, the environment directives and
// PMIX_FWD_STDIN of the job info, its own environment directives, PMIX_PSET_NAME and lifecycle
// requests (added to the job info's), its cwd / PMIX_WDIR and agents (start_as.cpp).
pmix_status_t app_spec(const pmix_app_t& source, const pmix_info_t job_info[], size_t ninfo,
                       const LifecycleRequest& lifecycle, AppSpec& app) {
    if (source.cmd == nullptr && (source.argv == nullptr || source.argv[0] == nullptr))
        return PMIX_ERR_BAD_PARAM;
    if (source.cmd != nullptr) app.argv.emplace_back(source.cmd);
    for (char** arg = source.argv; arg != nullptr && *arg != nullptr; ++arg) {
        if (arg == source.argv && source.cmd != nullptr)
            continue;  // argv[0] names the command again
        app.argv.emplace_back(*arg);
    }
    for (char** entry = source.env; entry != nullptr && *entry != nullptr; ++entry)
        app.env.emplace_back(*entry);
    app.nprocs = source.maxprocs > 0 ? static_cast<size_t>(source.maxprocs) : 1;
    app.lifecycle = lifecycle;
    // pmixrun --dvm --wdir / --fork-agent / --exec-agent: every job's, unless it says otherwise.
    const StartAs defaults = g_launcher->options.dvm ? g_launcher->options.start_as : StartAs{};
    if (const pmix_status_t rc = app_start_as(source, job_info, ninfo, defaults, app.start_as);
        rc != PMIX_SUCCESS)
        return rc;
    add_directives(job_info, ninfo, app.directives);
    for (size_t i = 0; job_info != nullptr && i < ninfo; ++i)
        if (PMIX_CHECK_KEY(&job_info[i], PMIX_FWD_STDIN))
            if (const pmix_status_t rc = fwd_stdin_rank(job_info[i], app.nprocs, app.stdin_rank);
                rc != PMIX_SUCCESS)
                return rc;
    add_directives(source.info, source.ninfo, app.directives);
    for (size_t i = 0; source.info != nullptr && i < source.ninfo; ++i) {
        const pmix_info_t& entry = source.info[i];
        if (lifecycle_directive(entry, app.lifecycle)) continue;
        if (stop_directive(entry, app.stops)) continue;  // the app's own stops trump the job's
        if (!PMIX_CHECK_KEY(&entry, PMIX_PSET_NAME)) continue;
        if (entry.value.type != PMIX_STRING || entry.value.data.string == nullptr ||
            *entry.value.data.string == '\0' || std::strlen(entry.value.data.string) > 255)
            return PMIX_ERR_BAD_PARAM;
        app.pset = entry.value.data.string;
    }
    return PMIX_SUCCESS;
}

// The output channels a spawn's job info asks forwarded to the requester (PMIX_FWD_STDOUT /
// _STDERR / _STDDIAG set true): the library registers the requester for them (server/iof.h).
pmix_iof_channel_t asked_forwarded(const pmix_info_t job_info[], size_t ninfo) {
    pmix_iof_channel_t channels = PMIX_FWD_NO_CHANNELS;
    for (size_t i = 0; i < ninfo; ++i) {
        if (!PMIX_INFO_TRUE(&job_info[i])) continue;
        if (PMIX_CHECK_KEY(&job_info[i], PMIX_FWD_STDOUT)) channels |= PMIX_FWD_STDOUT_CHANNEL;
        if (PMIX_CHECK_KEY(&job_info[i], PMIX_FWD_STDERR)) channels |= PMIX_FWD_STDERR_CHANNEL;
        if (PMIX_CHECK_KEY(&job_info[i], PMIX_FWD_STDDIAG)) channels |= PMIX_FWD_STDDIAG_CHANNEL;
    }
    return channels;
}

// The apps of a spawn: one application (`app`, with its own debugger keys in `debug`), and with
// several apps the co-spawned ones (debug_daemons.h), each with the job info's debugger keys and
// its own. Several applications: PMIX_ERR_NOT_SUPPORTED. The stops (PMIX_DEBUG_STOP_*): the job
// info's hold the application alone, an app info's that app alone (over the job's); every app
// is a job of its own, so they go into its job info (debug.cpp).
pmix_status_t spawn_plan(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                         size_t napps, const LifecycleRequest& lifecycle, AppSpec& app,
                         DebugRequest& debug, std::vector<CospawnApp>& cospawned) {
    size_t application = napps;
    for (size_t a = 0; a < napps; ++a) {
        if (napps > 1 && cospawned_app(apps[a])) continue;
        if (application != napps) return PMIX_ERR_NOT_SUPPORTED;
        application = a;
    }
    if (application == napps) return PMIX_ERR_NOT_SUPPORTED;
    for (size_t a = 0; a < napps; ++a) {
        if (a == application) continue;
        CospawnApp& other = cospawned.emplace_back();
        other.debug = debug;
        if (const pmix_status_t rc = app_spec(apps[a], job_info, ninfo, lifecycle, other.app);
            rc != PMIX_SUCCESS)
            return rc;
        if (const pmix_status_t rc = app_debug_request(apps[a], other.debug); rc != PMIX_SUCCESS)
            return rc;
        stop_add_job_info(other.app.stops, other.app.directives);
    }
    if (napps == 1)
        if (const pmix_status_t rc = app_debug_request(apps[0], debug); rc != PMIX_SUCCESS)
            return rc;
    for (size_t i = 0; i < ninfo; ++i) stop_directive(job_info[i], app.stops);
    if (const pmix_status_t rc = app_spec(apps[application], job_info, ninfo, lifecycle, app);
        rc != PMIX_SUCCESS)
        return rc;
    stop_add_job_info(app.stops, app.directives);
    app.forwarded = asked_forwarded(job_info, ninfo);  // the library forwards the application's
    return PMIX_SUCCESS;
}

// The library delivers to local clients itself; a one-node host has nobody else to tell.
// PMIx_Spawn: one application per call, plus co-spawned apps (debug_daemons.h); job-level
// directives other than the environment, lifecycle and debugger-daemon ones are ignored unless
// marked required. The environment directives are registered with the new job (the library
// validates them there and applies them in setup_fork). The new job runs on this node like the
// first one.
pmix_status_t spawn_fn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo,
                       const pmix_app_t apps[], size_t napps, pmix_spawn_cbfunc_t cbfunc,
                       void* cbdata) {
    LifecycleRequest lifecycle;
    DebugRequest debug;
    StopRequest stops;  // taken by spawn_plan, per app
    for (size_t i = 0; i < ninfo; ++i) {
        if (lifecycle_directive(job_info[i], lifecycle)) continue;  // lifecycle.cpp
        if (stop_directive(job_info[i], stops)) continue;           // debug.cpp
        if (const pmix_status_t rc = debug_directive(job_info[i], debug);
            rc != PMIX_ERR_NOT_FOUND) {
            if (rc != PMIX_SUCCESS) return rc;  // debug_daemons.cpp
            continue;
        }
        if (PMIX_INFO_IS_REQUIRED(&job_info[i]) && !spawn_envar_key(job_info[i]) &&
            !PMIX_CHECK_KEY(&job_info[i], PMIX_ENVARS_HARVESTED) &&
            !PMIX_CHECK_KEY(&job_info[i], PMIX_FWD_STDIN) && !start_as_key(job_info[i]))
            return PMIX_ERR_NOT_SUPPORTED;
    }
    if (apps == nullptr || napps == 0 || proc == nullptr || cbfunc == nullptr)
        return PMIX_ERR_BAD_PARAM;
    AppSpec app;
    std::vector<CospawnApp> cospawned;
    if (const pmix_status_t rc =
            spawn_plan(job_info, ninfo, apps, napps, lifecycle, app, debug, cospawned);
        rc != PMIX_SUCCESS)
        return rc;
    pmix_proc_t parent = *proc;
    g_launcher->queue.post([parent, app, debug, cospawned, cbfunc, cbdata] {
        if (g_launcher->remote != nullptr) {  // pmixd: placed across the nodes by the head
            // The stops travel in the job info: every node holds its part (debug_nodes.h).
            if (debug.placed() || !cospawned.empty()) {  // one node only
                cbfunc(PMIX_ERR_NOT_SUPPORTED, nullptr, cbdata);
                return;
            }
            g_launcher->remote->spawn(parent, app, cbfunc, cbdata);
            return;
        }
        std::string nspace;
        pmix_status_t rc =
            spawn_with_debuggers(*g_launcher, parent, app, debug, cospawned, &nspace);
        if (rc == PMIX_SUCCESS) forward_only(*g_launcher, parent, nspace, app.forwarded);
        pmix_nspace_t spawned;  // the callback takes a (non-const) pmix_nspace_t
        PMIX_LOAD_NSPACE(spawned, rc == PMIX_SUCCESS ? nspace.c_str() : nullptr);
        cbfunc(rc, spawned, cbdata);
    });
    return PMIX_SUCCESS;
}

void release_notified(pmix_status_t, void* cbdata) {
    auto* holder = static_cast<std::pair<pmix_info_t*, size_t>*>(cbdata);
    if (holder->first != nullptr) PMIX_INFO_FREE(holder->first, holder->second);
    delete holder;
}

// A client's event whose range reaches beyond its server comes here for distribution. On one node
// every process of the job is served by our own server, so distributing it means handing it back
// to the library for its local clients (a multi-node host does the same on every node). Range RM
// means this host only: nothing to deliver.
pmix_status_t notify_event(pmix_status_t code, const pmix_proc_t* source, pmix_data_range_t range,
                           pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                           void* cbdata) {
    pmix_proc_t src;
    PMIX_PROC_CONSTRUCT(&src);
    if (source != nullptr) src = *source;
    auto* holder = new std::pair<pmix_info_t*, size_t>(nullptr, ninfo);
    if (ninfo > 0) {
        PMIX_INFO_CREATE(holder->first, ninfo);
        for (size_t i = 0; i < ninfo; ++i) PMIX_INFO_XFER(&holder->first[i], &info[i]);
    }
    g_launcher->queue.post([code, src, range, holder, cbfunc, cbdata] {
        pmix_status_t rc = PMIX_SUCCESS;
        Remote* remote = g_launcher->remote;
        if (remote != nullptr && range != PMIX_RANGE_RM && range != PMIX_RANGE_LOCAL &&
            range != PMIX_RANGE_PROC_LOCAL) {
            remote->notify(code, src, range, holder->first, holder->second);  // to the other nodes
        }
        if (range != PMIX_RANGE_RM) {
            rc = PMIx_Notify_event(code, &src, range, holder->first, holder->second,
                                   release_notified, holder);
        }
        if (range == PMIX_RANGE_RM || rc != PMIX_SUCCESS) release_notified(rc, holder);
        if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
    });
    return PMIX_SUCCESS;
}

}  // namespace

pmix_status_t plan_spawn(const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                         size_t napps, const LifecycleRequest& lifecycle, AppSpec& app,
                         DebugRequest& debug, std::vector<CospawnApp>& cospawned) {
    return spawn_plan(job_info, ninfo, apps, napps, lifecycle, app, debug, cospawned);
}

void signal_local(Launcher& launcher, const std::vector<pmix_proc_t>& targets, int sig) {
    for (Proc& process : launcher.procs) {
        bool hit = targets.empty();
        for (const pmix_proc_t& target : targets)
            hit = hit || (process.nspace == target.nspace &&
                          (target.rank == PMIX_RANK_WILDCARD || target.rank == process.rank));
        if (hit && !process.exited && process.pid > 0)
            ::kill(process.agent_group ? -process.pid : process.pid, sig);
    }
}

namespace {

pmix_status_t job_control(const pmix_proc_t*, const pmix_proc_t targets[], size_t ntargets,
                          const pmix_info_t directives[], size_t ndirs, pmix_info_cbfunc_t cbfunc,
                          void* cbdata) {
    int sig = 0;
    for (size_t i = 0; i < ndirs; ++i) {
        if (std::strcmp(directives[i].key, PMIX_JOB_CTRL_KILL) == 0) sig = SIGKILL;
        else if (std::strcmp(directives[i].key, PMIX_JOB_CTRL_TERMINATE) == 0) sig = SIGTERM;
        else if (std::strcmp(directives[i].key, PMIX_JOB_CTRL_SIGNAL) == 0 &&
                 directives[i].value.type == PMIX_INT)
            sig = directives[i].value.data.integer;
        else if (std::strcmp(directives[i].key, PMIX_JOB_CTRL_PAUSE) == 0 &&
                 PMIX_INFO_TRUE(&directives[i]))
            sig = SIGSTOP;
        else if (std::strcmp(directives[i].key, PMIX_JOB_CTRL_RESUME) == 0 &&
                 PMIX_INFO_TRUE(&directives[i]))
            sig = SIGCONT;
    }
    if (sig == 0) return PMIX_ERR_NOT_SUPPORTED;
    std::vector<pmix_proc_t> target_list(targets, targets + ntargets);
    g_launcher->queue.post([target_list, sig, cbfunc, cbdata] {
        signal_local(*g_launcher, target_list, sig);
        // A paused (or stopped on exec) target holds SIGTERM until it runs again.
        if (sig == SIGTERM) signal_local(*g_launcher, target_list, SIGCONT);
        // pmixd: the targets may run anywhere; every other node's daemon applies it to its own.
        if (g_launcher->remote != nullptr) g_launcher->remote->signal_others(target_list, sig);
        // A pause is answered once this node's targets are stopped (debug.cpp).
        const pmix_status_t rc =
            sig == SIGSTOP ? debug_wait_stopped(*g_launcher, target_list) : PMIX_SUCCESS;
        if (cbfunc != nullptr) cbfunc(rc, nullptr, 0, cbdata, nullptr, nullptr);
    });
    return PMIX_SUCCESS;
}

void log_fn(const pmix_proc_t* client, const pmix_info_t data[], size_t ndata, const pmix_info_t[],
            size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    std::string who = client != nullptr ? proc_name(*client) : "?";
    for (size_t i = 0; i < ndata; ++i) {
        const pmix_value_t& value = data[i].value;
        if (value.type == PMIX_STRING && value.data.string != nullptr) {
            std::fprintf(stderr, "pmixrun: log from %s: %s\n", who.c_str(), value.data.string);
        } else {
            char* text = PMIx_Value_string(&value);
            std::fprintf(stderr, "pmixrun: log from %s: %s = %s\n", who.c_str(), data[i].key,
                         text != nullptr ? text : "(unprintable)");
            std::free(text);
        }
    }
    g_launcher->queue.post([cbfunc, cbdata] {
        if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
    });
}

bool same_procs(const std::vector<pmix_proc_t>& a, const pmix_proc_t* b, size_t nb) {
    if (a.size() != nb) return false;
    for (size_t i = 0; i < nb; ++i)
        if (!PMIX_CHECK_NSPACE(a[i].nspace, b[i].nspace) || a[i].rank != b[i].rank) return false;
    return true;
}

}  // namespace

// A tool's PMIx_IOF_pull (or its deregistration, PMIX_IOF_STOP): the library forwards every
// rank's output pmixrun hands it (job.cpp) to whoever pulls it. pmixrun keeps printing it
// (PMIX_IOF_COPY, the Standard's default) unless the pull says PMIX_IOF_REDIRECT: then not until
// that registration stops.
pmix_status_t host_iof_pull(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t dirs[],
                            size_t ndirs, pmix_iof_channel_t channels, pmix_op_cbfunc_t, void*) {
    bool redirect = false, stop = false;
    for (size_t i = 0; i < ndirs; ++i) {
        if (std::strcmp(dirs[i].key, PMIX_IOF_REDIRECT) == 0) redirect = PMIX_INFO_TRUE(&dirs[i]);
        if (std::strcmp(dirs[i].key, PMIX_IOF_STOP) == 0) stop = PMIX_INFO_TRUE(&dirs[i]);
    }
    if (!redirect && !stop) return PMIX_OPERATION_SUCCEEDED;
    Redirect r{std::vector<pmix_proc_t>(procs, procs + nprocs), channels};
    g_launcher->queue.post([r = std::move(r), stop] {
        auto& list = g_launcher->redirects;
        if (!stop) {
            list.push_back(r);
            return;
        }
        for (auto it = list.begin(); it != list.end(); ++it) {
            if (it->channels == r.channels &&
                same_procs(it->procs, r.procs.data(), r.procs.size())) {
                list.erase(it);
                return;
            }
        }
    });
    return PMIX_OPERATION_SUCCEEDED;
}

namespace {
// Where a push to `targets` goes: the main job's stdin when they are ranks --stdin names (or the
// job's wildcard rank), a spawned job's when they are the ranks its PMIX_FWD_STDIN named (or its
// wildcard rank); nullptr (PMIX_ERR_NOT_SUPPORTED) for anything else, or targets of two jobs.
// On the launcher's loop (spawned_stdin changes there).
StdinForward* push_forward(Launcher& launcher, const std::vector<pmix_proc_t>& targets) {
    StdinForward* forward = nullptr;
    for (const pmix_proc_t& target : targets) {
        const bool main_job = launcher.nspace == target.nspace;
        auto spawned = launcher.spawned_stdin.find(target.nspace);
        if (!main_job && spawned == launcher.spawned_stdin.end()) return nullptr;
        StdinForward* f = main_job ? &launcher.stdin_fwd : &spawned->second;
        const long named = main_job ? launcher.options.stdin_rank : f->named;
        const bool hit = target.rank == PMIX_RANK_WILDCARD ||
                         (named >= 0 && target.rank == static_cast<pmix_rank_t>(named));
        if (!hit || named == Options::kStdinNone || (forward != nullptr && forward != f))
            return nullptr;
        forward = f;
    }
    return forward;
}
}  // namespace

// A tool's (or a client's) PMIx_IOF_push: the bytes join the stdin stream of the targets' job
// (stdin_forward.cpp; at the multi-node head, what it sends to the daemons of the targets),
// PMIX_IOF_COMPLETE ends it. The targets must be the ones --stdin names (its rank or the job's
// wildcard rank; with `--stdin all` the wildcard), or those PMIx_Spawn's PMIX_FWD_STDIN named in
// a spawned job; others have no stdin pipe: PMIX_ERR_NOT_SUPPORTED. While 1 MiB waits the push
// is answered only once there is room again (the pusher waits).
pmix_status_t host_push_stdin(const pmix_proc_t*, const pmix_proc_t targets[], size_t ntargets,
                              const pmix_info_t directives[], size_t ndirs,
                              const pmix_byte_object_t* bo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (ntargets == 0) return PMIX_ERR_BAD_PARAM;
    bool complete = false;
    for (size_t i = 0; i < ndirs; ++i)
        if (std::strcmp(directives[i].key, PMIX_IOF_COMPLETE) == 0)
            complete = PMIX_INFO_TRUE(&directives[i]);
    std::string bytes = bo != nullptr && bo->size > 0 ? std::string(bo->bytes, bo->size) : "";
    std::vector<pmix_proc_t> to(targets, targets + ntargets);
    g_launcher->queue.post(
        [to = std::move(to), bytes = std::move(bytes), complete, cbfunc, cbdata] {
            StdinForward* f = push_forward(*g_launcher, to);
            // The input already ended (pmixrun's own stdin at EOF, an earlier COMPLETE:
            // PMIX_ERR_IOF_COMPLETE) or every target left before it ended (closed its stdin or
            // exited: PMIX_ERR_IOF_FAILURE). Before the targets start the bytes wait for their
            // pipes.
            const pmix_status_t rc = f == nullptr      ? PMIX_ERR_NOT_SUPPORTED
                                     : f->targets_gone ? PMIX_ERR_IOF_FAILURE
                                     : f->eof          ? PMIX_ERR_IOF_COMPLETE
                                                       : PMIX_SUCCESS;
            if (rc == PMIX_SUCCESS) stdin_append(*f, bytes.data(), bytes.size(), complete);
            if (rc == PMIX_SUCCESS && cbfunc != nullptr && f->pending.size() >= kStdinHeld) {
                f->pushes_waiting.emplace_back(cbfunc, cbdata);  // answered when there is room
            } else if (cbfunc != nullptr) {
                cbfunc(rc, cbdata);
            }
        });
    return PMIX_SUCCESS;
}

bool redirected(const Launcher& launcher, const Proc& process, pmix_iof_channel_t channel) {
    pmix_proc_t source;
    PMIX_LOAD_PROCID(&source, process.nspace.c_str(), process.rank);
    for (const Redirect& r : launcher.redirects) {
        if ((r.channels & channel) == 0) continue;
        for (const pmix_proc_t& p : r.procs)
            if (PMIX_CHECK_PROCID(&source, &p)) return true;
    }
    return false;
}

// A tool that asked a job's output forwarded to itself gets it alone: pmixrun does not print it
// too (as prte does not); the redirection goes with the job (dvm.cpp). A rank that asked has its
// library write it to its own stdout, which pmixrun prints as that rank's: the job's own lines
// are still printed then (tests/iof/fwd_spawn.sh).
void forward_only(Launcher& launcher, const pmix_proc_t& requester, const std::string& nspace,
                  pmix_iof_channel_t channels) {
    const bool ours = launcher.nspace == requester.nspace ||
                      std::find(launcher.spawned_nspaces.begin(), launcher.spawned_nspaces.end(),
                                requester.nspace) != launcher.spawned_nspaces.end();
    if (ours || channels == PMIX_FWD_NO_CHANNELS) return;
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, nspace.c_str(), PMIX_RANK_WILDCARD);
    launcher.redirects.push_back(Redirect{{all}, channels});
}

void fail_pending_lookups(pmix_status_t status) {
    for (PendingLookup& lookup : g_launcher->pending_lookups)
        lookup.cbfunc(status, nullptr, 0, lookup.cbdata);
    g_launcher->pending_lookups.clear();
}

void clear_published() {
    for (auto& [key, entry] : g_launcher->published) PMIx_Value_destruct(&entry.value);
    g_launcher->published.clear();
}

bool is_directive(const char* key) { return std::strncmp(key, "pmix.", 5) == 0; }

int timeout_of(const pmix_info_t* info, size_t ninfo) {
    for (size_t i = 0; info != nullptr && i < ninfo; ++i)
        if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT) && info[i].value.type == PMIX_INT)
            return info[i].value.data.integer;
    return 0;
}

void fill_module(pmix_server_module_t& module) {
    std::memset(&module, 0, sizeof module);
    module.client_connected = client_connected;
    module.client_finalized = client_finalized;
    module.abort = abort_fn;
    module.fence_nb = fence_nb;
    module.direct_modex = direct_modex;
    module.notify_event = notify_event;
    module.query = host_query;
    module.tool_connected = host_tool_connected;
    module.log = log_fn;
    module.job_control = job_control;
    module.group = host_group;
    module.iof_pull = host_iof_pull;
    module.push_stdin = host_push_stdin;
    module.spawn = spawn_fn;  // pmixd: through the head (Remote::spawn, remote_spawn.h)
    // pmixd: publish/lookup go to the head's directory (directory.h); no allocations (each
    // daemon would hand out its own, not the job's, host list and ids).
    if (g_launcher->remote != nullptr) {
        g_launcher->remote->add_upcalls(module);
        return;
    }
    module.allocate = allocate_fn;
    module.publish = publish;
    module.lookup = lookup;
    module.unpublish = unpublish;
    module.connect = host_connect;  // connect.cpp; pmixd: remote_connect.h
    module.disconnect = host_disconnect;
}

}  // namespace pmix::launcher
