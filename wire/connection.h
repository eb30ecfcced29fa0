// wire/connection.h - one framed, full-duplex stream bound to an Executor.
//
// A Connection owns a connected socket. All its I/O and every callback run on the executor's
// progress thread; the public methods may be called from any thread (they post to the loop
// when needed). Payloads are opaque bytes.
//
// Guarantees:
// - send()/request() never block. The outgoing queue is bounded (bytes and frames); when full
//   they return PMIX_ERR_OUT_OF_RESOURCE and the caller decides whether to retry or give up.
// - A request's handler is called exactly once (if request() returned PMIX_SUCCESS): with the
//   reply, or PMIX_ERR_TIMEOUT after its timeout, or PMIX_ERR_LOST_CONNECTION when the
//   connection closes first. A reply arriving after the timeout is dropped.
// - With pause_reading_above set, a peer whose replies pile up is not read until it reads them
//   (see ConnectionOptions); a peer that hangs up meanwhile is closed.
// - on_closed is called exactly once, with why: peer hung up, bad frame (malformed, truncated,
//   oversized), timeout, I/O error, refused handshake, or a local close. Abnormal reasons are
//   also logged (warn level, exec/log.h). After it, no handler is called again and the handlers are
//   released.
// - An open connection keeps itself alive (its fd watch holds a reference) until it closes, so
//   a server may keep only what it needs. The Executor must outlive every Connection.
#pragma once

#include "exec/executor.h"
#include "exec/unique_fd.h"
#include "exec/unique_function.h"
#include "wire/frame.h"
#include "base/result.h"

#include <pmix_common.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>

namespace pmix::wire {

struct ConnectionOptions {
    std::uint32_t max_payload = kDefaultMaxPayload;  // largest frame accepted or sent
    std::size_t max_queued_bytes = 128u << 20;       // outgoing bytes not yet written
    std::size_t max_queued_frames = 4096;            // outgoing frames not yet written
    // Backpressure (0: never). While more than this many outgoing bytes (or more than half of
    // max_queued_frames) wait for the peer, its frames are neither read nor dispatched; both
    // resume once the queue is down to half of that (a quarter of the frames). A peer
    // that sends requests and never reads the replies then costs about this much, not the queue
    // limits above (past which replies would be refused, so lost). The accepting side sets it
    // (ListenerOptions); a dialing side leaves it 0: were both sides to pause, each could wait
    // for the other to read.
    std::size_t pause_reading_above = 0;
};

enum class CloseKind { local, peer_hung_up, bad_frame, timeout, io_error, refused };
const char* to_string(CloseKind k) noexcept;

struct CloseReason {
    CloseKind kind = CloseKind::local;
    pmix_status_t status = PMIX_ERR_LOST_CONNECTION;
    std::string detail;
};

class Connection : public std::enable_shared_from_this<Connection> {
public:
    using MessageHandler = exec::UniqueFunction<void(Connection&, Frame&&)>;
    using ClosedHandler = exec::UniqueFunction<void(const CloseReason&)>;
    using ReplyHandler = exec::UniqueFunction<void(pmix_status_t, Frame&&)>;

    // Takes ownership of a connected stream socket (made non-blocking here). Nothing is read
    // until start().
    static std::shared_ptr<Connection> create(exec::Executor& ex, exec::UniqueFd fd,
                                              ConnectionOptions options = {});
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Handlers for frames that are not replies, and for the close. Set them before start() or on
    // the loop thread (elsewhere they are posted, so early frames could miss them). Setting a
    // new message handler from inside the current one replaces it.
    void on_message(MessageHandler handler);
    void on_closed(ClosedHandler handler);

    // Starts reading. PMIX_ERR_INIT if already started, PMIX_ERR_UNREACH if the executor stopped.
    pmix_status_t start();

    // One-way message (tag 0 unless given). PMIX_ERR_BAD_PARAM for a payload over the limit,
    // PMIX_ERR_OUT_OF_RESOURCE when the queue is full, PMIX_ERR_LOST_CONNECTION when closed,
    // PMIX_ERR_UNREACH when the executor no longer runs.
    pmix_status_t send(std::uint32_t op, Bytes payload, std::uint32_t tag = 0);
    // Answers `request` (same op and tag, reply flag set).
    pmix_status_t reply(const Frame& request, Bytes payload);
    // Sends a request and calls `handler` once with the outcome (see the guarantees above).
    // `timeout` must be positive. On an error return the handler is not called.
    pmix_status_t request(std::uint32_t op, Bytes payload, std::chrono::milliseconds timeout,
                          ReplyHandler handler);
    // Blocking request: request() + wait. PMIX_ERR_WOULD_BLOCK on a progress thread.
    Result<Frame> call(std::uint32_t op, Bytes payload, std::chrono::milliseconds timeout);

