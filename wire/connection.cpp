// wire/connection.cpp - see connection.h.
#include "wire/connection.h"

#include "exec/completion.h"
#include "exec/log.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

namespace pmix::wire {
namespace {

constexpr std::size_t kReadChunk = 64 * 1024;
// Reads per readiness report: enough to drain a burst, few enough that one chatty peer
// cannot starve the others sharing the progress thread (epoll is level-triggered, so what is
// left is reported again on the next turn).
constexpr int kReadsPerEvent = 16;
constexpr int kMaxIov = 64;  // two iovecs per frame (header, payload)

// One read buffer per progress thread, shared by all its connections: each read is consumed
// (copied into that connection's decoder) before the next one, and a server with thousands of
// mostly idle clients should not hold 64 KiB for each.
std::uint8_t* thread_read_buffer() {
    thread_local std::unique_ptr<std::uint8_t[]> buf(new std::uint8_t[kReadChunk]);
    return buf.get();
}

bool abnormal(CloseKind k) {
    return k == CloseKind::bad_frame || k == CloseKind::timeout || k == CloseKind::io_error;
}

}  // namespace

const char* to_string(CloseKind k) noexcept {
    switch (k) {
        case CloseKind::local:
            return "closed locally";
        case CloseKind::peer_hung_up:
            return "peer hung up";
        case CloseKind::bad_frame:
            return "bad frame";
        case CloseKind::timeout:
            return "timeout";
        case CloseKind::io_error:
            return "I/O error";
        case CloseKind::refused:
            return "refused";
    }
    return "unknown";
}

std::shared_ptr<Connection> Connection::create(exec::Executor& ex, exec::UniqueFd fd,
                                               ConnectionOptions options) {
    if (fd) {
        int fl = ::fcntl(fd.get(), F_GETFL);
        if (fl >= 0 && (fl & O_NONBLOCK) == 0) {
            ::fcntl(fd.get(), F_SETFL, fl | O_NONBLOCK);
        }
    }
    return std::shared_ptr<Connection>(new Connection(ex, std::move(fd), options));
}

Connection::Connection(exec::Executor& ex, exec::UniqueFd fd, ConnectionOptions options)
    : ex_(ex), fd_(std::move(fd)), opts_(options), decoder_(options.max_payload) {}

Connection::~Connection() {
    // Reached with the connection still open only if it was never started or its executor
    // already stopped (a started, open connection is kept alive by its own watch).
    if (!closed()) {
        close_now(CloseReason{CloseKind::local, PMIX_ERR_LOST_CONNECTION, "connection destroyed"});
    }
}

void Connection::on_message(MessageHandler handler) {
    if (started_.load() && !ex_.on_loop_thread()) {
        ex_.post([self = shared_from_this(), h = std::move(handler)]() mutable {
            self->on_message(std::move(h));
        });
        return;
    }
    if (closed()) {
        return;  // handlers are released at close; keep it that way
    }
    on_message_ = std::move(handler);
    ++handler_generation_;
}

void Connection::on_closed(ClosedHandler handler) {
    if (started_.load() && !ex_.on_loop_thread()) {
        ex_.post([self = shared_from_this(), h = std::move(handler)]() mutable {
            self->on_closed(std::move(h));
        });
        return;
    }
    if (!closed()) {
        on_closed_ = std::move(handler);
    }
}

pmix_status_t Connection::start() {
    if (started_.exchange(true)) {
        return PMIX_ERR_INIT;
    }
    if (ex_.on_loop_thread()) {
        begin();
        return PMIX_SUCCESS;
    }
    if (!ex_.post([self = shared_from_this()] { self->begin(); })) {
        return PMIX_ERR_UNREACH;
    }
    return PMIX_SUCCESS;
}

void Connection::begin() {
    if (closed()) {
        return;
    }
    interest_ = EPOLLIN | (outq_.empty() ? 0u : static_cast<std::uint32_t>(EPOLLOUT));
    // The handler holds a strong reference: an open connection keeps itself alive.
    watch_ = ex_.watch_fd(fd_.get(), interest_,
                          [self = shared_from_this()](std::uint32_t ev) { self->on_events(ev); });
    if (watch_ == exec::kInvalidWatch) {
        close_now(
            CloseReason{CloseKind::io_error, PMIX_ERR_LOST_CONNECTION, "cannot watch the socket"});
        return;
    }
}

pmix_status_t Connection::check_outgoing(std::size_t payload_size) const {
    if (payload_size > opts_.max_payload) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (closed()) {
        return PMIX_ERR_LOST_CONNECTION;
    }
    return PMIX_SUCCESS;
}

bool Connection::reserve(std::size_t bytes) {
    // One frame always fits into an empty queue, so the byte limit can never block a frame
    // that the payload limit allows.
    std::size_t before = queued_bytes_.fetch_add(bytes, std::memory_order_relaxed);
    std::size_t frames = queued_frames_.fetch_add(1, std::memory_order_relaxed);
    if ((before != 0 && before + bytes > opts_.max_queued_bytes) ||
        frames >= opts_.max_queued_frames) {
        release(bytes);
        return false;
    }
    return true;
}

void Connection::release(std::size_t bytes) noexcept {
    queued_bytes_.fetch_sub(bytes, std::memory_order_relaxed);
    queued_frames_.fetch_sub(1, std::memory_order_relaxed);
}

pmix_status_t Connection::send(std::uint32_t op, Bytes payload, std::uint32_t tag) {
    if (pmix_status_t st = check_outgoing(payload.size()); st != PMIX_SUCCESS) {
        return st;
    }
    auto len = static_cast<std::uint32_t>(payload.size());
    return submit(OutFrame{encode_header(0, op, tag, len), std::move(payload)});
}

ReplyTo ReplyTo::of(Connection& conn, const Frame& request) {
    ReplyTo to;
    to.conn = conn.weak_from_this();
    to.request.op = request.op;
    to.request.tag = request.tag;
    return to;
}

pmix_status_t Connection::reply(const Frame& request, Bytes payload) {
    if (pmix_status_t st = check_outgoing(payload.size()); st != PMIX_SUCCESS) {
        return st;
    }
    auto len = static_cast<std::uint32_t>(payload.size());
    return submit(
        OutFrame{encode_header(kFlagReply, request.op, request.tag, len), std::move(payload)});
}

pmix_status_t Connection::submit(OutFrame frame) {
    std::size_t bytes = frame.size();
    if (!reserve(bytes)) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (ex_.on_loop_thread()) {
        enqueue(std::move(frame));
        return PMIX_SUCCESS;
    }
    if (!ex_.post([self = shared_from_this(), f = std::move(frame)]() mutable {
            self->enqueue(std::move(f));
        })) {
        release(bytes);
        return PMIX_ERR_UNREACH;
    }
    return PMIX_SUCCESS;
}

pmix_status_t Connection::request(std::uint32_t op, Bytes payload,
                                  std::chrono::milliseconds timeout, ReplyHandler handler) {
    if (!handler || timeout <= std::chrono::milliseconds::zero()) {
        return PMIX_ERR_BAD_PARAM;
    }
    if (pmix_status_t st = check_outgoing(payload.size()); st != PMIX_SUCCESS) {
        return st;
    }
    // The tag is chosen on the loop thread, where the pending table lives; 0 until then.
    auto len = static_cast<std::uint32_t>(payload.size());
    OutFrame frame{encode_header(0, op, 0, len), std::move(payload)};
    std::size_t bytes = frame.size();
    if (!reserve(bytes)) {
        return PMIX_ERR_OUT_OF_RESOURCE;
    }
    if (ex_.on_loop_thread()) {
        start_request(std::move(frame), timeout, std::move(handler));
        return PMIX_SUCCESS;
    }
    if (!ex_.post([self = shared_from_this(), f = std::move(frame), timeout,
                   h = std::move(handler)]() mutable {
            self->start_request(std::move(f), timeout, std::move(h));
        })) {
        release(bytes);
        return PMIX_ERR_UNREACH;
    }
    return PMIX_SUCCESS;
}

void Connection::start_request(OutFrame frame, std::chrono::milliseconds timeout,
                               ReplyHandler handler) {
    if (closed()) {
        // Closed between request() and now: the reservation was already returned by close.
        exec::invoke_guarded("reply handler", [&] { handler(PMIX_ERR_LOST_CONNECTION, Frame{}); });
        return;
    }
    std::uint32_t tag = next_free_tag();
    set_header_tag(frame.header, tag);
    exec::TimerId timer = ex_.run_after(timeout, [weak = weak_from_this(), tag] {
        if (auto self = weak.lock()) {
            self->expire(tag);
        }
    });
    pending_.emplace(tag, Pending{std::move(handler), timer});
    pending_count_.store(pending_.size(), std::memory_order_relaxed);
    enqueue(std::move(frame));
}

std::uint32_t Connection::next_free_tag() {
    // Tags wrap after 2^32 - 1 requests; skip 0 (one-way) and any tag still awaiting a reply.
    for (;;) {
        std::uint32_t tag = next_tag_++;
        if (next_tag_ == 0) {
            next_tag_ = 1;
        }
        if (tag != 0 && pending_.count(tag) == 0) {
            return tag;
        }
    }
}

void Connection::expire(std::uint32_t tag) {
    auto it = pending_.find(tag);
    if (it == pending_.end()) {
        return;
    }
    Pending p = std::move(it->second);
    pending_.erase(it);
    pending_count_.store(pending_.size(), std::memory_order_relaxed);
    exec::invoke_guarded("reply handler", [&] { p.handler(PMIX_ERR_TIMEOUT, Frame{}); });
}

Result<Frame> Connection::call(std::uint32_t op, Bytes payload, std::chrono::milliseconds timeout) {
    using R = Result<Frame>;
    if (exec::on_progress_thread()) {
        return R::failure(PMIX_ERR_WOULD_BLOCK, "blocking call on the progress thread");
    }
    exec::Completion<std::pair<pmix_status_t, Frame>> done;
    pmix_status_t st = request(op, std::move(payload), timeout, [done](pmix_status_t s, Frame&& f) {
        done.complete({s, std::move(f)});
    });
    if (st != PMIX_SUCCESS) {
        return R::failure(st, "request not sent");
    }
    // The request's own timer answers by `timeout`; the margin only covers a busy loop.
    auto waited = done.wait(timeout + std::chrono::seconds(1));
    if (!waited.value) {
        return R::failure(waited.status, "no answer");
    }
    if (waited.value->first != PMIX_SUCCESS) {
        return R::failure(waited.value->first, waited.value->first == PMIX_ERR_TIMEOUT
                                                   ? "request timed out"
                                                   : "connection lost before the reply");
    }
    return R::success(std::move(waited.value->second));
}

void Connection::on_events(std::uint32_t events) {
    if (reading_paused_ && (events & (EPOLLHUP | EPOLLERR)) != 0) {
        // Reported whatever the interest: the peer is gone, and its replies with it.
        close_now(CloseReason{
            CloseKind::peer_hung_up, PMIX_ERR_LOST_CONNECTION,
            "peer hung up with " + std::to_string(queued_bytes()) + " bytes of replies unread"});
        return;
    }
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0) {
        read_available();
    }
    if (!closed() && (events & EPOLLOUT) != 0) {
        flush();
    }
}

