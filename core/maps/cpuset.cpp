// core/maps/cpuset.cpp - see cpuset.h.
#include "maps/cpuset.h"

#include "maps/ranges.h"
#include "maps/topology.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace pmix::maps {

Result<Bitmap> parse_cpu_list(std::string_view list) {
    using Result = Result<Bitmap>;
    auto ranges = parse_range_list(list, kMaxCpuIndex, "cpu list", /*allow_open=*/true);
    if (!ranges.ok()) {
        return forward_failure<Bitmap>(ranges);
    }
    Bitmap bitmap(hwloc_bitmap_alloc());
    if (!bitmap) {
        return Result::failure(PMIX_ERR_NOMEM, "hwloc_bitmap_alloc failed");
    }
    for (const auto& r : ranges.value) {
        // hwloc's -1 end means "to infinity", the meaning of an open "4-".
        const int last = r.open ? -1 : static_cast<int>(r.last);
        if (hwloc_bitmap_set_range(bitmap.get(), static_cast<unsigned>(r.first), last) != 0) {
            return Result::failure(PMIX_ERR_NOMEM, "hwloc_bitmap_set_range failed");
        }
    }
    return Result::success(std::move(bitmap));
}

Result<Bitmap> parse_cpuset_string(std::string_view text) {
    using Result = Result<Bitmap>;
    const auto colon = text.find(':');
    if (colon == std::string_view::npos) {
        return Result::failure(PMIX_ERR_BAD_PARAM, "cpuset string '" + std::string(text) +
                                                       "' has no '<provider>:' prefix");
    }
    const std::string provider(text.substr(0, colon));
    if (!is_hwloc_source(provider.c_str())) {
        return Result::failure(PMIX_ERR_NOT_SUPPORTED,
                               "cpuset provider '" + provider + "' is not supported (only hwloc)");
    }
    return parse_cpu_list(text.substr(colon + 1));
}

Result<std::string> cpuset_string(const pmix_cpuset_t& cpuset) {
    using Result = Result<std::string>;
    if (cpuset.bitmap == nullptr) {
        return Result::failure(PMIX_ERR_BAD_PARAM, "cpuset has no bitmap");
    }
    if (cpuset.source != nullptr && !is_hwloc_source(cpuset.source)) {
        return Result::failure(PMIX_ERR_NOT_SUPPORTED, std::string("cpuset provider '") +
                                                           cpuset.source + "' is not supported");
    }
    char* list = nullptr;
    if (hwloc_bitmap_list_asprintf(&list, static_cast<hwloc_const_bitmap_t>(cpuset.bitmap)) < 0 ||
        list == nullptr) {
        return Result::failure(PMIX_ERR_NOMEM, "hwloc_bitmap_list_asprintf failed");
    }
    std::string text = std::string("hwloc:") + list;
    std::free(list);
    return Result::success(std::move(text));
}

Result<Bitmap> current_binding(pmix_bind_envelope_t envelope) {
    using Result = Result<Bitmap>;
    int flags = 0;
    if (envelope == PMIX_CPUBIND_PROCESS) {
        flags = HWLOC_CPUBIND_PROCESS;
    } else if (envelope == PMIX_CPUBIND_THREAD) {
        flags = HWLOC_CPUBIND_THREAD;
    } else {
        return Result::failure(PMIX_ERR_BAD_PARAM,
                               "bind envelope " + std::to_string(envelope) + " is unknown");
    }
    auto topology = node_topology();
    if (!topology.ok()) {
        return forward_failure<Bitmap>(topology);
    }
    Bitmap bitmap(hwloc_bitmap_alloc());
    if (!bitmap) {
        return Result::failure(PMIX_ERR_NOMEM, "hwloc_bitmap_alloc failed");
    }
    if (hwloc_get_cpubind(topology.value.topology, bitmap.get(), flags) != 0) {
        return Result::failure(PMIX_ERR_NOT_SUPPORTED,
                               std::string("hwloc_get_cpubind failed: ") + std::strerror(errno));
    }
    return Result::success(std::move(bitmap));
}

void destruct_cpuset(pmix_cpuset_t& cpuset) noexcept {
    if (cpuset.bitmap != nullptr && (cpuset.source == nullptr || is_hwloc_source(cpuset.source))) {
        hwloc_bitmap_free(static_cast<hwloc_bitmap_t>(cpuset.bitmap));
    }
    cpuset.bitmap = nullptr;
    std::free(cpuset.source);
    cpuset.source = nullptr;
}

}  // namespace pmix::maps
