// fabric/transport.h - the seam between the collectives and whatever carries their packets.
//
// A Transport moves whole packets between `size()` peers numbered 0..size-1, reliably. It need
// not keep order (the collectives do not rely on it). Received packets and lost peers are
// reported to one Receiver, from the transport's own thread (libfabric) or from the test's
// delivery loop (LoopbackHub).
#pragma once

#include "fabric/packet.h"

#include <cstdint>
#include <span>

namespace pmix::fabric {

class Receiver {
public:
    virtual ~Receiver() = default;
    virtual void on_packet(std::uint32_t from, std::span<const std::byte> bytes) = 0;
    // The peer is gone (its daemon died or its endpoint failed): nothing more will come from it.
    virtual void on_peer_lost(std::uint32_t peer) = 0;
};

class Transport {
public:
    virtual ~Transport() = default;
    virtual std::uint32_t rank() const noexcept = 0;
    virtual std::uint32_t size() const noexcept = 0;
    // Queues `bytes` for `peer` and returns at once; false if the peer is unknown or lost.
    virtual bool send(std::uint32_t peer, Bytes bytes) = 0;
};

}  // namespace pmix::fabric
