// tests/fuzz/fuzz_channel.cpp - the launcher's head <-> daemon channel (launcher/channel.h), as
// pmixrun reads a daemon's stdout (and pmixd the head's messages), through a real pipe.
//
// Input: a byte choosing the size of each write into the pipe (1-256 bytes, read after each write,
// so messages arrive in pieces), then the stream. Every job message is decoded (decode_job);
// besides "no crash": a job that decodes encodes back into a message that decodes to the same job.
#include "fuzz_input.h"

#include "channel.h"

#include <fcntl.h>
#include <unistd.h>

#include <vector>

namespace {

using pmix::fuzz::violated;
namespace launcher = pmix::launcher;

bool same(const launcher::JobMessage& a, const launcher::JobMessage& b) {
    if (a.nspace != b.nspace || a.nprocs != b.nprocs || a.argv != b.argv || a.env != b.env ||
        a.launch_blob != b.launch_blob || a.nodes.size() != b.nodes.size() ||
        a.env_directives != b.env_directives) {
        return false;
    }
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        if (a.nodes[i].name != b.nodes[i].name || a.nodes[i].ranks != b.nodes[i].ranks ||
            a.nodes[i].fabric_address != b.nodes[i].fabric_address) {
            return false;
        }
    }
    return true;
}

void check(const launcher::Message& m) {
    (void)launcher::describe(m);
    if (m.kind != launcher::MessageKind::job) return;
    const auto job = launcher::decode_job(m);
    if (!job) return;
    launcher::Message again;
    again.kind = launcher::MessageKind::job;
    again.wire = launcher::wire_byte(launcher::MessageKind::job);
    again.fields = launcher::encode_job(*job);
    const auto back = launcher::decode_job(again);
    if (!back || !same(*back, *job)) violated("a decoded job does not survive encode/decode");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    pmix::fuzz::Input in(data, size);
    const std::size_t piece = in.u8() + 1u;
    const auto stream = in.rest();
    int fds[2];
    if (::pipe(fds) != 0) return 0;
    {
        launcher::Channel channel(fds[0], fds[1]);
        std::vector<launcher::Message> got;
        bool open = true;
        for (std::size_t off = 0; off < stream.size() && open; off += piece) {
            const std::size_t n = std::min(piece, stream.size() - off);
            if (::write(fds[1], stream.data() + off, n) != static_cast<ssize_t>(n)) break;
            open = channel.receive(got);
        }
        ::close(fds[1]);
        if (open) {
            if (channel.receive(got)) violated("receive() after EOF said the channel is open");
        }
        for (const auto& m : got) check(m);
    }
    ::close(fds[0]);
    return 0;
}
