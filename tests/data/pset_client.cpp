// A client of test_pset_host.cpp: watches the host define and delete process sets.
// Prints (one line each, flushed): "ready" once its handlers are registered; "define NAME r,r"
// for each of the first two PMIX_PROCESS_SET_DEFINE events (members' ranks); "names A,B" (its
// own PMIX_PSET_NAMES); "query N NAMES M" (PMIX_QUERY_NUM_PSETS, _PSET_NAMES and the size of
// the first set's PMIX_QUERY_PSET_MEMBERSHIP, answered by the library: the host has no query
// callback); "local-procs SUCCESS 0,1 NOT-FOUND" (PMIX_LOCAL_PROCS of nodes 0 and 7, also the
// library's); "defined-seen"; "delete NAME" on PMIX_PROCESS_SET_DELETE; "names-after A" (its
// PMIX_PSET_NAMES then); "default-handler K" (events its default handler got: the pset events
// are PMIX_EVENT_NON_DEFAULT); "done". Waits at most 15 s for each event.
#include <pmix.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace {

std::mutex mu;
std::condition_variable cv;
std::vector<std::string> defines, deletes;
int default_events = 0;

std::string ranks_of(const pmix_value_t& v) {
    std::string out;
    if (v.type != PMIX_DATA_ARRAY || v.data.darray->type != PMIX_PROC) return "?";
    auto* procs = static_cast<pmix_proc_t*>(v.data.darray->array);
    for (size_t i = 0; i < v.data.darray->size; ++i)
        out += (out.empty() ? "" : ",") + std::to_string(procs[i].rank);
    return out;
}

void on_pset(size_t, pmix_status_t code, const pmix_proc_t*, pmix_info_t info[], size_t ninfo,
             pmix_info_t*, size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    std::string name = "?", members;
    for (size_t i = 0; i < ninfo; ++i) {
        if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_NAME) && info[i].value.type == PMIX_STRING)
            name = info[i].value.data.string;
        if (PMIX_CHECK_KEY(&info[i], PMIX_PSET_MEMBERS)) members = ranks_of(info[i].value);
    }
    {
        std::lock_guard lock(mu);
        (code == PMIX_PROCESS_SET_DEFINE ? defines : deletes)
            .push_back(members.empty() ? name : name + " " + members);
    }
    cv.notify_all();
    if (cbfunc != nullptr) cbfunc(PMIX_EVENT_ACTION_COMPLETE, nullptr, 0, nullptr, nullptr, cbdata);
}

void on_default(size_t, pmix_status_t, const pmix_proc_t*, pmix_info_t*, size_t, pmix_info_t*,
                size_t, pmix_event_notification_cbfunc_fn_t cbfunc, void* cbdata) {
    {
        std::lock_guard lock(mu);
        ++default_events;
    }
    if (cbfunc != nullptr) cbfunc(PMIX_SUCCESS, nullptr, 0, nullptr, nullptr, cbdata);
}

std::string own_names(const pmix_proc_t& me) {
    pmix_value_t* v = nullptr;
    const pmix_status_t rc = PMIx_Get(&me, PMIX_PSET_NAMES, nullptr, 0, &v);
    if (rc != PMIX_SUCCESS) return PMIx_Error_string(rc);
    std::string out;
    if (v->type == PMIX_DATA_ARRAY && v->data.darray->type == PMIX_STRING) {
        auto** names = static_cast<char**>(v->data.darray->array);
        for (size_t i = 0; i < v->data.darray->size; ++i)
            out += (out.empty() ? "" : ",") + std::string(names[i]);
    }
    PMIX_VALUE_RELEASE(v);
    return out.empty() ? "(none)" : out;
}

