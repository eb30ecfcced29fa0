// tests/fuzz/fuzz_packet.cpp - the fabric's collective packets (fabric/packet.h), as a daemon
// receives them from other nodes.
//
// Input: a group-size byte, then the packet. Besides "no crash": a packet that decodes has a body
// inside the input; allgather blocks that decode name origins inside the group and encode back to
// the same body.
#include "fuzz_input.h"

#include "fabric/packet.h"

#include <string>
#include <vector>

namespace {

using pmix::fuzz::violated;
namespace fabric = pmix::fabric;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pmix::fuzz::Input in(data, size);
    const std::uint32_t group = in.u8() + 1u;
    const auto rest = in.rest();
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(rest.data()),
                                           rest.size());
    std::string why;
    const auto packet = fabric::decode_packet(bytes, why);
    // Bodies are also tried without a valid header around them.
    const std::span<const std::byte> body = packet ? packet->body : bytes;
    if (packet &&
        (body.data() < bytes.data() || body.data() + body.size() > bytes.data() + bytes.size())) {
        violated("a packet body outside the received bytes");
    }
    if (!packet && why.empty()) violated("a refused packet without a reason");
    std::vector<fabric::Block> blocks;
    why.clear();
    if (!fabric::decode_blocks(body, group, blocks, why)) {
        if (why.empty()) violated("refused blocks without a reason");
        return 0;
    }
    std::vector<const fabric::Block*> pointers;
    for (const auto& b : blocks) {
        if (b.origin >= group) violated("a block from outside the group");
        pointers.push_back(&b);
    }
    const fabric::Bytes again = fabric::encode_blocks(pointers);
    if (again.size() != body.size() || !std::equal(again.begin(), again.end(), body.begin())) {
        violated("decoded blocks do not encode back to their body");
    }
    return 0;
}
