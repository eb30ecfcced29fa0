// server/events.h - event routing state of the server (owned by events.cpp).
//
// Which client registered for which codes, so that PMIx_Notify_event (from a client, from the
// host through the server API, or raised by the server itself when a client dies) reaches the
// clients whose range and registrations match.
#pragma once

#include <pmix_common.h>

#include "data/info_array.h"

#include <chrono>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace pmix::server {

// An event handed to the host's notify_event: what the host reads, kept until its callback
// (host_notice_done, which frees it). events.cpp and group_members.cpp.
struct HostNotice {
    pmix_proc_t source{};
    data::InfoArray info;
};
void host_notice_done(pmix_status_t status, void* cbdata);

struct EventRegistry {
    using Codes = std::vector<pmix_status_t>;  // empty: a default handler (every code)
    // Per client (namespace, rank): one entry per registration that client holds.
    std::map<std::pair<std::string, pmix_rank_t>, std::vector<Codes>> registrations;

    bool wants(const std::pair<std::string, pmix_rank_t>& client, pmix_status_t code) const;
    // Registered for `code` by name, not only through a default handler.
    bool names(const std::pair<std::string, pmix_rank_t>& client, pmix_status_t code) const;
    void add(const std::pair<std::string, pmix_rank_t>& client, Codes codes);
    void remove(const std::pair<std::string, pmix_rank_t>& client, const Codes& codes);
    void forget(const std::pair<std::string, pmix_rank_t>& client) { registrations.erase(client); }
};

// An event as the server routes it: code, source, range and the info to deliver.
struct Event {
    pmix_status_t code = PMIX_SUCCESS;
    pmix_proc_t source{};
    pmix_data_range_t range = PMIX_RANGE_UNDEF;
    const pmix_info_t* info = nullptr;
    std::size_t ninfo = 0;
    bool named_only = false;  // only to clients that registered for `code` by name
};

// Job-lifecycle events kept for handlers registered after they were raised (the Standard keeps
// an event until it is replaced): PMIX_EVENT_JOB_START, PMIX_LAUNCH_COMPLETE,
// PMIX_EVENT_JOB_END and PMIX_READY_FOR_DEBUG (until a PMIX_DEBUGGER_RELEASE naming its
// namespace, or naming none, or the job's end), one per code and namespace (PMIX_NSPACE, else
// the first affected proc's; a newer one replaces it), at most kMax (the oldest dropped: a few
// hundred bytes each, so under ~100 KiB). A registration that names the code gets the cached
// ones its range reaches (events.cpp), for that handler only.
struct EventCache {
    static constexpr std::size_t kMax = 256;
    struct Entry {
        pmix_status_t code = PMIX_SUCCESS;
        pmix_proc_t source{};
        pmix_data_range_t range = PMIX_RANGE_UNDEF;
        std::string nspace;
        data::InfoArray info;
    };
    std::deque<Entry> entries;
    static bool cached_code(pmix_status_t code);
    void keep(const Event& ev);  // also drops what `ev` makes stale (forget_ready)
    void forget_ready(const Event& ev);
};

// How long a lost client's event waits before it reaches the host's own handlers: the value of
// PMIX_MCA_pmix_event_caching_window (whole seconds, as OpenPMIx reads it; unset: 1 s). A value
// that is not a number of seconds 0-3600 is reported as a warning and taken as 1 s.
std::chrono::milliseconds caching_window_from(const char* value);

}  // namespace pmix::server