std::string query_line() {
    pmix_query_t q[2];
    PMIX_QUERY_CONSTRUCT(&q[0]);
    PMIX_QUERY_CONSTRUCT(&q[1]);
    char* keys0[] = {const_cast<char*>(PMIX_QUERY_NUM_PSETS),
                     const_cast<char*>(PMIX_QUERY_PSET_NAMES), nullptr};
    char* keys1[] = {const_cast<char*>(PMIX_QUERY_PSET_MEMBERSHIP), nullptr};
    pmix_info_t qual;
    PMIX_INFO_LOAD(&qual, PMIX_PSET_NAME, "blue", PMIX_STRING);
    q[0].keys = keys0;
    q[1].keys = keys1;
    q[1].qualifiers = &qual;
    q[1].nqual = 1;
    pmix_info_t* results = nullptr;
    size_t n = 0;
    const pmix_status_t rc = PMIx_Query_info(q, 2, &results, &n);
    std::string count = "?", names = "?", members = "?";
    for (size_t i = 0; i < n; ++i) {
        if (PMIX_CHECK_KEY(&results[i], PMIX_QUERY_NUM_PSETS))
            count = std::to_string(results[i].value.data.size);
        if (PMIX_CHECK_KEY(&results[i], PMIX_QUERY_PSET_NAMES))
            names = results[i].value.data.string;
        if (PMIX_CHECK_KEY(&results[i], PMIX_QUERY_PSET_MEMBERSHIP))
            members = ranks_of(results[i].value);
    }
    PMIX_INFO_FREE(results, n);
    PMIX_INFO_DESTRUCT(&qual);
    return std::string(PMIx_Error_string(rc)) + " " + count + " " + names + " " + members;
}

// PMIX_LOCAL_PROCS of node 0 (the registered node array) and of node 7 (none): the library's
// answers. "STATUS RANKS STATUS".
std::string local_procs_line() {
    std::string out;
    for (uint32_t node : {0u, 7u}) {
        pmix_query_t q;
        PMIX_QUERY_CONSTRUCT(&q);
        char* keys[] = {const_cast<char*>(PMIX_LOCAL_PROCS), nullptr};
        pmix_info_t qual;
        PMIX_INFO_LOAD(&qual, PMIX_NODEID, &node, PMIX_UINT32);
        q.keys = keys;
        q.qualifiers = &qual;
        q.nqual = 1;
        pmix_info_t* results = nullptr;
        size_t n = 0;
        const pmix_status_t rc = PMIx_Query_info(&q, 1, &results, &n);
        out += (out.empty() ? "" : " ") + std::string(PMIx_Error_string(rc));
        if (node == 0) out += " " + (n == 1 ? ranks_of(results[0].value) : std::string("?"));
        PMIX_INFO_FREE(results, n);
        PMIX_INFO_DESTRUCT(&qual);
    }
    return out;
}

bool wait_for(const std::vector<std::string>& list, size_t count) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(15), [&] { return list.size() >= count; });
}

}  // namespace

int main() {
    pmix_proc_t me;
    if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return 1;
    pmix_status_t codes[] = {PMIX_PROCESS_SET_DEFINE, PMIX_PROCESS_SET_DELETE};
    if (PMIx_Register_event_handler(codes, 2, nullptr, 0, on_pset, nullptr, nullptr) < 0 ||
        PMIx_Register_event_handler(nullptr, 0, nullptr, 0, on_default, nullptr, nullptr) < 0)
        return 1;
    std::printf("ready\n");
    std::fflush(stdout);
    if (!wait_for(defines, 2)) std::printf("no define event\n");
    {
        std::lock_guard lock(mu);
        for (const std::string& d : defines) std::printf("define %s\n", d.c_str());
    }
    std::printf("names %s\nquery %s\nlocal-procs %s\ndefined-seen\n", own_names(me).c_str(),
                query_line().c_str(), local_procs_line().c_str());
    std::fflush(stdout);
    if (!wait_for(deletes, 1)) std::printf("no delete event\n");
    {
        std::lock_guard lock(mu);
        for (const std::string& d : deletes) std::printf("delete %s\n", d.c_str());
        std::printf("names-after %s\ndefault-handler %d\n", own_names(me).c_str(), default_events);
    }
    PMIx_Finalize(nullptr, 0);
    std::printf("done\n");
    return 0;
}
