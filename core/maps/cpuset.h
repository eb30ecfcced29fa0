// core/maps/cpuset.h - pmix_cpuset_t: the "hwloc:<cpu list>" string form, the caller's current
// binding, and release.
//
// The string form is OpenPMIx's: "hwloc:" followed by hwloc's list syntax of PU indices
// ("hwloc:0-3,8", "hwloc:" for the empty set). Hosts pass these strings between nodes, so the
// format must match exactly; the tests compare against Debian's OpenPMIx.
#pragma once

#include "base/result.h"

#include <hwloc.h>
#include <pmix_common.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace pmix::maps {

struct BitmapFree {
    void operator()(hwloc_bitmap_t bitmap) const noexcept { hwloc_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<hwloc_bitmap_s, BitmapFree>;

// Highest PU index a cpu list may name. Far above any real machine; it keeps a hostile
// "hwloc:4000000000" from allocating a half-gigabyte bitmap.
inline constexpr std::uint64_t kMaxCpuIndex = (std::uint64_t{1} << 20) - 1;

// "0-3,8" (hwloc list syntax; "4-" means "4 and above", "" the empty set) -> bitmap.
Result<Bitmap> parse_cpu_list(std::string_view list);

// PMIx_Parse_cpuset_string: "hwloc:<list>" (prefix case-insensitive). No ':' at all is
// PMIX_ERR_BAD_PARAM; another provider's prefix is PMIX_ERR_NOT_SUPPORTED; a malformed list is
// PMIX_ERR_BAD_PARAM (OpenPMIx silently yields an empty set).
Result<Bitmap> parse_cpuset_string(std::string_view text);

// PMIx_server_generate_cpuset_string: "hwloc:<list>". A NULL bitmap is PMIX_ERR_BAD_PARAM; a
// source other than hwloc is PMIX_ERR_NOT_SUPPORTED (a NULL source is taken to be hwloc, the only
// provider that can have produced the bitmap).
Result<std::string> cpuset_string(const pmix_cpuset_t& cpuset);

// PMIx_Get_cpuset: the PUs the calling process (PMIX_CPUBIND_PROCESS) or thread
// (PMIX_CPUBIND_THREAD) is bound to.
Result<Bitmap> current_binding(pmix_bind_envelope_t envelope);

// PMIx_Cpuset_destruct: frees the bitmap (when hwloc's) and the source, leaves both NULL.
void destruct_cpuset(pmix_cpuset_t& cpuset) noexcept;

}  // namespace pmix::maps