void Connection::read_available() {
    std::uint8_t* buf = thread_read_buffer();
    for (int i = 0; i < kReadsPerEvent && !closed() && !reading_paused_; ++i) {
        ssize_t n = ::read(fd_.get(), buf, kReadChunk);
        if (n > 0) {
            consume(std::span<const std::uint8_t>(buf, static_cast<std::size_t>(n)));
            if (static_cast<std::size_t>(n) < kReadChunk) {
                return;  // drained for now
            }
            continue;
        }
        if (n == 0) {
            if (decoder_.at_boundary()) {
                close_now(
                    CloseReason{CloseKind::peer_hung_up, PMIX_ERR_LOST_CONNECTION, "peer hung up"});
            } else {
                close_now(CloseReason{
                    CloseKind::bad_frame, PMIX_ERR_LOST_CONNECTION,
                    "truncated frame: peer hung up after " +
                        std::to_string(decoder_.partial_bytes()) + " of " +
                        (decoder_.partial_needed() ? std::to_string(decoder_.partial_needed())
                                                   : std::string("at least 24")) +
                        " bytes"});
            }
            return;
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return;
        }
        CloseKind kind = errno == ECONNRESET ? CloseKind::peer_hung_up : CloseKind::io_error;
        close_now(CloseReason{kind, PMIX_ERR_LOST_CONNECTION,
                              std::string("read: ") + std::strerror(errno)});
        return;
    }
}

