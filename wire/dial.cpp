// wire/dial.cpp - see dial.h.
#include "wire/dial.h"

#include "exec/completion.h"
#include "exec/log.h"
#include "wire/tcp_socket.h"
#include "wire/unix_socket.h"

namespace pmix::wire {
namespace {

using namespace std::chrono_literals;
using exec::Clock;

// A full backlog (EAGAIN) is retried this often until the deadline.
constexpr auto kBacklogRetry = 5ms;

// Everything one dial needs across its asynchronous steps. Its destructor guarantees the
// "exactly once": if the dial is dropped unfinished (its timer destroyed by a stopping
// executor), `done` still hears about it.
struct DialState {
    DialState(exec::Executor& e, std::string p, Hello h, DialOptions o,
              exec::UniqueFunction<void(Dialed&&)> d)
        : ex(e),
          path(std::move(p)),
          hello(std::move(h)),
          opts(std::move(o)),
          done(std::move(d)),
          deadline(Clock::now() + opts.timeout) {}
    DialState(const DialState&) = delete;
    DialState& operator=(const DialState&) = delete;
    ~DialState() {
        finish(Dialed{PMIX_ERR_UNREACH, "the executor stopped before the dial finished", {}, {}});
    }

    void finish(Dialed&& result) noexcept {
        auto cb = std::move(done);
        done = nullptr;
        if (cb) {
            exec::invoke_guarded("dial callback", [&] { cb(std::move(result)); });
        }
    }

