// client/ops.cpp - calls the server hands to its host: Publish / Lookup / Unpublish,
// Connect / Disconnect, Log. The server answers PMIX_ERR_NOT_SUPPORTED when its host did not
// provide the matching module callback; the client passes that status on unchanged.
// Attributes (PMIX_WAIT, PMIX_RANGE, PMIX_TIMEOUT, ...) travel in the info arrays as given.
#include "client/client.h"
#include "client/state.h"

#include "data/value.h"
#include "exec/completion.h"

#include <cstring>
#include <vector>

namespace pmix::client {

namespace {


std::vector<char*> key_list(char** keys) {
    std::vector<char*> out;
    for (std::size_t i = 0; keys != nullptr && keys[i] != nullptr; ++i) {
        out.push_back(keys[i]);
    }
    return out;
}

bool keys_valid(const std::vector<char*>& keys) {
    for (char* k : keys) {
        if (!valid_key(k)) return false;
    }
    return true;
}

// Lookup's reply: status, then the published data found.
struct Found {
    pmix_status_t status = PMIX_ERROR;
    pmix_pdata_t* data = nullptr;
    std::size_t n = 0;
    ~Found() { data::free_elements(data, n, PMIX_PDATA); }
};

void decode_lookup(pmix_status_t st, const wire::Frame& f, Found* out) {
    if (st != PMIX_SUCCESS) {
        out->status = st;
        return;
    }
    proto::Reader r(f.payload);
    if (r.status(&out->status) != PMIX_SUCCESS) {
        out->status = PMIX_ERR_UNPACK_FAILURE;
        return;
    }
    if (out->status != PMIX_SUCCESS) {
        return;
    }
    void* block = nullptr;
    r.array(&block, &out->n, PMIX_PDATA);
    out->data = static_cast<pmix_pdata_t*>(block);
    if (pmix_status_t rc = r.finish(); rc != PMIX_SUCCESS) {
        out->status = rc;
    }
}

pmix_status_t start_lookup(std::vector<char*> keys, const pmix_info_t* info, std::size_t ninfo,
                           ReplyFn fn) {
    proto::Writer w;
    w.strings(keys.data(), keys.size()).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return request(proto::Op::kLookup, w.take(), timeout_from(info, ninfo, kDefaultTimeout),
                   std::move(fn));
}

wire::Bytes procs_info(const pmix_proc_t* procs, std::size_t n, const pmix_info_t* info,
                       std::size_t ninfo, pmix_status_t* rc) {
    proto::Writer w;
    w.procs(procs, n).infos(info, ninfo);
    *rc = w.status_code();
    return w.take();
}

}  // namespace

// ---- publish / lookup / unpublish --------------------------------------------------------------

pmix_status_t publish_nb(const pmix_info_t* info, std::size_t ninfo, pmix_op_cbfunc_t cbfunc,
                         void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (null_array_with_count(info, ninfo) || ninfo == 0 || cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return status_request_nb(proto::Op::kPublish, w.take(),
                             timeout_from(info, ninfo, kDefaultTimeout), cbfunc, cbdata);
}

pmix_status_t publish(const pmix_info_t* info, std::size_t ninfo) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (null_array_with_count(info, ninfo) || ninfo == 0) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return call_status(proto::Op::kPublish, w.take(), timeout_from(info, ninfo, kDefaultTimeout));
}

pmix_status_t lookup_nb(char** keys, const pmix_info_t* info, std::size_t ninfo,
                        pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    auto list = key_list(keys);
    if (list.empty() || !keys_valid(list) || null_array_with_count(info, ninfo) || cbfunc == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    return start_lookup(std::move(list), info, ninfo,
                        [cbfunc, cbdata](pmix_status_t st, wire::Frame&& f) {
                            Found found;
                            decode_lookup(st, f, &found);
                            cbfunc(found.status, found.data, found.n, cbdata);
                        });
}

pmix_status_t lookup(pmix_pdata_t* data, std::size_t ndata, const pmix_info_t* info,
                     std::size_t ninfo) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (data == nullptr || ndata == 0 || null_array_with_count(info, ninfo)) return PMIX_ERR_BAD_PARAM;
    std::vector<char*> keys;
    for (std::size_t i = 0; i < ndata; ++i) {
        if (::strnlen(data[i].key, PMIX_MAX_KEYLEN + 1) > PMIX_MAX_KEYLEN ||
            data[i].key[0] == '\0') {
            return PMIX_ERR_BAD_PARAM;
        }
        keys.push_back(data[i].key);
    }
    if (exec::on_progress_thread()) return PMIX_ERR_WOULD_BLOCK;
    exec::Completion<pmix_status_t> done;
    auto fill = [done, data, ndata](pmix_status_t st, wire::Frame&& f) {
        Found found;
        decode_lookup(st, f, &found);
        for (std::size_t i = 0; found.status == PMIX_SUCCESS && i < found.n; ++i) {
            for (std::size_t j = 0; j < ndata; ++j) {
                if (std::strncmp(found.data[i].key, data[j].key, PMIX_MAX_KEYLEN) == 0) {
                    data[j].proc = found.data[i].proc;
                    data::value_destruct(&data[j].value);
                    data::value_xfer(&data[j].value, &found.data[i].value);
                }
            }
        }
        done.complete(found.status);
    };
    // The caller's array is written on the progress thread; the wait below keeps it alive for
    // the whole request (the request's timeout fires before the wait gives up).
    auto timeout = timeout_from(info, ninfo, kDefaultTimeout);
    if (pmix_status_t rc = start_lookup(std::move(keys), info, ninfo, std::move(fill));
        rc != PMIX_SUCCESS) {
        return rc;
    }
    auto waited = done.wait(timeout + kWaitMargin);
    return waited.status == PMIX_SUCCESS ? *waited.value : waited.status;
}

pmix_status_t unpublish_nb(char** keys, const pmix_info_t* info, std::size_t ninfo,
                           pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    auto list = key_list(keys);  // NULL keys = everything this process published
    if (!keys_valid(list) || null_array_with_count(info, ninfo) || cbfunc == nullptr) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.strings(list.data(), list.size()).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return status_request_nb(proto::Op::kUnpublish, w.take(),
                             timeout_from(info, ninfo, kDefaultTimeout), cbfunc, cbdata);
}

pmix_status_t unpublish(char** keys, const pmix_info_t* info, std::size_t ninfo) {
    if (!initialized()) return PMIX_ERR_INIT;
    auto list = key_list(keys);
    if (!keys_valid(list) || null_array_with_count(info, ninfo)) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.strings(list.data(), list.size()).infos(info, ninfo);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return call_status(proto::Op::kUnpublish, w.take(), timeout_from(info, ninfo, kDefaultTimeout));
}

// ---- connect / disconnect ----------------------------------------------------------------------

namespace {

pmix_status_t procs_op_nb(proto::Op op, const pmix_proc_t* procs, std::size_t nprocs,
                          const pmix_info_t* info, std::size_t ninfo, pmix_op_cbfunc_t cbfunc,
                          void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (procs == nullptr || nprocs == 0 || null_array_with_count(info, ninfo) || cbfunc == nullptr) {
        return PMIX_ERR_BAD_PARAM;
    }
    pmix_status_t rc = PMIX_SUCCESS;
    wire::Bytes payload = procs_info(procs, nprocs, info, ninfo, &rc);
    if (rc != PMIX_SUCCESS) return rc;
    return status_request_nb(op, std::move(payload), timeout_from(info, ninfo, kDefaultTimeout),
                             cbfunc, cbdata);
}

pmix_status_t procs_op(proto::Op op, const pmix_proc_t* procs, std::size_t nprocs,
                       const pmix_info_t* info, std::size_t ninfo) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (procs == nullptr || nprocs == 0 || null_array_with_count(info, ninfo)) return PMIX_ERR_BAD_PARAM;
    pmix_status_t rc = PMIX_SUCCESS;
    wire::Bytes payload = procs_info(procs, nprocs, info, ninfo, &rc);
    if (rc != PMIX_SUCCESS) return rc;
    return call_status(op, std::move(payload), timeout_from(info, ninfo, kDefaultTimeout));
}

}  // namespace

