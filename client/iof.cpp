// client/iof.cpp - PMIx_IOF_pull / PMIx_IOF_deregister of clients and tools, and the output the
// server forwards (kIofData), as OpenPMIx 4.2.2's src/common/pmix_iof.c and client_iof_handler:
// - pull registers a handler here first (ids from 1 up, the lowest free one; OpenPMIx keeps 0
//   for its default handler), then asks the server (kIofPull), which asks its host; a refusal
//   removes it. Blocking form: the id is the return value. Stdin cannot be pulled
//   (PMIX_ERR_NOT_SUPPORTED, as OpenPMIx).
// - each chunk goes to its handler on the progress thread, formatted (iof_format.h) and, with
//   PMIX_IOF_BUFFERING_SIZE / _TIME, held until that many bytes are there or that many seconds
//   passed since the first byte held; a NULL callback writes to our own stdout (stderr for
//   stderr and stddiag) and, with the file directives, to files (iof_files.h); a callback gets
//   the output whatever the file directives say (they add files, FILE_ONLY drops only the copy
//   to our own stdout / stderr).
// - a chunk with PMIX_IOF_COMPLETE (the source's stream ended) flushes that stream's partial
//   line and buffer, and reaches the callback with its info even when it carries no bytes.
// - deregister flushes what the handler holds (a partial line, decorated, and the buffer) to
//   it, drops it (later chunks for it are dropped), then tells the server (kIofDeregister).
// - handler id 0 is the default one OpenPMIx's client installs at init: output of a job we
//   spawned with PMIX_FWD_STDOUT / STDERR / STDDIAG (server/iof.h) is written, as it comes, to
//   our own stdout (stderr for stderr and stddiag).
#include "client/client.h"
#include "client/iof_files.h"
#include "client/iof_format.h"
#include "client/state.h"

#include "data/directives.h"
#include "data/info_array.h"
#include "data/value.h"
#include "exec/completion.h"
#include "exec/log.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace pmix::client {

namespace {

struct Stream {
    std::string residual;  // a partial line waiting for its end
    std::string held;      // formatted output waiting for the buffering threshold
    bool timer_armed = false;
};

using StreamKey = std::tuple<std::string, pmix_rank_t, pmix_iof_channel_t>;

// Where a handler's output goes: its callback, or our own stdout / stderr; and its files.
struct Sink {
    pmix_iof_cbfunc_t fn = nullptr;
    std::shared_ptr<IofFiles> files;  // null: no file directive
    bool terminal = true;             // without a callback: also to our own stdout / stderr
    bool merge = false;               // stderr to our own stdout
};

struct IofHandler {
    pmix_iof_channel_t channels = PMIX_FWD_NO_CHANNELS;
    Sink sink;
    IofFormat format;
    std::size_t buffer_bytes = 0;        // PMIX_IOF_BUFFERING_SIZE
    std::chrono::seconds buffer_time{};  // PMIX_IOF_BUFFERING_TIME
    std::map<StreamKey, Stream> streams;
};

struct Registry {
    std::mutex mu;
    std::map<std::size_t, IofHandler> handlers;
};

Registry& registry() {
    static Registry r;
    return r;
}

std::size_t add_handler(IofHandler h) {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    std::size_t id = 1;
    while (r.handlers.count(id) != 0) ++id;
    r.handlers.emplace(id, std::move(h));
    return id;
}

void remove_handler(std::size_t id) {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    r.handlers.erase(id);
}

void write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // our own stdout is gone: nothing to tell
        done += static_cast<std::size_t>(n);
    }
}

// Hands `text` to the handler's files and callback, or to our own stdout / stderr. Progress
// thread, no lock.
void emit(const Sink& sink, std::size_t id, pmix_iof_channel_t channel, const pmix_proc_t& source,
          const std::string& text, const pmix_info_t* info, std::size_t ninfo) {
    const pmix_iof_cbfunc_t fn = sink.fn;
    if (text.empty() && (fn == nullptr || ninfo == 0)) return;  // info: PMIX_IOF_COMPLETE
    if (sink.files && !text.empty()) sink.files->write(source, channel, text);
    if (fn == nullptr) {
        const bool out = sink.merge || (channel & PMIX_FWD_STDOUT_CHANNEL) != 0;
        if (sink.terminal) write_all(out ? STDOUT_FILENO : STDERR_FILENO, text);
        return;
    }
    pmix_byte_object_t bo{const_cast<char*>(text.data()), text.size()};
    pmix_proc_t src = source;
    fn(id, channel, &src, &bo, const_cast<pmix_info_t*>(info), ninfo);
}

