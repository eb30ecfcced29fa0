// core/data/names.cpp - words for print(). Everything pmix::text already spells is taken from
// there; the flag renderings below exist only in OpenPMIx's print functions, so they live here.
#include "data/names.h"

#include "text/text.h"

#include <initializer_list>
#include <utility>

namespace pmix::data::names {
namespace {

std::string join(std::initializer_list<std::pair<std::uint64_t, const char*>> words,
                 std::uint64_t flags) {
    std::string out;
    for (const auto& [bit, word] : words) {
        if ((flags & bit) != 0) {
            if (!out.empty()) {
                out += ':';
            }
            out += word;
        }
    }
    return out;
}

}  // namespace

const char* data_type(pmix_data_type_t type) noexcept { return text::data_type_string(type); }
const char* status(pmix_status_t status) noexcept { return text::error_string(status); }
const char* scope(pmix_scope_t scope) noexcept { return text::scope_string(scope); }
const char* data_range(pmix_data_range_t range) noexcept { return text::data_range_string(range); }
const char* proc_state(pmix_proc_state_t s) noexcept { return text::proc_state_string(s); }
const char* job_state(pmix_job_state_t s) noexcept { return text::job_state_string(s); }
const char* link_state(pmix_link_state_t s) noexcept { return text::link_state_string(s); }
const char* device_type(pmix_device_type_t t) noexcept { return text::device_type_string(t); }
const char* iof_channel(pmix_iof_channel_t c) noexcept { return text::iof_channel_string(c); }

const char* persistence(pmix_persistence_t persist) noexcept {
    return text::persistence_string(persist);
}

const char* alloc_directive(pmix_alloc_directive_t directive) noexcept {
    return text::alloc_directive_string(directive);
}

const char* info_directives(pmix_info_directives_t directives) noexcept {
    return text::info_directives_string(directives);
}

const char* attribute_name(const char* key) noexcept {
    const char* name = text::attribute_name(key);
    return name != nullptr ? name : key;
}

const char* rank(pmix_rank_t rank) noexcept {
    switch (rank) {
        case PMIX_RANK_UNDEF:
            return "PMIX_RANK_UNDEF";
        case PMIX_RANK_WILDCARD:
            return "PMIX_RANK_WILDCARD";
        case PMIX_RANK_LOCAL_NODE:
            return "PMIX_RANK_LOCAL_NODE";
        case PMIX_RANK_INVALID:
            return "PMIX_RANK_INVALID";
        case PMIX_RANK_LOCAL_PEERS:
            return "PMIX_RANK_LOCAL_PEERS";
        default:
            return nullptr;
    }
}

std::string locality(pmix_locality_t locality) {
    if (locality == PMIX_LOCALITY_UNKNOWN) {
        return "UNKNOWN";
    }
    if (locality == PMIX_LOCALITY_NONLOCAL) {
        return "NONLOCAL";
    }
    // OpenPMIx prints PACKAGE as "CORE" (a slip); we name it.
    return join({{PMIX_LOCALITY_SHARE_HWTHREAD, "HWTHREAD"},
                 {PMIX_LOCALITY_SHARE_CORE, "CORE"},
                 {PMIX_LOCALITY_SHARE_L1CACHE, "L1"},
                 {PMIX_LOCALITY_SHARE_L2CACHE, "L2"},
                 {PMIX_LOCALITY_SHARE_L3CACHE, "L3"},
                 {PMIX_LOCALITY_SHARE_PACKAGE, "PACKAGE"},
                 {PMIX_LOCALITY_SHARE_NUMA, "NUMA"},
                 {PMIX_LOCALITY_SHARE_NODE, "NODE"}},
                locality);
}

std::string storage_flags(pmix_data_type_t type, std::uint64_t flags) {
    switch (type) {
        case PMIX_STOR_MEDIUM:
            if ((flags & PMIX_STORAGE_MEDIUM_UNKNOWN) != 0) {
                return "UNKNOWN";
            }
            return join({{PMIX_STORAGE_MEDIUM_TAPE, "TAPE"},
                         {PMIX_STORAGE_MEDIUM_HDD, "HDD"},
                         {PMIX_STORAGE_MEDIUM_SSD, "SSD"},
                         {PMIX_STORAGE_MEDIUM_NVME, "NVME"},
                         {PMIX_STORAGE_MEDIUM_PMEM, "PMEM"},
                         {PMIX_STORAGE_MEDIUM_RAM, "RAM"}},
                        flags);
        case PMIX_STOR_ACCESS:
            return join({{PMIX_STORAGE_ACCESSIBILITY_NODE, "NODE"},
                         {PMIX_STORAGE_ACCESSIBILITY_SESSION, "SESSION"},
                         {PMIX_STORAGE_ACCESSIBILITY_JOB, "JOB"},
                         {PMIX_STORAGE_ACCESSIBILITY_RACK, "RACK"},
                         {PMIX_STORAGE_ACCESSIBILITY_CLUSTER, "CLUSTER"},
                         {PMIX_STORAGE_ACCESSIBILITY_REMOTE, "REMOTE"}},
                        flags);
        case PMIX_STOR_PERSIST:
            return join({{PMIX_STORAGE_PERSISTENCE_TEMPORARY, "TEMPORARY"},
                         {PMIX_STORAGE_PERSISTENCE_NODE, "NODE"},
                         {PMIX_STORAGE_PERSISTENCE_SESSION, "SESSION"},
                         {PMIX_STORAGE_PERSISTENCE_JOB, "JOB"},
                         {PMIX_STORAGE_PERSISTENCE_SCRATCH, "SCRATCH"},
                         {PMIX_STORAGE_PERSISTENCE_PROJECT, "PROJECT"},
                         {PMIX_STORAGE_PERSISTENCE_ARCHIVE, "ARCHIVE"}},
                        flags);
        default:
            return join({{PMIX_STORAGE_ACCESS_RD, "READ"}, {PMIX_STORAGE_ACCESS_WR, "WRITE"}},
                        flags);
    }
}

}  // namespace pmix::data::names
