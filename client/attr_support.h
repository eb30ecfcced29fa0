// client/attr_support.h - PMIX_QUERY_ATTRIBUTE_SUPPORT: which attributes each API of this library
// acts on, for the client, tool and server levels (the host level is the host's business; it is
// answered only when a host registered some, which PMIx_Register_attributes cannot do yet).
//
// Layout of the answer, as OpenPMIx gives it: one info keyed PMIX_QUERY_ATTRIBUTE_SUPPORT whose
// value is an array of infos, one per qualifier:
//   qualifier PMIX_CLIENT_ATTRIBUTES (or SERVER_, TOOL_) = "PMIx_Get,PMIx_Fence" or "all":
//       one info per function, key = the function's name, value = an array of pmix_regattr_t
//       (macro name, key string, type; no description)
//   qualifier PMIX_CLIENT_FUNCTIONS (or SERVER_, TOOL_): key = the qualifier, value = the
//       comma-separated names of the functions listed for that level
// With no qualifier at all the answer lists the functions of every level.
#pragma once

#include <pmix_common.h>

#include <string>
#include <vector>

namespace pmix::client {

struct FunctionAttributes {
    const char* function;
    std::vector<const char*> attributes;  // macro names (PMIX_TIMEOUT, ...)
};

enum class AttrLevel { client, server, tool };
const std::vector<FunctionAttributes>& supported_attributes(AttrLevel level);

// Answers one PMIX_QUERY_ATTRIBUTE_SUPPORT query into `out`; false when nothing matched.
bool answer_attribute_support(const pmix_query_t& q, pmix_info_t* out);

}  // namespace pmix::client
