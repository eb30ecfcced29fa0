// core/codec/coders.cpp - the type -> Coder dispatch over the family tables.
#include "codec/coders.h"

#include <array>
#include <cstddef>
#include <initializer_list>

namespace pmix::codec::detail {
namespace {

// Above the highest type number we know (PMIX_STOR_ACCESS_TYPE is 69); anything beyond is
// unknown without a lookup.
constexpr std::size_t kTypeLimit = 128;

}  // namespace

const Coder* coder_for(pmix_data_type_t type) noexcept {
    // Built once from the family lookups (each answers only for its own types), then a plain
    // index: nested values look their type up once per element.
    static const std::array<const Coder*, kTypeLimit> table = [] {
        std::array<const Coder*, kTypeLimit> t{};
        for (std::size_t i = 0; i < t.size(); ++i) {
            auto type_i = static_cast<pmix_data_type_t>(i);
            for (auto family : {scalar_coder, string_coder, struct_coder, nested_coder, stats_coder,
                                hwloc_coder}) {
                if (t[i] == nullptr) {
                    t[i] = family(type_i);
                }
            }
        }
        return t;
    }();
    return type < table.size() ? table[type] : nullptr;
}

pmix_status_t pack_elements(Writer& w, const void* elems, std::size_t n,
                            pmix_data_type_t type) noexcept {
    const Coder* c = coder_for(type);
    if (c == nullptr) {
        return PMIX_ERR_UNKNOWN_DATA_TYPE;
    }
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    return c->pack(w, elems, n);
}

pmix_status_t unpack_elements(Reader& r, void* elems, std::size_t n,
                              pmix_data_type_t type) noexcept {
    const Coder* c = coder_for(type);
    if (c == nullptr) {
        return wire::kCorrupt;
    }
    if (n == 0) {
        return PMIX_SUCCESS;
    }
    return c->unpack(r, elems, n);
}

}  // namespace pmix::codec::detail
