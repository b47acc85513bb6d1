# `cmake --install`: the public header as include/pmubench/pmubench.h
# (included as <pmubench/pmubench.h>), the runner headers it includes under
# include/pmubench/framework (with framework/pmubench.h, which forwards to
# it, for files that include that), framework/perf's headers, the
# libraries, the CMake package (find_package(pmubench) gives
# pmubench::pmubench, pmubench::pmubench_main and pmubench::pmubench_perf)
# and pmubench.pc for pkg-config.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(PMUBENCH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pmubench)

install(FILES ${PROJECT_SOURCE_DIR}/include/pmubench/pmubench.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pmubench)
# The runner's headers that <pmubench/pmubench.h> includes, and only those
# (tests/python/test_public_header.py checks that this is exactly what it
# includes): a case file sees registration and State, not the machinery.
set(PMUBENCH_PUBLIC_HEADERS
  framework/pmubench.h
  framework/runner/alloc/alloc_tally.h
  framework/runner/api/fixture.h
  framework/runner/api/registration.h
  framework/runner/api/registration_macros.h
  framework/runner/measure/loop_form.h
  framework/runner/measure/state.h
  framework/runner/output/version.h
  framework/runner/plan/case_registry.h
  framework/runner/plan/case_request.h
  framework/runner/run/build_info.h
  framework/runner/run/run_main.h
  framework/runner/simulate/callgrind_request.h)
foreach(header IN LISTS PMUBENCH_PUBLIC_HEADERS)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${PROJECT_SOURCE_DIR}/${header}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pmubench/${dir})
endforeach()
# pmubench_perf, the perf_event layer, is a library of its own: all of it.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/framework/perf
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pmubench/framework
        FILES_MATCHING PATTERN "*.h")

install(TARGETS pmubench_perf pmubench pmubench_main
        EXPORT pmubenchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT pmubenchTargets
        NAMESPACE pmubench::
        DESTINATION ${PMUBENCH_CMAKE_DIR})

configure_package_config_file(
  ${CMAKE_CURRENT_LIST_DIR}/pmubenchConfig.cmake.in
  ${PROJECT_BINARY_DIR}/pmubenchConfig.cmake
  INSTALL_DESTINATION ${PMUBENCH_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/pmubenchConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/pmubenchConfig.cmake
              ${PROJECT_BINARY_DIR}/pmubenchConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/FindLibDw.cmake
        DESTINATION ${PMUBENCH_CMAKE_DIR})

# Relocatable: the prefix is found from the .pc file's own directory, so
# `cmake --install --prefix P` gives a pmubench.pc that points into P.
file(RELATIVE_PATH PMUBENCH_PC_TO_PREFIX
     /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" PMUBENCH_PC_TO_PREFIX "${PMUBENCH_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/pmubench.pc.in
               ${PROJECT_BINARY_DIR}/pmubench.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/pmubench.pc
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
