// tests/iof/tool_common.h - what the IOF test tools share once attached to a running pmixrun.
#pragma once
#include <pmix_tool.h>

#include <chrono>
#include <string>
#include <thread>

namespace iof_test {

// The job's namespace: the first of PMIX_QUERY_NAMESPACES ("" if none yet).
inline std::string job_nspace() {
    pmix_query_t q;
    PMIX_QUERY_CONSTRUCT(&q);
    char* keys[] = {const_cast<char*>(PMIX_QUERY_NAMESPACES), nullptr};
    q.keys = keys;
    pmix_info_t* res = nullptr;
    size_t n = 0;
    const pmix_status_t rc = PMIx_Query_info(&q, 1, &res, &n);
    q.keys = nullptr;
    PMIX_QUERY_DESTRUCT(&q);
    std::string first;
    if (rc == PMIX_SUCCESS && n > 0 && res[0].value.type == PMIX_STRING) {
        first = res[0].value.data.string;
        if (auto comma = first.find(','); comma != std::string::npos) first.resize(comma);
    }
    if (res != nullptr) PMIX_INFO_FREE(res, n);
    return first;
}

// The same, waiting up to 10 s: pmixrun registers its job after it starts listening.
inline std::string wait_job_nspace() {
    std::string ns = job_nspace();
    for (int i = 0; ns.empty() && i < 200; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ns = job_nspace();
    }
    return ns;
}

}  // namespace iof_test