pmix_proc_t proc_of(const StreamKey& k) {
    pmix_proc_t p{};
    PMIX_LOAD_PROCID(&p, std::get<0>(k).c_str(), std::get<1>(k));
    return p;
}

// The buffering time of `key` in handler `id` ran out: what it holds goes out.
void flush_held(std::size_t id, const StreamKey& key) {
    std::string text;
    Sink sink;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        auto h = r.handlers.find(id);
        if (h == r.handlers.end()) return;
        auto s = h->second.streams.find(key);
        if (s == h->second.streams.end()) return;
        text.swap(s->second.held);
        s->second.timer_armed = false;
        sink = h->second.sink;
    }
    emit(sink, id, std::get<2>(key), proc_of(key), text, nullptr, 0);
}

void arm_timer(std::size_t id, const StreamKey& key, std::chrono::seconds after) {
    State& s = state();
    std::lock_guard lock(s.mu);
    if (s.ex) s.ex->run_after(after, [id, key] { flush_held(id, key); });
}

// Formats and buffers one chunk for handler `id`; returns what goes out now.
std::string take_output(std::size_t id, const pmix_proc_t& source, pmix_iof_channel_t channel,
                        std::string_view bytes, bool complete, Sink* sink, bool* found) {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    auto h = r.handlers.find(id);
    *found = h != r.handlers.end() && (h->second.channels & channel) != 0;
    if (!*found) return {};
    IofHandler& handler = h->second;
    *sink = handler.sink;
    const StreamKey key{std::string(source.nspace, strnlen(source.nspace, PMIX_MAX_NSLEN)),
                        source.rank, channel};
    Stream& st = handler.streams[key];
    std::string out =
        format_stream(handler.format, source, channel, st.residual, bytes, std::time(nullptr));
    if (complete) {  // the stream ended: its partial line and what is held go out now
        if (!st.residual.empty())
            out +=
                decorate_output(handler.format, source, channel, st.residual, std::time(nullptr));
        out = std::exchange(st.held, std::string()) + out;
        handler.streams.erase(key);
        return out;
    }
    if (handler.buffer_bytes == 0 && handler.buffer_time.count() == 0) return out;
    st.held += out;
    if (handler.buffer_bytes > 0 && st.held.size() >= handler.buffer_bytes) {
        return std::exchange(st.held, std::string());
    }
    if (handler.buffer_time.count() > 0 && !st.held.empty() && !st.timer_armed) {
        st.timer_armed = true;
        arm_timer(id, key, handler.buffer_time);
    }
    return {};
}

std::size_t uint_directive(const pmix_info_t* info, std::size_t ninfo, const char* key) {
    const pmix_info_t* i = data::find_info(info, ninfo, key);
    if (i == nullptr) return 0;
    switch (i->value.type) {
        case PMIX_UINT32:
            return i->value.data.uint32;
        case PMIX_SIZE:
            return i->value.data.size;
        case PMIX_UINT64:
            return i->value.data.uint64;
        case PMIX_INT:
            return i->value.data.integer > 0 ? static_cast<std::size_t>(i->value.data.integer) : 0;
        default:
            return 0;
    }
}

