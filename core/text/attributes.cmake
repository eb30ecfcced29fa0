# attributes.cmake - turns attribute #defines into the attribute dictionary.
#
# Run as a script at build time:
#   cmake -DPMIX_ATTR_HEADERS="a.h|b.h" -DPMIX_ATTR_OUT_CPP=x.cpp -DPMIX_ATTR_OUT_TSV=x.tsv
#         [-DPMIX_ATTR_PREFERRED="PMIX_A|PMIX_B"] -P attributes.cmake
#
# Every header in PMIX_ATTR_HEADERS is read in order (missing ones are skipped, so a header that
# another part of the project has not written yet does not break the build). A header whose file
# name contains "deprecated" marks its entries as deprecated. Two line shapes are understood:
#   ours    : #define PMIX_NAME "pmix.key" /* type: <C type> */ [/* remark */]
#   OpenPMIx: #define PMIX_NAME "pmix.key" // (<C type>) description
# The first is our include/pmix_attributes.h contract; the second lets us build the same table from
# Debian's OpenPMIx headers (PMIX_SYSTEM_HEADERS=ON, or before our headers exist).
#
# Outputs:
#   PMIX_ATTR_OUT_CPP: a C++ file defining pmix::text::detail::attribute_table(), entries in header
#                      order; the lookup indexes are sorted at compile time (attribute_index.h).
#   PMIX_ATTR_OUT_TSV: name<TAB>key<TAB>C type<TAB>type macro<TAB>deprecated(0/1), one per line, for
#                      tests and probes that want to walk the dictionary without compiling it.
#
# PMIX_ATTR_PREFERRED names the entries a reverse lookup (key -> name) must return when several
# names share one key string and our header order differs from the order OpenPMIx 4.2.2 uses.

cmake_minimum_required(VERSION 3.25)

foreach(var PMIX_ATTR_HEADERS PMIX_ATTR_OUT_CPP PMIX_ATTR_OUT_TSV)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "attributes.cmake: ${var} is required")
  endif()
endforeach()
string(REPLACE "|" ";" _headers "${PMIX_ATTR_HEADERS}")
string(REPLACE "|" ";" _preferred "${PMIX_ATTR_PREFERRED}")

# Key strings that look like attributes but are environment variable names; OpenPMIx's dictionary
# leaves them out, so must we.
set(_not_attributes PMIX_LAUNCHER_RNDZ_URI PMIX_LAUNCHER_RNDZ_FILE PMIX_KEEPALIVE_PIPE)

# C type as written in a header (spaces removed) -> the pmix_data_type_t OpenPMIx 4.2.2 records for
# it in its dictionary. Enum-like typedefs that travel as plain integers (scope, range, ...) are
# recorded as the integer type, exactly as OpenPMIx does; "varies" is recorded as PMIX_INT.
set(_type_map
  "bool=PMIX_BOOL" "char*=PMIX_STRING" "pmix_rank_t=PMIX_PROC_RANK"
  "uint8_t=PMIX_UINT8" "uint16_t=PMIX_UINT16" "uint32_t=PMIX_UINT32" "uint64_t=PMIX_UINT64"
  "int8_t=PMIX_INT8" "int16_t=PMIX_INT16" "int32_t=PMIX_INT32" "int64_t=PMIX_INT64"
  "int=PMIX_INT" "unsigned=PMIX_UINT" "size_t=PMIX_SIZE" "pid_t=PMIX_PID" "time_t=PMIX_TIME"
  "float=PMIX_FLOAT" "double=PMIX_DOUBLE"
  "pmix_data_array_t=PMIX_DATA_ARRAY" "pmix_data_array_t*=PMIX_DATA_ARRAY"
  "pmix_proc_t*=PMIX_PROC" "pmix_proc_t=PMIX_PROC"
  "pmix_coord_t*=PMIX_COORD" "pmix_coord_view_t=PMIX_UINT8"
  "pmix_byte_object_t=PMIX_BYTE_OBJECT" "pmix_byte_object_t*=PMIX_BYTE_OBJECT"
  "pmix_data_range_t=PMIX_UINT8" "pmix_persistence_t=PMIX_UINT8" "pmix_scope_t=PMIX_UINT8"
  "pmix_status_t=PMIX_STATUS" "pmix_envar_t*=PMIX_ENVAR" "pmix_envar_t=PMIX_ENVAR"
  "pmix_proc_state_t=PMIX_PROC_STATE" "pmix_link_state_t=PMIX_LINK_STATE"
  "pmix_topology_t=PMIX_TOPO" "pmix_topology_t*=PMIX_TOPO"
  "pmix_cpuset_t=PMIX_PROC_CPUSET" "pmix_cpuset_t*=PMIX_PROC_CPUSET"
  "pmix_geometry_t=PMIX_GEOMETRY" "pmix_geometry_t*=PMIX_GEOMETRY"
  "pmix_device_distance_t=PMIX_DEVICE_DIST" "pmix_device_distance_t*=PMIX_DEVICE_DIST"
  "pmix_endpoint_t=PMIX_ENDPOINT" "pmix_endpoint_t*=PMIX_ENDPOINT"
  "pmix_device_type_t=PMIX_DEVTYPE"
  "pmix_storage_accessibility_t=PMIX_UINT64" "pmix_storage_medium_t=PMIX_UINT64"
  "pmix_storage_persistence_t=PMIX_UINT64" "pmix_storage_access_type_t=PMIX_UINT16"
  "varies=PMIX_INT" "void*=PMIX_POINTER" "pointer=PMIX_POINTER" "hwloc_topology_t=PMIX_POINTER"
  "structevent_base*=PMIX_POINTER")

