# pmix_gtest_precompiled_header(): every test executable that links GoogleTest reads
# <gtest/gtest.h> from one precompiled header instead of parsing it again in each of its files.
# Why: parsing gtest.h is more than a third of a unit-test file's compile time (5.0 of 13.4 s for
# tests/unit/wire/test_frame.cpp with the dev flags on a loaded machine), over more than 100 test
# files per preset, and CI builds three presets on two cores. Measured on test_wire, test_codec and
# test_data (29 files, dev flags, no ccache): 82.5 s of CPU without, 62.0 s with (-25%).
# With ccache, set CCACHE_SLOPPINESS=pch_defines,time_macros or those files are not cached.
# With gtest.h ahead of them, GCC 12 at -O2 reports -Warray-bounds, -Wstringop-overflow and
# -Wstringop-overread on plain std::string operations inside libstdc++'s char_traits::copy in
# test files (std::string("NAME=") + value, vector<string>::insert of a literal: six files of
# test_client and test_tools; the inlining changes; GCC bugs 105651 and 106199), and warnings are
# errors. So these test executables compile without those middle-end warnings under GCC; the
# libraries keep them, and the tests run under ASan, which sees real overflows.
# How: one small executable (pmix_gtest_pch) owns the header; the test executables reuse it
# (REUSE_FROM), so it is compiled once per build with the same flags as they. A header that GCC
# or clang finds unusable for a file is simply parsed as text again: nothing can break, only the
# gain be lost. Called once, after every test directory is added (tests/CMakeLists.txt).

# All targets defined in DIR and its subdirectories.
function(_pmix_targets_below dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub ${subdirs})
    _pmix_targets_below(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

function(pmix_gtest_precompiled_header)
  if(PMIX_NO_TEST_PCH)
    return()
  endif()
  add_executable(pmix_gtest_pch ${PROJECT_SOURCE_DIR}/cmake/gtest_pch_main.cpp)
  target_link_libraries(pmix_gtest_pch PRIVATE GTest::gtest)
  target_precompile_headers(pmix_gtest_pch PRIVATE <gtest/gtest.h>)
  _pmix_targets_below(${CMAKE_CURRENT_SOURCE_DIR} targets)
  set(count 0)
  foreach(t ${targets})
    get_target_property(type ${t} TYPE)
    get_target_property(libs ${t} LINK_LIBRARIES)
    if(type STREQUAL "EXECUTABLE" AND NOT t STREQUAL "pmix_gtest_pch" AND libs MATCHES "GTest::")
      target_precompile_headers(${t} REUSE_FROM pmix_gtest_pch)
      if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        target_compile_options(${t} PRIVATE -Wno-array-bounds -Wno-stringop-overflow
                                                -Wno-stringop-overread -Wno-restrict)
      endif()
      math(EXPR count "${count} + 1")
    endif()
  endforeach()
  message(STATUS "gtest.h precompiled once for ${count} test executables")
endfunction()