// The job size of `nspace` (asked for at most 2 s); 0 when it cannot be had.
std::size_t known_job_size(const char* nspace) {
    pmix_proc_t job{};
    PMIX_LOAD_PROCID(&job, nspace, PMIX_RANK_WILDCARD);
    pmix_info_t opt;
    const int seconds = 2;
    PMIX_INFO_LOAD(&opt, PMIX_TIMEOUT, &seconds, PMIX_INT);
    pmix_value_t* v = nullptr;
    const pmix_status_t rc = get(&job, PMIX_JOB_SIZE, &opt, 1, &v);
    PMIX_INFO_DESTRUCT(&opt);
    std::size_t size = 0;
    if (rc == PMIX_SUCCESS && v != nullptr && v->type == PMIX_UINT32) size = v->data.uint32;
    if (v != nullptr) PMIX_VALUE_RELEASE(v);
    return size;
}

// The handler's sink from PMIx_IOF_pull's callback and file directives; the files' directories
// are checked now, so that a bad one is PMIx_IOF_pull's error.
pmix_status_t make_sink(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* dirs,
                        std::size_t ndirs, pmix_iof_cbfunc_t cbfunc, Sink* sink) {
    IofFileSpec spec;
    if (const pmix_status_t rc = parse_iof_files(dirs, ndirs, &spec); rc != PMIX_SUCCESS) return rc;
    sink->fn = cbfunc;
    sink->terminal = spec.terminal_copy();
    sink->merge = spec.merge;
    if (!spec.any_file()) return PMIX_SUCCESS;
    if (const pmix_status_t rc = prepare_iof_files(spec, procs, nprocs); rc != PMIX_SUCCESS)
        return rc;
    sink->files = std::make_shared<IofFiles>(std::move(spec));
    std::set<std::string> nspaces;
    for (std::size_t i = 0; i < nprocs; ++i)
        nspaces.emplace(procs[i].nspace, strnlen(procs[i].nspace, PMIX_MAX_NSLEN));
    for (const std::string& ns : nspaces)
        if (const std::size_t size = known_job_size(ns.c_str()); size > 0)
            sink->files->set_digits(ns, rank_digits(size));
    return PMIX_SUCCESS;
}

}  // namespace

void deliver_iof_frame(const wire::Frame& f) {
    proto::Reader r(f.payload);
    pmix_proc_t source{};
    pmix_iof_channel_t channel = PMIX_FWD_NO_CHANNELS;
    std::size_t id = 0;
    data::InfoArray info;
    pmix_byte_object_t bo{nullptr, 0};
    r.proc(&source);
    r.raw(&channel, 1, PMIX_IOF_CHANNEL);
    r.size(&id);
    r.infos(&info);
    r.raw(&bo, 1, PMIX_BYTE_OBJECT);
    if (r.finish() != PMIX_SUCCESS) {
        PMIX_BYTE_OBJECT_DESTRUCT(&bo);
        exec::log_error("pmix client", "undecodable forwarded output dropped");
        return;
    }
    if (id == 0) {  // the default handler: as is, to our own stdout / stderr
        emit(Sink{}, 0, channel, source,
             bo.size > 0 ? std::string(bo.bytes, bo.size) : std::string(), nullptr, 0);
        PMIX_BYTE_OBJECT_DESTRUCT(&bo);
        return;
    }
    Sink sink;
    bool found = false;
    const std::string out = take_output(id, source, channel, std::string_view(bo.bytes, bo.size),
                                        info.flag(PMIX_IOF_COMPLETE), &sink, &found);
    PMIX_BYTE_OBJECT_DESTRUCT(&bo);
    if (found) emit(sink, id, channel, source, out, info.data(), info.size());
}

