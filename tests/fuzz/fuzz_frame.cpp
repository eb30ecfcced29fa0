// tests/fuzz/fuzz_frame.cpp - the control-plane byte stream (wire/frame.h) and the handshake
// inside it (wire/hello.h), as a server reads them from a client or a tool on another host.
//
// Input: one byte choosing how the stream is split into reads (1-64 bytes each), then the stream.
// Properties checked besides "no crash": the split does not change the outcome (same frames, same
// verdict), and a Hello or HelloReply that decodes encodes back to bytes that decode the same.
#include "fuzz_input.h"

#include "wire/frame.h"
#include "wire/hello.h"

#include <vector>

namespace {

using pmix::fuzz::violated;
using namespace pmix::wire;

constexpr std::uint32_t kMaxPayload = 1u << 16;  // keeps every input's memory small

struct Outcome {
    std::vector<Frame> frames;
    bool failed = false;
    bool at_boundary = true;
};

Outcome decode(std::span<const std::uint8_t> stream, std::size_t chunk) {
    FrameDecoder decoder(kMaxPayload);
    Outcome o;
    for (std::size_t off = 0; off < stream.size(); off += chunk) {
        const std::size_t n = std::min(chunk, stream.size() - off);
        if (!decoder.feed(stream.subspan(off, n), o.frames)) break;
    }
    o.failed = decoder.failed();
    if (o.failed && decoder.reason().empty()) violated("a failed stream without a reason");
    o.at_boundary = decoder.at_boundary();
    if (!o.at_boundary && !o.failed && decoder.partial_needed() != 0 &&
        decoder.partial_bytes() > decoder.partial_needed()) {
        violated("more bytes of a partial frame than it needs");
    }
    return o;
}

bool same(const Frame& a, const Frame& b) {
    return a.flags == b.flags && a.op == b.op && a.tag == b.tag && a.payload == b.payload;
}

void check_hello(std::span<const std::uint8_t> payload) {
    if (auto hello = decode_hello(payload); hello.ok()) {
        const Bytes again = encode(hello.value);
        auto back = decode_hello(again);
        if (!back.ok() || back.value.nspace != hello.value.nspace ||
            back.value.rank != hello.value.rank || back.value.secret != hello.value.secret) {
            violated("a decoded Hello does not survive encode/decode");
        }
    }
    if (auto reply = decode_hello_reply(payload); reply.ok()) {
        auto back = decode_hello_reply(encode(reply.value));
        if (!back.ok() || back.value.status != reply.value.status ||
            back.value.reason != reply.value.reason) {
            violated("a decoded HelloReply does not survive encode/decode");
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pmix::fuzz::Input in(data, size);
    const std::size_t chunk = in.u8() % 64 + 1;
    const auto stream = in.rest();
    const Outcome split = decode(stream, chunk);
    const Outcome whole = decode(stream, stream.size() + 1);
    if (split.failed != whole.failed || split.frames.size() != whole.frames.size() ||
        (!split.failed && split.at_boundary != whole.at_boundary)) {
        std::fprintf(stderr, "split %zu: failed %d/%d frames %zu/%zu at_boundary %d/%d\n", chunk,
                     split.failed, whole.failed, split.frames.size(), whole.frames.size(),
                     split.at_boundary, whole.at_boundary);
        violated("the outcome depends on how the stream was split");
    }
    for (std::size_t i = 0; i < split.frames.size(); ++i) {
        if (!same(split.frames[i], whole.frames[i])) violated("a frame depends on the split");
        if (split.frames[i].payload.size() > kMaxPayload) violated("a payload over the limit");
        if (split.frames[i].op == kOpHello) check_hello(split.frames[i].payload);
    }
    // The handshake decoders also see raw bytes directly (a fuzzer rarely builds a valid header
    // around them).
    check_hello(stream);
    return 0;
}
