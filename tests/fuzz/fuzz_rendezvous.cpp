// tests/fuzz/fuzz_rendezvous.cpp - the rendezvous files by which tools find a server
// (wire/rendezvous.h): any local user's server may have written the file a tool reads.
//
// Input: the file's text. Besides "no crash": what parses formats back into a text that parses to
// the same fields, and parse_uri agrees with what parse_rendezvous took from the first line.
#include "fuzz_input.h"

#include "wire/rendezvous.h"
#include "wire/tcp_socket.h"

#include <string>

namespace {

using pmix::fuzz::violated;
using pmix::wire::Rendezvous;

// `parsed` as format_rendezvous writes it back: an empty version line becomes this library's
// version, and a secret is only written with the tcp line it belongs to.
bool same(const Rendezvous& back, const Rendezvous& parsed) {
    return back.uri == parsed.uri && back.nspace == parsed.nspace && back.rank == parsed.rank &&
           back.socket == parsed.socket &&
           (parsed.version.empty() || back.version == parsed.version) && back.pid == parsed.pid &&
           back.uid == parsed.uid && back.gid == parsed.gid && back.host == parsed.host &&
           back.tcp_uri == parsed.tcp_uri &&
           (parsed.tcp_uri.empty() || back.secret == parsed.secret);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    // make_uri writes the Unix-socket form; a TCP URI (any form is_tcp_uri takes, "tcp://" too)
    // is only ever read. A socket path that holds ";tcp" is read back as the TCP form (parse_uri
    // looks for ";tcp" first), so the round trip holds only for paths without it (both found by
    // CI's fuzz run; the inputs are regressions).
    if (auto uri = pmix::wire::parse_uri(text);
        uri.ok() && !uri.value.nspace.empty() && !pmix::wire::is_tcp_uri(uri.value.socket) &&
        uri.value.socket.find(";tcp") == std::string::npos) {
        auto again = pmix::wire::parse_uri(
            pmix::wire::make_uri(uri.value.nspace, uri.value.rank, uri.value.socket));
        if (!again.ok() || again.value.nspace != uri.value.nspace ||
            again.value.rank != uri.value.rank || again.value.socket != uri.value.socket) {
            violated("a parsed URI does not survive make_uri/parse_uri");
        }
    }
    auto parsed = pmix::wire::parse_rendezvous(text);
    if (!parsed.ok()) {
        if (parsed.error.empty()) violated("a refused rendezvous file without a reason");
        return 0;
    }
    auto back = pmix::wire::parse_rendezvous(pmix::wire::format_rendezvous(parsed.value));
    if (!back.ok() || !same(back.value, parsed.value)) {
        violated("a parsed rendezvous file does not survive format/parse");
    }
    return 0;
}
