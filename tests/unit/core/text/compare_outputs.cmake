# compare_outputs.cmake - runs the reference and the candidate probe with the same attribute
# lists and fails, showing a unified diff, unless their outputs agree line for line.
# PMIx_Get_version lines are dropped first: that string names the implementation on purpose.
# -DREFERENCE=exe -DCANDIDATE=exe -DLISTS="a.tsv|b.tsv" -DWORKDIR=dir
string(REPLACE "|" ";" _lists "${LISTS}")
# OpenPMIx's PMIx_tool_init leaks a little; in a sanitizer build only our side is leak-checked.
set(_env_REFERENCE ASAN_OPTIONS=detect_leaks=0)
foreach(side REFERENCE CANDIDATE)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${_env_${side}} ${${side}} ${_lists}
                  OUTPUT_VARIABLE _out ERROR_VARIABLE _err RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${${side}} failed (${_rc}): ${_err}")
  endif()
  string(REGEX REPLACE "PMIx_Get_version\t[^\n]*\n" "" _out "${_out}")
  string(REGEX MATCHALL "\n" _newlines "${_out}")
  list(LENGTH _newlines _count)
  message(STATUS "${side}: ${_count} lines")
  file(WRITE ${WORKDIR}/${side}.txt "${_out}")
  set(_text_${side} "${_out}")
endforeach()
if(NOT _text_REFERENCE STREQUAL _text_CANDIDATE)
  execute_process(COMMAND diff -u ${WORKDIR}/REFERENCE.txt ${WORKDIR}/CANDIDATE.txt)
  message(FATAL_ERROR "our libpmix prints differently from Debian's OpenPMIx (diff above)")
endif()
if(_count LESS 1000)
  message(FATAL_ERROR "suspiciously short output (${_count} lines)")
endif()
message(STATUS "identical")