pmix_status_t connect(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                      std::size_t ninfo) {
    return procs_op(proto::Op::kConnect, procs, nprocs, info, ninfo);
}

pmix_status_t connect_nb(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                         std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return procs_op_nb(proto::Op::kConnect, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

pmix_status_t disconnect(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                         std::size_t ninfo) {
    return procs_op(proto::Op::kDisconnect, procs, nprocs, info, ninfo);
}

pmix_status_t disconnect_nb(const pmix_proc_t* procs, std::size_t nprocs, const pmix_info_t* info,
                            std::size_t ninfo, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    return procs_op_nb(proto::Op::kDisconnect, procs, nprocs, info, ninfo, cbfunc, cbdata);
}

// ---- log
// -----------------------------------------------------------------------------------------

pmix_status_t log_nb(const pmix_info_t* data, std::size_t ndata, const pmix_info_t* directives,
                     std::size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (data == nullptr || ndata == 0 || null_array_with_count(directives, ndirs)) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.infos(data, ndata).infos(directives, ndirs);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    auto timeout = timeout_from(directives, ndirs, kDefaultTimeout);
    if (cbfunc == nullptr) {  // fire and forget is allowed for log
        return request(proto::Op::kLog, w.take(), timeout, [](pmix_status_t, wire::Frame&&) {});
    }
    return status_request_nb(proto::Op::kLog, w.take(), timeout, cbfunc, cbdata);
}

pmix_status_t log(const pmix_info_t* data, std::size_t ndata, const pmix_info_t* directives,
                  std::size_t ndirs) {
    if (!initialized()) return PMIX_ERR_INIT;
    if (data == nullptr || ndata == 0 || null_array_with_count(directives, ndirs)) return PMIX_ERR_BAD_PARAM;
    proto::Writer w;
    w.infos(data, ndata).infos(directives, ndirs);
    if (w.status_code() != PMIX_SUCCESS) return w.status_code();
    return call_status(proto::Op::kLog, w.take(), timeout_from(directives, ndirs, kDefaultTimeout));
}

}  // namespace pmix::client
