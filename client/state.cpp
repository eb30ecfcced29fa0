// client/state.cpp - see state.h.
#include "client/state.h"
#include "client/commit_segment.h"

#include "data/directives.h"
#include "data/value.h"
#include "exec/completion.h"
#include "exec/log.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace pmix::client {

void ValueDeleter::operator()(pmix_value_t* v) const noexcept {
    data::value_destruct(v);
    std::free(v);
}

void merge_put(std::vector<Put>& puts, Put put) {
    auto same = std::find_if(puts.begin(), puts.end(),
                             [&put](const Put& p) { return p.key == put.key; });
    if (same != puts.end()) {
        *same = std::move(put);
    } else {
        puts.push_back(std::move(put));
    }
}

ValuePtr copy_value(const pmix_value_t& v) {
    auto* out = static_cast<pmix_value_t*>(std::calloc(1, sizeof(pmix_value_t)));
    if (out == nullptr) {
        return nullptr;
    }
    ValuePtr owned(out);
    if (data::value_xfer(out, &v) != PMIX_SUCCESS) {
        return nullptr;
    }
    return owned;
}

pmix_value_t* malloc_value_copy(const pmix_value_t& v) { return copy_value(v).release(); }

State& state() {
    // Leaked on purpose: callbacks may still reach it while static destructors run at exit.
    static State* s = new State();
    return *s;
}

namespace {

// PMIX_TIMEOUT is an int in OpenPMIx; accept any integer type a caller may load it with.
long integer_of(const pmix_value_t& v) {
    switch (v.type) {
        case PMIX_INT:
            return v.data.integer;
        case PMIX_INT8:
            return v.data.int8;
        case PMIX_INT16:
            return v.data.int16;
        case PMIX_INT32:
            return v.data.int32;
        case PMIX_INT64:
            return static_cast<long>(v.data.int64);
        case PMIX_UINT:
            return static_cast<long>(v.data.uint);
        case PMIX_UINT8:
            return v.data.uint8;
        case PMIX_UINT16:
            return v.data.uint16;
        case PMIX_UINT32:
            return static_cast<long>(v.data.uint32);
        case PMIX_UINT64:
            return static_cast<long>(v.data.uint64);
        case PMIX_SIZE:
            return static_cast<long>(v.data.size);
        default:
            return 0;
    }
}

}  // namespace

std::chrono::milliseconds timeout_from(const pmix_info_t* info, std::size_t ninfo,
                                       std::chrono::milliseconds fallback) {
    for (std::size_t i = 0; info != nullptr && i < ninfo; ++i) {
        if (data::key_is(info[i], PMIX_TIMEOUT)) {
            long secs = integer_of(info[i].value);
            if (secs > 0) {
                return std::chrono::seconds(secs);
            }
        }
    }
    return fallback;
}

bool valid_key(const char* key) noexcept {
    return key != nullptr && key[0] != '\0' &&
           ::strnlen(key, PMIX_MAX_KEYLEN + 1) <= PMIX_MAX_KEYLEN;
}

bool own_proc(pmix_proc_t* out) {
    State& s = state();
    std::lock_guard lock(s.mu);
    if (s.refs == 0) {
        return false;
    }
    *out = s.me;
    return true;
}

bool same_proc(const pmix_proc_t& a, const pmix_proc_t& b) noexcept {
    return a.rank == b.rank && std::strncmp(a.nspace, b.nspace, PMIX_MAX_NSLEN) == 0;
}

pmix_status_t request(proto::Op op, wire::Bytes payload, std::chrono::milliseconds timeout,
                      ReplyFn fn) {
    std::shared_ptr<wire::Connection> conn;
    {
        State& s = state();
        std::lock_guard lock(s.mu);
        if (s.refs == 0) {
            return PMIX_ERR_INIT;
        }
        if (!s.conn) {
            return PMIX_ERR_UNREACH;  // a tool without a (primary) server
        }
        conn = s.conn;
    }
    if (conn->closed()) {
        return PMIX_ERR_LOST_CONNECTION;
    }
    // Commits still queued for the server go first (commit_segment.cpp).
    const auto in_order = commit_segment::send_unsent_first(*conn);
    return conn->request(static_cast<std::uint32_t>(op), std::move(payload), timeout,
                         [fn = std::move(fn)](pmix_status_t st, wire::Frame&& f) mutable {
                             exec::invoke_guarded("pmix client reply",
                                                  [&] { fn(st, std::move(f)); });
                         });
}

std::shared_ptr<wire::Connection> server_connection() {
    State& s = state();
    std::lock_guard lock(s.mu);
    return s.refs > 0 && s.conn && !s.conn->closed() ? s.conn : nullptr;
}

pmix_status_t run_after(std::chrono::milliseconds delay, exec::UniqueFunction<void()> task) {
    State& s = state();
    std::lock_guard lock(s.mu);
    if (s.refs == 0 || !s.ex) {
        return PMIX_ERR_INIT;
    }
    return s.ex->run_after(delay, std::move(task)) != exec::kInvalidTimer ? PMIX_SUCCESS
                                                                          : PMIX_ERR_INIT;
}

pmix_status_t post(exec::UniqueFunction<void()> task) {
    State& s = state();
    std::lock_guard lock(s.mu);
    if (s.refs == 0 || !s.ex) {
        return PMIX_ERR_INIT;
    }
    return s.ex->post(std::move(task)) ? PMIX_SUCCESS : PMIX_ERR_INIT;
}

pmix_status_t reply_status(const wire::Frame& frame) {
    proto::Reader r(frame.payload);
    pmix_status_t st = PMIX_ERROR;
    if (r.status(&st) != PMIX_SUCCESS) {
        return PMIX_ERR_UNPACK_FAILURE;
    }
    return st;
}

pmix_status_t call_status(proto::Op op, wire::Bytes payload, std::chrono::milliseconds timeout) {
    if (exec::on_progress_thread()) {
        return PMIX_ERR_WOULD_BLOCK;
    }
    exec::Completion<pmix_status_t> done;
    pmix_status_t rc =
        request(op, std::move(payload), timeout, [done](pmix_status_t st, wire::Frame&& f) {
            done.complete(st == PMIX_SUCCESS ? reply_status(f) : st);
        });
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    auto waited = done.wait(timeout + kWaitMargin);
    return waited.status == PMIX_SUCCESS ? *waited.value : waited.status;
}

pmix_status_t status_request_nb(proto::Op op, wire::Bytes payload,
                                std::chrono::milliseconds timeout, pmix_op_cbfunc_t cbfunc,
                                void* cbdata) {
    if (cbfunc == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    return request(op, std::move(payload), timeout,
                   [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
                       cbfunc(st == PMIX_SUCCESS ? reply_status(f) : st, cbdata);
                   });
}

}  // namespace pmix::client