void Connection::consume(std::span<const std::uint8_t> bytes) {
    std::vector<Frame> frames = std::move(scratch_frames_);  // reuse its capacity
    frames.clear();
    bool ok = decoder_.feed(bytes, frames);
    // Frames completed before a bad header are genuine: deliver them, then hang up.
    for (Frame& f : frames) {
        if (closed()) {
            break;
        }
        if (reading_paused_) {
            held_.push_back(std::move(f));
            continue;
        }
        dispatch(std::move(f));
        if (!closed() && over_pause_mark()) {
            pause_reading();
        }
    }
    frames.clear();
    scratch_frames_ = std::move(frames);
    if (!ok && !closed()) {
        close_now(CloseReason{CloseKind::bad_frame, PMIX_ERR_LOST_CONNECTION, decoder_.reason()});
    }
}

void Connection::dispatch(Frame&& frame) {
    if (draining_) {
        return;  // closing after a refusal: nothing more is processed
    }
    if (frame.is_reply()) {
        auto it = pending_.find(frame.tag);
        if (it == pending_.end()) {
            return;  // its request already timed out; the caller has had its answer
        }
        Pending p = std::move(it->second);
        pending_.erase(it);
        pending_count_.store(pending_.size(), std::memory_order_relaxed);
        ex_.cancel(p.timer);
        exec::invoke_guarded("reply handler", [&] { p.handler(PMIX_SUCCESS, std::move(frame)); });
        return;
    }
    if (!on_message_) {
        exec::log_error("wire", "no message handler; dropped op " + std::to_string(frame.op));
        return;
    }
    // The handler may replace itself (the handshake hands over to the server's handler); run a
    // moved-out copy and put it back only if nobody installed another meanwhile.
    MessageHandler h = std::move(on_message_);
    std::uint64_t generation = handler_generation_;
    exec::invoke_guarded("message handler", [&] { h(*this, std::move(frame)); });
    if (generation == handler_generation_ && !closed()) {
        on_message_ = std::move(h);
    }
}

