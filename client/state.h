// client/state.h - the one client instance of this process and the helpers every call uses.
//
// The state is created by the first PMIx_Init and torn down by the matching last PMIx_Finalize.
// Its mutex guards the fields below; it is never held while waiting for the server or while
// running a user callback.
#pragma once

#include "exec/executor.h"
#include "exec/unique_function.h"
#include "wire/connection.h"
#include "wire/proto/message.h"

#include <pmix_common.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace pmix::client {

// A heap pmix_value_t owned by C++ (released with value_destruct + free).
struct ValueDeleter {
    void operator()(pmix_value_t* v) const noexcept;
};
using ValuePtr = std::unique_ptr<pmix_value_t, ValueDeleter>;
// Deep copy; nullptr when the copy fails.
ValuePtr copy_value(const pmix_value_t& v);
// Deep copy into a malloc'd pmix_value_t the C caller frees (PMIX_VALUE_RELEASE semantics).
pmix_value_t* malloc_value_copy(const pmix_value_t& v);

using CacheKey = std::tuple<std::string, pmix_rank_t, std::string>;

struct Put {
    pmix_scope_t scope;
    std::string key;
    ValuePtr value;
};
// Adds `put` to `puts`, replacing an earlier put of the same key in place (a later put of a key
// replaces the earlier one: PMIx_Put's rule, and what a merged commit carries).
void merge_put(std::vector<Put>& puts, Put put);

// A server a tool is attached to (tool.cpp).
struct ServerLink {
    pmix_proc_t server{};
    std::string uri;
    std::shared_ptr<wire::Connection> conn;
};

struct State {
    std::mutex mu;
    int refs = 0;
    pmix_proc_t me{};
    std::unique_ptr<exec::Executor> ex;
    std::shared_ptr<wire::Connection> conn;  // the (primary) server; null for an unattached tool
    bool tool = false;                       // initialised by PMIx_tool_init
    std::vector<ServerLink> servers;         // tools: primary first, then in attach order
    std::map<CacheKey, ValuePtr> cache;      // own puts, Store_internal, job-level answers
    std::vector<Put> uncommitted;            // puts since the last commit, in order
};

State& state();

// Init and finalize, of clients and tools alike, are serialised with each other (they dial and
// tear down outside s.mu).
std::mutex& lifecycle_mutex();
// Drops everything the instance holds: connections, progress thread, caches. Called with the
// lifecycle mutex held, s.mu not held.
void teardown();

// How long a request may take when the caller gives no PMIX_TIMEOUT. Long (a fence waits for
// the slowest process of the job) but finite: nothing in the client waits forever.
inline constexpr std::chrono::milliseconds kDefaultTimeout{std::chrono::hours(1)};
// Short operations with nothing to wait for but the local server (finalize, abort).
inline constexpr std::chrono::milliseconds kShortTimeout{std::chrono::seconds(10)};
// Extra time a blocking wait gives the request's own timeout before giving up itself.
inline constexpr std::chrono::milliseconds kWaitMargin{std::chrono::seconds(5)};

// PMIX_TIMEOUT (seconds, > 0) among `info`, else `fallback`.
std::chrono::milliseconds timeout_from(const pmix_info_t* info, std::size_t ninfo,
                                       std::chrono::milliseconds fallback);
// True when `key` is non-NULL and fits PMIX_MAX_KEYLEN.
bool valid_key(const char* key) noexcept;
// The own process (under the lock); false when not initialised.
bool own_proc(pmix_proc_t* out);
bool same_proc(const pmix_proc_t& a, const pmix_proc_t& b) noexcept;

using ReplyFn = exec::UniqueFunction<void(pmix_status_t, wire::Frame&&)>;
// Sends `op` to the server; `fn` runs once on the progress thread with the outcome (the reply,
// PMIX_ERR_TIMEOUT, PMIX_ERR_LOST_CONNECTION). PMIX_ERR_INIT when not initialised; on an error
// return `fn` is not called.
pmix_status_t request(proto::Op op, wire::Bytes payload, std::chrono::milliseconds timeout,
                      ReplyFn fn);
// Runs `task` on the progress thread (used to call callbacks of locally answered requests).
pmix_status_t post(exec::UniqueFunction<void()> task);
// Runs `task` on the progress thread after `delay`; PMIX_ERR_INIT when there is none.
pmix_status_t run_after(std::chrono::milliseconds delay, exec::UniqueFunction<void()> task);
// The connection to this process's (primary) server, or nullptr.
std::shared_ptr<wire::Connection> server_connection();

// Reads the leading status of a reply (PMIX_ERR_UNPACK_FAILURE if it does not decode).
pmix_status_t reply_status(const wire::Frame& frame);

// Blocking request whose reply carries only a status: request + bounded wait.
pmix_status_t call_status(proto::Op op, wire::Bytes payload, std::chrono::milliseconds timeout);

// An op_cbfunc-style request: the reply's status is handed to `cbfunc` on the progress thread.
pmix_status_t status_request_nb(proto::Op op, wire::Bytes payload,
                                std::chrono::milliseconds timeout, pmix_op_cbfunc_t cbfunc,
                                void* cbdata);

// events.cpp: a server-initiated frame (kEvent) / the connection to the server was lost.
// Both run on the progress thread and call the matching registered handlers.
void deliver_event_frame(const wire::Frame& f);
// iof.cpp: a kIofData frame (progress thread); iof_forget_all drops every handler (teardown).
void deliver_iof_frame(const wire::Frame& f);
void iof_forget_all();
void raise_lost_connection();

// A caller's array argument that is NULL while its count says it holds elements.
inline bool null_array_with_count(const void* array, std::size_t n) {
    return array == nullptr && n > 0;
}

}  // namespace pmix::client