function(_pmix_type_macro ctype out)
  string(REPLACE " " "" _compact "${ctype}")
  foreach(pair IN LISTS _type_map)
    string(FIND "${pair}" "=" _eq REVERSE)
    string(SUBSTRING "${pair}" 0 ${_eq} _key)
    if(_key STREQUAL _compact)
      math(EXPR _start "${_eq} + 1")
      string(SUBSTRING "${pair}" ${_start} -1 _macro)
      set(${out} "${_macro}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# Splits one header into lines. Square brackets and semicolons are list syntax in CMake, and none
# of the three fields we extract can contain them, so they are neutralised before splitting.
function(_pmix_read_lines file out)
  file(READ "${file}" _text)
  string(REPLACE ";" "," _text "${_text}")
  string(REPLACE "[" "(" _text "${_text}")
  string(REPLACE "]" ")" _text "${_text}")
  string(REPLACE "\\" "/" _text "${_text}")
  string(REPLACE "\n" ";" _lines "${_text}")
  set(${out} "${_lines}" PARENT_SCOPE)
endfunction()

set(_define_re "^[ \t]*#[ \t]*define[ \t]+(PMIX_[A-Za-z0-9_]+)[ \t]+\"([^\"]*)\"(.*)$")
set(_cpp_entries "")
set(_tsv "")
set(_count 0)
set(_seen_names "")

foreach(header IN LISTS _headers)
  if(NOT EXISTS "${header}")
    continue()
  endif()
  get_filename_component(_base "${header}" NAME)
  set(_deprecated false)
  set(_dep01 0)
  if(_base MATCHES "deprecated")
    set(_deprecated true)
    set(_dep01 1)
  endif()
  _pmix_read_lines("${header}" _lines)
  foreach(line IN LISTS _lines)
    if(NOT line MATCHES "${_define_re}")
      continue()
    endif()
    set(_name "${CMAKE_MATCH_1}")
    set(_key "${CMAKE_MATCH_2}")
    set(_rest "${CMAKE_MATCH_3}")
    if(_name IN_LIST _not_attributes OR _name IN_LIST _seen_names)
      continue()
    endif()
    list(APPEND _seen_names "${_name}")
    set(_ctype "")
    if(_rest MATCHES "^[ \t]*/\\*[ \t]*type:[ \t]*(.*)$")
      # Cut at the end of the first block comment; the type itself may end in '*'.
      set(_after "${CMAKE_MATCH_1}")
      string(FIND "${_after}" "*/" _end)
      if(_end GREATER_EQUAL 0)
        string(SUBSTRING "${_after}" 0 ${_end} _ctype)
      endif()
    elseif(_rest MATCHES "^[ \t]*//[ \t]*\\(([^)]*)\\)")
      set(_ctype "${CMAKE_MATCH_1}")
    elseif(_name STREQUAL "PMIX_ATTR_UNDEF")
      set(_ctype "void*")  # the placeholder key carries no value; OpenPMIx records a pointer
    endif()
    string(STRIP "${_ctype}" _ctype)
    _pmix_type_macro("${_ctype}" _macro)
    if(_macro STREQUAL "")
      message(WARNING "attributes.cmake: ${_base}: ${_name} has unknown value type '${_ctype}';"
                      " recorded as PMIX_UNDEF")
      set(_macro "PMIX_UNDEF")
    endif()
    string(APPEND _cpp_entries
      "    {\"${_name}\", \"${_key}\", ${_macro}, \"${_ctype}\", ${_deprecated}},\n")
    string(APPEND _tsv "${_name}\t${_key}\t${_ctype}\t${_macro}\t${_dep01}\n")
    math(EXPR _count "${_count} + 1")
  endforeach()
endforeach()

if(_count EQUAL 0)
  message(FATAL_ERROR "attributes.cmake: no attribute found in ${PMIX_ATTR_HEADERS}")
endif()

set(_pref_entries "")
foreach(name IN LISTS _preferred)
  string(APPEND _pref_entries "    \"${name}\",\n")
endforeach()
list(LENGTH _preferred _npref)
string(REPLACE "|" ", " _sources "${PMIX_ATTR_HEADERS}")

set(_cpp "// Generated by core/text/attributes.cmake - do not edit.
// Sources (in order): ${_sources}
#include \"attribute_index.h\"

namespace pmix::text::detail {
namespace {

constexpr AttributeInfo kEntries[] = {
${_cpp_entries}};

constexpr std::array<std::string_view, ${_npref}> kPreferred{{
${_pref_entries}}};

constexpr auto kByName = sort_attribute_index(kEntries, &AttributeInfo::name, kPreferred);
constexpr auto kByString = sort_attribute_index(kEntries, &AttributeInfo::string, kPreferred);

}  // namespace

const AttributeTable& attribute_table() noexcept {
    static constexpr AttributeTable table{kEntries, kByName, kByString};
    return table;
}

}  // namespace pmix::text::detail
")

# Write only when the content changes, so an unrelated header edit does not rebuild the library.
foreach(pair "${PMIX_ATTR_OUT_CPP}=_cpp" "${PMIX_ATTR_OUT_TSV}=_tsv")
  string(FIND "${pair}" "=" _eq REVERSE)
  string(SUBSTRING "${pair}" 0 ${_eq} _path)
  math(EXPR _start "${_eq} + 1")
  string(SUBSTRING "${pair}" ${_start} -1 _var)
  set(_old "")
  if(EXISTS "${_path}")
    file(READ "${_path}" _old)
  endif()
  if(NOT _old STREQUAL "${${_var}}")
    file(WRITE "${_path}" "${${_var}}")
  endif()
endforeach()
