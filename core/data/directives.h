// core/data/directives.h - reading the pmix_info_t directives a caller passes to an operation,
// the same way everywhere in the library.
//
// Flags are read as OpenPMIx's PMIX_INFO_TRUE reads them: a PMIX_BOOL is its value; no value
// (PMIX_UNDEF, how Open MPI passes flags) is true; a string is true when empty, a non-zero number,
// "yes" or "true", false when zero, "no" or "false"; any other value is not true. And the
// PMIX_INFO_REQD rule: a directive the operation does not know is an error when marked required
// (the Standard: "the library must return an error if it cannot honour it") and ignored when
// optional.
#pragma once

#include <pmix_common.h>

#include <cstddef>
#include <span>

namespace pmix::data {

// True when the info's key is `key` (compared as pmix_key_t, at most PMIX_MAX_KEYLEN chars).
bool key_is(const pmix_info_t& info, const char* key) noexcept;
// The same for a key given as a string (query keys, attribute names).
bool key_is(const char* key, const char* name) noexcept;

// PMIX_INFO_TRUE of one info.
bool flag_true(const pmix_info_t& info) noexcept;

// PMIX_INFO_TRUE of the first of n infos named `key`; false when there is none.
bool info_true(const pmix_info_t* info, std::size_t n, const char* key) noexcept;

// The string of the first of n infos named `key`; nullptr when there is none, or its value is
// not a PMIX_STRING, or the string is NULL.
const char* string_of(const pmix_info_t* info, std::size_t n, const char* key) noexcept;

// The PMIX_INFO_REQD rule: the first of n infos that is marked required and whose key is not
// in `known`; nullptr when the operation can honour every required directive.
const pmix_info_t* unknown_required(const pmix_info_t* info, std::size_t n,
                                    std::span<const char* const> known) noexcept;

}  // namespace pmix::data