pmix_status_t iof_pull(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* dirs,
                       std::size_t ndirs, pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                       pmix_hdlr_reg_cbfunc_t regcbfunc, void* regcbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    if ((channel & PMIX_FWD_STDIN_CHANNEL) != 0) return PMIX_ERR_NOT_SUPPORTED;
    if (procs == nullptr || nprocs == 0 || channel == PMIX_FWD_NO_CHANNELS ||
        (dirs == nullptr && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    if (regcbfunc == nullptr && exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    IofHandler h;
    h.channels = channel;
    if (const pmix_status_t rc = make_sink(procs, nprocs, dirs, ndirs, cbfunc, &h.sink);
        rc != PMIX_SUCCESS)
        return rc;
    h.format = parse_iof_format(dirs, ndirs);
    h.buffer_bytes = uint_directive(dirs, ndirs, PMIX_IOF_BUFFERING_SIZE);
    h.buffer_time = std::chrono::seconds(uint_directive(dirs, ndirs, PMIX_IOF_BUFFERING_TIME));
    const std::size_t id = add_handler(std::move(h));
    proto::Writer w;
    w.procs(procs, nprocs).infos(dirs, ndirs).raw(&channel, 1, PMIX_IOF_CHANNEL).size(id);
    if (w.status_code() != PMIX_SUCCESS) {
        remove_handler(id);
        return w.status_code();
    }
    exec::Completion<pmix_status_t> done;
    const auto timeout = timeout_from(dirs, ndirs, kShortTimeout);
    pmix_status_t rc =
        request(proto::Op::kIofPull, w.take(), timeout, [=](pmix_status_t st, wire::Frame&& f) {
            if (st == PMIX_SUCCESS) st = reply_status(f);
            if (st != PMIX_SUCCESS) remove_handler(id);
            if (regcbfunc != nullptr) {
                regcbfunc(st, id, regcbdata);
            } else {
                done.complete(st);
            }
        });
    if (rc != PMIX_SUCCESS) {
        remove_handler(id);
        return rc;
    }
    if (regcbfunc != nullptr) return PMIX_SUCCESS;
    auto waited = done.wait(timeout + kWaitMargin);
    rc = waited.status == PMIX_SUCCESS ? *waited.value : waited.status;
    return rc == PMIX_SUCCESS ? static_cast<pmix_status_t>(id) : rc;
}

namespace {

// Takes handler `id` out of the registry and hands what it holds to it. Progress thread.
bool flush_and_drop(std::size_t id) {
    IofHandler h;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        auto it = r.handlers.find(id);
        if (it == r.handlers.end()) return false;
        h = std::move(it->second);
        r.handlers.erase(it);
    }
    for (auto& [key, st] : h.streams) {
        std::string text = std::move(st.held);
        if (!st.residual.empty()) {
            text += decorate_output(h.format, proc_of(key), std::get<2>(key), st.residual,
                                    std::time(nullptr));
        }
        emit(h.sink, id, std::get<2>(key), proc_of(key), text, nullptr, 0);
    }
    return true;
}

}  // namespace

pmix_status_t iof_deregister(std::size_t id, const pmix_info_t* dirs, std::size_t ndirs,
                             pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (dirs == nullptr && ndirs > 0) return PMIX_ERR_BAD_PARAM;
    {
        Registry& r = registry();
        std::lock_guard lock(r.mu);
        if (r.handlers.count(id) == 0) return PMIX_ERR_NOT_FOUND;
    }
    if (cbfunc == nullptr && exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    proto::Writer w;
    w.size(id).infos(dirs, ndirs);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    exec::Completion<pmix_status_t> done;
    auto payload = std::make_shared<wire::Bytes>(w.take());
    // On the progress thread, after every chunk already received for it: flush, drop, tell.
    const pmix_status_t rc = post([id, payload, cbfunc, cbdata, done]() mutable {
        auto finish = [cbfunc, cbdata, done](pmix_status_t st) mutable {
            if (cbfunc != nullptr) {
                cbfunc(st, cbdata);
            } else {
                done.complete(st);
            }
        };
        if (!flush_and_drop(id)) return finish(PMIX_ERR_NOT_FOUND);
        const pmix_status_t sent =
            request(proto::Op::kIofDeregister, std::move(*payload), kShortTimeout,
                    [finish](pmix_status_t st, wire::Frame&& f) mutable {
                        finish(st == PMIX_SUCCESS ? reply_status(f) : st);
                    });
        if (sent != PMIX_SUCCESS) finish(sent);
    });
    if (rc != PMIX_SUCCESS) return rc;
    if (cbfunc != nullptr) return PMIX_SUCCESS;
    auto waited = done.wait(kShortTimeout + kWaitMargin);
    return waited.status == PMIX_SUCCESS ? *waited.value : waited.status;
}

void iof_forget_all() {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    r.handlers.clear();
}

}  // namespace pmix::client
