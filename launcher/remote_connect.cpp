// pmixd's connect/disconnect upcalls (remote_connect.h): the server's one upcall per operation
// on this node goes to the head, which answers once every node hosting the set called. The upcall
// copies on the server's thread and posts; the loop alone touches the channel and the waiting
// calls.
#include "remote_connect.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

struct Waiting {
    pmix_op_cbfunc_t cbfunc = nullptr;
    void* cbdata = nullptr;
};
std::map<uint64_t, Waiting> g_calls;
uint64_t g_next_call = 1;

void answer(const Waiting& waiting, pmix_status_t status) {
    if (waiting.cbfunc != nullptr) waiting.cbfunc(status, waiting.cbdata);
}

long timeout_seconds(const pmix_info_t info[], size_t ninfo) {
    for (size_t i = 0; info != nullptr && i < ninfo; ++i) {
        if (!PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT)) continue;
        const pmix_value_t& value = info[i].value;
        if (value.type == PMIX_INT) return value.data.integer;
        if (value.type == PMIX_INT32) return value.data.int32;
        if (value.type == PMIX_UINT32) return static_cast<long>(value.data.uint32);
    }
    return 0;
}

pmix_status_t forward(bool connect, const pmix_proc_t procs[], size_t nprocs,
                      const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                      void* cbdata) {
    if (procs == nullptr || nprocs == 0) return PMIX_ERR_BAD_PARAM;
    std::vector<std::string> fields{connect ? "1" : "0",
                                    std::to_string(timeout_seconds(info, ninfo))};
    for (size_t i = 0; i < nprocs; ++i) {
        fields.emplace_back(procs[i].nspace);
        fields.push_back(std::to_string(procs[i].rank));
    }
    g_launcher->queue.post([fields = std::move(fields), cbfunc, cbdata]() mutable {
        Remote* remote = g_launcher->remote;
        Channel* head = remote != nullptr ? remote->head_channel() : nullptr;
        const uint64_t id = g_next_call++;
        fields.insert(fields.begin(), std::to_string(id));
        if (head == nullptr || !head->send(MessageKind::connect, fields)) {
            answer({cbfunc, cbdata}, PMIX_ERR_LOST_CONNECTION);
            return;
        }
        g_calls[id] = {cbfunc, cbdata};
    });
    return PMIX_SUCCESS;
}

pmix_status_t remote_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                             size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return forward(true, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

pmix_status_t remote_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                                size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return forward(false, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

}  // namespace

void take_connect_reply(const Message& message) {
    const std::vector<std::string>& f = message.fields;
    auto found =
        f.size() == 2 ? g_calls.find(std::strtoull(f[0].c_str(), nullptr, 10)) : g_calls.end();
    if (found == g_calls.end()) {
        std::fprintf(stderr, "pmixd: a connect reply for no call of ours\n");
        return;
    }
    const Waiting waiting = found->second;
    g_calls.erase(found);
    answer(waiting, static_cast<pmix_status_t>(std::atoi(f[1].c_str())));
}

void fail_connect_requests(pmix_status_t status) {
    while (!g_calls.empty()) answer(g_calls.extract(g_calls.begin()).mapped(), status);
}

void fill_remote_connect(pmix_server_module_t& module) {
    module.connect = remote_connect;
    module.disconnect = remote_disconnect;
}

}  // namespace pmix::launcher
