// launcher/node_net.h - pmixd's side of the cross-node work, over one libfabric endpoint.
//
// fence(): the node's PMIx server hands up its local participants' contribution once; the daemons
// of every node with a participant run one collective (a Bruck allgather when data is collected,
// a dissemination barrier otherwise) and each hands the concatenation of all nodes' blobs back to
// its server (the blob is self-delimiting, so order does not matter). Every daemon derives the
// same collective id from the participant list and how many fences over that list it has run,
// so no id is ever exchanged.
// direct_modex(): asks the daemon of the node the process runs on, which asks its own server
// (PMIx_server_dmodex_request) and sends the blob back.
// A lost node (the head said so, or the endpoint failed) fails every collective and direct-modex
// request that involves it with PMIX_ERR_LOST_CONNECTION: nothing waits for a dead daemon.
#pragma once

#include "launcher.h"

#include "fabric/engine.h"
#include "fabric/ofi.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace pmix::launcher {

class NodeNet final : public fabric::Receiver {
public:
    // Opens the endpoint on `node_addr` (empty: $PMIX_CPP_FABRIC_NODE, else this host's first
    // non-loopback IPv4 address, else 127.0.0.1). Null with `error` set on failure.
    static std::unique_ptr<NodeNet> open(const std::string& node_addr, std::string& error);
    ~NodeNet() override;

    std::string address() const;  // opaque bytes for the head to hand to every daemon
    std::string provider() const;
    const std::string& node_address() const { return node_; }  // the IPv4 address it opened on
    bool connect(const Layout& layout, const std::string& nspace,
                 const std::vector<std::string>& addresses, std::string& error);

    pmix_status_t fence(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                        size_t ninfo, char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                        void* cbdata);
    pmix_status_t direct_modex(const pmix_proc_t* proc, pmix_modex_cbfunc_t cbfunc, void* cbdata);
    // One group construct/destruct: a Bruck allgather among the daemons of the members' nodes,
    // each numbered like a fence (group id and how many such ops this daemon ran over it). When a
    // context id is asked, the lowest member node draws it from its own counter (node << 32 |
    // n, so no two nodes ever draw the same) and contributes it; every daemon takes that one.
    // Each node also contributes its members' endpoint data; all of it comes back to each.
    pmix_status_t group(pmix_group_operation_t op, const std::string& grp,
                        const std::vector<pmix_proc_t>& members, bool wants_id, int timeout_seconds,
                        const std::string& endpoints, Remote::GroupDone done);
    // A job spawned across the nodes after connect (remote_spawn.cpp): its fences and direct
    // modex reach the nodes `layout` gives its ranks, as the main job's do. Any thread.
    void add_job(const std::string& nspace, const Layout& layout);
    void lost(uint32_t node);  // the head saw that node's daemon die
    void tick();               // fences past their PMIX_TIMEOUT fail

    void on_packet(std::uint32_t from, std::span<const std::byte> bytes) override;
    void on_peer_lost(std::uint32_t peer) override;

private:
    struct DmodexWait {
        uint32_t owner = 0;
        pmix_modex_cbfunc_t cbfunc = nullptr;
        void* cbdata = nullptr;
    };
    NodeNet() = default;
    std::vector<uint32_t> members_of(const pmix_proc_t procs[], size_t nprocs) const;
    // The layout of `nspace`'s ranks: the main job's, a job of add_job, or null (this node only).
    const Layout* layout_of(const char* nspace) const;
    void on_dmodex_packet(uint32_t from, std::span<const std::byte> bytes);
    void send_dmodex(uint32_t to, uint8_t kind, uint64_t id, int32_t status,
                     const pmix_proc_t& proc, const char* blob, size_t nblob);

    std::unique_ptr<fabric::OfiTransport> transport_;
    std::unique_ptr<fabric::Engine> engine_;
    Layout layout_;
    std::string nspace_;
    std::string node_;
    std::mutex mu_;
    std::map<std::string, uint64_t> fences_run_;  // per participant signature
    std::map<uint64_t, DmodexWait> dmodex_;
    uint64_t next_dmodex_ = 1;
    uint64_t context_ids_ = 0;  // drawn when this node is a group's lowest member node
    mutable std::mutex jobs_mu_;
    // Spawned jobs' layouts; never erased, so a pointer from layout_of stays valid.
    std::map<std::string, std::unique_ptr<Layout>> jobs_;
};

}  // namespace pmix::launcher
