// client/commit_segment.h - PMIx_Commit (issue 20, item 2).
//
// The second commit with data (the first waits for the server, as without a segment: see
// g_data_commits) creates this process's own modex segment (gds/proc_segment.h),
// writes the puts there and sends them to the server synchronously, as before, with the
// segment's name; the server's reply says whether it accepted the segment. From then on a commit
// appends to the segment (one new generation) and queues the same commit message for the server,
// which leaves before any later request of this process (fence, Get, finalize, ...) on the same
// socket, or within 50 ms, without waiting for the reply: so the server's store, which server-path
// and cross-node fences, direct modex and tools read, stays complete and in order. A failure the
// server reports for such a commit is kept and returned by the next Commit or Fence. Without a segment (refused, shared memory
// unavailable, PMIX_CPP_COMMIT_SEGMENT=off) every commit waits for the server, as before.
#pragma once

#include "client/state.h"

#include <pmix_common.h>

#include <mutex>
#include <vector>

namespace pmix::client::commit_segment {

// The commit of `puts` (taken from the uncommitted list by the caller).
pmix_status_t commit(const std::vector<Put>& puts);

// Sends the commits written to the segment whose message has not left yet (commit_segment.cpp
// says why they wait) on `conn`, the server connection, and returns with their lock held: a
// request the caller sends before releasing it leaves after them. state.cpp's request() calls it.
std::unique_lock<std::mutex> send_unsent_first(wire::Connection& conn) noexcept;

// The failure an asynchronous commit reported since the last call, if any (cleared).
pmix_status_t take_async_error() noexcept;

// PMIx_Finalize, after the goodbye: the segment is retired as closed and released (peers that
// mapped it keep their mapping and read it until another one is announced).
void close() noexcept;

}  // namespace pmix::client::commit_segment
