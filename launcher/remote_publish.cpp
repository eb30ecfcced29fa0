// pmixd's publish, lookup and unpublish upcalls: forwarded to the head, which keeps the job's one
// directory (directory.h), and answered when its directory_reply comes back. Each upcall copies
// what it needs on the server's thread and posts the sending to the launcher's loop, which alone
// touches the channel and the requests waiting for a reply.
#include "directory.h"

#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

struct Request {
    pmix_op_cbfunc_t op = nullptr;  // publish, unpublish
    pmix_lookup_cbfunc_t lookup = nullptr;
    void* cbdata = nullptr;
    void answer(pmix_status_t status) const {
        if (op != nullptr) op(status, cbdata);
        if (lookup != nullptr) lookup(status, nullptr, 0, cbdata);
    }
};
std::map<uint64_t, Request> g_requests;  // loop thread only
uint64_t g_next_request = 1;

long long integer_of(const pmix_value_t& value) {
    switch (value.type) {
        case PMIX_INT:
            return value.data.integer;
        case PMIX_INT32:
            return value.data.int32;
        case PMIX_UINT32:
            return value.data.uint32;
        case PMIX_SIZE:
            return static_cast<long long>(value.data.size);
        default:
            return 0;
    }
}

// PMIX_RANGE (the given one, else -1: none), PMIX_PERSISTENCE, PMIX_WAIT, PMIX_TIMEOUT.
struct Directives {
    int range = -1;
    int persistence = PMIX_PERSIST_SESSION;
    bool wait = false;
    long long timeout_s = 0;
};
Directives read_directives(const pmix_info_t info[], size_t ninfo) {
    Directives out;
    for (size_t i = 0; info != nullptr && i < ninfo; ++i) {
        const pmix_value_t& value = info[i].value;
        if (PMIX_CHECK_KEY(&info[i], PMIX_RANGE) && value.type == PMIX_DATA_RANGE)
            out.range = value.data.range;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_PERSISTENCE) && value.type == PMIX_PERSIST)
            out.persistence = value.data.persist;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_WAIT))  // a bool, or "wait for N keys": wait
            out.wait = value.type != PMIX_BOOL || value.data.flag;
        else if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT)) out.timeout_s = integer_of(value);
    }
    return out;
}

// On the loop: the request goes to the head with an id of ours in front; no head, no answer to
// wait for.
void send_request(MessageKind kind, std::vector<std::string> fields, Request request) {
    Remote* remote = g_launcher->remote;
    Channel* head = remote != nullptr ? remote->head_channel() : nullptr;
    const uint64_t id = g_next_request++;
    fields.insert(fields.begin(), std::to_string(id));
    if (head == nullptr || !head->send(kind, fields)) {
        request.answer(PMIX_ERR_LOST_CONNECTION);
        return;
    }
    g_requests[id] = request;
}

std::vector<std::string> caller_fields(const pmix_proc_t& proc, int range) {
    return {proc.nspace, std::to_string(proc.rank),
            std::to_string(range < 0 ? PMIX_RANGE_SESSION : range)};
}

pmix_status_t remote_publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                             pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (proc == nullptr) return PMIX_ERR_BAD_PARAM;
    const Directives directives = read_directives(info, ninfo);
    std::vector<std::string> fields = caller_fields(*proc, directives.range);
    fields.push_back(std::to_string(directives.persistence));
    for (size_t i = 0; i < ninfo; ++i) {
        if (is_directive(info[i].key)) continue;
        std::string packed;
        if (const pmix_status_t rc = pack_infos(&info[i], 1, packed); rc != PMIX_SUCCESS) return rc;
        fields.emplace_back(info[i].key);
        fields.push_back(std::move(packed));
    }
    if (fields.size() == 4) return PMIX_ERR_BAD_PARAM;  // nothing to publish
    g_launcher->queue.post([fields = std::move(fields), cbfunc, cbdata]() mutable {
        send_request(MessageKind::publish, std::move(fields), Request{cbfunc, nullptr, cbdata});
    });
    return PMIX_SUCCESS;
}