    // Closes now (any thread). Pending requests fail with PMIX_ERR_LOST_CONNECTION.
    void close(std::string why = "closed locally", CloseKind kind = CloseKind::local);
    // Loop thread only: stop dispatching, let the queued frames go out (at most `grace`), then
    // close with `reason`. Used to deliver a refusal before hanging up.
    void close_after_flush(CloseReason reason, std::chrono::milliseconds grace);

    bool closed() const noexcept { return closed_.load(std::memory_order_acquire); }
    std::size_t queued_bytes() const noexcept {
        return queued_bytes_.load(std::memory_order_relaxed);
    }
    std::size_t pending_requests() const noexcept {
        return pending_count_.load(std::memory_order_relaxed);
    }
    exec::Executor& executor() const noexcept { return ex_; }
    // The socket, for getsockopt on the loop thread (e.g. SO_PEERCRED); -1 once closed.
    int native_handle() const noexcept { return fd_.get(); }

private:
    struct OutFrame {
        HeaderBytes header;
        Bytes payload;
        std::size_t sent = 0;  // bytes of header+payload already written
        std::size_t size() const noexcept { return kHeaderSize + payload.size(); }
    };
    struct Pending {
        ReplyHandler handler;
        exec::TimerId timer = exec::kInvalidTimer;
    };

    Connection(exec::Executor& ex, exec::UniqueFd fd, ConnectionOptions options);

    pmix_status_t check_outgoing(std::size_t payload_size) const;
    bool reserve(std::size_t bytes);
    void release(std::size_t bytes) noexcept;
    pmix_status_t submit(OutFrame frame);
    void begin();
    void on_events(std::uint32_t events);
    void read_available();
    void consume(std::span<const std::uint8_t> bytes);
    void dispatch(Frame&& frame);
    void enqueue(OutFrame frame);
    void flush();
    bool write_some();
    void update_interest();
    bool over_pause_mark() const noexcept;
    bool below_resume_mark() const noexcept;
    void pause_reading();
    void resume_reading();
    void start_request(OutFrame frame, std::chrono::milliseconds timeout, ReplyHandler handler);
    void expire(std::uint32_t tag);
    std::uint32_t next_free_tag();
    void close_now(CloseReason reason) noexcept;
    // close_now, except inside enqueue (a send or reply from the owner's own code): posted then,
    // so the owner's close handler never runs inside its own call that sent.
    void close_from_flush(CloseReason reason);

    exec::Executor& ex_;
    exec::UniqueFd fd_;
    const ConnectionOptions opts_;

    std::atomic<bool> started_{false};
    std::atomic<bool> closed_{false};
    std::atomic<std::size_t> queued_bytes_{0};
    std::atomic<std::size_t> queued_frames_{0};
    std::atomic<std::size_t> pending_count_{0};

    // Loop-thread state.
    exec::WatchId watch_ = exec::kInvalidWatch;
    std::uint32_t interest_ = 0;  // the epoll events asked for
    FrameDecoder decoder_;
    bool reading_paused_ = false;  // backpressure: see ConnectionOptions::pause_reading_above
    bool resume_posted_ = false;
    std::deque<Frame> held_;  // read before the pause, dispatched when reading resumes
    std::vector<Frame> scratch_frames_;
    std::deque<OutFrame> outq_;
    std::unordered_map<std::uint32_t, Pending> pending_;
    std::uint32_t next_tag_ = 1;
    MessageHandler on_message_;
    std::uint64_t handler_generation_ = 0;  // bumped by on_message(); see dispatch()
    ClosedHandler on_closed_;
    bool draining_ = false;  // close_after_flush in progress
    bool in_enqueue_ = false;
    bool close_posted_ = false;
    CloseReason drain_reason_;
    exec::TimerId drain_timer_ = exec::kInvalidTimer;
};

// Where to send the reply of a request answered later (after a host upcall, say): the connection,
// while it is open, and the request's op and tag.
struct ReplyTo {
    std::weak_ptr<Connection> conn;
    Frame request;  // op and tag only

    static ReplyTo of(Connection& conn, const Frame& request);
};

}  // namespace pmix::wire
