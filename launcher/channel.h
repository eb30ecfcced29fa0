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
    exited = 'X',     // rank, pid, exit code, nspace (a spawned job's, or the main job's)
    // nspace, rank, stream (1 stdout, 2 stderr), the bytes as read from the rank's pipe (any
    // bytes, no line splitting), end ("1": the stream's EOF, no bytes follow)
    output = 'O',
    stdin_taken = 'W',  // bytes of the head's stdin stream every local target has taken so far
    failed = 'E',       // exit code, why: a local failure that takes the job down
    done = 'D',         // exit code: every local process has ended
    // nspace, rank, status: a local process called PMIx_Abort(status); sent before anything is
    // killed for it, so the head's JOB_END names the aborter and its status, not a process that
    // the abort's kills reached first
    aborted = 'B',
    // head -> daemon
    job = 'J',         // the job (JobMessage)
    kill = 'K',        // exit code: the job is failing, kill the local ranks
    timeout = 'T',     // --timeout expired
    node_lost = 'L',   // node index whose daemon died
    quit = 'Q',        // the whole job is over: exit
    stdin_data = 'I',  // the next bytes of the job's stdin, end ("1": EOF after them)
    // both ways: a daemon sends it, the head relays it to every other daemon
    event = 'N',   // status, source nspace, source rank, range, packed info
    signal = 'S',  // signal, then (nspace, rank) pairs of the targets
    // The job's one publish/lookup directory, kept by the head (directory.h). Daemon -> head,
    // each with a request id the daemon chose, then the caller (nspace, rank):
    publish = 'p',    // id, nspace, rank, range, persistence, then (key, packed info) pairs
    lookup = 'l',     // id, nspace, rank, range, wait ("1"), timeout s ("0": none), keys...
    unpublish = 'u',  // id, nspace, rank, range, keys... (none: everything the caller published)
    // head -> daemon: id, status, then (key, owner nspace, owner rank, packed info) per value
    directory_reply = 'y',
    // PMIx_Spawn across nodes (remote_spawn.h). The app fields: nprocs, pset, packed
    // directives, argc, argv..., env...
    spawn = 's',          // daemon -> head: id, parent nspace, parent rank, app fields
    spawn_part = 'z',     // head -> daemon: nspace, job, parent nspace, parent rank, K, K rank
                          // counts (node order), app fields: start this node's ranks
    spawn_started = 'k',  // daemon -> head: nspace, status of its part
    spawn_reply = 'r',    // head -> daemon: id, status, nspace: the requester's answer
    // PMIx_Connect / PMIx_Disconnect across nodes (remote_connect.h): daemon -> head: id,
    // "1" connect or "0" disconnect, timeout s ("0": none), then (nspace, rank) pairs
    connect = 'c',
    connect_reply = 'v',  // head -> daemon: id, status
    // A persistent launcher across nodes (dvm_head.h), head -> daemon: nspace of a job whose
    // processes all ended on every node: drop it here too
    retire = 'R',
    // The debugger stops across nodes (debug_nodes.h). Daemon -> head: a held process's
    // PMIX_READY_FOR_DEBUG (nspace, rank, breakpoint); its part of a stop-on-exec job started
    // (nspace, how many it holds, then (rank, pid) of each of its processes). Head -> daemon:
    // PMIX_DEBUGGER_RELEASE, (nspace, rank) pairs
    // of the targets (none: every job).
    debug_ready = 'Y',
    debug_started = 'H',
    debug_release = 'G',
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
    long stdin_rank = 0;         // --stdin (Options::stdin_rank): whose stdin is a pipe
    StartAs start_as;            // --wdir, --fork-agent, --exec-agent
    // --stop-in-init / --stop-on-exec / --stop-in-app: "i", "e", "a" (an optional last field)
    std::string debug_stops;
};

// Fields: nspace, nprocs, K, K x (name, ranks, address), argc, argv..., envc, env..., blob, key,
// pset, timeout (seconds, "%.17g"), D, D x (kind letter + separator, name, value), stdin target
// ("all", "none" or the rank), wdir, fork agent, exec agent, then, when any, the debugger stops.
std::vector<std::string> encode_job(const JobMessage& job);
// Empty on a malformed message (wrong kind, missing fields, bad counts, no program).
std::optional<JobMessage> decode_job(const Message& message);

// Sending never blocks: a message is queued and written as the peer takes it (flush_some when
// out_fd() is writable), so two peers that both send a lot cannot deadlock on full pipes. The
// queue is bounded by its senders: bulk data (output, stdin) is read only while queued() is under
// their limit; the other messages are few and small.
class Channel {
public:
    Channel(int in_fd, int out_fd);  // makes both non-blocking
    int in_fd() const { return in_; }
    int out_fd() const { return out_; }
    // Queues the whole message and writes what the peer takes now; false if the peer is gone.
    bool send(MessageKind kind, const std::vector<std::string>& fields);
    // Writes what the peer takes of the queue now; false if the peer is gone.
    bool flush_some();
    // Waits up to `timeout_ms` until the queue is written; false if it is not (or the peer left).
    bool flush(int timeout_ms);
    size_t queued() const { return outbox_.size() - sent_; }
    // Reads what the (non-blocking) input has and appends every complete message; false at EOF or
    // on a malformed stream (messages already complete are still appended).
    bool receive(std::vector<Message>& out);
    // Waits up to `timeout_ms` for one message; false on timeout, EOF or a malformed stream.
    bool wait_one(Message& message, int timeout_ms);

private:
    bool parse(std::vector<Message>& out);
    int in_, out_;
    std::string buffer_;
    std::string outbox_;  // bytes [sent_, size) are still to be written
    size_t sent_ = 0;
    bool broken_ = false;         // a write failed: the peer is gone
    std::vector<Message> ready_;  // parsed by wait_one beyond the one it returned
};

}  // namespace pmix::launcher
