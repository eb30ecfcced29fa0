// tests/unit/server/live_server.cpp - the host module of the LiveServer fixture (live_server.h).
#include "live_server.h"

#include "wire/proto/message.h"

namespace live {

// malloc'd NULL-terminated string arrays, as setup_fork expects.
void env_append(char*** env, const char* entry) {
    std::size_t n = 0;
    while (*env != nullptr && (*env)[n] != nullptr) ++n;
    auto** grown = static_cast<char**>(std::realloc(*env, (n + 2) * sizeof(char*)));
    ASSERT_NE(grown, nullptr);
    grown[n] = strdup(entry);
    grown[n + 1] = nullptr;
    *env = grown;
}

void env_free(char** env) {
    for (char** e = env; e != nullptr && *e != nullptr; ++e) std::free(*e);
    std::free(env);
}

std::atomic<int> g_connected{0};
std::atomic<int> g_finalized{0};
std::atomic<int> g_fence_calls{0};
std::mutex g_fence_mutex;
std::vector<std::uint8_t> g_fence_blob;
std::vector<std::thread> g_fence_threads;

pmix_status_t on_connected(const pmix_proc_t*, void*, pmix_op_cbfunc_t, void*) {
    ++g_connected;
    return PMIX_SUCCESS;  // as Open MPI's host: success, and no callback
}

pmix_status_t on_finalized(const pmix_proc_t*, void*, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    ++g_finalized;
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, cbdata);
    return PMIX_SUCCESS;
}

// A host fence: answers from another thread with our blob plus a "remote" server's blob.
pmix_status_t host_fence(const pmix_proc_t[], size_t, const pmix_info_t[], size_t, char* data,
                         size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
    ++g_fence_calls;
    std::vector<std::uint8_t> all;
    {
        pmix::proto::Writer w;  // the other server's part comes first, as ORTE may send it
        pmix_proc_t remote;
        PMIX_LOAD_PROCID(&remote, "remote-ns", 5);
        pmix_info_t info;
        std::uint32_t v = 99;
        PMIX_INFO_LOAD(&info, "rk", &v, PMIX_UINT32);
        w.proc(remote).infos(&info, 1);
        PMIX_INFO_DESTRUCT(&info);
        all = w.take();
    }
    {
        std::lock_guard lock(g_fence_mutex);
        g_fence_blob.assign(data, data + ndata);
    }
    all.insert(all.end(), data, data + ndata);
    std::free(data);  // the host owns the contribution (as with OpenPMIx)
    std::lock_guard lock(g_fence_mutex);
    g_fence_threads.emplace_back([cbfunc, cbdata, all = std::move(all)] {
        cbfunc(PMIX_SUCCESS, reinterpret_cast<const char*>(all.data()), all.size(), cbdata, nullptr,
               nullptr);
    });
    return PMIX_SUCCESS;
}

std::atomic<int> g_dmodex_calls{0};

// A host direct modex: "far-ns":3 owns fk=42 (answered from another thread); a request for the
// key "slow" is never answered (the server's timeout must end it).
pmix_status_t host_direct_modex(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo,
                                pmix_modex_cbfunc_t cbfunc, void* cbdata) {
    ++g_dmodex_calls;
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strcmp(info[i].key, PMIX_TIMEOUT) == 0) return PMIX_SUCCESS;  // the slow one
    }
    pmix::proto::Writer w;
    pmix_info_t kv;
    std::uint32_t v = 42;
    PMIX_INFO_LOAD(&kv, "fk", &v, PMIX_UINT32);
    w.proc(*proc).infos(&kv, 1);
    PMIX_INFO_DESTRUCT(&kv);
    std::lock_guard lock(g_fence_mutex);
    g_fence_threads.emplace_back([cbfunc, cbdata, blob = w.take()] {
        cbfunc(PMIX_SUCCESS, reinterpret_cast<const char*>(blob.data()), blob.size(), cbdata,
               nullptr, nullptr);
    });
    return PMIX_SUCCESS;
}

std::atomic<int> g_published{0};
std::atomic<int> g_logged{0};
std::atomic<int> g_aborted{0};

pmix_status_t host_publish(const pmix_proc_t*, const pmix_info_t info[], size_t ninfo,
                           pmix_op_cbfunc_t cbfunc, void* cbdata) {
    // The client's info plus what the server adds: the caller's effective uid.
    bool euid = false;
    for (size_t i = 0; i < ninfo; ++i) {
        if (std::strcmp(info[i].key, PMIX_USERID) == 0 && info[i].value.data.uint32 == getuid())
            euid = true;
    }
    if (ninfo == 2 && std::strcmp(info[0].key, "pub.key") == 0 && euid) ++g_published;
    cbfunc(PMIX_SUCCESS, cbdata);  // synchronous answer from inside the upcall
    return PMIX_SUCCESS;
}

void host_log(const pmix_proc_t* client, const pmix_info_t[], size_t ndata,
              const pmix_info_t dirs[], size_t ndirs, pmix_op_cbfunc_t cbfunc, void* cbdata) {
    const bool source = ndirs == 1 && std::strcmp(dirs[0].key, PMIX_LOG_SOURCE) == 0 &&
                        dirs[0].value.type == PMIX_PROC &&
                        PMIX_CHECK_PROCID(dirs[0].value.data.proc, client);
    if (ndata == 1 && source) ++g_logged;
    cbfunc(PMIX_SUCCESS, cbdata);
}

pmix_status_t host_abort(const pmix_proc_t*, void*, int status, const char msg[], pmix_proc_t[],
                         size_t, pmix_op_cbfunc_t, void*) {
    if (status == 7 && std::strcmp(msg, "bye") == 0) ++g_aborted;
    return PMIX_OPERATION_SUCCEEDED;
}

}  // namespace live
