// core/data/names.h - internal to core/data: the words print() puts in its output.
//
// Type names, status names, enum words and attribute names are core/text's (pmix::text), so
// PMIx_Data_print says exactly what PMIx_Data_type_string / PMIx_Error_string say. The renderings
// text has no function for (locality, storage flags, special ranks) live here.
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <string>

namespace pmix::data::names {

const char* data_type(pmix_data_type_t type) noexcept;
const char* status(pmix_status_t status) noexcept;
// The attribute's macro name (e.g. "PMIX_HOSTNAME" for "pmix.hname") when known, else `key`.
const char* attribute_name(const char* key) noexcept;

const char* scope(pmix_scope_t scope) noexcept;
const char* persistence(pmix_persistence_t persist) noexcept;
const char* data_range(pmix_data_range_t range) noexcept;
const char* proc_state(pmix_proc_state_t state) noexcept;
const char* job_state(pmix_job_state_t state) noexcept;
const char* link_state(pmix_link_state_t state) noexcept;
const char* alloc_directive(pmix_alloc_directive_t directive) noexcept;
const char* device_type(pmix_device_type_t type) noexcept;
const char* info_directives(pmix_info_directives_t directives) noexcept;
const char* iof_channel(pmix_iof_channel_t channel) noexcept;
const char* rank(pmix_rank_t rank) noexcept;  // nullptr for an ordinary rank

// Flag sets rendered as words joined by ':' (OpenPMIx's print functions do the same).
std::string locality(pmix_locality_t locality);
std::string storage_flags(pmix_data_type_t type, std::uint64_t flags);

}  // namespace pmix::data::names
