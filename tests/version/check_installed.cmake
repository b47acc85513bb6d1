# version.installed: installs this build into a prefix of its own and checks
# that the version the installed package files give (pmubenchConfigVersion
# .cmake for find_package, pmubench.pc for pkg-config) and the installed
# version.h are the number framework/runner/output/version.h holds.
#
#   cmake -DHEADER=<source>/framework/runner/output/version.h -DBUILD_DIR=<build>
#         -DPREFIX=<empty directory> -P check_installed.cmake
foreach(var HEADER BUILD_DIR PREFIX)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_installed.cmake: -D${var}= is required")
  endif()
endforeach()

function(version_of_header path out)
  file(STRINGS ${path} line REGEX "^#define PMUBENCH_VERSION \"")
  if(NOT line MATCHES "^#define PMUBENCH_VERSION \"([0-9]+\\.[0-9]+\\.[0-9]+)\"$")
    message(FATAL_ERROR "${path}: no #define PMUBENCH_VERSION \"X.Y.Z\" line")
  endif()
  set(${out} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

version_of_header(${HEADER} expected)
message(STATUS "framework/runner/output/version.h: ${expected}")

file(REMOVE_RECURSE ${PREFIX})
execute_process(
  COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
  OUTPUT_QUIET RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed (${rc}): ${err}")
endif()

set(failures "")

# find_package(pmubench X.Y.Z): the version file sets PACKAGE_VERSION and,
# asked for exactly the header's number, PACKAGE_VERSION_EXACT.
file(GLOB_RECURSE config_version ${PREFIX}/*/pmubenchConfigVersion.cmake)
if(NOT config_version)
  message(FATAL_ERROR "no pmubenchConfigVersion.cmake installed under ${PREFIX}")
endif()
set(PACKAGE_FIND_VERSION ${expected})
string(REPLACE "." ";" parts ${expected})
list(GET parts 0 PACKAGE_FIND_VERSION_MAJOR)
list(GET parts 1 PACKAGE_FIND_VERSION_MINOR)
list(GET parts 2 PACKAGE_FIND_VERSION_PATCH)
set(PACKAGE_FIND_VERSION_COUNT 3)
set(PACKAGE_FIND_VERSION_RANGE FALSE)
include(${config_version})
message(STATUS "pmubenchConfigVersion.cmake: ${PACKAGE_VERSION}")
if(NOT PACKAGE_VERSION STREQUAL expected OR NOT PACKAGE_VERSION_EXACT)
  string(APPEND failures
         "\n  ${config_version}: PACKAGE_VERSION ${PACKAGE_VERSION}")
endif()

# pkg-config --modversion pmubench: the .pc file's Version: line.
file(GLOB_RECURSE pc ${PREFIX}/*/pmubench.pc)
if(NOT pc)
  message(FATAL_ERROR "no pmubench.pc installed under ${PREFIX}")
endif()
file(STRINGS ${pc} pc_version REGEX "^Version: ")
string(REGEX REPLACE "^Version: *" "" pc_version "${pc_version}")
message(STATUS "pmubench.pc: ${pc_version}")
if(NOT pc_version STREQUAL expected)
  string(APPEND failures "\n  ${pc}: Version: ${pc_version}")
endif()

# The installed header the C++ code reads (kVersion).
file(GLOB_RECURSE installed_header
     ${PREFIX}/include/pmubench/framework/runner/output/version.h)
if(NOT installed_header)
  string(APPEND failures "\n  no include/pmubench/framework/runner/output/version.h installed")
else()
  version_of_header(${installed_header} installed)
  message(STATUS "installed version.h: ${installed}")
  if(NOT installed STREQUAL expected)
    string(APPEND failures "\n  ${installed_header}: ${installed}")
  endif()
endif()

file(REMOVE_RECURSE ${PREFIX})
if(failures)
  message(FATAL_ERROR
          "installed version differs from framework/runner/output/version.h "
          "(${expected}):${failures}")
endif()
