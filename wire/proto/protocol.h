// wire/proto/protocol.h - the PMIx client/server operations carried by wire frames (protocol v1).
//
// Contract between client/ and server/ (neither knows the other). Each operation is a request
// frame from the client with op = Op::X and a reply frame (same op and tag) from the server; the
// payload of both is a pmix_data_buffer_t packed with core/codec, fields in the order listed.
// Every reply starts with a pmix_status_t (PMIX_STATUS).
// Arrays ("procs(PROC[])" after "nprocs(SIZE)") are one codec batch of that many elements; when
// the count is 0 the array batch is OMITTED (the codec cannot unpack an empty batch). The helpers
// in wire/proto/message.h (target pmix_proto) implement these rules; use them on both sides.
// Server-initiated frames (events) use tag 0 and are not replied to. Ops below 0x100 belong to wire
// (the Hello handshake).
//
// Environment contract (set by PMIx_server_setup_fork, read by PMIx_Init):
//   PMIX_NAMESPACE, PMIX_RANK          the client's identity (as OpenPMIx)
//   PMIX_SERVER_URI                    "<server nspace>.<server rank>;unix:<socket path>"
//   PMIX_SERVER_TMPDIR, PMIX_VERSION   as OpenPMIx sets them
//   PMIX_CPP_SERVER_SOCKET             the socket path alone (ours; preferred by our client)
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pmix::proto {

enum class Op : std::uint32_t {
    kFinalize = 0x100,   // req: -                                      rep: status
    kAbort = 0x101,      // req: status, msg(STRING), nprocs(SIZE), procs(PROC[])  rep: status
    kCommit = 0x102,     // req: nkv(SIZE), then nkv x (scope(SCOPE), info(INFO)) rep: status
    kFence = 0x103,      // req: nprocs(SIZE), procs(PROC[]), ninfo(SIZE), info(INFO[])
                         // rep: status  (collected data is then in the server's store)
    kGet = 0x104,        // req: proc(PROC), key(STRING, NULL = all keys), ninfo(SIZE), info(INFO[])
                         // rep: status, then for a key: value(VALUE); for NULL key:
                         //      ninfo(SIZE), info(INFO[]) with every key of that process
    kPublish = 0x105,    // req: ninfo(SIZE), info(INFO[])               rep: status
    kLookup = 0x106,     // req: nkeys(SIZE), keys(STRING[]), ninfo(SIZE), info(INFO[])
                         // rep: status, ndata(SIZE), data(PDATA[])
    kUnpublish = 0x107,  // req: nkeys(SIZE), keys(STRING[]), ninfo(SIZE), info(INFO[]) rep: status
    kRegisterEvents = 0x108,    // req: ncodes(SIZE), codes(STATUS[]), ninfo, info  rep: status
    kDeregisterEvents = 0x109,  // req: ncodes(SIZE), codes(STATUS[])           rep: status
    kNotify = 0x10A,      // req: status, source(PROC), range(DATA_RANGE), ninfo, info rep: status
    kEvent = 0x10B,       // server->client, no reply: status, source(PROC), ninfo, info
    kSpawn = 0x10C,       // req: ninfo, job info(INFO[]), napps(SIZE), apps(APP[])
                          // rep: status, nspace(STRING)
    kConnect = 0x10D,     // req: nprocs, procs(PROC[]), ninfo, info       rep: status
    kDisconnect = 0x10E,  // req: nprocs, procs(PROC[]), ninfo, info       rep: status
    kQuery = 0x10F,       // req: nqueries(SIZE), queries(QUERY[])
                          // rep: status, ninfo(SIZE), info(INFO[])
    kLog = 0x110,         // req: ndata, data(INFO[]), ndirs, directives(INFO[])  rep: status
    kJobControl = 0x111,  // req: ntargets, targets(PROC[]), ndirs, directives(INFO[]) rep: status
    // A tool's first request after the Hello (Role::tool): the server asks its host's
    // tool_connected hook, which assigns the tool's identity or refuses it. Nothing else is
    // served on that connection before the answer.
    kToolAttach = 0x112,  // req: ninfo, info(INFO[])   rep: status, proc(PROC) the tool's id
    // Groups (server/groups.cpp). Construct and destruct are collectives of the members; the
    // reply comes when the host's group upcall answered (or the server alone completed it).
    kGroupConstruct = 0x120,  // req: grp(STRING), nprocs, procs(PROC[]), ninfo, info(INFO[])
                              // rep: status, nresults(SIZE), results(INFO[])
    kGroupDestruct = 0x121,   // req: grp(STRING), ninfo, info(INFO[])   rep: status
    kGroupInvite = 0x122,     // req: grp(STRING), nprocs, procs(PROC[]), ninfo, info(INFO[])
                              // rep: status, nresults(SIZE), results(INFO[])
    kGroupJoin = 0x123,       // req: grp(STRING), leader(PROC; rank INVALID = none),
                              //      accept(SIZE 1/0), ninfo, info(INFO[])
                              // rep: status, nresults(SIZE), results(INFO[])
    kGroupLeave = 0x124,      // req: grp(STRING), ninfo, info(INFO[])   rep: status
    // Credentials and process monitors (server/credential.h, server/monitor.h).
    kGetCredential = 0x130,  // req: ndirs, directives(INFO[])
                             // rep: status, then on success cred(BYTE_OBJECT), ninfo, info(INFO[])
    kValidateCredential = 0x131,  // req: cred(BYTE_OBJECT), ndirs, directives(INFO[])
                                  // rep: status, then on success ninfo, info(INFO[])
    kMonitor = 0x132,             // req: monitor(INFO), error(STATUS), ndirs, directives(INFO[])
                                  // rep: status, then on success ninfo, info(INFO[])
    kHeartbeat = 0x133,  // req: -   rep: status (PMIX_SEND_HEARTBEAT; the client drops the reply)
    // PMIx_Allocation_request: passed to the host's allocate upcall.
    kAllocate = 0x140,  // req: directive(ALLOC_DIRECTIVE), ninfo, info(INFO[])
                        // rep: status, ninfo(SIZE), info(INFO[])
    // PMIx_Fabric_register / update: passed to the host's fabric upcall with op
    // PMIX_FABRIC_REQUEST_INFO / PMIX_FABRIC_UPDATE_INFO (update: directives = PMIX_FABRIC_INDEX).
    kFabric = 0x141,  // req: op(UINT8), ndirs, directives(INFO[])
                      // rep: status, ninfo(SIZE), info(INFO[]) what fills pmix_fabric_t.info
    // IO forwarding (server/iof.h): PMIx_IOF_pull registers the client's handler `id` for
    // `channels` of `procs`; the server passes it to its host's iof_pull upcall and replies when
    // the host answers. Deregister names the same id.
    kIofPull = 0x160,        // req: nprocs, procs(PROC[]), ndirs, dirs(INFO[]),
                             //      channels(IOF_CHANNEL), id(SIZE)          rep: status
    kIofDeregister = 0x161,  // req: id(SIZE), ndirs, dirs(INFO[])           rep: status
    // server->client, no reply: one chunk of output for the handler `id`.
    kIofData = 0x162,  // source(PROC), channel(IOF_CHANNEL), id(SIZE), ninfo, info(INFO[]),
                       // data(BYTE_OBJECT)
    // PMIx_IOF_push: bytes for the targets' stdin, passed to the host's push_stdin upcall with
    // the requester as source (PMIX_IOF_COMPLETE among dirs: end of input, data may be empty).
    kIofPush = 0x163,  // req: ntargets, targets(PROC[]), ndirs, dirs(INFO[]), data(BYTE_OBJECT)
                       // rep: status
};

// A client's answer to PMIX_GROUP_LEADER_FAILED once its handlers completed (server/
// group_leader.cpp): kNotify of PMIX_GROUP_LEADER_SELECTED, range PMIX_RANGE_PROC_LOCAL, with
// PMIX_GROUP_ID and this key (BOOL: a handler returned PMIX_GROUP_LEADER, declaring it the new
// leader). The server takes it as a vote and passes it to nobody.
inline constexpr char kGroupLeaderVote[] = "pmix.cpp.grp.vote";

// Cached events (server/events.cpp): a kRegisterEvents carries the client's handler id under
// kEventHandlerId (SIZE); the server then sends it the cached events of those codes, each with
// kEventReplayFor (SIZE, that id), which the client runs for that handler only.
inline constexpr char kEventHandlerId[] = "pmix.cpp.ev.hdlr";
inline constexpr char kEventReplayFor[] = "pmix.cpp.ev.replay";

// Unknown ops get a reply with PMIX_ERR_NOT_SUPPORTED; the connection stays open.
// A payload that does not decode (truncated, wrong types, trailing bytes) is a protocol
// violation: the server logs the reason and closes that connection only.

}  // namespace pmix::proto
