// launcher/channel.h - messages between pmixrun (the head) and its node daemons (pmixd).
//
// They travel over the daemon's stdin and stdout, so any launch agent that forwards those works
// unchanged: ssh, `ip netns exec`, srun. A message is a 4-byte little-endian length of what
// follows, a kind byte (MessageKind), then its fields, each a 4-byte length and the bytes. A
// stream that breaks these rules (or a message over 64 MiB) ends the channel: the peer is treated
// as gone. A kind byte no MessageKind has is delivered with `kind` empty, and the receiver reports
// it and goes on.
#pragma once

#include "options.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pmix::launcher {

// The kinds of message and their bytes on the wire (these bytes are the protocol: never renumber).
enum class MessageKind : char {
    // daemon -> head
    address = 'A',    // fabric address, provider, node IPv4 address
    connected = 'C',  // rank, pid: a main-job rank called PMIx_Init
    finalized = 'F',  // rank
    exited = 'X',     // rank, pid, exit code
    output = 'O',     // rank tag, stream (1 stdout, 2 stderr), one line
    failed = 'E',     // exit code, why: a local failure that takes the job down
    done = 'D',       // exit code: every local process has ended
    // head -> daemon
    job = 'J',        // the job (JobMessage)
    kill = 'K',       // exit code: the job is failing, kill the local ranks
    timeout = 'T',    // --timeout expired
    node_lost = 'L',  // node index whose daemon died
    quit = 'Q',       // the whole job is over: exit
    // both ways: a daemon sends it, the head relays it to every other daemon
    event = 'N',   // status, source nspace, source rank, range, packed info
    signal = 'S',  // signal, then (nspace, rank) pairs of the targets
};

// The one place kinds meet bytes.
constexpr char wire_byte(MessageKind kind) { return static_cast<char>(kind); }
std::optional<MessageKind> message_kind(char byte);
const char* message_kind_name(MessageKind kind);  // "job", "exited", ... for diagnostics

struct Message {
    std::optional<MessageKind> kind;  // empty: `wire` is a byte no kind has
    char wire = 0;
    std::vector<std::string> fields;
};

// "'J' (job)", or "'?' (unknown)" for a byte no kind has.
std::string describe(const Message& message);

// The job, as the head sends it to every daemon.
struct JobMessage {
    struct Node {
        std::string name;
        uint32_t ranks = 0;
        std::string fabric_address;  // opaque: the daemon's NodeNet::address()
    };
    std::string nspace;
    uint32_t nprocs = 0;
    std::vector<Node> nodes;                   // in node-index order
    std::vector<std::string> argv;             // the program and its arguments
    std::vector<std::string> env;              // -x, resolved to VAR=value on the head
    std::vector<EnvDirective> env_directives;  // --set-env ... in command-line order
    std::string launch_blob;     // PMIx_server_setup_application's result (packed infos)
    std::string credential_key;  // every node's PMIX_CRYPTO_KEY (credentials valid job-wide)
    std::string pset;            // --pset: the app's process set ("": the default name)
    double timeout_s = 0;        // --timeout (0: none), for PMIX_TIME_REMAINING
};

// Fields: nspace, nprocs, K, K x (name, ranks, address), argc, argv..., envc, env..., blob, key,
// pset, timeout (seconds, "%.17g"), D, D x (kind letter + separator, name, value).
std::vector<std::string> encode_job(const JobMessage& job);
// Empty on a malformed message (wrong kind, missing fields, bad counts, no program).
std::optional<JobMessage> decode_job(const Message& message);

class Channel {
public:
    Channel(int in_fd, int out_fd);  // makes in_fd non-blocking
    int in_fd() const { return in_; }
    // Writes the whole message (blocking); false if the peer is gone.
    bool send(MessageKind kind, const std::vector<std::string>& fields);
    // Reads what the (non-blocking) input has and appends every complete message; false at EOF or
    // on a malformed stream (messages already complete are still appended).
    bool receive(std::vector<Message>& out);
    // Waits up to `timeout_ms` for one message; false on timeout, EOF or a malformed stream.
    bool wait_one(Message& message, int timeout_ms);

private:
    bool parse(std::vector<Message>& out);
    int in_, out_;
    std::string buffer_;
    std::vector<Message> ready_;  // parsed by wait_one beyond the one it returned
};

}  // namespace pmix::launcher
