// server/events.cpp - event registrations and notifications between clients, the host and the
// server itself.
//
// Interim behaviour (to be completed by the events work of issue #3): registrations are accepted
// and not recorded; a client's PMIx_Notify_event goes to the host's notify_event upcall
// (PMIX_ERR_NOT_SUPPORTED without one); a lost client raises nothing.
#include "server/state.h"

namespace pmix::server {

void State::events_request(const ProcKey& /*who*/, Client& c, proto::Reader& r,
                           wire::Connection& conn, const wire::Frame& frame) {
    switch (static_cast<proto::Op>(frame.op)) {
        case proto::Op::kRegisterEvents:
        case proto::Op::kDeregisterEvents:
            reply_status(conn, frame, PMIX_SUCCESS);
            return;
        default: break;
    }
    const pmix_status_t outcome = forward_to_host(c, r, conn, frame);
    if (outcome == PMIX_ERR_UNPACK_FAILURE) {
        slog("undecodable notify request; closing that connection");
        conn.close("undecodable request", wire::CloseKind::bad_frame);
    } else if (outcome != PMIX_SUCCESS) {
        reply_status(conn, frame, outcome);
    }
}

void State::events_client_lost(const ProcKey& /*who*/) {}

}  // namespace pmix::server
