// server/connect_tracker.h - PMIx_Connect / PMIx_Disconnect collected at the server
// (connect_tracker.cpp).
//
// Contract: the server's loop thread only. As the Standard describes it and OpenPMIx 4.2 does,
// the server makes ONE host `connect` (or `disconnect`) upcall per operation, not one per caller:
// a ConnectOp, keyed by the operation and the caller's proc array sorted, collects the requests
// of every LOCAL participant the array names (a PMIX_RANK_WILDCARD stands for that namespace's
// ranks on this node; the caller itself always takes part), then calls the host once with the
// sorted array and the callers' directives merged (the first value of each key), and answers
// every local caller with the host's status. Its id is the upcall's cbdata. The host also gets
// PMIX_SORTED_PROC_ARRAY and PMIX_LOCAL_COLLECTIVE_STATUS, as from OpenPMIx 4.2. When every
// participant is on this node the op completes here without an upcall (OpenPMIx 4.2's rule, which
// Open MPI's hosts see: "a connect upcall only when some proc is remote"); so a host without the
// upcall gets PMIX_ERR_NOT_SUPPORTED only for a set that spans nodes, as with OpenPMIx.
// Nobody hangs: PMIX_TIMEOUT (seconds, the earliest caller's) ends the op with PMIX_ERR_TIMEOUT
// at the server too, also while the host holds it (the record then stays until the host
// answers: it holds pointers into it); a local participant whose connection closes before it
// joined (died, or finalized) fails the op with PMIX_ERR_LOST_CONNECTION, before the host is
// called. Once the host has the op, the host decides (other nodes may have completed it).
#pragma once

#include "exec/executor.h"
#include "server/clients.h"
#include "server/id_table.h"
#include "server/pending.h"
#include "wire/proto/message.h"

#include <pmix_common.h>

#include <map>
#include <set>
#include <vector>

namespace pmix::server {

class State;

struct ConnectOp {
    bool connect = true;
    std::vector<pmix_proc_t> procs;  // the callers' array, sorted: the key and the upcall's
    std::set<ProcKey> expected;      // local participants (callers included)
    std::map<ProcKey, ReplyTo> arrived;
    std::vector<data::InfoArray> directives;  // each arrival's, merged for the host
    data::InfoArray merged;                   // what the host gets; kept until it answers
    exec::TimerId timer = exec::kInvalidTimer;
    bool queued = false;       // every local participant is in: the upcall is posted
    bool host_called = false;  // the host holds it (until host_done)
    bool answered = false;     // the callers have their status (a timeout while the host holds it)
};

struct ConnectTable {
    IdTable<ConnectOp> ops;
};

// kConnect / kDisconnect from a local client or tool. PMIX_SUCCESS: the reply is taken care of;
// PMIX_ERR_UNPACK_FAILURE: undecodable; else the status to reply with now.
pmix_status_t connect_request(State& s, Client& c, proto::Reader& r, wire::Connection& conn,
                              const wire::Frame& frame, bool connect);
// `who`'s connection closed: an op still waiting for it fails.
void connect_client_gone(State& s, const ProcKey& who);

}  // namespace pmix::server