void Connection::enqueue(OutFrame frame) {
    if (closed()) {
        release(frame.size());
        return;
    }
    outq_.push_back(std::move(frame));
    in_enqueue_ = true;
    flush();
    in_enqueue_ = false;
}

// A write that fails inside a reply would otherwise run the owner's close handler in the middle
// of the owner's own loop that replied: the server's fence release replied to each participant
// while the close handler of one that had died erased participants from the same map (pmixd
// SIGSEGV in std::_Rb_tree_increment, multinode abort.2x2).
void Connection::close_from_flush(CloseReason reason) {
    if (!in_enqueue_) {
        close_now(std::move(reason));
        return;
    }
    if (close_posted_) return;
    close_posted_ = true;
    if (!ex_.post([self = shared_from_this(), r = reason]() mutable {
            self->close_now(std::move(r));
        })) {
        close_now(std::move(reason));
    }
}

void Connection::flush() {
    while (!outq_.empty() && !closed() && !close_posted_) {
        if (!write_some()) {
            break;
        }
    }
    if (closed() || close_posted_) {
        return;
    }
    update_interest();
    if (draining_ && outq_.empty()) {
        close_from_flush(std::move(drain_reason_));
        return;
    }
    // Down to the resume mark: resume, from the loop rather than here, since flush() also runs
    // inside a message handler's reply and resuming dispatches frames.
    if (reading_paused_ && !resume_posted_ && below_resume_mark()) {
        resume_posted_ = true;
        ex_.post([weak = weak_from_this()] {
            if (auto self = weak.lock()) {
                self->resume_reading();
            }
        });
    }
}

// Bytes over the mark, or more than half the frames the queue takes (many small replies would
// otherwise reach the frame limit first, and be refused past it).
bool Connection::over_pause_mark() const noexcept {
    return opts_.pause_reading_above != 0 &&
           (queued_bytes() > opts_.pause_reading_above ||
            queued_frames_.load(std::memory_order_relaxed) > opts_.max_queued_frames / 2);
}

bool Connection::below_resume_mark() const noexcept {
    return queued_bytes() <= opts_.pause_reading_above / 2 &&
           queued_frames_.load(std::memory_order_relaxed) <= opts_.max_queued_frames / 4;
}

void Connection::pause_reading() {
    reading_paused_ = true;
    exec::log_info("wire", "peer does not read its replies (" + std::to_string(queued_bytes()) +
                               " bytes queued): not reading from it until it does");
    update_interest();
}

void Connection::resume_reading() {
    resume_posted_ = false;
    if (closed() || !reading_paused_ || !below_resume_mark()) {
        return;  // closed, or refilled meanwhile: the next flush looks again
    }
    reading_paused_ = false;
    while (!held_.empty() && !reading_paused_ && !closed()) {
        Frame f = std::move(held_.front());
        held_.pop_front();
        dispatch(std::move(f));
        if (!closed() && over_pause_mark()) {
            pause_reading();
        }
    }
    if (!closed()) {
        update_interest();
    }
}

