# cmake/package.cmake - `cpack -G DEB` builds libpmix2-cpp: our libpmix.so.2 in place of Debian's
# OpenPMIx 4.2.2 (package libpmix2), for every program that loads it from Debian's paths (Open MPI
# 4.1.4, Slurm's mpi/pmix plugin, python3-pmix) with no LD_LIBRARY_PATH.
#
# Debian's libpmix2 ships one real file, pmix2/lib/libpmix.so.2.6.2; libpmix.so.2 in pmix2/lib and
# in the multiarch directory, and libpmix-dev's libpmix.so (the path Slurm 22.05's plugin
# dlopen()s), are symbolic links to it. The package moves that one file aside with dpkg-divert
# (preinst) and ships ours under its name; removing the package moves Debian's file back (postrm),
# byte for byte. libpmix2 stays installed throughout: python3-pmix, libpmix-bin and libpmix-dev
# depend on libpmix2 (= 4.2.2-1+deb12u1) exactly, so a package that Provides, Conflicts and Replaces
# libpmix2 cannot be installed without breaking them (dpkg refuses it), and removing such a package
# would leave no libpmix at all. The MCA components, help files and pmix-mca-params.conf of libpmix2
# are OpenPMIx's own; our library reads none of them, so they stay as they are.
# Nothing here is installed by `cmake --install`: the file belongs to the "debian" component only.
if(NOT CMAKE_LIBRARY_ARCHITECTURE)
  message(STATUS "package: no multiarch directory (not Debian): no libpmix2-cpp package")
  return()
endif()

set(PMIX_DEB_NAME libpmix2-cpp)
# PMIX_DEB_LIBDIR is relative to CPACK_PACKAGING_INSTALL_PREFIX (/usr).
set(PMIX_DEB_LIBDIR lib/${CMAKE_LIBRARY_ARCHITECTURE}/pmix2/lib)
set(PMIX_DEB_FILE /usr/${PMIX_DEB_LIBDIR}/libpmix.so.2.6.2)      # Debian's real file, diverted
set(PMIX_DEB_DIVERTED ${PMIX_DEB_FILE}.openpmix)  # pmix2/lib is no ldconfig directory
install(FILES $<TARGET_FILE:pmix> DESTINATION ${PMIX_DEB_LIBDIR} RENAME libpmix.so.2.6.2
        COMPONENT debian EXCLUDE_FROM_ALL)
# install(FILES) is never stripped (only install(TARGETS) is, and it cannot rename); the dev build's
# debug information would make the library 31.9 MB instead of 1.3 MB (measured). As dh_strip does.
install(CODE "if(CMAKE_INSTALL_DO_STRIP)
  execute_process(COMMAND ${CMAKE_STRIP} --strip-unneeded
    \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${PMIX_DEB_LIBDIR}/libpmix.so.2.6.2\"
    COMMAND_ERROR_IS_FATAL ANY)
endif()" COMPONENT debian EXCLUDE_FROM_ALL)

# 4.2.2+cpp<commits>.g<hash>: the OpenPMIx version whose ABI we provide, then this tree's commit
# count (grows with every commit) and hash, as read when cmake configures.
set(_revision 0)
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-list --count HEAD OUTPUT_VARIABLE _count
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD OUTPUT_VARIABLE _hash
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(_count AND _hash)
    set(_revision ${_count}.g${_hash})
  endif()
endif()

foreach(_script preinst postrm triggers)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/debian/${_script} ${CMAKE_BINARY_DIR}/debian/${_script}
                 @ONLY)
  list(APPEND CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/debian/${_script})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ${PMIX_DEB_NAME})
set(CPACK_PACKAGE_CONTACT
    "PMIx-C++ maintainers <maintainers@users.noreply.a-seed-ace90ac8.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "PMIx-C++ in place of Debian's OpenPMIx 4.2.2 (libpmix.so.2)")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "Diverts libpmix2's libpmix.so.2.6.2 and installs PMIx-C++
at its path, so that Open MPI, Slurm's PMIx plugin and python3-pmix load
PMIx-C++. Removing this package restores Debian's library.")
set(CPACK_DEBIAN_PACKAGE_VERSION ${PROJECT_VERSION}+cpp${_revision})
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # libc6 (dpkg-shlibdeps; the C++ runtime is linked in)
# The diverted file name and the symbolic links are libpmix2 4.2.2's. libhwloc and zlib are
# opened on first use (capi/lazy_libs.cpp), so dpkg-shlibdeps cannot see them: named here.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libpmix2 (>= 4.2.2), libpmix2 (<< 4.2.3~), libhwloc15, zlib1g")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL debian)
set(CPACK_COMPONENTS_GROUPING ALL_COMPONENTS_IN_ONE)
set(CPACK_STRIP_FILES ON)
include(CPack)
