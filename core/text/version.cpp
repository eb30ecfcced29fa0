// version.cpp - PMIx_Get_version.
//
// OpenPMIx answers "OpenPMIx 4.2.2rc2 (PMIx Standard: 4.2, Stable ABI: 0.0, Provisional ABI: 0.0)".
// Ours names this implementation first, says which ABI it provides, and keeps OpenPMIx's
// parenthesised fields so anything that parses them still finds them. Open MPI 4.1.4 refuses a
// version whose first character is '2' or lower, hence the leading letter.
#include "text/text.h"

#ifndef PMIX_TEXT_PROJECT_VERSION
#error "PMIX_TEXT_PROJECT_VERSION must be defined by the build (core/text/CMakeLists.txt)"
#endif

namespace pmix::text {
namespace {

constexpr const char kVersion[] = "PMIx-C++ " PMIX_TEXT_PROJECT_VERSION
                                  " (OpenPMIx 4.2.2 ABI, PMIx Standard: 4.2, Stable ABI: 0.0,"
                                  " Provisional ABI: 0.0)";
static_assert(kVersion[0] > '2', "Open MPI checks that the version begins above '2'");

}  // namespace

const char* version_string() noexcept { return kVersion; }

}  // namespace pmix::text
