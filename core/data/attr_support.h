// core/data/attr_support.h - PMIX_QUERY_ATTRIBUTE_SUPPORT: which attributes each API of this
// library acts on, for the client, tool and server levels, and the host level: what the host
// environment registered with PMIx_Register_attributes in its server process. Shared by the
// client side (answers in the caller's process) and the server (answers its clients' and tools'
// host-level questions, which only the server process can).
//
// Layout of the answer, as OpenPMIx gives it: one info keyed PMIX_QUERY_ATTRIBUTE_SUPPORT whose
// value is an array of infos, one per qualifier:
//   qualifier PMIX_CLIENT_ATTRIBUTES (or SERVER_, TOOL_) = "PMIx_Get,PMIx_Fence" or "all":
//       one info per function, key = the function's name, value = an array of pmix_regattr_t
//       (macro name, key string, type; no description)
//   qualifier PMIX_CLIENT_FUNCTIONS (or SERVER_, TOOL_): key = the qualifier, value = the
//       comma-separated names of the functions listed for that level
//   qualifier PMIX_HOST_ATTRIBUTES / PMIX_HOST_FUNCTIONS: the same from the host's registrations
//       (the names it gave; key string and type from the dictionary where the name is known)
// With no qualifier at all the answer lists the functions of every level.
#pragma once

#include <pmix_common.h>

#include <string>
#include <vector>

namespace pmix::data {

struct FunctionAttributes {
    std::string function;
    std::vector<std::string> attributes;  // macro names (PMIX_TIMEOUT, ...)
};

enum class AttrLevel { client, server, tool, host };
// A copy of one level's table (the host level: what was registered so far).
std::vector<FunctionAttributes> supported_attributes(AttrLevel level);

// PMIx_Register_attributes: the host supports `attrs` (a NULL-terminated list of attribute
// names) for `function`. PMIX_ERR_BAD_PARAM for a NULL/empty function or over-long names;
// PMIX_ERR_REPEAT_ATTR_REGISTRATION when `function` was registered before (as OpenPMIx).
pmix_status_t register_host_attributes(const char* function, char* const attrs[]);
// Forgets every registration (server finalize).
void clear_host_attributes();

// True when `q` asks about the host level (PMIX_HOST_ATTRIBUTES / PMIX_HOST_FUNCTIONS).
bool asks_host_level(const pmix_query_t& q);

// Answers one PMIX_QUERY_ATTRIBUTE_SUPPORT query into `out`; false when nothing matched.
bool answer_attribute_support(const pmix_query_t& q, pmix_info_t* out);

}  // namespace pmix::data