    exec::Executor& ex;
    std::string path;
    Hello hello;
    DialOptions opts;
    exec::UniqueFunction<void(Dialed&&)> done;
    Clock::time_point deadline;
};

using State = std::shared_ptr<DialState>;

void on_reply(const State& st, const std::shared_ptr<Connection>& conn, pmix_status_t status,
              Frame&& frame) {
    if (status != PMIX_SUCCESS) {
        bool timed_out = status == PMIX_ERR_TIMEOUT;
        conn->close(timed_out ? "no hello reply before the dial deadline" : "handshake failed",
                    timed_out ? CloseKind::timeout : CloseKind::local);
        return st->finish(Dialed{status,
                                 timed_out
                                     ? "no hello reply before the deadline"
                                     : "the server closed the connection during the handshake",
                                 {},
                                 {}});
    }
    auto reply = decode_hello_reply(frame.payload);
    if (!reply.ok()) {
        conn->close("malformed hello reply", CloseKind::bad_frame);
        return st->finish(Dialed{reply.status, reply.error, {}, {}});
    }
    if (reply.value.status != PMIX_SUCCESS) {
        conn->close("handshake refused", CloseKind::refused);
        std::string why = "refused by the server: " + reply.value.reason;
        return st->finish(Dialed{reply.value.status, std::move(why), {}, std::move(reply.value)});
    }
    if (reply.value.version != kProtocolVersion) {
        conn->close("protocol version mismatch", CloseKind::refused);
        return st->finish(
            Dialed{PMIX_ERR_NOT_SUPPORTED,
                   "server speaks protocol version " + std::to_string(reply.value.version),
                   {},
                   std::move(reply.value)});
    }
    // On the loop thread, inside the reply's dispatch: frames behind it in the same read are
    // dispatched after this returns, so they find these handlers.
    if (st->opts.on_message) {
        conn->on_message(std::move(st->opts.on_message));
    }
    if (st->opts.on_closed) {
        conn->on_closed(std::move(st->opts.on_closed));
    }
    st->finish(Dialed{PMIX_SUCCESS, {}, conn, std::move(reply.value)});
}

void handshake(const State& st, exec::UniqueFd fd) {
    auto conn = Connection::create(st->ex, std::move(fd), st->opts.connection);
    conn->start();
    auto left = std::chrono::ceil<std::chrono::milliseconds>(st->deadline - Clock::now());
    pmix_status_t sent =
        conn->request(kOpHello, encode(st->hello), std::max(left, std::chrono::milliseconds(1)),
                      [st, conn](pmix_status_t status, Frame&& frame) {
                          on_reply(st, conn, status, std::move(frame));
                      });
    if (sent != PMIX_SUCCESS) {
        conn->close("cannot send the hello");
        st->finish(Dialed{sent, "cannot send the hello", {}, {}});
    }
}

// A TCP connect in progress is checked this often until the deadline: dials are rare (remote
// tools attaching), so a short poll is simpler than another watch on the loop.
void await_tcp(const State& st, exec::UniqueFd fd) {
    auto done = tcp_connect_finished(fd.get());
    if (done.ok()) {
        return handshake(st, std::move(fd));
    }
    if (done.status != PMIX_ERR_WOULD_BLOCK) {
        return st->finish(Dialed{done.status, done.error + " (" + st->path + ")", {}, {}});
    }
    if (Clock::now() + kBacklogRetry >= st->deadline) {
        return st->finish(Dialed{PMIX_ERR_TIMEOUT, "no TCP connection to " + st->path, {}, {}});
    }
    auto held = std::make_shared<exec::UniqueFd>(std::move(fd));
    st->ex.run_after(kBacklogRetry, [st, held] { await_tcp(st, std::move(*held)); });
}

void attempt(const State& st) {
    if (is_tcp_uri(st->path)) {
        auto to = parse_tcp_uri(st->path);
        auto fd =
            to.ok() ? connect_tcp(to.value) : Result<exec::UniqueFd>::failure(to.status, to.error);
        if (!fd.ok()) {
            return st->finish(Dialed{fd.status, fd.error, {}, {}});
        }
        return await_tcp(st, std::move(fd.value));
    }
    auto fd = connect_unix(st->path);
    if (fd.status == PMIX_ERR_WOULD_BLOCK) {
        if (Clock::now() + kBacklogRetry >= st->deadline) {
            return st->finish(Dialed{PMIX_ERR_TIMEOUT, "the server's backlog stayed full", {}, {}});
        }
        // If the executor is stopping the timer is refused or dropped; ~DialState reports it.
        st->ex.run_after(kBacklogRetry, [st] { attempt(st); });
        return;
    }
    if (!fd.ok()) {
        return st->finish(Dialed{fd.status, fd.error, {}, {}});
    }
    handshake(st, std::move(fd.value));
}

}  // namespace

void dial_async(exec::Executor& ex, std::string path, Hello hello, DialOptions options,
                exec::UniqueFunction<void(Dialed&&)> done) {
    bool bad_timeout = options.timeout <= std::chrono::milliseconds::zero();
    auto st = std::make_shared<DialState>(ex, std::move(path), std::move(hello), std::move(options),
                                          std::move(done));
    if (bad_timeout) {
        return st->finish(Dialed{PMIX_ERR_BAD_PARAM, "the dial timeout must be positive", {}, {}});
    }
    if (ex.on_loop_thread()) {
        attempt(st);
        return;
    }
    // A refused post destroys its copy of `st`; ours goes at return and reports PMIX_ERR_UNREACH.
    ex.post([st] { attempt(st); });
}

Dialed dial(exec::Executor& ex, std::string path, Hello hello, DialOptions options) {
    if (exec::on_progress_thread()) {
        return Dialed{PMIX_ERR_WOULD_BLOCK, "blocking dial on a progress thread", {}, {}};
    }
    auto timeout = options.timeout;
    exec::Completion<Dialed> result;
    dial_async(ex, std::move(path), std::move(hello), std::move(options), [result](Dialed&& d) {
        auto conn = d.connection;
        if (!result.complete(std::move(d)) && conn) {
            conn->close("dial abandoned by its caller");  // the waiter gave up first
        }
    });
    // dial_async answers by its own deadline; the margin only covers a busy progress thread.
    auto waited = result.wait(timeout + 2s);
    if (waited.value) {
        return std::move(*waited.value);
    }
    // Claim the result so that a success arriving now is closed by the callback, not leaked.
    if (result.complete(Dialed{PMIX_ERR_TIMEOUT, "dial timed out", {}, {}})) {
        return Dialed{PMIX_ERR_TIMEOUT, "dial timed out", {}, {}};
    }
    return result.wait_for(0ms).value_or(Dialed{PMIX_ERR_TIMEOUT, "dial timed out", {}, {}});
}

}  // namespace pmix::wire