// One sendmsg of as many queued frames as fit in the iovec array. False when the socket is
// full (or closed by an error).
bool Connection::write_some() {
    iovec iov[kMaxIov];
    int n = 0;
    for (auto it = outq_.begin(); it != outq_.end() && n + 2 <= kMaxIov; ++it) {
        std::size_t skip = it->sent;
        if (skip < kHeaderSize) {
            iov[n++] = iovec{it->header.data() + skip, kHeaderSize - skip};
            skip = 0;
        } else {
            skip -= kHeaderSize;
        }
        if (skip < it->payload.size()) {
            iov[n++] = iovec{it->payload.data() + skip, it->payload.size() - skip};
        }
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = static_cast<std::size_t>(n);
    // MSG_NOSIGNAL: a peer that died must cost us an EPIPE, not a SIGPIPE.
    ssize_t written = ::sendmsg(fd_.get(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (written < 0) {
        if (errno == EINTR) {
            return true;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            return false;
        }
        CloseKind kind =
            (errno == EPIPE || errno == ECONNRESET) ? CloseKind::peer_hung_up : CloseKind::io_error;
        close_from_flush(CloseReason{kind, PMIX_ERR_LOST_CONNECTION,
                                     std::string("write: ") + std::strerror(errno)});
        return false;
    }
    auto left = static_cast<std::size_t>(written);
    while (left > 0 && !outq_.empty()) {
        OutFrame& f = outq_.front();
        std::size_t take = std::min(left, f.size() - f.sent);
        f.sent += take;
        left -= take;
        if (f.sent == f.size()) {
            release(f.size());
            outq_.pop_front();
        }
    }
    return true;
}

void Connection::update_interest() {
    std::uint32_t events = (reading_paused_ ? 0u : static_cast<std::uint32_t>(EPOLLIN)) |
                           (outq_.empty() ? 0u : static_cast<std::uint32_t>(EPOLLOUT));
    if (events == interest_ || watch_ == exec::kInvalidWatch) {
        return;
    }
    if (ex_.set_events(watch_, events)) {
        interest_ = events;
    }
}

void Connection::close(std::string why, CloseKind kind) {
    pmix_status_t status = kind == CloseKind::timeout ? PMIX_ERR_TIMEOUT : PMIX_ERR_LOST_CONNECTION;
    CloseReason reason{kind, status, std::move(why)};
    if (ex_.on_loop_thread()) {
        close_now(std::move(reason));
        return;
    }
    if (!ex_.post([self = shared_from_this(), r = std::move(reason)]() mutable {
            self->close_now(std::move(r));
        })) {
        // The loop is gone, so nothing else touches this object concurrently: close right here.
        close_now(CloseReason{kind, status, "closed after the executor stopped"});
    }
}

void Connection::close_after_flush(CloseReason reason, std::chrono::milliseconds grace) {
    if (closed() || draining_) {
        return;
    }
    if (outq_.empty()) {
        close_now(std::move(reason));
        return;
    }
    draining_ = true;
    drain_reason_ = std::move(reason);
    drain_timer_ = ex_.run_after(grace, [weak = weak_from_this()] {
        if (auto self = weak.lock()) {
            CloseReason r = std::move(self->drain_reason_);
            r.detail += " (peer did not read the final message in time)";
            self->close_now(std::move(r));
        }
    });
}

void Connection::close_now(CloseReason reason) noexcept {
    if (closed_.exchange(true, std::memory_order_acq_rel)) {
        return;
    }
    if (watch_ != exec::kInvalidWatch && ex_.on_loop_thread()) {
        ex_.unwatch(watch_);  // before the close below, so the fd number cannot be reused first
    }
    watch_ = exec::kInvalidWatch;
    fd_.reset();
    while (!outq_.empty()) {
        release(outq_.front().size());
        outq_.pop_front();
    }
    ex_.cancel(drain_timer_);
    if (abnormal(reason.kind)) {
        exec::log_warn("wire", std::string("connection closed (") + to_string(reason.kind) +
                                   "): " + reason.detail);
    }
    held_.clear();
    auto pending = std::move(pending_);
    pending_.clear();
    pending_count_.store(0, std::memory_order_relaxed);
    for (auto& entry : pending) {
        auto& p = entry.second;  // not a structured binding: clang 14 cannot capture one
        ex_.cancel(p.timer);
        exec::invoke_guarded("reply handler",
                             [&] { p.handler(PMIX_ERR_LOST_CONNECTION, Frame{}); });
    }
    on_message_ = nullptr;  // release captures (they may hold references to this connection)
    ClosedHandler closed_handler = std::move(on_closed_);
    on_closed_ = nullptr;
    if (closed_handler) {
        exec::invoke_guarded("close handler", [&] { closed_handler(reason); });
    }
}

}  // namespace pmix::wire
