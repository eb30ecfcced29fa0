// server/iof.h - IO forwarding in the server (the Tools chapter's IO forwarding, as OpenPMIx
// 4.2.2's src/server/pmix_server.c and pmix_server_ops.c do it).
//
// Contract:
// - PMIx_server_IOF_deliver (iof.cpp): the host hands one chunk of a source's channel. It goes,
//   in order, to every registration whose procs match the source (rank WILDCARD = the whole
//   namespace) and whose channels include the chunk's, except to the source itself (a launcher
//   may be both). A chunk nobody takes is cached per (source, channel) until someone registers.
// - The cache holds at most `cache_limit` bytes per (source, channel): PMIX_IOF_CACHE_SIZE of
//   PMIx_server_init (default kDefaultCacheBytes). In overflow PMIX_IOF_DROP_NEWEST (the
//   Standard's default) keeps what is cached and drops the new bytes that do not fit;
//   PMIX_IOF_DROP_OLDEST drops the oldest bytes to make room. Both cut at byte granularity.
//   A new registration receives the matching cached chunks (oldest first), which then leave the
//   cache; a namespace's cache goes with deregister_nspace, and so do the registrations for
//   that namespace alone (a tool that spawned 2,000 jobs with forwarding kept 2,000, each chunk
//   of every later job matched against all of them).
// - A registration (kIofPull) is recorded, then passed to the host's iof_pull upcall (from the
//   client's message task, never inside a host call); the reply waits for the host's answer and
//   the cache is flushed to it after a success. No iof_pull upcall: PMIX_ERR_NOT_SUPPORTED (as
//   OpenPMIx). kIofDeregister drops it and tells the host with PMIX_IOF_STOP (the registration's
//   procs and channels). A requester that goes away loses its registrations (the host is not
//   told: OpenPMIx neither).
// - PMIx_Spawn with PMIX_FWD_STDOUT / STDERR / STDDIAG (spawn_forward_channels): once the host
//   reports the spawn a success, the requester is registered for those channels of the whole new
//   namespace with handler id 0 (its library's default handler: written to its own stdout or
//   stderr unless it pulls with a callback) and the namespace's cached output is flushed to it,
//   as OpenPMIx 4.2.2's pmix_server_spcbfunc. PMIX_FWD_STDIN is the host's business (it keeps
//   that rank's stdin open for push_stdin): no registration. Like OpenPMIx, pull and push are
//   not refused for a job spawned without them (the Standard asks the host to refuse them).
#pragma once

#include "data/info_array.h"
#include "server/clients.h"
#include "wire/connection.h"

#include <pmix_common.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace pmix::server {

inline constexpr std::size_t kDefaultCacheBytes = 1u << 20;

struct IofRegistration {
    ProcKey requester;
    std::size_t client_id = 0;  // the requester's own handler id, sent with every chunk
    std::weak_ptr<wire::Connection> conn;
    std::vector<pmix_proc_t> procs;
    pmix_iof_channel_t channels = PMIX_FWD_NO_CHANNELS;
    bool active = false;  // the host accepted it (cached chunks are flushed then)
};

struct IofChunk {
    pmix_proc_t source{};
    pmix_iof_channel_t channel = PMIX_FWD_NO_CHANNELS;
    std::vector<std::uint8_t> bytes;
    std::shared_ptr<data::InfoArray> info;  // the host's info, shared by every copy sent
};

class IofTable {
public:
    std::size_t cache_limit = kDefaultCacheBytes;
    bool drop_oldest = false;
    std::map<std::uint64_t, IofRegistration> registrations;  // by our id, in order of arrival
    std::uint64_t next_id = 1;

    // Adds `chunk` to its (source, channel) cache under the policy; returns the bytes dropped.
    std::size_t cache(IofChunk chunk);
    // Removes and returns the cached chunks `reg` matches, oldest first per (source, channel).
    std::vector<IofChunk> take_cached(const IofRegistration& reg);
    void drop_namespace(const std::string& nspace);
    std::size_t cached_bytes() const noexcept;

private:
    struct Cached {
        std::deque<IofChunk> chunks;
        std::size_t bytes = 0;
    };
    std::map<std::pair<ProcKey, pmix_iof_channel_t>, Cached> cache_;
};

// PMIx_server_init's PMIX_IOF_CACHE_SIZE (a non-negative integer of any width) and
// PMIX_IOF_DROP_OLDEST / PMIX_IOF_DROP_NEWEST (both true, or a size that is no number:
// PMIX_ERR_BAD_PARAM).
pmix_status_t configure_iof(IofTable& t, const pmix_info_t* info, std::size_t ninfo);

// The output channels PMIx_Spawn's directives ask to forward to the requester: PMIX_FWD_STDOUT /
// STDERR / STDDIAG when true (PMIX_INFO_TRUE, as OpenPMIx reads them). A tool gets every channel
// it does not name (OpenPMIx's pmix_server_spawn_parser); a client only those it asks for.
pmix_iof_channel_t spawn_forward_channels(const pmix_info_t* info, std::size_t ninfo,
                                          bool tool) noexcept;

// True when `reg` wants `channel` of `source`.
bool iof_matches(const IofRegistration& reg, const pmix_proc_t& source,
                 pmix_iof_channel_t channel) noexcept;

}  // namespace pmix::server
