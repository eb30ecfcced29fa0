// PMIx_server_setup_application on the launcher's node, PMIx_server_setup_local_support on every
// node: the fabric plugins' contributions (forwarded environment, pre-assigned endpoints) travel
// from one to the other as an opaque packed info array (PMIx_Data_pack), as a real RM ships them
// inside its launch message.
#include "launcher.h"

#include <cstdlib>
#include <cstring>

namespace pmix::launcher {
namespace {

constexpr auto kSetupTimeout = std::chrono::seconds(30);

struct AppResult {
    Waiter done;
    std::string packed;
};

void app_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void* provided,
            pmix_op_cbfunc_t release, void* release_data) {
    auto* r = static_cast<AppResult*>(provided);
    pmix_status_t st = status;
    if (st == PMIX_SUCCESS) st = pack_infos(info, ninfo, r->packed);
    if (release != nullptr) release(PMIX_SUCCESS, release_data);
    r->done.done(st);
}

std::string join(const Layout& lay, bool ranks) {
    std::string s;
    for (size_t n = 0; n < lay.nodes.size(); ++n) {
        if (n > 0) s += ranks ? ";" : ",";
        if (!ranks) {
            s += lay.nodes[n].name;
            continue;
        }
        for (uint32_t i = 0; i < lay.count[n]; ++i)
            s += (i ? "," : "") + std::to_string(lay.first[n] + i);
    }
    return s;
}

}  // namespace

pmix_status_t pack_infos(const pmix_info_t* info, size_t ninfo, std::string& packed) {
    pmix_data_buffer_t buf;
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    size_t n = ninfo;
    pmix_status_t st = PMIx_Data_pack(nullptr, &buf, &n, 1, PMIX_SIZE);
    if (st == PMIX_SUCCESS && ninfo > 0)
        st = PMIx_Data_pack(nullptr, &buf, const_cast<pmix_info_t*>(info),
                            static_cast<int32_t>(ninfo), PMIX_INFO);
    if (st == PMIX_SUCCESS) packed.assign(buf.base_ptr, buf.bytes_used);
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    return st;
}

pmix_status_t unpack_infos(const std::string& packed, pmix_info_t** out, size_t* nout) {
    *out = nullptr;
    *nout = 0;
    if (packed.empty()) return PMIX_SUCCESS;
    pmix_data_buffer_t buf;
    PMIX_DATA_BUFFER_CONSTRUCT(&buf);
    pmix_byte_object_t bo;
    bo.size = packed.size();
    bo.bytes = static_cast<char*>(std::malloc(bo.size));
    if (bo.bytes == nullptr) return PMIX_ERR_NOMEM;
    std::memcpy(bo.bytes, packed.data(), bo.size);
    PMIx_Data_load(&buf, &bo);  // the buffer takes the bytes
    size_t ninfo = 0;
    int32_t one = 1;
    pmix_status_t rc = PMIx_Data_unpack(nullptr, &buf, &ninfo, &one, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && ninfo > 4096) rc = PMIX_ERR_UNPACK_FAILURE;
    pmix_info_t* info = nullptr;
    if (rc == PMIX_SUCCESS && ninfo > 0) {
        PMIX_INFO_CREATE(info, ninfo);
        auto cnt = static_cast<int32_t>(ninfo);
        rc = PMIx_Data_unpack(nullptr, &buf, info, &cnt, PMIX_INFO);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&buf);
    if (rc != PMIX_SUCCESS) {
        if (info != nullptr) PMIX_INFO_FREE(info, ninfo);
        return rc;
    }
    *out = info;
    *nout = ninfo;
    return PMIX_SUCCESS;
}

pmix_status_t setup_application(const std::string& nspace, const Layout& lay,
                                const std::string& node_addrs, std::string& packed) {
    char* nodemap = nullptr;
    char* procmap = nullptr;
    const std::string names = join(lay, false), ppn = join(lay, true);
    if (PMIx_generate_regex(names.c_str(), &nodemap) != PMIX_SUCCESS)
        nodemap = strdup(names.c_str());
    if (PMIx_generate_ppn(ppn.c_str(), &procmap) != PMIX_SUCCESS) procmap = strdup(ppn.c_str());
    const size_t ninfo = node_addrs.empty() ? 3 : 4;
    pmix_info_t* info = nullptr;
    PMIX_INFO_CREATE(info, ninfo);
    bool yes = true;
    PMIx_Info_load(&info[0], PMIX_NODE_MAP, nodemap, PMIX_STRING);
    PMIx_Info_load(&info[1], PMIX_PROC_MAP, procmap, PMIX_STRING);
    PMIx_Info_load(&info[2], PMIX_SETUP_APP_ALL, &yes, PMIX_BOOL);
    if (!node_addrs.empty())
        PMIx_Info_load(&info[3], "pmix.cpp.node.addrs", node_addrs.c_str(), PMIX_STRING);
    std::free(nodemap);
    std::free(procmap);
    // Static: a callback arriving after we gave up must still find a live object.
    static std::deque<AppResult> results;
    AppResult& r = results.emplace_back();
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace.c_str());
    pmix_status_t rc = PMIx_server_setup_application(ns, info, ninfo, app_cb, &r);
    if (rc == PMIX_SUCCESS)
        rc = r.done.wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(kSetupTimeout));
    // OpenPMIx reads `info` on its own thread until it calls back (ASan caught it reading after the
    // call returned), so it lives until then; after a timeout it is left to the library.
    if (rc != PMIX_ERR_TIMEOUT) PMIX_INFO_FREE(info, ninfo);
    if (rc == PMIX_SUCCESS) packed = r.packed;
    return rc;
}

pmix_status_t setup_local_support(const std::string& nspace, const std::string& packed) {
    pmix_info_t* info = nullptr;
    size_t ninfo = 0;
    if (pmix_status_t rc = unpack_infos(packed, &info, &ninfo); rc != PMIX_SUCCESS) return rc;
    static std::deque<Waiter> waiters;
    Waiter& w = waiters.emplace_back();
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, nspace.c_str());
    pmix_status_t rc = PMIx_server_setup_local_support(ns, info, ninfo, Waiter::op_cb, &w);
    if (rc == PMIX_SUCCESS)
        rc = w.wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(kSetupTimeout));
    if (rc == PMIX_OPERATION_SUCCEEDED) rc = PMIX_SUCCESS;
    if (info != nullptr && rc != PMIX_ERR_TIMEOUT) PMIX_INFO_FREE(info, ninfo);  // as above
    return rc;
}

}  // namespace pmix::launcher
