# Cross-compiles pmubench for arm64 Linux with Debian's multiarch toolchain:
#   apt-get install g++-aarch64-linux-gnu qemu-user
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install libbenchmark-dev:arm64 libabsl-dev:arm64 libdw-dev:arm64 \
#     libgtest-dev:arm64 libgmock-dev:arm64
#   cmake -S . -B build/arm64 -DCMAKE_TOOLCHAIN_FILE=scripts/cmake/aarch64-linux-gnu.cmake
# scripts/pmu-vm build does all of this; scripts/pmu-vm test runs the result
# under an emulated arm64 PMU.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# The arm64 packages live beside the host's under /usr (multiarch): search
# /usr for libraries and headers, never the host's programs.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# gtest_discover_tests lists each arm64 test binary's tests on the host
# through qemu-user (package qemu-user), with the arm64 loader and libraries
# of the multiarch install.
find_program(PMUBENCH_QEMU_AARCH64 qemu-aarch64)
if(PMUBENCH_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${PMUBENCH_QEMU_AARCH64})
endif()
