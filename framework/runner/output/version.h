// pmubench's version: the one place it is written. CMake reads it from this
// line (the top-level CMakeLists.txt: project(VERSION), hence
// pmubenchConfigVersion.cmake and pmubench.pc), Bazel builds and the C++
// code include it (kVersion, the pmubench_version context pair). Keep the
// line's form: #define PMUBENCH_VERSION "MAJOR.MINOR.PATCH".
#ifndef PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_VERSION_H_
#define PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_VERSION_H_

#define PMUBENCH_VERSION "0.1.0"

#endif  // PMUBENCH_FRAMEWORK_RUNNER_OUTPUT_VERSION_H_
