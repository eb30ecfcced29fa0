// PMIx_server_setup_application on the launcher's node, PMIx_server_setup_local_support on every
// node: the fabric plugins' contributions (forwarded environment, pre-assigned endpoints) travel
// from one to the other as an opaque packed info array (PMIx_Data_pack), as a real RM ships them
// inside its launch message.
#include "launcher.h"

#include <cstdlib>
#include <cstring>
#include <memory>

namespace pmix::launcher {
namespace {

constexpr auto kSetupTimeout = std::chrono::seconds(30);

struct AppResult {
    Waiter done;
    std::string packed;
};

void app_cb(pmix_status_t status, pmix_info_t info[], size_t ninfo, void* provided,
            pmix_op_cbfunc_t release, void* release_data) {
    auto* result = static_cast<AppResult*>(provided);
    pmix_status_t rc = status;
    if (rc == PMIX_SUCCESS) rc = pack_infos(info, ninfo, result->packed);
    if (release != nullptr) release(PMIX_SUCCESS, release_data);
    result->done.done(rc);
}

}  // namespace

std::string rank_list(uint32_t first, uint32_t count) {
    std::string list;
    for (uint32_t i = 0; i < count; ++i) list += (i ? "," : "") + std::to_string(first + i);
    return list;
}

GeneratedMaps::GeneratedMaps(const Layout& layout) {
    std::string node_names, ranks_per_node;
    for (size_t node = 0; node < layout.nodes.size(); ++node) {
        node_names += (node ? "," : "") + layout.nodes[node].name;
        ranks_per_node +=
            (node ? ";" : "") + rank_list(layout.first_rank[node], layout.rank_count[node]);
    }
    if (PMIx_generate_regex(node_names.c_str(), &node_map) != PMIX_SUCCESS)
        node_map = strdup(node_names.c_str());
    if (PMIx_generate_ppn(ranks_per_node.c_str(), &proc_map) != PMIX_SUCCESS)
        proc_map = strdup(ranks_per_node.c_str());
}

GeneratedMaps::~GeneratedMaps() {
    std::free(node_map);
    std::free(proc_map);
}

OwnedInfo::OwnedInfo(const pmix_info_t& source) {
    PMIX_INFO_CONSTRUCT(&info);
    (void)PMIx_Info_xfer(&info, &source);  // a failed copy is left empty (PMIX_UNDEF)
}

OwnedInfo::~OwnedInfo() { PMIX_INFO_DESTRUCT(&info); }

InfoList::InfoList() : list_(PMIx_Info_list_start()) {
    if (list_ == nullptr) status_ = PMIX_ERR_NOMEM;
}

InfoList::~InfoList() {
    if (array_.array != nullptr) PMIX_DATA_ARRAY_DESTRUCT(&array_);
    if (list_ != nullptr) PMIx_Info_list_release(list_);
}

void InfoList::add(const char* key, const void* value, pmix_data_type_t type) {
    if (status_ == PMIX_SUCCESS) status_ = PMIx_Info_list_add(list_, key, value, type);
}

pmix_status_t InfoList::convert() {
    if (status_ != PMIX_SUCCESS || array_.array != nullptr) return status_;
    status_ = PMIx_Info_list_convert(list_, &array_);
    return status_;
}

pmix_status_t pack_infos(const pmix_info_t* info, size_t ninfo, std::string& packed) {
    pmix_data_buffer_t buffer;
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
    size_t count = ninfo;
    pmix_status_t rc = PMIx_Data_pack(nullptr, &buffer, &count, 1, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && ninfo > 0)
        rc = PMIx_Data_pack(nullptr, &buffer, const_cast<pmix_info_t*>(info),
                            static_cast<int32_t>(ninfo), PMIX_INFO);
    if (rc == PMIX_SUCCESS) packed.assign(buffer.base_ptr, buffer.bytes_used);
    PMIX_DATA_BUFFER_DESTRUCT(&buffer);
    return rc;
}

pmix_status_t unpack_infos(const std::string& packed, pmix_info_t** info_out, size_t* ninfo_out) {
    *info_out = nullptr;
    *ninfo_out = 0;
    if (packed.empty()) return PMIX_SUCCESS;
    pmix_data_buffer_t buffer;
    PMIX_DATA_BUFFER_CONSTRUCT(&buffer);
    pmix_byte_object_t copy;
    copy.size = packed.size();
    copy.bytes = static_cast<char*>(std::malloc(copy.size));
    if (copy.bytes == nullptr) return PMIX_ERR_NOMEM;
    std::memcpy(copy.bytes, packed.data(), copy.size);
    PMIx_Data_load(&buffer, &copy);  // the buffer takes the bytes
    size_t ninfo = 0;
    int32_t one = 1;
    pmix_status_t rc = PMIx_Data_unpack(nullptr, &buffer, &ninfo, &one, PMIX_SIZE);
    if (rc == PMIX_SUCCESS && ninfo > 4096) rc = PMIX_ERR_UNPACK_FAILURE;
    pmix_info_t* info = nullptr;
    if (rc == PMIX_SUCCESS && ninfo > 0) {
        PMIX_INFO_CREATE(info, ninfo);
        auto count = static_cast<int32_t>(ninfo);
        rc = PMIx_Data_unpack(nullptr, &buffer, info, &count, PMIX_INFO);
    }
    PMIX_DATA_BUFFER_DESTRUCT(&buffer);
    if (rc != PMIX_SUCCESS) {
        if (info != nullptr) PMIX_INFO_FREE(info, ninfo);
        return rc;
    }
    *info_out = info;
    *ninfo_out = ninfo;
    return PMIX_SUCCESS;
}

pmix_status_t setup_application(const std::string& nspace, const Layout& layout,
                                const std::string& node_addrs, std::string& packed) {
    const GeneratedMaps maps(layout);
    const bool yes = true;
    auto info = std::make_unique<InfoList>();
    info->add(PMIX_NODE_MAP, maps.node_map, PMIX_STRING);
    info->add(PMIX_PROC_MAP, maps.proc_map, PMIX_STRING);
    info->add(PMIX_SETUP_APP_ALL, &yes, PMIX_BOOL);
    if (!node_addrs.empty()) info->add("pmix.cpp.node.addrs", node_addrs);
    pmix_status_t rc = info->convert();
    if (rc != PMIX_SUCCESS) return rc;
    // Static: a callback arriving after we gave up must still find a live object.
    static std::deque<AppResult> results;
    AppResult& result = results.emplace_back();
    pmix_nspace_t nspace_name;
    PMIX_LOAD_NSPACE(nspace_name, nspace.c_str());
    rc = PMIx_server_setup_application(nspace_name, info->info(), info->size(), app_cb, &result);
    if (rc == PMIX_SUCCESS)
        rc = result.done.wait_for(
            std::chrono::duration_cast<std::chrono::milliseconds>(kSetupTimeout));
    // OpenPMIx reads `info` on its own thread until it calls back (ASan caught it reading after the
    // call returned), so it lives until then; after a timeout it is left to the library.
    if (rc == PMIX_ERR_TIMEOUT) (void)info.release();
    if (rc == PMIX_SUCCESS) packed = result.packed;
    return rc;
}

pmix_status_t setup_local_support(const std::string& nspace, const std::string& packed) {
    pmix_info_t* info = nullptr;
    size_t ninfo = 0;
    if (pmix_status_t rc = unpack_infos(packed, &info, &ninfo); rc != PMIX_SUCCESS) return rc;
    static std::deque<Waiter> waiters;
    Waiter& waiter = waiters.emplace_back();
    pmix_nspace_t nspace_name;
    PMIX_LOAD_NSPACE(nspace_name, nspace.c_str());
    pmix_status_t rc =
        PMIx_server_setup_local_support(nspace_name, info, ninfo, Waiter::op_cb, &waiter);
    if (rc == PMIX_SUCCESS)
        rc = waiter.wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(kSetupTimeout));
    if (rc == PMIX_OPERATION_SUCCEEDED) rc = PMIX_SUCCESS;
    if (info != nullptr && rc != PMIX_ERR_TIMEOUT) PMIX_INFO_FREE(info, ninfo);  // as above
    return rc;
}

}  // namespace pmix::launcher
