// core/data/envar.h - the Standard's environment directives (PMIX_SET_ENVAR, PMIX_ADD_ENVAR,
// PMIX_UNSET_ENVAR, PMIX_PREPEND_ENVAR, PMIX_APPEND_ENVAR, PMIX_FIRST_ENVAR): reading them from
// pmix_info_t arrays and applying them to an environment, with no I/O (the server's setup_fork
// uses it; tests/unit/core/data/test_envar.cpp pins the semantics).
//
// Semantics, as the Standard defines the attributes and as PRRTE (the launcher of OpenPMIx 4.2)
// applies them before its fork, one directive at a time in the order given:
//   SET      NAME=value, replacing any value.
//   ADD      NAME=value only if NAME is not set (an existing value is kept).
//   UNSET    removes NAME (a string, the variable's name); removing an unset name does nothing.
//   PREPEND  value<sep>old if NAME is set, else NAME=value.
//   APPEND   old<sep>value if NAME is set, else NAME=value.
//            Neither removes a copy of `value` already in the list: PRRTE does not, and the
//            Standard says only "prepend/append the given value using the separator".
//   FIRST    the Standard: "ensure the given value appears first in the specified envar using
//            the separator character, creating the envar if it does not already exist". Read
//            as: `value` becomes the first element and any other copy of it is removed (moved
//            to the front, where PREPEND would duplicate it); NAME=value if unset or empty.
// PMIX_ENVARS_HARVESTED ("the spawn requestor harvested the environment, the server need not")
// is a flag, not a directive: neither the library nor pmixrun harvests a requester's variables.
// The separator is required (non-NUL) for PREPEND, APPEND and FIRST.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace pmix::data {

enum class EnvarOp { set, add, unset, prepend, append, first };

struct EnvarDirective {
    EnvarOp op = EnvarOp::set;
    std::string name;
    std::string value;  // empty for unset
    char separator = '\0';
};

// Longest name and value accepted: Linux refuses an execve whose single "NAME=value" string is
// longer than MAX_ARG_STRLEN (32 pages, 131072 bytes), so a longer one could never reach a child.
inline constexpr std::size_t kMaxEnvarLength = 131072 - 2;

// True when `info` names one of the six directives.
bool is_envar_directive(const pmix_info_t& info) noexcept;

// One directive. PMIX_ERR_TYPE_MISMATCH when the value is not a PMIX_ENVAR (PMIX_STRING for
// UNSET); PMIX_ERR_BAD_PARAM for a NULL or empty name, a name with '=', a name plus value longer
// than kMaxEnvarLength, or a NUL separator where one joins values. `why` says which.
pmix_status_t read_envar_directive(const pmix_info_t& info, EnvarDirective& out, std::string& why);

// Every directive among n infos, in order (other keys are skipped); the first bad one fails the
// whole read, with its status and `why`.
pmix_status_t read_envar_directives(const pmix_info_t* info, std::size_t n,
                                    std::vector<EnvarDirective>& out, std::string& why);

// The variable's value after `d`, given its value before (nullopt: not set); nullopt: unset.
std::optional<std::string> envar_result(const EnvarDirective& d,
                                        const std::optional<std::string>& before);

// Applies `d` to an environment of "NAME=value" strings (the first entry of a name counts; any
// later duplicates of that name are removed with it).
void apply_envar(const EnvarDirective& d, std::vector<std::string>& env);

}  // namespace pmix::data
