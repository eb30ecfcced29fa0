// server/board.cpp - fence boards (gds/board.h) of namespaces that run entirely on this node.
//
// A namespace gets one when the host registers it with every process local (nlocalprocs equal
// to the job size, every rank in the local set) and PMIX_CPP_LOCAL_FENCE is not "server".
// setup_fork names it to the clients (PMIX_CPP_FENCE_BOARD); they meet on it for whole-namespace
// fences, and the host's fence_nb is not called for those: with every participant here there is
// nothing for it to exchange, and every commit is readable by the peers before the commit call
// returns: in the committer's own segment (gds/proc_segment.h; the server's store gets it
// asynchronously) or, without one, in the store.
// The server only ever disables a board: when one of its processes is lost, and when a
// whole-namespace fence of it reaches the server (a participant that could not map the board, or
// passed a directive only the host can honour), so that everyone meets there instead.
#include "server/board.h"

#include "server/state.h"

#include "base/env_names.h"

#include <cstdlib>
#include <cstring>

namespace pmix::server {

namespace {

bool boards_enabled() {
    const char* mode = std::getenv(env::kLocalFence);
    return mode == nullptr || std::strcmp(mode, "server") != 0;
}

// Every rank 0..size-1 of the job runs here.
bool entirely_local(const Registration& ns, std::uint32_t* size) {
    auto it = ns.job.find(PMIX_JOB_SIZE);
    const pmix_value_t* js = it == ns.job.end() ? nullptr : &it->second.get();
    if (js == nullptr || js->type != PMIX_UINT32 || js->data.uint32 == 0) return false;
    *size = js->data.uint32;
    if (ns.nlocalprocs <= 0 || static_cast<std::uint32_t>(ns.nlocalprocs) != *size) return false;
    if (ns.local_ranks.size() != *size) return false;
    return *ns.local_ranks.rbegin() == *size - 1;  // a set: ranks 0..size-1 exactly
}

}  // namespace

std::string shm_prefix() {
    const char* prefix = std::getenv(env::kGdsPrefix);
    return prefix != nullptr && *prefix == '/' ? prefix : "/pmixgds";
}

void create_board(State& st, const Registration& ns) {
    std::shared_ptr<gds::FenceBoard> board;
    std::uint32_t size = 0;
    if (boards_enabled() && entirely_local(ns, &size)) {
        std::unique_ptr<gds::FenceBoard> made;
        if (pmix_status_t rc = gds::FenceBoard::create(shm_prefix(), ns.name, size, made);
            rc != PMIX_SUCCESS) {
            slog(exec::LogLevel::warn, "no fence board for " + ns.name + " (status " +
                                           std::to_string(rc) +
                                           "): its fences go through the server");
        }
        board = std::move(made);
    }
    std::lock_guard lock(st.boards.mu);
    if (board) {
        st.boards.by_namespace[ns.name] = std::move(board);
    } else {
        st.boards.by_namespace.erase(
            ns.name);  // a re-registration that is no longer entirely local
    }
}

std::string board_name(State& st, const std::string& nspace) {
    std::lock_guard lock(st.boards.mu);
    auto it = st.boards.by_namespace.find(nspace);
    return it == st.boards.by_namespace.end() || it->second->disabled() ? std::string()
                                                                        : it->second->name();
}

void disable_board(State& st, const std::string& nspace, const char* why) {
    std::lock_guard lock(st.boards.mu);
    auto it = st.boards.by_namespace.find(nspace);
    if (it == st.boards.by_namespace.end() || it->second->disabled()) return;
    it->second->disable();
    if (why != nullptr)
        slog(exec::LogLevel::warn,
             "fences of " + nspace + " go through the server from now on: " + why);
}

void drop_board(State& st, const std::string& nspace) {
    std::lock_guard lock(st.boards.mu);
    st.boards.by_namespace.erase(nspace);
}

}  // namespace pmix::server
