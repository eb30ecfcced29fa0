// fabric/plugins/env/patterns.h - RFC0029's envar patterns: ';'-separated names in which '?'
// matches one character and a trailing '*' the rest of the name; a leading '^' makes an item an
// exclusion. "OMPI_MCA_*;UCX_TLS;^OMPI_MCA_secret" forwards every OMPI_MCA_ variable but one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pmix::fabric {

struct EnvPatterns {
    std::vector<std::string> include, exclude;
    // Adds the items of `list`; false with `why` set on a malformed item (nothing added then).
    bool add(std::string_view list, std::string& why);
    bool empty() const { return include.empty(); }
    bool matches(std::string_view name) const;
};

}  // namespace pmix::fabric
