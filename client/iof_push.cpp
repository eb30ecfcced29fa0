// client/iof_push.cpp - PMIx_IOF_push of clients and tools (OpenPMIx 4.2.2's semantics):
// - with bytes: one kIofPush to the server, which hands them to its host's push_stdin upcall
//   for the targets' stdin; cbfunc (or the blocking return) when the host took them.
// - PMIX_IOF_COMPLETE: the end of input for the targets (bytes may be NULL).
// - PMIX_IOF_PUSH_STDIN with bytes NULL: a thread of the library reads our own stdin (a file,
//   pipe or terminal) and pushes it chunk by chunk, each after the previous one was taken (so a
//   slow target holds us back, not our memory), then PMIX_IOF_COMPLETE at EOF. Returns
//   PMIX_OPERATION_SUCCEEDED at once, as OpenPMIx does; it stops when the library finalizes.
#include "client/client.h"
#include "client/state.h"

#include "data/directives.h"
#include "exec/completion.h"
#include "exec/log.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <thread>
#include <vector>

namespace pmix::client {

namespace {

// Sends one push; cbfunc (or, NULL, the returned status after waiting) on the reply.
pmix_status_t send_push(const pmix_proc_t* targets, std::size_t ntargets,
                        const pmix_byte_object_t& bo, const pmix_info_t* dirs, std::size_t ndirs,
                        pmix_op_cbfunc_t cbfunc, void* cbdata) {
    proto::Writer w;
    w.procs(targets, ntargets).infos(dirs, ndirs).byte_object(bo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    if (cbfunc != nullptr) {
        return status_request_nb(proto::Op::kIofPush, w.take(), kDefaultTimeout, cbfunc, cbdata);
    }
    return call_status(proto::Op::kIofPush, w.take(), kDefaultTimeout);
}

std::atomic<bool> g_reading{false};

// The reader of our stdin (PMIX_IOF_PUSH_STDIN). Owns copies of the targets and directives.
void read_stdin(std::vector<pmix_proc_t> targets, std::vector<pmix_info_t> dirs) {
    std::vector<char> chunk(65536);
    for (;;) {
        const ssize_t n = ::read(STDIN_FILENO, chunk.data(), chunk.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        pmix_byte_object_t bo{chunk.data(), static_cast<std::size_t>(n)};
        const pmix_status_t rc = send_push(targets.data(), targets.size(), bo, dirs.data(),
                                           dirs.size(), nullptr, nullptr);
        if (rc != PMIX_SUCCESS) {
            exec::log_warn("pmix client",
                           std::string("forwarding stdin stopped: ") + PMIx_Error_string(rc));
            break;
        }
    }
    pmix_info_t done;
    PMIX_INFO_LOAD(&done, PMIX_IOF_COMPLETE, nullptr, PMIX_BOOL);
    pmix_byte_object_t none{nullptr, 0};
    send_push(targets.data(), targets.size(), none, &done, 1, nullptr, nullptr);
    PMIX_INFO_DESTRUCT(&done);
    for (auto& d : dirs) PMIX_INFO_DESTRUCT(&d);
    g_reading = false;
}

}  // namespace

pmix_status_t iof_push(const pmix_proc_t* targets, std::size_t ntargets,
                       const pmix_byte_object_t* bo, const pmix_info_t* dirs, std::size_t ndirs,
                       pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (targets == nullptr || ntargets == 0 || (dirs == nullptr && ndirs > 0))
        return PMIX_ERR_BAD_PARAM;
    const bool complete = data::info_true(dirs, ndirs, PMIX_IOF_COMPLETE);
    if (bo == nullptr && data::info_true(dirs, ndirs, PMIX_IOF_PUSH_STDIN)) {
        if (g_reading.exchange(true)) return PMIX_ERR_BAD_PARAM;  // one reader of our stdin
        std::vector<pmix_proc_t> t(targets, targets + ntargets);
        std::vector<pmix_info_t> d(ndirs);
        for (std::size_t i = 0; i < ndirs; ++i) PMIx_Info_xfer(&d[i], &dirs[i]);
        std::thread(read_stdin, std::move(t), std::move(d)).detach();
        return PMIX_OPERATION_SUCCEEDED;
    }
    if (bo == nullptr && !complete) return PMIX_ERR_BAD_PARAM;
    if (bo != nullptr && bo->size > 0 && bo->bytes == nullptr) return PMIX_ERR_BAD_PARAM;
    if (cbfunc == nullptr && exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    const pmix_byte_object_t none{nullptr, 0};
    return send_push(targets, ntargets, bo != nullptr ? *bo : none, dirs, ndirs, cbfunc, cbdata);
}

}  // namespace pmix::client
