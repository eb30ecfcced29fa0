# Each library target exposes its own folder's headers and nothing else, so that an #include across
# a dependency not declared in CMake fails to compile (the allowed edges: tests/arch/allowed_edges.txt).
#
# Headers are included by folder ("wire/connection.h", "data/value.h"), which needs an include
# directory holding a folder of that name. The project root (or core/) would expose every folder to
# every target; instead each target gets its own root in the build tree, <build>/include_roots/
# <target>/<prefix>/, holding one symbolic link per header of its folder. Only headers are linked and
# only that folder's own, not its subfolders (wire/proto and fabric/plugins are other targets), unless
# RECURSE says the subfolders belong to the target.
#
# pmix_include_root(<target> <prefix> [DIR <folder>] [RECURSE])
#   <prefix>  how dependents name the folder: "wire" for "wire/x.h", "wire/proto", "data", ...
#   DIR       the folder whose headers are exposed (default: the current source directory)
#   RECURSE   also the headers of its subfolders, under the same relative paths
# The root is a PUBLIC include directory of <target> (its own sources include their headers the
# same way) and a BUILD_INTERFACE one only: nothing of it reaches an installed export.
function(pmix_include_root target prefix)
  cmake_parse_arguments(PARSE_ARGV 2 arg "RECURSE" "DIR" "")
  if(NOT arg_DIR)
    set(arg_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  set(root ${PROJECT_BINARY_DIR}/include_roots/${target})
  if(arg_RECURSE)
    file(GLOB_RECURSE headers CONFIGURE_DEPENDS RELATIVE ${arg_DIR} ${arg_DIR}/*.h)
  else()
    file(GLOB headers CONFIGURE_DEPENDS RELATIVE ${arg_DIR} ${arg_DIR}/*.h)
  endif()
  # Rebuilt at every configure, so a removed or renamed header does not stay includable. Ninja
  # follows the links when it checks timestamps, so re-creating them rebuilds nothing.
  file(REMOVE_RECURSE ${root})
  foreach(header ${headers})
    set(link ${root}/${prefix}/${header})
    get_filename_component(link_dir ${link} DIRECTORY)
    file(MAKE_DIRECTORY ${link_dir})
    file(CREATE_LINK ${arg_DIR}/${header} ${link} SYMBOLIC)
  endforeach()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")  # header-only (core/base): there is no "own source"
    target_include_directories(${target} INTERFACE $<BUILD_INTERFACE:${root}>)
  else()
    target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${root}>)
  endif()
endfunction()
