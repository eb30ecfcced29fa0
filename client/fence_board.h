// client/fence_board.h - whole-namespace fences on the namespace's fence board (gds/board.h),
// without the server, when every process of the job runs on this node.
//
// The server names the board in PMIX_CPP_FENCE_BOARD (setup_fork); PMIx_Init maps it. A fence
// over the own namespace (procs NULL, or {own nspace, WILDCARD}) whose only required directives
// are PMIX_COLLECT_DATA and PMIX_TIMEOUT runs on it: PMIx_Fence on the caller's thread (spin, then
// futex), PMIx_Fence_nb on one helper thread started at its first use. The data needs no moving:
// every PMIx_Commit is in the store before it returns. When the board says "redirect" (disabled
// by the server or a peer), the same fence is sent to the server, where everyone meets.
// Fences of one process run on the board one at a time, in call order.
#pragma once

#include "exec/unique_function.h"

#include <pmix_common.h>

#include <chrono>
#include <cstddef>

namespace pmix::client::fence_board {

enum class Result { done, timeout, server };

// At PMIx_Init (s.mu held): maps the board the environment names, if any.
void open_from_env(const pmix_proc_t& me);
// At teardown (s.mu not held): stops the helper thread (pending PMIx_Fence_nb callbacks are not
// called) and unmaps the board.
void close();
// The connection to the server is lost: disables the board (for every participant, each of
// which lost the same server), so that nobody waits on it for peers that will never arrive; they
// re-issue the fence at the server and hear PMIX_ERR_LOST_CONNECTION.
void server_lost();

// True when this fence is the board's.
bool eligible(const pmix_proc_t& me, const pmix_proc_t* procs, std::size_t nprocs,
              const pmix_info_t* info, std::size_t ninfo);
// PMIx_Fence: runs on the caller's thread. Result::server also when there is no usable board.
Result run(std::chrono::steady_clock::time_point deadline);
// PMIx_Fence_nb: false when there is no usable board (then `fn` is not called); otherwise `fn`
// runs once, on the helper thread.
bool run_async(std::chrono::steady_clock::time_point deadline,
               exec::UniqueFunction<void(Result)> fn);

}  // namespace pmix::client::fence_board
