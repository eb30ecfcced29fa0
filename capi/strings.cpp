// strings.cpp - C entry points of the pretty printers and PMIx_Get_version.
//
// Thin shims over pmix::text (core/text). The C++ functions are noexcept; the guards keep the
// rule of shim_support.h without exceptions (a printer that cannot fail gives "" if it did).
#include <pmix.h>

#include <cstdlib>
#include <cstring>

#include "text/text.h"
#include "shim_support.h"

extern "C" {

const char* PMIx_Error_string(pmix_status_t status) {
    return pmix::capi::guarded_or<const char*>("",
                                               [&] { return pmix::text::error_string(status); });
}

const char* PMIx_Proc_state_string(pmix_proc_state_t state) {
    return pmix::capi::guarded_or<const char*>(
        "", [&] { return pmix::text::proc_state_string(state); });
}

const char* PMIx_Scope_string(pmix_scope_t scope) {
    return pmix::capi::guarded_or<const char*>("", [&] { return pmix::text::scope_string(scope); });
}

const char* PMIx_Persistence_string(pmix_persistence_t persist) {
    return pmix::capi::guarded_or<const char*>(
        "", [&] { return pmix::text::persistence_string(persist); });
}

const char* PMIx_Data_range_string(pmix_data_range_t range) {
    return pmix::capi::guarded_or<const char*>(
        "", [&] { return pmix::text::data_range_string(range); });
}

const char* PMIx_Data_type_string(pmix_data_type_t type) {
    return pmix::capi::guarded_or<const char*>("",
                                               [&] { return pmix::text::data_type_string(type); });
}

const char* PMIx_Alloc_directive_string(pmix_alloc_directive_t directive) {
    return pmix::capi::guarded_or<const char*>(
        "", [&] { return pmix::text::alloc_directive_string(directive); });
}

const char* PMIx_IOF_channel_string(pmix_iof_channel_t channel) {
    return pmix::capi::guarded_or<const char*>(
        "", [&] { return pmix::text::iof_channel_string(channel); });
}

const char* PMIx_Job_state_string(pmix_job_state_t state) {
    return pmix::capi::guarded_or<const char*>("",
                                               [&] { return pmix::text::job_state_string(state); });
}

const char* PMIx_Link_state_string(pmix_link_state_t state) {
    return pmix::capi::guarded_or<const char*>(
        "", [&] { return pmix::text::link_state_string(state); });
}

const char* PMIx_Device_type_string(pmix_device_type_t type) {
    return pmix::capi::guarded_or<const char*>(
        "", [&] { return pmix::text::device_type_string(type); });
}

const char* PMIx_Value_comparison_string(pmix_value_cmp_t cmp) {
    // Callers pass any integer (OpenPMIx answers "UNKNOWN VALUE" for those out of range). The
    // parameter is read once, as an integer, into the capture: loading an out-of-range value
    // through an enum lvalue (a by-reference capture) is what UBSan's -fsanitize=enum reports.
    return pmix::capi::guarded_or<const char*>("", [raw = static_cast<int>(cmp)] {
        return pmix::text::value_comparison_string(static_cast<pmix_value_cmp_t>(raw));
    });
}

// The one printer whose result the caller owns and frees (as in OpenPMIx). NULL if out of memory.
char* PMIx_Info_directives_string(pmix_info_directives_t directives) {
    return pmix::capi::guarded_or<char*>(
        nullptr, [&] { return strdup(pmix::text::info_directives_string(directives)); });
}

const char* PMIx_Get_version(void) {
    return pmix::capi::guarded_or<const char*>("", [&] { return pmix::text::version_string(); });
}

}  // extern "C"
