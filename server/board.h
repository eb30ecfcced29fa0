// server/board.h - fence boards of entirely node-local namespaces (board.cpp; gds/board.h).
#pragma once

#include "gds/board.h"
#include "server/registration.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace pmix::server {

class State;

// The boards of this server's namespaces. Contract: created on the host's thread at
// register_nspace and read by setup_fork there, disabled and dropped on the loop thread: every
// access holds `mu`. A board outlives its entry in the clients that mapped it.
struct FenceBoards {
    std::mutex mu;
    std::map<std::string, std::shared_ptr<gds::FenceBoard>> by_namespace;
};

// The shared-memory name prefix of this server's store and boards (PMIX_CPP_GDS_PREFIX).
std::string shm_prefix();
// At register_nspace, on the host's thread: a board when every process of `ns` runs here.
void create_board(State& st, const Registration& reg);
// The board's name for setup_fork; empty when there is none or it is disabled.
std::string board_name(State& st, const std::string& nspace);
// Sends every later fence of `nspace` through the server (sticky; waiters are woken). `why` is
// logged once; nullptr when the cause is reported elsewhere (a lost process).
void disable_board(State& st, const std::string& nspace, const char* why);
// At deregister_nspace: unlinks it (mapped clients keep their mapping).
void drop_board(State& st, const std::string& nspace);

}  // namespace pmix::server
