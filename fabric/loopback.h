// fabric/loopback.h - an in-process Transport for N members: the test seam.
//
// Sends are queued in the hub; the test decides which queued packet is delivered next (any one,
// so delivery order can be shuffled across and within pairs), and can kill a member: packets to
// it vanish and every other member's receiver hears on_peer_lost. Single-threaded by design:
// the test's loop is the only "network thread".
#pragma once

#include "fabric/transport.h"

#include <memory>
#include <vector>

namespace pmix::fabric {

class LoopbackHub {
public:
    explicit LoopbackHub(std::uint32_t members);
    ~LoopbackHub();
    LoopbackHub(const LoopbackHub&) = delete;
    LoopbackHub& operator=(const LoopbackHub&) = delete;

    Transport& transport(std::uint32_t rank);
    void attach(std::uint32_t rank, Receiver* receiver);

    std::size_t queued() const noexcept { return queue_.size(); }
    // Delivers the queued packet at `index` (< queued()).
    void deliver(std::size_t index);
    void kill(std::uint32_t rank);
    std::uint64_t bytes_sent() const noexcept { return bytes_sent_; }

private:
    class Member;
    struct InFlight {
        std::uint32_t from;
        std::uint32_t to;
        Bytes bytes;
    };
    bool enqueue(std::uint32_t from, std::uint32_t to, Bytes bytes);

    std::vector<std::unique_ptr<Member>> members_;
    std::vector<Receiver*> receivers_;
    std::vector<bool> dead_;
    std::vector<InFlight> queue_;
    std::uint64_t bytes_sent_ = 0;
};

}  // namespace pmix::fabric