pmix_status_t remote_lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[],
                            size_t ninfo, pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
    if (proc == nullptr || keys == nullptr || keys[0] == nullptr) return PMIX_ERR_BAD_PARAM;
    const Directives directives = read_directives(info, ninfo);
    std::vector<std::string> fields = caller_fields(*proc, directives.range);
    fields.emplace_back(directives.wait ? "1" : "0");
    fields.push_back(std::to_string(directives.timeout_s));
    for (size_t i = 0; keys[i] != nullptr; ++i) fields.emplace_back(keys[i]);
    g_launcher->queue.post([fields = std::move(fields), cbfunc, cbdata]() mutable {
        send_request(MessageKind::lookup, std::move(fields), Request{nullptr, cbfunc, cbdata});
    });
    return PMIX_SUCCESS;
}

pmix_status_t remote_unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t info[],
                               size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (proc == nullptr) return PMIX_ERR_BAD_PARAM;
    std::vector<std::string> fields = caller_fields(*proc, read_directives(info, ninfo).range);
    for (size_t i = 0; keys != nullptr && keys[i] != nullptr; ++i) fields.emplace_back(keys[i]);
    g_launcher->queue.post([fields = std::move(fields), cbfunc, cbdata]() mutable {
        send_request(MessageKind::unpublish, std::move(fields), Request{cbfunc, nullptr, cbdata});
    });
    return PMIX_SUCCESS;
}

// The values of a lookup reply: (key, owner nspace, owner rank, packed info) from field 2 on.
pmix_status_t answer_lookup(const Request& request, const std::vector<std::string>& f) {
    const size_t count = (f.size() - 2) / 4;
    pmix_pdata_t* pdata = nullptr;
    PMIX_PDATA_CREATE(pdata, count);
    pmix_status_t rc = PMIX_SUCCESS;
    for (size_t i = 0; i < count && rc == PMIX_SUCCESS; ++i) {
        const std::string* item = &f[2 + 4 * i];
        pmix_info_t* info = nullptr;
        size_t ninfo = 0;
        rc = unpack_infos(item[3], &info, &ninfo);
        if (rc == PMIX_SUCCESS && ninfo != 1) rc = PMIX_ERR_UNPACK_FAILURE;
        if (rc == PMIX_SUCCESS) {
            PMIX_LOAD_PROCID(&pdata[i].proc, item[1].c_str(),
                             static_cast<pmix_rank_t>(std::atoll(item[2].c_str())));
            PMIX_LOAD_KEY(pdata[i].key, item[0].c_str());
            rc = PMIx_Value_xfer(&pdata[i].value, &info[0].value);
        }
        if (info != nullptr) PMIX_INFO_FREE(info, ninfo);
    }
    if (rc == PMIX_SUCCESS) request.lookup(PMIX_SUCCESS, pdata, count, request.cbdata);
    PMIX_PDATA_FREE(pdata, count);
    return rc;
}

}  // namespace

void take_directory_reply(const Message& message) {
    const std::vector<std::string>& f = message.fields;
    auto found = f.size() >= 2 ? g_requests.find(std::strtoull(f[0].c_str(), nullptr, 10))
                               : g_requests.end();
    if (found == g_requests.end()) {
        std::fprintf(stderr, "pmixd: a directory reply for no request of ours\n");
        return;
    }
    const Request request = found->second;
    g_requests.erase(found);
    const auto status = static_cast<pmix_status_t>(std::atoi(f[1].c_str()));
    if (request.lookup != nullptr && status == PMIX_SUCCESS) {
        const bool well_formed = f.size() > 2 && (f.size() - 2) % 4 == 0;
        const pmix_status_t rc = well_formed ? answer_lookup(request, f) : PMIX_ERR_UNPACK_FAILURE;
        if (rc != PMIX_SUCCESS) request.answer(rc);
        return;
    }
    request.answer(status);
}

void fail_directory_requests(pmix_status_t status) {
    while (!g_requests.empty()) g_requests.extract(g_requests.begin()).mapped().answer(status);
}

void fill_remote_directory(pmix_server_module_t& module) {
    module.publish = remote_publish;
    module.lookup = remote_lookup;
    module.unpublish = remote_unpublish;
}

}  // namespace pmix::launcher
