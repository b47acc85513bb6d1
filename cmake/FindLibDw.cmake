# FindLibDw: elfutils' libdw (Debian package libdw-dev), which pmubench_perf
# reads DWARF line tables with (framework/perf/symbols/source_lines.h). Gives the
# imported target LibDw::LibDw. Found by path, not pkg-config, so that a
# cross toolchain's CMAKE_LIBRARY_ARCHITECTURE picks the arm64 library.
find_path(LIBDW_INCLUDE_DIR elfutils/libdwfl.h)
find_library(LIBDW_LIBRARY dw)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(LibDw
  REQUIRED_VARS LIBDW_LIBRARY LIBDW_INCLUDE_DIR
  REASON_FAILURE_MESSAGE "install it with: apt-get install libdw-dev")
mark_as_advanced(LIBDW_INCLUDE_DIR LIBDW_LIBRARY)

if(LibDw_FOUND AND NOT TARGET LibDw::LibDw)
  add_library(LibDw::LibDw UNKNOWN IMPORTED)
  set_target_properties(LibDw::LibDw PROPERTIES
    IMPORTED_LOCATION "${LIBDW_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LIBDW_INCLUDE_DIR}")
endif()
