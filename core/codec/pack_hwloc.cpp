// core/codec/pack_hwloc.cpp - PMIX_PROC_CPUSET (as hwloc's list string, e.g. "0-3,8") and
// PMIX_TOPO (as hwloc XML). Only hwloc-sourced objects can be packed, as in OpenPMIx; the
// receiver always gets source "hwloc". Both decoders check the text before hwloc sees it.
#include "codec/coders.h"

#include <hwloc.h>

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <strings.h>

namespace pmix::codec::detail {
namespace {

// Highest CPU index a received list may name. hwloc sizes a bitmap by its highest bit, so an
// unchecked "0-4000000000" would allocate half a gigabyte.
constexpr unsigned long kMaxCpuIndex = 1UL << 20;
// A node's XML is typically 10 KiB - 2 MiB; anything beyond this is not a topology we accept.
constexpr std::size_t kMaxTopologyXml = std::size_t{256} << 20;
// "<topology" alone is longer than this.
constexpr std::size_t kMinTopologyXml = 16;

bool from_hwloc(const char* source) noexcept {
    return source == nullptr || ::strncasecmp(source, "hwloc", 5) == 0;
}

// One decimal CPU index at `s` (advanced past it); false unless it is <= kMaxCpuIndex.
bool cpu_index(const char*& s) noexcept {
    if (std::isdigit(static_cast<unsigned char>(*s)) == 0) {
        return false;
    }
    char* end = nullptr;
    unsigned long v = std::strtoul(s, &end, 10);  // saturates at ULONG_MAX on overflow
    s = end;
    return v <= kMaxCpuIndex;
}

// Accepts hwloc's list syntax: comma-separated N, N-M or a trailing open range N-.
bool sane_cpu_list(const char* s) noexcept {
    if (*s == '\0') {
        return true;  // the empty set
    }
    for (;;) {
        if (!cpu_index(s)) {
            return false;
        }
        if (*s == '-') {
            ++s;
            if (*s != '\0' && !cpu_index(s)) {
                return false;
            }
        }
        if (*s == '\0') {
            return true;
        }
        if (*s++ != ',') {
            return false;
        }
    }
}

pmix_status_t pack_cpusets(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* cs = static_cast<const pmix_cpuset_t*>(elems);
    for (std::size_t i = 0; i < n; ++i) {
        if (!from_hwloc(cs[i].source)) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
        char* list = nullptr;
        if (cs[i].bitmap != nullptr &&
            hwloc_bitmap_list_asprintf(&list, static_cast<hwloc_const_bitmap_t>(cs[i].bitmap)) <
                0) {
            return PMIX_ERR_NOMEM;
        }
        pmix_status_t rc = pack_string(w, list);
        std::free(list);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

pmix_status_t unpack_one_cpuset(Reader& r, pmix_cpuset_t& cs) noexcept {
    char* list = nullptr;
    pmix_status_t rc = unpack_string(r, list);
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    if (list != nullptr && !sane_cpu_list(list)) {
        std::free(list);
        return wire::kCorrupt;
    }
    cs.source = ::strdup("hwloc");
    if (cs.source == nullptr) {
        std::free(list);
        return PMIX_ERR_NOMEM;
    }
    if (list != nullptr) {
        hwloc_bitmap_t bm = hwloc_bitmap_alloc();
        if (bm == nullptr) {
            rc = PMIX_ERR_NOMEM;
        } else if (hwloc_bitmap_list_sscanf(bm, list) < 0) {
            hwloc_bitmap_free(bm);
            rc = wire::kCorrupt;
        } else {
            cs.bitmap = bm;
        }
        std::free(list);
    }
    return rc;
}

pmix_status_t unpack_cpusets(Reader& r, void* elems, std::size_t n) noexcept {
    auto* cs = static_cast<pmix_cpuset_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_one_cpuset(r, cs[i]);
    }
    return rc;
}

pmix_status_t pack_topologies(Writer& w, const void* elems, std::size_t n) noexcept {
    const auto* tp = static_cast<const pmix_topology_t*>(elems);
    for (std::size_t i = 0; i < n; ++i) {
        if (!from_hwloc(tp[i].source)) {
            return PMIX_ERR_NOT_SUPPORTED;
        }
        auto topo = static_cast<hwloc_topology_t>(tp[i].topology);
        if (topo == nullptr) {
            if (pmix_status_t rc = pack_string(w, nullptr); rc != PMIX_SUCCESS) {
                return rc;
            }
            continue;
        }
        char* xml = nullptr;
        int len = 0;
        if (hwloc_topology_export_xmlbuffer(topo, &xml, &len, 0) != 0 || xml == nullptr) {
            return PMIX_ERROR;
        }
        pmix_status_t rc = pack_string(w, xml);
        hwloc_free_xmlbuffer(topo, xml);
        if (rc != PMIX_SUCCESS) {
            return rc;
        }
    }
    return PMIX_SUCCESS;
}

// True when `tag` carries attribute `name` (as ` name="`, any whitespace before it).
bool has_attr(std::string_view tag, std::string_view name) noexcept {
    for (std::size_t at = tag.find(name); at != std::string_view::npos;
         at = tag.find(name, at + 1)) {
        bool starts = at > 0 && std::isspace(static_cast<unsigned char>(tag[at - 1])) != 0;
        std::string_view rest = tag.substr(at + name.size());
        if (starts && rest.size() >= 2 && rest[0] == '=' && rest[1] == '"') {
            return true;
        }
    }
    return false;
}

// hwloc 2.9 dereferences NULL while loading XML in which an object has a cpuset (nodeset) but no
// complete_cpuset (complete_nodeset), which every real export writes in pairs. Found by fuzzing
// the decoder; such XML is refused before hwloc sees it.
bool sets_paired(const char* xml) noexcept {
    for (const char* p = std::strstr(xml, "<object"); p != nullptr;
         p = std::strstr(p + 1, "<object")) {
        const char* end = std::strchr(p, '>');
        if (end == nullptr) {
            return false;
        }
        std::string_view tag(p, static_cast<std::size_t>(end - p));
        if ((has_attr(tag, "cpuset") && !has_attr(tag, "complete_cpuset")) ||
            (has_attr(tag, "nodeset") && !has_attr(tag, "complete_nodeset"))) {
            return false;
        }
    }
    return true;
}

// Flags for a received topology: the same node family, so binding calls may act on it (as in
// OpenPMIx), and the sender's support bits come along (its XML carries them since hwloc 2.3).
constexpr unsigned long kImportFlags = HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM |
                                       HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED
#if HWLOC_API_VERSION >= 0x00020300
                                       | HWLOC_TOPOLOGY_FLAG_IMPORT_SUPPORT
#endif
    ;

// Build a topology from received XML; nullptr when hwloc refuses it.
hwloc_topology_t load_xml(const char* xml, std::size_t len) noexcept {
    hwloc_topology_t t = nullptr;
    if (hwloc_topology_init(&t) != 0) {
        return nullptr;
    }
    // Keep every object the sender exported, so the topology survives the trip unchanged.
    bool ok = hwloc_topology_set_all_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL) == 0 &&
              hwloc_topology_set_xmlbuffer(t, xml, static_cast<int>(len + 1)) == 0 &&
              hwloc_topology_set_flags(t, kImportFlags) == 0 && hwloc_topology_load(t) == 0;
    if (!ok) {
        hwloc_topology_destroy(t);
        return nullptr;
    }
    return t;
}

pmix_status_t unpack_one_topology(Reader& r, pmix_topology_t& tp) noexcept {
    char* xml = nullptr;
    pmix_status_t rc = unpack_string(r, xml);  // NUL-terminated, no embedded NUL
    if (rc != PMIX_SUCCESS) {
        return rc;
    }
    hwloc_topology_t topo = nullptr;
    if (xml != nullptr) {
        std::size_t len = std::strlen(xml);
        if (len < kMinTopologyXml || len > kMaxTopologyXml || xml[0] != '<' || !sets_paired(xml)) {
            std::free(xml);
            return wire::kCorrupt;
        }
        topo = load_xml(xml, len);
        std::free(xml);
        if (topo == nullptr) {
            return wire::kCorrupt;
        }
    }
    tp.source = ::strdup("hwloc");
    if (tp.source == nullptr) {
        if (topo != nullptr) {
            hwloc_topology_destroy(topo);
        }
        return PMIX_ERR_NOMEM;
    }
    tp.topology = topo;
    return PMIX_SUCCESS;
}

pmix_status_t unpack_topologies(Reader& r, void* elems, std::size_t n) noexcept {
    auto* tp = static_cast<pmix_topology_t*>(elems);
    pmix_status_t rc = PMIX_SUCCESS;
    for (std::size_t i = 0; rc == PMIX_SUCCESS && i < n; ++i) {
        rc = unpack_one_topology(r, tp[i]);
    }
    return rc;
}

constexpr Coder k_cpuset{sizeof(pmix_cpuset_t), 4, pack_cpusets, unpack_cpusets};
constexpr Coder k_topo{sizeof(pmix_topology_t), 4, pack_topologies, unpack_topologies};

}  // namespace

const Coder* hwloc_coder(pmix_data_type_t type) noexcept {
    switch (type) {
        case PMIX_PROC_CPUSET:
            return &k_cpuset;
        case PMIX_TOPO:
            return &k_topo;
        default:
            return nullptr;
    }
}

}  // namespace pmix::codec::detail
