// server/tool_registry.h - tool support of this server (tools.cpp): rendezvous, the remote
// listener, and tools waiting for the host's verdict.
//
// Contract: set at PMIx_server_init from PMIX_SERVER_*_SUPPORT and friends (before the loop
// runs), then the server's loop thread only; the rendezvous files and directories are removed
// at finalize (tools.cpp). An admitted tool becomes a Client (clients.h) and leaves this table.
#pragma once

#include "server/id_table.h"
#include "wire/connection.h"
#include "wire/listener.h"
#include "wire/proto/message.h"

#include <memory>
#include <string>
#include <vector>

namespace pmix::server {

// A tool connection between its Hello and the host's verdict.
struct ToolAsk {
    std::weak_ptr<wire::Connection> conn;
    wire::Frame request;  // op and tag only
    wire::PeerCred cred;
    data::InfoArray info;  // handed to the host; valid until it answers
    bool asked = false;
};

struct ToolRegistry {
    bool enabled = false;
    std::string server_tmpdir, system_tmpdir;
    std::vector<std::string> files;         // rendezvous files we wrote (removed at finalize)
    std::vector<std::string> created_dirs;  // directories we made for them, outermost first
    // PMIX_SERVER_REMOTE_CONNECTIONS: a TCP listener for remote tools, admitted by this secret
    // (written only into the owner-only rendezvous files).
    std::shared_ptr<wire::Listener> tcp;
    std::string secret;
    IdTable<ToolAsk> asks;  // the id is the cbdata of the host's tool_connected upcall
};

}  // namespace pmix::server
