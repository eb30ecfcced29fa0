// fabric/ofi.h - the libfabric Transport: one RDM endpoint per daemon.
//
// Open the endpoint first (open()), publish address() to the other daemons through whatever
// starts them, then connect() with everyone's address in rank order. From then on one progress
// thread owns the endpoint: it posts sends, reassembles received chunks into whole packets and
// hands them to the Receiver. It sleeps in poll() on the completion queue's wait fd (and on an
// eventfd that send() signals) rather than spinning, because daemons may outnumber cores and
// spin-polling collapses there; a provider without a wait fd gets a 50 us nap between reads.
//
// Packets larger than a chunk travel as several messages (24-byte chunk header: magic, sender,
// per-sender sequence number, total length, offset) and are reassembled, so receive buffers
// stay small and fixed whatever a fence carries.
#pragma once

#include "fabric/transport.h"

#include <memory>
#include <string>

namespace pmix::fabric {

struct OfiOptions {
    // libfabric provider names, e.g. "tcp;ofi_rxm" (the default), "shm", "verbs;ofi_rxm".
    // Empty: $PMIX_CPP_FABRIC_PROVIDER, else "tcp;ofi_rxm".
    std::string provider;
    // The node address to open the endpoint on (FI_SOURCE), e.g. "127.0.0.1" or a namespace's
    // address; libfabric would otherwise pick eth0. Ignored for "shm", which must not get one.
    std::string node;
    // The port to bind (with `node`), e.g. a pre-assigned instant-on endpoint's; empty: any.
    std::string service;
    std::size_t chunk_bytes = 64 * 1024;
    std::size_t receive_buffers = 16;
};

// The provider OfiOptions would use: the option, else the environment, else "tcp;ofi_rxm".
std::string ofi_provider(const OfiOptions& options);

// The address a node's endpoints should use when nobody said: $PMIX_CPP_FABRIC_NODE, else this
// host's first non-loopback IPv4 address (a network namespace's veth), else 127.0.0.1.
std::string default_node_address();

class OfiTransport final : public Transport {
public:
    // Empty with `error` set when no provider matches or the endpoint cannot be opened.
    static std::unique_ptr<OfiTransport> open(const OfiOptions& options, std::string& error);
    ~OfiTransport() override;
    OfiTransport(const OfiTransport&) = delete;
    OfiTransport& operator=(const OfiTransport&) = delete;

    // This endpoint's address (fi_getname), to be given to every peer.
    Bytes address() const;
    std::string provider_name() const;
    // Inserts every daemon's address (index = rank, including our own) and starts the progress
    // thread, which delivers to `receiver` until destruction.
    bool connect(std::uint32_t rank, const std::vector<Bytes>& addresses, Receiver* receiver,
                 std::string& error);
    // The control plane learned that `peer` is gone: its sends fail and the receiver is told.
    void mark_lost(std::uint32_t peer);

    std::uint32_t rank() const noexcept override;
    std::uint32_t size() const noexcept override;
    bool send(std::uint32_t peer, Bytes bytes) override;

    struct Impl;

private:
    explicit OfiTransport(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace pmix::fabric
