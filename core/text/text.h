// text.h - human-readable names for PMIx values, the attribute dictionary and the version string.
//
// Every string here is part of the observable ABI: programs print them, log them and sometimes
// compare them, so each one is exactly what OpenPMIx 4.2.2 returns for the same input (the tables
// were produced from Debian's libpmix.so.2, see tests/unit/core/text/README.md). Unless stated
// otherwise a returned pointer refers to a string literal: never NULL, never freed, safe to share
// between threads.
#pragma once

#include <pmix_common.h>

#include <cstdint>
#include <span>
#include <string_view>

namespace pmix::text {

// --- pretty printers -----------------------------------------------------------------------

// PMIx_Error_string. Unknown codes give "ERROR STRING NOT FOUND".
const char* error_string(pmix_status_t status) noexcept;

// PMIx_Data_type_string, as OpenPMIx answers once initialised (every registered type by its macro
// name, anything else "UNKNOWN"). Used by core/data's printers too.
const char* data_type_string(pmix_data_type_t type) noexcept;

const char* proc_state_string(pmix_proc_state_t state) noexcept;
const char* job_state_string(pmix_job_state_t state) noexcept;
const char* scope_string(pmix_scope_t scope) noexcept;
const char* persistence_string(pmix_persistence_t persist) noexcept;
const char* data_range_string(pmix_data_range_t range) noexcept;
const char* alloc_directive_string(pmix_alloc_directive_t directive) noexcept;
const char* link_state_string(pmix_link_state_t state) noexcept;
const char* value_comparison_string(pmix_value_cmp_t cmp) noexcept;

// Exact device types only (OpenPMIx does not spell out combinations: they are "UNKNOWN").
const char* device_type_string(pmix_device_type_t type) noexcept;

// Flag sets. The result names every set flag OpenPMIx knows about, in its order and format.
// The C API hands out a malloc'd copy of info_directives_string() (callers free it) and the
// literal itself for iof_channel_string().
const char* info_directives_string(pmix_info_directives_t directives) noexcept;
const char* iof_channel_string(pmix_iof_channel_t channels) noexcept;

// PMIx_Get_version. Begins with a letter (Open MPI rejects a first character <= '2') and keeps
// OpenPMIx's parenthesised "PMIx Standard: x.y, ..." fields for tools that parse them.
const char* version_string() noexcept;

// --- attribute dictionary ------------------------------------------------------------------

// One attribute key, as declared in pmix_attributes.h (or pmix_deprecated.h).
struct AttributeInfo {
    const char* name;       // macro name, e.g. "PMIX_JOBID"
    const char* string;     // key string, e.g. "pmix.jobid"
    pmix_data_type_t type;  // value type as OpenPMIx's dictionary records it (PMIX_UNDEF: unknown)
    const char* c_type;     // C type written in the header, e.g. "uint32_t", "char*"
    bool deprecated;        // declared in pmix_deprecated.h
};

// Every attribute, in header order.
std::span<const AttributeInfo> attributes() noexcept;

// Lookups compare case-insensitively, as OpenPMIx does. When several names share one key string,
// by_string returns the one OpenPMIx returns. NULL when not found.
const AttributeInfo* find_attribute_by_name(std::string_view name) noexcept;
const AttributeInfo* find_attribute_by_string(std::string_view key) noexcept;

// PMIx_Get_attribute_string / PMIx_Get_attribute_name: the translated text, or - as in
// OpenPMIx - the argument itself when it is not in the dictionary. NULL in, NULL out.
const char* attribute_string(const char* name) noexcept;
const char* attribute_name(const char* key) noexcept;

}  // namespace pmix::text
